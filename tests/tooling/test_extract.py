"""The #@save extraction (`make lib` / `make check-lib`): each rule and each error, one
module per framework, stable provenance headers, and `--check` naming what drifted."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from booktools.derive import library as extract
from booktools.derive.library import ExtractionError, render
from booktools.project import Project
from booktools.sources.frameworks import FRAMEWORKS, Framework, TabError, by_name
from booktools.sources.save_marks import SavedBlock, Section, blocks_of_cell

SECTION = Section("Some Section", "sec_some")
TORCH_MODULE = "d2l_lib/torch.py"  # how messages name the PyTorch module


def blocks(source: str) -> list[SavedBlock]:
    """The saved blocks of one cell ``abc`` of ``chapters/en/x.ipynb``."""
    return blocks_of_cell(source, "chapters/en/x.ipynb", "abc", SECTION)


def framework_ids(framework: Framework) -> str:
    return framework.name


# The #@save rules ---------------------------------------------------------------------


def test_save_on_def_line_saves_the_whole_function():
    source = "def f(x):  #@save\n    y = x + 1\n    return y\n\nf(2)\n"
    (block,) = blocks(source)
    assert block.code == "def f(x):\n    y = x + 1\n    return y"
    assert block.names == ("f",)
    assert (block.notebook, block.cell_id, block.section) == ("chapters/en/x.ipynb", "abc", SECTION)
    assert block.origin == "chapters/en/x.ipynb, cell abc"


def test_save_on_decorator_saves_decorated_definition():
    source = "@staticmethod  #@save\ndef g():\n    return 1\n"
    (block,) = blocks(source)
    assert block.code.splitlines() == ["@staticmethod", "def g():", "    return 1"]


def test_save_on_class_line_saves_the_whole_class():
    source = "class A:  #@save\n    def m(self):\n        return 1\n\nA().m()\n"
    (block,) = blocks(source)
    assert block.code.startswith("class A:") and block.code.endswith("return 1")


def test_save_on_multiline_def_signature():
    source = "def f(a,  #@save\n      b):\n    return a + b\n"
    (block,) = blocks(source)
    assert block.code == "def f(a,\n      b):\n    return a + b"


def test_save_on_import_and_assignment_saves_only_that_statement():
    source = "import math  #@save\nimport os\nx = 1  #@save\ny = 2\n"
    imports, assignment = blocks(source)
    assert imports.code == "import math" and imports.is_import
    assert assignment.code == "x = 1" and assignment.names == ("x",)


def test_the_tab_line_is_no_part_of_a_saved_block():
    (block,) = blocks("#@tab jax\ndef f():  #@save\n    return 1\n")
    assert block.code == "def f():\n    return 1"


def test_unmarked_cell_and_mark_inside_string_are_ignored():
    assert blocks("x = 1\n") == []
    assert blocks("s = '#@save'\n") == []


def test_mark_inside_a_function_body_is_an_error():
    with pytest.raises(
        ExtractionError, match=r"^chapters/en/x\.ipynb, cell abc, line 2: #@save inside the body of 'f'"
    ):
        blocks("def f():\n    return 1  #@save\n")


def test_mark_on_an_expression_is_an_error():
    with pytest.raises(ExtractionError, match=r"^chapters/en/x\.ipynb, cell abc, line 1: #@save marks a Expr"):
        blocks("print(1)  #@save\n")


def test_syntax_error_in_a_saved_cell_names_notebook_and_cell():
    with pytest.raises(ExtractionError, match=r"^chapters/en/x\.ipynb, cell abc: syntax error in a #@save cell"):
        blocks("def f(:  #@save\n    pass\n")


def test_two_saved_definitions_of_one_name_are_an_error():
    first = blocks_of_cell("def f():  #@save\n    return 1\n", "a.ipynb", "one", SECTION)
    second = blocks_of_cell("f = 3  #@save\n", "b.ipynb", "two", Section("T", "sec_t"))
    with pytest.raises(
        ExtractionError,
        match=r"^b\.ipynb, cell two: 'f' is saved twice; "
        r"it is also saved by a\.ipynb, cell one$",
    ):
        render(first + second)


def test_identical_imports_are_kept_once_and_hoisted_stdlib_first():
    first = blocks_of_cell("import torch  #@save\n\ndef f():  #@save\n    return 1\n", "a.ipynb", "one", SECTION)
    second = blocks_of_cell("import torch  #@save\nimport math  #@save\n", "b.ipynb", "two", SECTION)
    text = render(first + second)
    assert text.count("\nimport torch\n") == 1
    assert text.index("\nimport math\n") < text.index("\nimport torch\n") < text.index("def f")


def test_conflicting_imports_are_an_error():
    first = blocks_of_cell("import numpy as np  #@save\n", "a.ipynb", "one", SECTION)
    second = blocks_of_cell("import pandas as np  #@save\n", "b.ipynb", "two", SECTION)
    with pytest.raises(
        ExtractionError,
        match=r"^b\.ipynb, cell two: import binds 'np', already bound differently "
        r"by a\.ipynb, cell one$",
    ):
        render(first + second)


def test_generated_blocks_name_their_source_cell_and_section_once_per_cell():
    text = render(blocks("def f():  #@save\n    return 1\n\n\ndef g():  #@save\n    return 2\n"))
    header = "# ---- from chapters/en/x.ipynb, cell abc\n# ---- section: Some Section (sec_some)\n"
    assert text.count("# ---- from ") == 1
    assert f"{header}def f():\n    return 1\n\n\ndef g():" in text
    assert "Generated by `make lib`" in text


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=framework_ids)
def test_the_preamble_names_the_framework(framework: Framework):
    text = render([], framework)
    assert f"from d2l_lib import {framework.module} as d2l" in text
    assert f"`#@tab {framework.name}` cells" in text
    assert f"The reusable {framework.label} code" in text
    ast.parse(text)


# The real library -------------------------------------------------------------------


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=framework_ids)
def test_library_is_in_sync_with_the_notebooks(project: Project, framework: Framework):
    path = extract.library_path(framework, project)
    assert path == project.root / "d2l_lib" / f"{framework.module}.py"
    assert path.exists(), f"{project.relative(path)} is missing; run `make lib`"
    assert (
        extract.differences(
            extract.generate(framework, project), path.read_text(encoding="utf-8"), project.relative(path)
        )
        == []
    )


def _copy_book(project: Project, target: Path) -> Path:
    """Copy what `make lib` reads and writes: ``_toc.yml``, ``_config.yml`` (the MyST extensions the
    headings are read with), ``d2l_lib/`` and ``chapters/en/``."""
    for source in (project.toc_file, project.config_file, project.library_dir, project.edition_dir("en")):
        copy = target / project.relative(source)
        if source.is_dir():
            shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__", "*.lock"))
        else:
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, copy)
    return target


@pytest.fixture
def scratch(project: Project, tmp_path: Path) -> Path:
    """A scratch copy of the English pages and the library, free to edit."""
    return _copy_book(project, tmp_path)


@pytest.fixture(scope="module")
def generated(project: Project, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, list[SavedBlock]]]:
    """For each framework: the module `make lib` generates from a scratch copy, and its saved blocks."""
    book = Project(_copy_book(project, tmp_path_factory.mktemp("book")))
    return {
        framework.name: (extract.generate(framework, book), extract.framework_blocks(framework, book))
        for framework in FRAMEWORKS
    }


def top_level_statements(text: str) -> list[tuple[tuple[str, ...], int, int]]:
    """The (names bound, first line, last line) of each definition and assignment of a module,
    except ``__all__``; imports and the docstring are left out."""
    found = []
    for node in ast.parse(text).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        ):
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = (node.name,)
        else:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = tuple(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        if names != ("__all__",):
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            found.append((names, first, node.end_lineno))
    return found


def test_check_lib_names_exactly_the_definition_that_drifted_with_its_cell_and_section(generated):
    """Every saved definition of every generated module: edit one of its lines in the module
    text, and `differences` reports that name alone, with the cell and section it comes from."""
    checked = 0
    for name, (text, saved) in generated.items():
        module = f"d2l_lib/{by_name(name).module}.py"
        by_name_saved = {bound: block for block in saved if not block.is_import for bound in block.names}
        assert extract.differences(text, text, module) == []
        lines = text.splitlines(keepends=True)
        for names, _, last in top_level_statements(text):
            edited = lines.copy()
            edited[last - 1] = edited[last - 1].rstrip("\n") + "  # edited by hand\n"
            problems = extract.differences(text, "".join(edited), module)
            expected = []
            for bound in names:
                block = by_name_saved[bound]
                expected.append(
                    f"{bound!r} from {block.notebook}, cell {block.cell_id}; "
                    f"{block.section.title} ({block.section.label}) differs:"
                )
            assert [problem.split("\n")[0] for problem in problems] == expected, (module, names, problems)
            assert all(f"+{edited[last - 1].rstrip()}" in problem for problem in problems), problems
            checked += 1
    assert checked >= len([b for b in generated["pytorch"][1] if not b.is_import])


def test_check_lib_reports_an_edited_import_and_a_reordered_module(generated):
    text, _ = generated["pytorch"]
    edited = text.replace("\nimport torch\n", "\nimport torch as torch\n", 1)
    assert edited != text
    (problem,) = extract.differences(text, edited, TORCH_MODULE)
    assert problem.startswith("'(imports)' from imports differs:")
    moved = text.replace("# ---- section: ", "# ---- section (moved): ", 1)
    assert extract.differences(text, moved, TORCH_MODULE) == [
        "d2l_lib/torch.py: the definitions are the same, but headers, comments or order differ"
    ]


def test_check_lib_reports_a_missing_and_an_unknown_definition(generated):
    text, saved = generated["pytorch"]
    renamed = text.replace("def check_shape(", "def check_shape_renamed(")
    block = next(b for b in saved if b.names == ("check_shape",))
    assert extract.differences(text, renamed, TORCH_MODULE) == [
        f"'check_shape' from {block.notebook}, cell {block.cell_id}; {block.section.title} ({block.section.label}) "
        "is missing from d2l_lib/torch.py",
        f"'check_shape_renamed' ({block.notebook}, cell {block.cell_id}; {block.section.title} "
        f"({block.section.label})) is in d2l_lib/torch.py but no notebook cell saves it",
    ]
    assert extract.differences(text, "def broken(:\n", TORCH_MODULE)[0] == (
        "d2l_lib/torch.py does not parse: line 1: invalid syntax"
    )


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=framework_ids)
def test_all_lists_the_public_saved_names_in_book_order_after_the_imports(generated, framework: Framework):
    text, saved = generated[framework.name]
    public = [name for block in saved if not block.is_import for name in block.names if not name.startswith("_")]
    tree = ast.parse(text)
    ((position, exported),) = [
        (index, node)
        for index, node in enumerate(tree.body)
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["__all__"]
    ]
    assert ast.literal_eval(exported.value) == public
    before, after = tree.body[:position], tree.body[position + 1 :]
    assert all(isinstance(node, (ast.Import, ast.ImportFrom)) for node in before[1:])  # after the docstring
    assert not any(isinstance(node, (ast.Import, ast.ImportFrom)) for node in after)
    bound = {name for names, _, _ in top_level_statements(text) for name in names}
    assert set(public) <= bound


def test_inserting_cells_at_the_top_of_a_page_changes_no_line_of_any_module(scratch: Path):
    before = {framework.name: extract.generate(framework, Project(scratch)) for framework in FRAMEWORKS}
    for path in Project(scratch).source_pages():
        notebook = nbformat.read(path, as_version=4)
        prose, code = new_markdown_cell("A note above the title."), new_code_cell("#@tab all\nx = 1")
        prose["id"], code["id"] = "inserted-note", "inserted-code"
        notebook.cells[:0] = [prose, code]
        nbformat.write(notebook, path)
    for framework in FRAMEWORKS:
        assert extract.generate(framework, Project(scratch)) == before[framework.name], framework.name


def test_check_lib_names_the_block_edited_in_a_notebook_without_make_lib(scratch: Path):
    """Edit the last line of the first definition the cell ``masked-softmax`` saves, and not the library."""
    path = scratch / "chapters/en/attention-scoring-in-practice.ipynb"
    notebook = nbformat.read(path, as_version=4)
    cell = next(c for c in notebook.cells if c.get("id") == "masked-softmax")
    torch = by_name("pytorch")
    block = next(
        b
        for b in extract.framework_blocks(torch, Project(scratch))
        if b.cell_id == "masked-softmax" and not b.is_import
    )
    (name,) = block.names
    definition = next(node for node in ast.parse(cell.source).body if getattr(node, "name", None) == name)
    lines = cell.source.splitlines()
    lines[definition.end_lineno - 1] += "  # edited in the notebook"
    cell.source = "\n".join(lines)
    nbformat.write(notebook, path)
    problems = extract.differences(
        extract.generate(torch, Project(scratch)),
        extract.library_path(torch, Project(scratch)).read_text(encoding="utf-8"),
        TORCH_MODULE,
    )
    assert len(problems) == 1, problems
    assert problems[0].startswith(
        f"{name!r} from chapters/en/attention-scoring-in-practice.ipynb, cell masked-softmax; "
        f"{block.section.title} ({block.section.label}) differs:"
    ), problems[0]
    assert f"-{lines[definition.end_lineno - 1]}" in problems[0]


def test_make_lib_writes_every_module_and_check_lib_names_a_hand_edit(root: Path, scratch: Path):
    shutil.copytree(root / "booktools", scratch / "booktools", ignore=shutil.ignore_patterns("__pycache__"))
    env = {"PYTHONPATH": str(scratch), "PATH": ""}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "booktools", "--root", str(scratch), "lib", *args],
            cwd=scratch,
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )

    written = run()
    assert written.returncode == 0, written.stderr
    assert written.stdout.split("\n")[:3] == [
        "wrote d2l_lib/torch.py",
        "wrote d2l_lib/jax.py",
        "wrote d2l_lib/tensorflow.py",
    ]
    assert run("--check").returncode == 0
    library = scratch / "d2l_lib/torch.py"
    assert "\ntensor = torch.tensor\n" in library.read_text()
    library.write_text(library.read_text().replace("\ntensor = torch.tensor\n", "\ntensor = torch.as_tensor\n"))
    result = run("--check")
    assert result.returncode == 1
    assert result.stderr.splitlines()[:2] == [
        "d2l_lib/torch.py and the notebooks' #@save cells differ (run `make lib`):",
        "- 'tensor' from chapters/en/preliminaries.ipynb, cell aliases; Tensor Aliases (sec_preliminaries) differs:",
    ]
    assert "+tensor = torch.as_tensor" in result.stderr
    assert "d2l_lib/jax.py matches the notebooks" in result.stdout
    assert "d2l_lib/tensorflow.py matches the notebooks" in result.stdout


def test_extraction_error_stops_make_lib_with_notebook_and_cell(scratch: Path):
    cells = [
        new_markdown_cell("# Broken"),
        new_code_cell("#@tab pytorch\ndef f():  #@save\n    pass"),
        new_code_cell("#@tab jax\ndef f(:  #@save\n    pass"),
        new_code_cell("#@tab tensorflow\ndef f():  #@save\n    pass"),
    ]
    for cell, cell_id in zip(cells, ("title", "fine", "broken-cell", "fine-too")):
        cell["id"] = cell_id
    nbformat.write(new_notebook(cells=cells), scratch / "chapters/en/preliminaries.ipynb")
    extract.generate(by_name("pytorch"), Project(scratch))  # the broken cell is JAX's only
    with pytest.raises(ExtractionError, match=r"^chapters/en/preliminaries\.ipynb, cell broken-cell: syntax error"):
        extract.generate(by_name("jax"), Project(scratch))


def test_a_code_cell_without_a_tab_line_stops_make_lib_naming_notebook_and_cell(scratch: Path):
    notebook = new_notebook(cells=[new_markdown_cell("# Unmarked"), new_code_cell("def f():  #@save\n    pass")])
    notebook.cells[1].id = "unmarked-cell"
    nbformat.write(notebook, scratch / "chapters/en/preliminaries.ipynb")
    with pytest.raises(
        TabError,
        match=r"chapters/en/preliminaries\.ipynb.*cell unmarked-cell: "
        r"a code cell must start with `#@tab <framework>`",
    ):
        extract.generate(by_name("pytorch"), Project(scratch))


# Which module a cell's blocks go to ----------------------------------------------------


def test_each_cells_blocks_go_to_the_modules_of_its_frameworks(synthetic_book: Path):
    modules = {framework.name: extract.generate(framework, Project(synthetic_book)) for framework in FRAMEWORKS}

    def header(cell_id: str, title: str = "Tabs", label: str = "sec_tabs") -> str:
        return f"# ---- from chapters/en/tabs.ipynb, cell {cell_id}\n# ---- section: {title} ({label})\n"

    pair = "Two Frameworks in One Cell", "sec_tabs-pair"
    # `#@tab all`: every module; `#@tab jax`: jax.py only; `#@tab pytorch, jax`: those two
    assert header("setup") + "SCALE = 2\n" in modules["pytorch"]
    assert header("double") + "def double(x):\n    return SCALE * x\n" in modules["pytorch"]
    assert header("double-jax") + "def double(x):\n    return SCALE * x\n" in modules["jax"]
    assert header("double-tf") + "def double(x):\n    return x * SCALE\n" in modules["tensorflow"]
    assert header("pair", *pair) + "def _half(x):\n    return x / 2\n" in modules["jax"]
    assert header("pair-tf", *pair) + "def _half(x):\n    return x * 0.5\n" in modules["tensorflow"]
    expected_cells = {
        "pytorch": ["setup", "double", "pair"],
        "jax": ["setup", "double-jax", "pair"],
        "tensorflow": ["setup", "double-tf", "pair-tf"],
    }
    for name, text in modules.items():
        cells = [line.rsplit("cell ", 1)[1] for line in text.splitlines() if line.startswith("# ---- from ")]
        assert cells == expected_cells[name], name
        tree = ast.parse(text)
        assert "import math" in text.split("__all__")[0]
        exported = next(
            node.value
            for node in tree.body
            if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["__all__"]
        )
        assert ast.literal_eval(exported) == ["SCALE", "double", "Pair"], name
