"""Check that every translation matches the English edition, page by page.

For each edition under ``chapters/<lang>/`` other than English, each page that
``_toc.yml`` lists (notebook or ``.md`` page) is compared with its English
original, cell by cell:

- the cells: same number, order, kind, ``metadata.tags``, ids and framework
  marks (``#@tab``, ``:begin_tab:``; see ``booktools.frameworks``), so every
  framework's cells are covered;
- code cells: the same parsed code (comments and docstrings are free to differ),
  with ``#@save`` on the same statements, and the same stored outputs (only
  their kinds where nbval ignores them);
- markdown: the same math blocks and labels, inline math, MyST labels, role
  targets, directives, heading levels and URLs;
- the glossary ``chapters/glossary.yml``: no banned variant anywhere, and the
  chosen term in each markdown cell whose English original names the concept;
- prose left in English: a sentence identical to the English one (see
  :func:`copied_from_english`) or full of English function words (see
  :func:`looks_english`), in markdown, comments and docstrings.

Problems are reported as ``<file>, cell <number> (id <id>): <problem>``; a
line number inside a problem is that of the paragraph or comment.

Usage::

    python -m booktools.translations      # make check-translations
"""

from __future__ import annotations

import argparse
import ast
import difflib
import io
import re
import sys
import tokenize
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import nbformat
import yaml

from booktools.book import ROOT, SOURCE_LANGUAGE, editions, pages
from booktools.frameworks import BEGIN_TAB, END_TAB, TAB_LINE, TabError, cell_frameworks
from booktools.save_marks import SAVE_MARK, saved_statements

GLOSSARY = Path("chapters") / "glossary.yml"

# English words that carry no content and are not Indonesian words (so no "a",
# "as", "per", "di"). A sentence full of them is English, whatever its nouns.
FUNCTION_WORDS = frozenset("""
    the of and is are was were be been being that which who whose we our us you your it its they them
    their this these those with to for from by on at in into or not but if then than when where while
    what how why can could will would should must may might has have had does do did there here each
    every only also both such because so very just all any some other another same more most much many
    about after before over under between through without within again once since until whether nor let
    either neither however therefore thus instead whatever
""".split())
# Names that stay in English in every edition (words of these phrases are not evidence of English prose).
PROPER_NAMES = ("Dive into Deep Learning", "PyTorch", "NVIDIA", "Transformer Engine", "Transformer", "Megatron",
                "Colab", "D2L", "Jupyter", "Python", "GPU", "CPU", "NaN", "BMM", "MLP", "Gaussian", "Args",
                "Returns", "Raises")
# A sentence is English when it has MIN_FUNCTION_WORDS of them making up MIN_SHARE of its words.
MIN_FUNCTION_WORDS = 2
MIN_SHARE = 0.15
# A sentence identical to its English original is untranslated if it has this many ordinary words
# (more in code, where a comment such as "# (batch, queries, d)" may be notation).
MIN_COPIED_WORDS = {"markdown": 1, "code": 2}

WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
IDENTIFIER = re.compile(r"\b\w*(?:_|\d|[a-z][A-Z])\w*\b")  # snake_case, names with digits, camelCase
FENCE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})\s*(?:\{([^}]+)\})?\s*(.*?)\s*$")
OPTION = re.compile(r"^\s*:([\w-]+):\s*(.*?)\s*$")
MATH_BLOCK = re.compile(r"\$\$(.+?)\$\$[ \t]*(?:\(([^()\s]+)\))?", re.S)
INLINE_MATH = re.compile(r"(?<![\\$])\$((?:[^$\\]|\\.)+?)\$")
LABEL = re.compile(r"^\s*\(([^()\s]+)\)=\s*$", re.M)
ROLE = re.compile(r"\{([\w:-]+)\}`([^`]*)`")
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
LINK = re.compile(r"!?\[([^\]]*)\]\(([^()\s]*)\)")
URL = re.compile(r"<?https?://[^\s)>\]]+>?")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
SENTENCE_END = re.compile(r"(?<=[.!?:;。])\s+(?=[^a-z])")
CODE_DIRECTIVES = {"code", "code-block", "code-cell", "sourcecode"}
TITLE_DIRECTIVES = {"admonition", "dropdown", "topic", "sidebar", "card", "tab-item"}  # their argument is prose
IGNORED_OUTPUT_TAGS = {"nbval-ignore-output", "nbval-skip"}  # outputs that differ from run to run


