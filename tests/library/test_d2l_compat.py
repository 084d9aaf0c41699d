"""Code written for this D2L chapter against ``from d2l import <framework> as d2l`` finds the
same helpers, with D2L's signatures, in ``d2l_lib`` (issue 2, item 4).

Each framework's D2L-style script, its layers' signatures, the names only its D2L module has
and the keyword arguments D2L passes are in ``<framework>/test_d2l_compat.py``.
"""

from __future__ import annotations

import inspect

import pytest

COMMON_NAMES = [
    "masked_softmax",
    "DotProductAttention",
    "AdditiveAttention",
    "show_heatmaps",
    "check_shape",
    "normal",
    "ones",
    "tensor",
    "reshape",
    "plt",
    "np",
]


def parameters(fn):
    """The names and defaults of ``fn``'s parameters."""
    return [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]


def test_helper_signatures_are_d2l_s(lib):
    empty = inspect.Parameter.empty
    assert parameters(lib.d2l.masked_softmax) == [("X", empty), ("valid_lens", empty)]
    assert parameters(lib.d2l.show_heatmaps) == [
        ("matrices", empty),
        ("xlabel", empty),
        ("ylabel", empty),
        ("titles", None),
        ("figsize", (2.5, 2.5)),
        ("cmap", "Reds"),
    ]
    assert parameters(lib.d2l.check_shape) == [("a", empty), ("shape", empty)]
    assert [name for name, _ in parameters(lib.d2l.DotProductAttention)][:1] == ["dropout"]


@pytest.mark.parametrize("name", COMMON_NAMES)
def test_names_d2l_code_uses_exist(lib, name):
    assert hasattr(lib.d2l, name)
