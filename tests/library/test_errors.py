"""Clear errors (issue 5, item 2): a ValueError or TypeError whose message names the
argument, with the expected and the received shape (or dtype, or value)."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

from d2l_lib import torch as d2l


def raises(error, fn, *fragments):
    """Call ``fn``; it must raise exactly ``error`` with every fragment in its message."""
    with pytest.raises(error) as info:
        fn()
    assert type(info.value) is error
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    return message


X = torch.rand(2, 3, 4)  # (batch, queries, keys)
LENS_SHAPES = "valid_lens must have shape (2,) or (2, 3) for X of shape (2, 3, 4)"


# ------------------------------------------------------------------ masked_softmax: scores
@pytest.mark.parametrize("shape", [(3, 4), (1, 2, 3, 4), (4,)])
def test_scores_not_3d(shape):
    raises(
        ValueError,
        lambda: d2l.masked_softmax(torch.rand(shape), torch.tensor([1, 2])),
        "X must have shape (batch size, no. of queries, no. of keys)",
        f"got shape {shape}",
    )


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.bool, torch.uint8])
def test_scores_not_floating_point(dtype):
    raises(
        TypeError,
        lambda: d2l.masked_softmax(torch.ones(2, 3, 4, dtype=dtype), torch.tensor([1, 2])),
        "X must hold floating-point scores",
        f"got dtype {dtype}",
    )


def test_scores_not_a_tensor():
    raises(
        TypeError, lambda: d2l.masked_softmax([[[0.5, 0.5]]], torch.tensor([1])), "X must be a torch.Tensor", "got list"
    )


# ------------------------------------------------------------------ masked_softmax: valid_lens
@pytest.mark.parametrize("shape", [(), (2, 3, 1), (1, 2, 3)], ids=["0-D", "3-D", "3-D-b"])
def test_lengths_of_wrong_rank(shape):
    raises(
        ValueError,
        lambda: d2l.masked_softmax(X, torch.ones(shape, dtype=torch.int64)),
        LENS_SHAPES,
        f"got shape {shape}",
    )


@pytest.mark.parametrize("shape", [(3,), (1,), (3, 3)])
def test_lengths_of_wrong_batch_size(shape):
    raises(
        ValueError,
        lambda: d2l.masked_softmax(X, torch.ones(shape, dtype=torch.int64)),
        LENS_SHAPES,
        f"got shape {shape}",
    )


@pytest.mark.parametrize("shape", [(2, 4), (2, 1), (2, 2)])
def test_lengths_of_wrong_per_query_shape(shape):
    raises(
        ValueError,
        lambda: d2l.masked_softmax(X, torch.ones(shape, dtype=torch.int64)),
        LENS_SHAPES,
        f"got shape {shape}",
    )


@pytest.mark.parametrize("lens", [[1, -1], [[0, 1, 2], [3, -2, 1]], [-1.0, 2.0]])
def test_negative_lengths(lens):
    raises(ValueError, lambda: d2l.masked_softmax(X, torch.tensor(lens)), "valid_lens must not be negative")


@pytest.mark.parametrize("lens", [[1.5, 2.0], [[0.0, 1.0, 2.25], [1.0, 1.0, 1.0]], [float("nan"), 1.0]])
def test_fractional_lengths(lens):
    raises(ValueError, lambda: d2l.masked_softmax(X, torch.tensor(lens)), "valid_lens must hold whole numbers")


@pytest.mark.parametrize("lens", [torch.tensor([True, False]), torch.tensor([1 + 0j, 2 + 0j])], ids=["bool", "complex"])
def test_lengths_of_a_non_integer_dtype(lens):
    raises(
        TypeError,
        lambda: d2l.masked_softmax(X, lens),
        "valid_lens must hold integer lengths",
        f"got dtype {lens.dtype}",
    )


# ------------------------------------------------------------------ DotProductAttention
def _qkv(q=(2, 3, 4), k=(2, 5, 4), v=(2, 5, 6)):
    return torch.rand(q), torch.rand(k), torch.rand(v)


def _shapes(q, k, v):
    return f"queries {q}, keys {k}, values {v}"


def test_dot_product_query_key_length_mismatch():
    q, k, v = (2, 3, 4), (2, 5, 3), (2, 5, 6)
    raises(
        ValueError,
        lambda: d2l.DotProductAttention(0.0)(*_qkv(q, k, v)),
        "queries and keys must have the same length d",
        _shapes(q, k, v),
    )


@pytest.mark.parametrize(
    "layer", [lambda: d2l.DotProductAttention(0.0), lambda: d2l.AdditiveAttention(8, 0.0)], ids=["dot", "additive"]
)
def test_key_value_count_mismatch(layer):
    q, k, v = (2, 3, 4), (2, 5, 4), (2, 6, 6)
    raises(
        ValueError,
        lambda: layer()(*_qkv(q, k, v)),
        "keys and values must have the same number of key-value pairs",
        _shapes(q, k, v),
    )


@pytest.mark.parametrize(
    "layer", [lambda: d2l.DotProductAttention(0.0), lambda: d2l.AdditiveAttention(8, 0.0)], ids=["dot", "additive"]
)
@pytest.mark.parametrize(
    "q, k, v", [((3, 3, 4), (2, 5, 4), (2, 5, 6)), ((2, 3, 4), (2, 5, 4), (1, 5, 6))], ids=["queries", "values"]
)
def test_batch_size_mismatch(layer, q, k, v):
    raises(
        ValueError,
        lambda: layer()(*_qkv(q, k, v)),
        "queries, keys and values must have the same batch size",
        _shapes(q, k, v),
    )


@pytest.mark.parametrize("which", ["queries", "keys", "values"])
def test_attention_inputs_not_3d(which):
    shapes = {"q": (2, 3, 4), "k": (2, 5, 4), "v": (2, 5, 6)}
    shapes[which[0]] = (5, 4)
    raises(
        ValueError,
        lambda: d2l.DotProductAttention(0.0)(*_qkv(**shapes)),
        f"{which} must have shape (batch size, no. of {which}, length)",
        "got shape (5, 4)",
    )


def test_attention_inputs_not_tensors():
    q, k, v = _qkv()
    raises(TypeError, lambda: d2l.DotProductAttention(0.0)(q.tolist(), k, v), "queries must be a torch.Tensor")
    raises(TypeError, lambda: d2l.AdditiveAttention(8, 0.0)(q, k, v.numpy()), "values must be a torch.Tensor")


@pytest.mark.parametrize(
    "layer", [lambda: d2l.DotProductAttention(0.0), lambda: d2l.AdditiveAttention(8, 0.0)], ids=["dot", "additive"]
)
def test_attention_with_lengths_of_the_wrong_shape(layer):
    raises(
        ValueError,
        lambda: layer()(*_qkv(), torch.tensor([1, 2, 3])),
        "valid_lens must have shape (2,) or (2, 3)",
        "got shape (3,)",
    )


def test_additive_attention_accepts_different_query_and_key_lengths():
    out = d2l.AdditiveAttention(8, 0.0)(*_qkv(q=(2, 3, 20), k=(2, 5, 2)), torch.tensor([2, 5]))
    assert out.shape == (2, 3, 6)


# ------------------------------------------------------------------ check_shape
@pytest.mark.parametrize("shape", [(3, 2), [2, 3, 1], torch.Size([6])], ids=["tuple", "list", "Size"])
def test_check_shape_mismatch_is_a_value_error_naming_both_shapes(shape):
    raises(
        ValueError,
        lambda: d2l.check_shape(torch.zeros(2, 3), shape),
        f"expected a tensor of shape {tuple(shape)}",
        "got shape (2, 3)",
    )


@pytest.mark.parametrize("shape", [6, "2,3", None])
def test_check_shape_refuses_a_shape_that_is_not_a_sequence(shape):
    raises(TypeError, lambda: d2l.check_shape(torch.zeros(2, 3), shape), "shape must be a tuple, list or torch.Size")


def test_check_shape_survives_python_optimize_mode(tmp_path):
    """D2L's check_shape is an assert, which ``python -O`` removes; this one is an if."""
    script = (
        "import sys, torch\n"
        "from d2l_lib import torch as d2l\n"
        "assert False, 'asserts are on'  # skipped under -O\n"
        "try:\n"
        "    d2l.check_shape(torch.zeros(2, 3), (3, 2))\n"
        "except ValueError as error:\n"
        "    print('optimize', sys.flags.optimize, 'ValueError:', error)\n"
        "else:\n"
        "    print('optimize', sys.flags.optimize, 'no error')\n"
    )
    result = subprocess.run(
        [sys.executable, "-O", "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ("optimize 1 ValueError: expected a tensor of shape (3, 2), got shape (2, 3)")


# ------------------------------------------------------------------ show_heatmaps
@pytest.mark.parametrize("shape", [(), (5,), (1, 1, 1, 2, 2)], ids=["0-D", "1-D", "5-D"])
def test_show_heatmaps_refuses_other_ranks(shape):
    raises(
        ValueError,
        lambda: d2l.show_heatmaps(torch.rand(shape), xlabel="Keys", ylabel="Queries"),
        "matrices must have shape (queries, keys), (panels, queries, keys) or (grid rows, grid columns, queries, keys)",
        f"got shape {shape}",
    )


def test_show_heatmaps_refuses_titles_that_do_not_match_the_columns():
    raises(
        ValueError,
        lambda: d2l.show_heatmaps(torch.rand(1, 2, 3, 3), "Keys", "Queries", titles=["only one"]),
        "titles must have one entry per column of panels (2)",
        "got 1",
    )