class GlossaryError(ValueError):
    """``chapters/glossary.yml`` does not have the documented format."""


@dataclass(frozen=True)
class Cell:
    """One cell of a page; an ``.md`` page is a single markdown cell without an id."""

    number: int
    id: str | None
    kind: str
    source: str
    tags: tuple[str, ...] = ()
    outputs: tuple = ()


@dataclass(frozen=True)
class Term:
    """The glossary's rule for one concept in one language."""

    concept: str
    english: re.Pattern
    term: str
    banned: tuple[str, ...]


# ---- reading pages and the glossary -------------------------------------------------------------


def read_cells(path: Path) -> list[Cell]:
    """Return the cells of a notebook, or an ``.md`` page as one markdown cell."""
    if path.suffix == ".md":
        return [Cell(1, None, "markdown", path.read_text(encoding="utf-8"))]
    notebook = nbformat.read(path, as_version=4)
    return [Cell(number, cell.get("id"), cell.cell_type, cell.source, tuple(cell.metadata.get("tags", ())),
                 tuple(cell.get("outputs", ())))
            for number, cell in enumerate(notebook.cells, start=1)]


def read_glossary(language: str, root: Path = ROOT) -> list[Term]:
    """Return the glossary's terms for ``language``.

    Raises:
        GlossaryError: if the file does not have the format its header describes.
    """
    try:
        data = yaml.safe_load((root / GLOSSARY).read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise GlossaryError(f"{GLOSSARY}: not valid YAML: {error}") from error
    if not isinstance(data, dict) or not isinstance(data.get("concepts"), dict):
        raise GlossaryError(f"{GLOSSARY}: expected a mapping 'concepts:'")
    terms = []
    for concept, entry in data["concepts"].items():
        where = f"{GLOSSARY}, concept {concept!r}"
        if not isinstance(entry, dict) or not isinstance(entry.get("en"), str):
            raise GlossaryError(f"{where}: expected an 'en' pattern")
        rule = entry.get(language)
        if not isinstance(rule, dict) or not isinstance(rule.get("term"), str) \
                or not isinstance(rule.get("banned", []), list):
            raise GlossaryError(f"{where}: expected {language}: {{term: ..., banned: [...]}}")
        try:
            english = re.compile(entry["en"], re.IGNORECASE | re.MULTILINE)
        except re.error as error:
            raise GlossaryError(f"{where}: bad 'en' pattern: {error}") from error
        terms.append(Term(concept, english, rule["term"], tuple(str(v) for v in rule.get("banned", []))))
    return terms


# ---- markdown ----------------------------------------------------------------------------------


@dataclass
class Markdown:
    """What a markdown cell must share with its English original, and its prose."""

    math_blocks: list[tuple[str, str]]
    inline_math: list[str]
    labels: list[str]
    roles: list[str]
    directives: list[str]
    headings: list[str]
    urls: list[str]
    prose: str  # the text with code, math, markup and URLs blanked out; one line per source line


def _blank(match: re.Match) -> str:
    """Replace a match by its newlines, so that line numbers stay right."""
    return "\n" * match.group(0).count("\n") + " "


def _squash(text: str) -> str:
    return " ".join(text.split())


def parse_markdown(text: str) -> Markdown:
    """Split a markdown cell into the parts the checker compares."""
    directives: list[str] = []
    math_blocks: list[tuple[str, str]] = []
    lines = text.split("\n")
    kept: list[str] = []
    fence: tuple[str, str] | None = None  # (closing marker, directive name or "" for code)
    in_options = False
    for line in lines:
        match = FENCE.match(line)
        if fence is not None and match and match.group(1)[0] == fence[0][0] \
                and len(match.group(1)) >= len(fence[0]) and not match.group(2) and not match.group(3):
            fence = None
            kept.append("")
            continue
        if fence is None and match:
            name, argument = (match.group(2) or "").strip(), match.group(3)
            fence = (match.group(1), name if name not in CODE_DIRECTIVES else "")
            title = name in TITLE_DIRECTIVES
            directives.append(name if title else f"{name or 'code block'} {argument}".strip())
            in_options = bool(name)
            kept.append(argument if title else "")
            continue
        if fence is not None and in_options:
            option = OPTION.match(line)
            if option:
                if option.group(1) == "alt":
                    kept.append(option.group(2))
                else:
                    directives[-1] += f" :{option.group(1)}: {option.group(2)}"
                    kept.append("")
                continue
            in_options = False
        if fence is not None and fence[1] == "math":
            math_blocks.append((_squash(line), ""))
            kept.append("")
        elif fence is not None and not fence[1]:
            kept.append("")  # code: not compared (examples may be translated), not prose
        else:
            kept.append(line)
    body = "\n".join(kept)
    math_blocks += [(_squash(m.group(1)), m.group(2) or "") for m in MATH_BLOCK.finditer(body)]
    body = MATH_BLOCK.sub(_blank, body)
    labels = LABEL.findall(body)
    body = LABEL.sub("", body)
    roles = []
    for role, content in ROLE.findall(body):
        target = re.search(r"<([^<>]+)>\s*$", content)
        roles += [f"{{{role}}}{key.strip()}" for key in (target.group(1) if target else content).split(",")]
    body = ROLE.sub(" ", body)
    body = CODE_SPAN.sub(_blank, body)
    inline_math = [_squash(m) for m in INLINE_MATH.findall(body)]
    body = INLINE_MATH.sub(_blank, body)
    urls = [m.group(2) for m in LINK.finditer(body)]
    body = LINK.sub(lambda m: m.group(1), body)
    urls += [m.strip("<>") for m in URL.findall(body)]
    body = URL.sub(" ", body)
    body = re.sub(r"<[^<>\n]+>", " ", body)  # HTML tags
    headings = [m.group(1) for line in body.split("\n") if (m := HEADING.match(line))]
    return Markdown(math_blocks, inline_math, labels, sorted(roles), directives, headings, sorted(urls), body)


def segments(prose: str) -> list[tuple[int, str]]:
    """Split prose into (line number, sentence): headings and list items start new blocks."""
    blocks: list[tuple[int, list[str]]] = []
    for number, line in enumerate(prose.split("\n"), start=1):
        if not line.strip():
            blocks.append((number, []))
            continue
        if HEADING.match(line) or LIST_ITEM.match(line) or not blocks or not blocks[-1][1] \
                or HEADING.match(blocks[-1][1][-1]):
            blocks.append((number, []))
        blocks[-1][1].append(line)
    result = []
    for number, block in blocks:
        text = _squash(" ".join(block))
        text = LIST_ITEM.sub("", HEADING.sub("", text)).replace("*", "")
        result += [(number, sentence) for sentence in SENTENCE_END.split(text) if sentence]
    return result


# ---- prose left in English ----------------------------------------------------------------------


def _words(sentence: str) -> list[str]:
    """The words of a sentence, without identifiers and proper names."""
    for name in PROPER_NAMES:
        sentence = re.sub(rf"\b{re.escape(name)}\b", " ", sentence)
    return WORD.findall(IDENTIFIER.sub(" ", sentence))


def looks_english(sentence: str) -> bool:
    """Tell whether a sentence of a translation is written in English.

    English prose is recognised by its function words ("the", "of", "is",
    "which", ...), which neither Indonesian nor Korean uses and which are not in
    identifiers, math, proper names or the technical terms the glossary keeps:
    at least :data:`MIN_FUNCTION_WORDS` of them, making up at least
    :data:`MIN_SHARE` of the sentence's words.
    """
    words = _words(sentence)
    english = sum(word.lower() in FUNCTION_WORDS for word in words)
    return english >= MIN_FUNCTION_WORDS and english >= MIN_SHARE * len(words)


def copied_from_english(sentence: str, english: set[str], kept: set[str], min_words: int = 1) -> bool:
    """Tell whether a sentence is its English original, left untranslated.

    ``english`` holds the sentences of the English cell; ``kept`` the lowercase
    words the language keeps from English (the glossary's terms). The sentence
    must have ``min_words`` words besides those, proper names and one-letter
    names, so that a formula or a product name written the same way passes.
    """
    if sentence not in english:
        return False
    words = [word for word in _words(sentence) if len(word) > 1 and word.lower() not in kept]
    return len(words) >= min_words


def _quote(text: str, width: int = 70) -> str:
    return repr(text if len(text) <= width else text[:width - 3] + "...")


# ---- code --------------------------------------------------------------------------------------


def _docstring_owners(tree: ast.AST) -> list[ast.AST]:
    kinds = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return [node for node in ast.walk(tree) if isinstance(node, kinds) and node.body
            and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
            and isinstance(node.body[0].value.value, str)]


def normalized_code(source: str) -> str:
    """Return the code of a cell as text, without comments and with every docstring the same.

    Raises:
        SyntaxError: if the cell is not valid Python.
    """
    tree = ast.parse(source)
    for node in _docstring_owners(tree):
        node.body[0] = ast.Expr(ast.Constant("<docstring>"))
    return ast.unparse(tree)


def code_prose(source: str) -> list[tuple[int, str]]:
    """Return (line number, sentence) for the comments and docstrings of a cell."""
    pieces: list[tuple[int, str]] = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
        tree = ast.parse(source)
    except (tokenize.TokenError, SyntaxError):
        return []
    block_end = -1  # last line of the block of whole-line comments being read
    for tok in tokens:
        if tok.type != tokenize.COMMENT:
            continue
        text = SAVE_MARK.split(tok.string, maxsplit=1)[0].lstrip("#").strip()
        whole_line = tok.line.lstrip().startswith("#")
        if text and whole_line and block_end == tok.start[0] - 1:
            pieces[-1] = (pieces[-1][0], pieces[-1][1] + "\n" + text)
        elif text:
            pieces.append((tok.start[0], text))
        block_end = tok.start[0] if text and whole_line else -1
    for node in _docstring_owners(tree):
        pieces.append((node.body[0].lineno, node.body[0].value.value))
    result = []
    for line, text in pieces:
        prose = CODE_SPAN.sub(" ", text)
        result += [(line + number - 1, sentence) for number, sentence in segments(prose)]
    return sorted(result)


# ---- comparing ---------------------------------------------------------------------------------


def _quote_item(item: object) -> str:
    return f"'{item}'" if isinstance(item, str) else repr(item)


def _difference(what: str, english: list, translation: list, ordered: bool = True) -> str | None:
    """Describe how two lists differ, or return None if they are the same."""
    if english == translation or (not ordered and Counter(english) == Counter(translation)):
        return None
    missing = list((Counter(english) - Counter(translation)).elements())
    extra = list((Counter(translation) - Counter(english)).elements())
    parts = ([f"English has {', '.join(map(_quote_item, missing))}"] if missing else []) + \
            ([f"the translation has {', '.join(map(_quote_item, extra))}"] if extra else [])
    return f"{what} differ from English: " + ("; ".join(parts) or "same items in a different order")


def _first_difference(english: str, translation: str) -> str:
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, english.split("\n"), translation.split("\n"),
                                                       autojunk=False).get_opcodes():
        if tag != "equal":
            want = " / ".join(english.split("\n")[i1:i2]) or "(nothing)"
            have = " / ".join(translation.split("\n")[j1:j2]) or "(nothing)"
            return f"English {_quote(want.strip(), 90)}, translation {_quote(have.strip(), 90)}"
    return "they differ"


