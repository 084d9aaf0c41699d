"""The API appendix inside Sphinx: ``d2l_lib`` documented by autodoc, each object linked to its section.

``booktools.website.api_page`` writes the page (an ``automodule`` directive per
framework module); this module turns on ``sphinx.ext.autodoc`` and
``sphinx.ext.napoleon`` (the library's docstrings are Google style; a return
type stays text), documents no docstring a method inherits from the framework's
base class, and appends to each docstring a link to the section of the book that
defines the object: the generated modules name, above each block, the cell and
the section label it comes from (its provenance header, ``booktools.derive.provenance``).

Signatures keep their annotations; the frameworks' types (``torch.Tensor``,
``jax.Array``...) have no page in this book, so nitpicky mode ignores them. The
library's aliases of framework functions (D2L's ``normal = torch.normal``) are
listed as aliases: their docstrings are the framework's, written for its own docs.
"""

from __future__ import annotations

import ast
import functools
import importlib
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError

from booktools.derive.provenance import read_headers
from booktools.website.sphinx_settings import CONFIG_VALUE, settings

# Types of the frameworks and of Python that have no target in the book.
FOREIGN_TYPES = r"(torch|jax|jaxlib|jnp|flax|nn|tf|tensorflow|keras|np|numpy|plt|matplotlib|optax)(\..+)?"


@functools.cache
def module_tree(module: str) -> tuple[list[tuple[int, str, str]], list[ast.stmt]]:
    """Return the section headers (line, page, label) and the top-level statements of a generated module."""
    source = importlib.import_module(module).__file__
    if source is None:
        return [], []
    text = Path(source).read_text(encoding="utf-8")
    headers = [(number, found.page, found.label) for number, found in read_headers(text)]
    return headers, ast.parse(text).body


def sections(module: str) -> dict[str, tuple[str, str]]:
    """Map each top-level function, class and alias of a generated module to its (page, section label)."""
    headers, body = module_tree(module)
    found = {}
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names, first = [node.name], min([node.lineno, *(d.lineno for d in node.decorator_list)])
        elif isinstance(node, ast.Assign):
            names, first = [t.id for t in node.targets if isinstance(t, ast.Name)], node.lineno
        else:
            continue
        before = [(page_name, label) for number, page_name, label in headers if number < first]
        for name in names:
            if before:
                found[name] = before[-1]
    return found


def aliases(module: str) -> dict[str, str]:
    """Map each alias of a framework function in a generated module to what it aliases (``normal: torch.normal``)."""
    _, body = module_tree(module)
    return {
        target.id: ast.unparse(node.value)
        for node in body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute)
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def top_level(name: str) -> tuple[str, str] | None:
    """Split ``d2l_lib.<module>.<name>`` into module and name; None for anything else (methods)."""
    module, _, attribute = name.rpartition(".")
    return (module, attribute) if module.startswith("d2l_lib.") and module.count(".") == 1 else None


def add_section_link(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """Append "Defined in <section>" to a top-level object's docstring; an alias says what it aliases."""
    where = top_level(name)
    if where is None:
        return
    alias = aliases(where[0]).get(where[1])
    if alias is not None:
        lines[:] = [f"Alias of ``{alias}``."]
    section = sections(where[0]).get(where[1])
    if section and section[0] in app.env.found_docs:  # a book without the page (a test's) gets no link
        strings = settings(app).api_strings
        if strings is None:
            raise ExtensionError(f"{CONFIG_VALUE}.api_strings is not set: the edition's strings.yml gives them")
        lines += ["", f"{strings.defined_in} :ref:`{section[1]}`."]


def alias_signature(
    app: Sphinx, what: str, name: str, obj: Any, options: Any, signature: str | None, annotation: str | None
) -> tuple[str, str] | None:
    """Give an alias of a framework function a plain signature (the framework's may not parse)."""
    where = top_level(name)
    if where is not None and where[1] in aliases(where[0]):
        return ("(...)", "")
    return None


def ignore_foreign_types(app: Sphinx, config: Config) -> None:
    """Let nitpicky mode ignore the frameworks' types; no inherited docstrings; return types as text."""
    config.nitpick_ignore_regex = [*config.nitpick_ignore_regex, ("py:.*", FOREIGN_TYPES)]
    config.autodoc_inherit_docstrings = False  # torch's Module.forward is not the library's
    config.napoleon_use_rtype = False  # "Returns: A bool tensor of shape ...": text, not a class


def setup_api_links(app: Sphinx) -> None:
    """Autodoc and napoleon for the API page, with section links and aliases."""
    app.setup_extension("sphinx.ext.autodoc")
    app.setup_extension("sphinx.ext.napoleon")
    app.connect("autodoc-process-signature", alias_signature)
    app.connect("config-inited", ignore_foreign_types)
    app.connect("autodoc-process-docstring", add_section_link)
