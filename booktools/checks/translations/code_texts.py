"""``chapters/code_text.yml`` against the English code, and each edition's translations of it.

:func:`check_registry` holds the list to the English pages: every template it lists is in
its page's code, and every literal the English code shows the reader (``print``'s arguments,
labels, titles, legends; ``booktools.sources.code_text.display_literals``) is listed, to be
translated or kept with a reason. What each edition wrote for each template is
``booktools.sources.code_text.edition_pairs``.
"""

from __future__ import annotations

import ast

from booktools.project import SOURCE_LANGUAGE, Project
from booktools.sources.code_text import code_trees, display_literals, read_registry, registry_file, template


def check_registry(project: Project) -> list[str]:
    """Check ``chapters/code_text.yml`` against the English pages; return the problems."""
    registry = read_registry(project)
    name = project.relative(registry_file(project))
    pages = {path.stem: path for path in project.pages(SOURCE_LANGUAGE) if path.suffix == ".ipynb"}
    problems = [f"{name}: no English page {page!r}" for page in registry.translate if page not in pages]
    both = sorted({text for texts in registry.translate.values() for text in texts} & set(registry.keep))
    problems += [f"{name}: {text!r} is both translated and kept" for text in both]
    kept_seen: set[str] = set()
    for page, path in pages.items():
        listed = registry.page(page)
        present: set[str] = set()
        for cell_id, tree in code_trees(path, SOURCE_LANGUAGE):
            present |= {str(found) for node in ast.walk(tree) if (found := template(node)) is not None}
            for text, line in display_literals(tree):
                kept_seen.add(text)
                if text not in listed and text not in registry.keep:
                    problems.append(
                        f"{project.relative(path)}, cell {cell_id}, line {line}: {text!r} is shown to the "
                        f"reader: list it in {name} under translate: {page} (or under keep, with the reason)"
                    )
        problems += [
            f"{name}: {text!r} (translate: {page}) is not in the English page's code"
            for text in sorted(listed - present)
        ]
    problems += [
        f"{name}: {text!r} (keep) is not shown by any English page's code"
        for text in sorted(set(registry.keep) - kept_seen)
    ]
    return problems