def _plain_outputs(cell: Cell) -> list[dict]:
    """The outputs without execution counts, consecutive stream chunks merged.

    Of a cell whose outputs nbval ignores, only the kinds of outputs are kept.
    """
    result: list[dict] = []
    for output in cell.outputs:
        output = {key: value for key, value in output.items() if key != "execution_count"}
        if IGNORED_OUTPUT_TAGS & set(cell.tags):
            output = {"output_type": output["output_type"], "name": output.get("name"),
                      "data": dict.fromkeys(output.get("data", {}), "(ignored)"), "text": ""}
        previous = result[-1] if result else {}
        if output["output_type"] == "stream" and previous.get("output_type") == "stream" \
                and previous.get("name") == output.get("name"):
            previous["text"] += output["text"]
        else:
            result.append(output)
    return result


def compare_frameworks(english: Cell, translation: Cell) -> list[str]:
    """Describe how a cell's framework marks (``#@tab``, ``:begin_tab:``) differ from English."""
    def frameworks(cell: Cell) -> str:
        try:
            found = cell_frameworks({"cell_type": cell.kind, "source": cell.source, "id": cell.id})
        except TabError as error:
            return f"malformed ({error})"
        return "shared" if found is None else ", ".join(sorted(found))

    want, have = frameworks(english), frameworks(translation)
    return [] if want == have else [f"framework marks differ from English: English {want}, translation {have}"]


