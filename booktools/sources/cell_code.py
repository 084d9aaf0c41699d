"""The code of a cell as the editions must share it: parsed, with every docstring the same.

Docstrings are translated and the quiz's and exercises' ``lang=`` argument names the
edition; everything else of a code cell is the same in every edition. The translation
checker (``booktools.checks.translations``) compares cells so prepared, and the library's
table of translated figure words (``booktools.sources.code_text.edition_pairs``) aligns them.
"""

from __future__ import annotations

import ast

from booktools.sources.exercises import LANGUAGE_ARGUMENT

DocumentedNode = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def docstrings(tree: ast.AST) -> list[tuple[DocumentedNode, ast.Expr, str]]:
    """Return (owner, statement, text) of every docstring in ``tree``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                found.append((node, first, first.value.value))
    return found


def prepared_tree(source: str, language: str | None = None) -> ast.Module:
    """Return the parsed code of a cell, every docstring made ``"<docstring>"`` and ``lang=<edition>`` one name.

    Raises:
        SyntaxError: if the cell is not valid Python.
    """
    tree = ast.parse(source)
    for owner, _, _ in docstrings(tree):
        owner.body[0] = ast.Expr(ast.Constant("<docstring>"))
    if language is not None:
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == LANGUAGE_ARGUMENT:
                if isinstance(node.value, ast.Constant) and node.value.value == language:
                    node.value = ast.Name("<edition>")
    return tree