def compare_outputs(english: Cell, translation: Cell) -> list[str]:
    """Describe how the stored outputs of two code cells differ."""
    want, have = _plain_outputs(english), _plain_outputs(translation)
    if want == have:
        return []
    if len(want) != len(have):
        return [f"outputs differ from English: English has {len(want)} output(s), the translation {len(have)}"]
    problems = []
    for index, (a, b) in enumerate(zip(want, have), start=1):
        a, b = ({**{k: v for k, v in out.items() if k != "data"}, **out.get("data", {})} for out in (a, b))
        for key in sorted(set(a) | set(b)):
            if a.get(key) == b.get(key):
                continue
            textual = (key == "text" or key.startswith("text/")) and isinstance(a.get(key), str) \
                and isinstance(b.get(key), str)
            detail = f": {_first_difference(a[key], b[key])}" if textual else ""
            problems.append(f"output {index} differs from English ({key}){detail}")
    return problems


def compare_code(english: Cell, translation: Cell) -> list[str]:
    """Describe how a translated code cell differs from English other than in comments and docstrings."""
    try:
        want = normalized_code(english.source)
    except SyntaxError:
        return [] if english.source == translation.source else ["code differs from English (not Python)"]
    try:
        have = normalized_code(translation.source)
    except SyntaxError as error:
        return [f"code differs from English: it does not parse (line {error.lineno}: {error.msg})"]
    if want != have:
        return [f"code differs from English: {_first_difference(want, have)}"]
    if not SAVE_MARK.search(english.source + translation.source):
        return []
    problem = _difference("#@save marks", saved_statements(english.source), saved_statements(translation.source))
    return [problem] if problem else []


def compare_markdown(english: Cell, translation: Cell) -> list[str]:
    """Describe how a translated markdown cell differs from English in math, labels, links and markup."""
    want, have = parse_markdown(english.source), parse_markdown(translation.source)
    checks = [
        ("math blocks", [f"$${m}$$ ({label})" if label else f"$${m}$$" for m, label in want.math_blocks],
         [f"$${m}$$ ({label})" if label else f"$${m}$$" for m, label in have.math_blocks], True),
        ("inline math", [f"${m}$" for m in want.inline_math], [f"${m}$" for m in have.inline_math], False),
        ("labels", want.labels, have.labels, True),
        ("role targets", want.roles, have.roles, False),
        ("directives", want.directives, have.directives, True),
        ("heading levels", want.headings, have.headings, True),
        ("URLs", want.urls, have.urls, False),
    ]
    return [problem for what, a, b, ordered in checks if (problem := _difference(what, a, b, ordered))]


def _blank_framework_marks(source: str) -> str:
    """Blank the ``#@tab``/``:begin_tab:``/``:end_tab:`` lines (marks, not prose), keeping line numbers."""
    lines = source.split("\n")
    return "\n".join("" if TAB_LINE.match(line) or BEGIN_TAB.match(line) or line.strip() == END_TAB else line
                     for line in lines)


def check_english_left(english: Cell, translation: Cell, kept: set[str]) -> list[str]:
    """Report the sentences of a translated cell that are still English."""
    def prose(cell: Cell) -> list[tuple[int, str]]:
        source = _blank_framework_marks(cell.source)
        return segments(parse_markdown(source).prose) if cell.kind == "markdown" else code_prose(source)

    originals = {sentence for _, sentence in prose(english)}
    problems = []
    for line, sentence in prose(translation):
        if copied_from_english(sentence, originals, kept, MIN_COPIED_WORDS[translation.kind]):
            problems.append(f"prose left in English (line {line}, as in English): {_quote(sentence)}")
        elif looks_english(sentence):
            problems.append(f"prose left in English (line {line}): {_quote(sentence)}")
    return problems


def _term_pattern(term: str) -> re.Pattern:
    """A glossary term anywhere, not inside a longer word on its left; spaces match any white space."""
    return re.compile(r"(?<!\w)" + r"\s+".join(map(re.escape, term.split())), re.IGNORECASE)


def check_glossary(english: Cell, translation: Cell, terms: list[Term]) -> list[str]:
    """Report banned variants in a translated cell, and chosen terms missing from a markdown cell."""
    problems = []
    for term in terms:
        for variant in term.banned:
            for match in _term_pattern(variant).finditer(translation.source):
                line = translation.source.count("\n", 0, match.start()) + 1
                problems.append(f"glossary: banned variant {match.group(0)!r} of {term.concept!r} "
                                f"(line {line}); write {term.term!r}")
    if translation.kind == "markdown":
        english_prose = parse_markdown(english.source).prose
        translated = _squash(parse_markdown(translation.source).prose.replace("*", "")).lower()
        for term in terms:
            if term.english.search(english_prose) and _squash(term.term).lower() not in translated:
                problems.append(f"glossary: English names {term.concept!r} here, but the translation "
                                f"lacks the term {term.term!r}")
    return problems


def _where(path: str, cell: Cell) -> str:
    return path if cell.id is None and path.endswith(".md") else f"{path}, cell {cell.number} (id {cell.id})"


def _pair_cells(path: str, english: list[Cell], translation: list[Cell]) -> tuple[list[str], list[tuple[Cell, Cell]]]:
    """Match the cells of a page with their English originals; report missing, extra and moved cells."""
    ids_en, ids_tr = [c.id for c in english], [c.id for c in translation]
    if len(english) == len(translation) and sorted(map(str, ids_en)) != sorted(map(str, ids_tr)):
        problems = [f"{_where(path, b)}: id differs from English cell {a.number} (id {a.id})"
                    for a, b in zip(english, translation) if a.id != b.id]
        return problems, list(zip(english, translation))
    problems = [] if len(english) == len(translation) else \
        [f"{path}: {len(translation)} cells, English has {len(english)}"]
    problems += [f"{_where(path, c)}: missing from the translation (numbered as in English)"
                 for c in english if c.id not in ids_tr]
    problems += [f"{_where(path, c)}: not in English (no English cell has this id)"
                 for c in translation if c.id not in ids_en]
    common_en = [i for i in ids_en if i in ids_tr]
    common_tr = [i for i in ids_tr if i in ids_en]
    blocks = difflib.SequenceMatcher(None, common_en, common_tr, autojunk=False).get_matching_blocks()
    in_order = {i for block in blocks for i in common_en[block.a:block.a + block.size]}
    problems += [f"{_where(path, cell)}: out of order; it is English cell {ids_en.index(cell.id) + 1}"
                 for cell in translation if cell.id in ids_en and cell.id not in in_order]
    by_id = {c.id: c for c in translation}
    return problems, [(c, by_id[c.id]) for c in english if c.id in by_id]


def compare_page(english_path: Path, translation_path: Path, terms: list[Term], root: Path = ROOT) -> list[str]:
    """Compare one translated page with its English original; return the problems found."""
    path = translation_path.relative_to(root).as_posix()
    kept = {word.lower() for term in terms for word in WORD.findall(term.term)}
    problems, pairs = _pair_cells(path, read_cells(english_path), read_cells(translation_path))
    for english, translation in pairs:
        where = _where(path, translation)
        if english.kind != translation.kind:
            problems.append(f"{where}: a {translation.kind} cell, English cell {english.number} is {english.kind}")
            continue
        found = [] if english.tags == translation.tags else \
            [f"tags differ from English: English {list(english.tags)}, translation {list(translation.tags)}"]
        if english.kind in ("code", "markdown"):
            found += compare_frameworks(english, translation)
        if english.kind == "code":
            found += compare_code(english, translation) + compare_outputs(english, translation)
        elif english.kind == "markdown":
            found += compare_markdown(english, translation)
        elif english.source != translation.source:
            found.append(f"{english.kind} cell differs from English")
        if english.kind in ("code", "markdown"):
            found += check_glossary(english, translation, terms) + check_english_left(english, translation, kept)
        problems += [f"{where}: {problem}" for problem in found]
    return problems


def check(root: Path = ROOT, languages: list[str] | None = None) -> list[str]:
    """Compare every translated page with English; return the problems, one line each.

    Raises:
        GlossaryError: if ``chapters/glossary.yml`` is malformed.
    """
    problems = []
    english_pages = pages(SOURCE_LANGUAGE, root)
    for language in languages or [code for code in editions(root) if code != SOURCE_LANGUAGE]:
        terms = read_glossary(language, root)
        folder = root / "chapters" / language
        expected = set()
        for english in english_pages:
            translation = folder / english.relative_to(root / "chapters" / SOURCE_LANGUAGE)
            expected.add(translation)
            if not translation.exists():
                problems.append(f"{translation.relative_to(root).as_posix()}: missing (English has "
                                f"{english.relative_to(root).as_posix()})")
                continue
            problems += compare_page(english, translation, terms, root)
        for extra in sorted(set(folder.rglob("*.ipynb")) - expected):
            if ".ipynb_checkpoints" not in extra.parts:
                problems.append(f"{extra.relative_to(root).as_posix()}: not in the English edition")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("languages", nargs="*", help="editions to check (default: all but English)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the book's root folder")
    args = parser.parse_args(argv)
    try:
        problems = check(args.root.resolve(), args.languages or None)
    except (GlossaryError, FileNotFoundError, ValueError) as error:
        print(f"check-translations failed: {error}", file=sys.stderr)
        return 2
    if problems:
        print(f"The translations differ from English ({len(problems)} problem(s)):", file=sys.stderr)
        for problem in problems:
            print(f"- {problem}", file=sys.stderr)
        return 1
    checked = [code for code in editions(args.root.resolve()) if code != SOURCE_LANGUAGE]
    print(f"translations match English: {', '.join(args.languages or checked) or '(none)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
