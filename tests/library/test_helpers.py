"""The preliminaries' helpers in every framework: ``check_shape``, the array aliases and
``show_heatmaps``.

Errors these helpers raise are in ``test_errors.py``; what only one framework has (its shape
type, ``normal`` and ``get_key``, views, arrays that require grad, variables, tracing) is in
``<framework>/test_helpers.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure


def panels(fig: Figure) -> dict[tuple[int, int], object]:
    """The heatmap axes of ``fig``, keyed by (grid row, grid column); the colorbar is left out."""
    found = {}
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>":
            continue
        spec = ax.get_subplotspec()
        found[(spec.rowspan.start, spec.colspan.start)] = ax
    return found


def colorbars(fig: Figure) -> int:
    """How many colorbars ``fig`` has."""
    return sum(ax.get_label() == "<colorbar>" for ax in fig.axes)


def drawn(ax) -> np.ndarray:
    """The matrix a heatmap panel shows."""
    return np.asarray(ax.images[0].get_array())


def uniform(lib, shape, seed=0, dtype="float32"):
    """Uniform samples in [0, 1) of the framework."""
    return lib.array(np.random.default_rng(seed).uniform(size=shape), dtype)


# ------------------------------------------------------------------ check_shape
@pytest.mark.parametrize("shape", [(2, 3, 4), [2, 3, 4]], ids=["tuple", "list"])
def test_check_shape_accepts_a_tuple_and_a_list(lib, shape):
    assert lib.d2l.check_shape(lib.d2l.ones((2, 3, 4)), shape) is None


def test_check_shape_accepts_a_scalar_and_an_empty_array(lib):
    assert lib.d2l.check_shape(lib.array(1.0), ()) is None
    assert lib.d2l.check_shape(lib.array(np.zeros((0, 5))), [0, 5]) is None


def test_check_shape_on_the_chapter_bmm_example(lib):
    Q, K = lib.d2l.ones((2, 3, 4)), lib.d2l.ones((2, 4, 6))
    assert lib.d2l.check_shape(Q @ K, (2, 3, 6)) is None


# ------------------------------------------------------------------ aliases
def test_ones_and_tensor_aliases(lib):
    np.testing.assert_array_equal(lib.numpy(lib.d2l.ones((2, 3))), np.ones((2, 3)))
    lens = lib.d2l.tensor([2, 6])
    assert lib.dtype_name(lens) in ("int32", "int64") and lib.numpy(lens).tolist() == [2, 6]
    assert lib.dtype_name(lib.d2l.tensor([1.5])) == "float32"


@pytest.mark.parametrize("shape", [(3, 4), [3, -1]], ids=["tuple", "list-with--1"])
def test_reshape_alias(lib, shape):
    x = lib.array(np.arange(12.0), "float32")
    y = lib.d2l.reshape(x, shape)
    assert tuple(y.shape) == (3, 4)
    np.testing.assert_array_equal(lib.numpy(y).ravel(), np.arange(12.0))
    assert tuple(x.shape) == (12,)  # the input keeps its shape


def test_reshape_alias_on_the_heatmap_example(lib):
    weights = uniform(lib, (2, 10))
    np.testing.assert_array_equal(lib.numpy(lib.d2l.reshape(weights, (1, 1, 2, 10))[0, 0]), lib.numpy(weights))


# ------------------------------------------------------------------ show_heatmaps
def test_show_heatmaps_grid_labels_titles_one_colorbar_and_one_color_scale(lib):
    matrices = uniform(lib, (2, 3, 4, 5), seed=1)
    fig = lib.d2l.show_heatmaps(matrices, xlabel="Keys", ylabel="Queries", titles=["t0", "t1", "t2"])
    assert isinstance(fig, Figure)
    matrices = lib.numpy(matrices)
    found = panels(fig)
    assert sorted(found) == [(i, j) for i in range(2) for j in range(3)]
    assert colorbars(fig) == 1
    for (i, j), ax in found.items():
        assert len(ax.images) == 1
        np.testing.assert_allclose(drawn(ax), matrices[i, j], rtol=1e-6)
        assert ax.get_xlabel() == ("Keys" if i == 1 else "")  # only under the bottom row
        assert ax.get_ylabel() == ("Queries" if j == 0 else "")  # only left of the first column
        if i == 0:
            assert ax.get_title() == f"t{j}"  # each column headed by its title
        assert ax.images[0].get_cmap().name == "Reds"
        norm = ax.images[0].norm  # one color scale for every panel
        np.testing.assert_allclose((norm.vmin, norm.vmax), (matrices.min(), matrices.max()), rtol=1e-6)
    first = found[(0, 0)]
    assert first.get_shared_x_axes().joined(first, found[(1, 2)])
    assert first.get_shared_y_axes().joined(first, found[(1, 2)])


def test_show_heatmaps_identity_example_of_the_preliminaries(lib):
    eye = lib.array(np.eye(10), "float32")
    fig = lib.d2l.show_heatmaps(lib.d2l.reshape(eye, (1, 1, 10, 10)), xlabel="Keys", ylabel="Queries")
    (ax,) = panels(fig).values()
    np.testing.assert_array_equal(drawn(ax), np.eye(10))
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == ("Keys", "Queries", "")
    assert colorbars(fig) == 1
    assert tuple(fig.get_size_inches()) == (2.5, 2.5)


@pytest.mark.parametrize(
    "shape, grid", [((4, 5), (1, 1)), ((3, 4, 5), (1, 3)), ((2, 1, 4, 5), (2, 1))], ids=["2-D", "3-D", "4-D"]
)
def test_show_heatmaps_accepts_2d_3d_4d(lib, shape, grid):
    matrices = uniform(lib, shape, seed=2)
    fig = lib.d2l.show_heatmaps(matrices, xlabel="x", ylabel="y")
    found = panels(fig)
    assert sorted(found) == [(i, j) for i in range(grid[0]) for j in range(grid[1])]
    as_grid = lib.numpy(matrices).reshape(grid + (4, 5))
    for (i, j), ax in found.items():
        np.testing.assert_allclose(drawn(ax), as_grid[i, j], rtol=1e-6)
    assert colorbars(fig) == 1


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64"])
def test_show_heatmaps_takes_low_and_high_precision(lib, dtype):
    with lib.precision(dtype):
        matrices = uniform(lib, (1, 2, 3, 3), seed=3, dtype=dtype)  # NumPy has no bfloat16
        fig = lib.d2l.show_heatmaps(matrices, xlabel="Keys", ylabel="Queries")
    for (_, j), ax in panels(fig).items():
        if dtype == "float64":  # drawn in float32 or float64
            np.testing.assert_allclose(drawn(ax), lib.numpy(matrices)[0, j], rtol=1e-6)
        else:  # every half-precision number is a float32 one
            np.testing.assert_array_equal(drawn(ax), lib.numpy(matrices)[0, j])


@pytest.mark.parametrize("matrices", [np.eye(3), [[0.0, 1.0], [1.0, 0.0]]], ids=["numpy", "list"])
def test_show_heatmaps_takes_numpy_arrays_and_lists(lib, matrices):
    (ax,) = panels(lib.d2l.show_heatmaps(matrices, xlabel="Keys", ylabel="Queries")).values()
    np.testing.assert_array_equal(drawn(ax), np.asarray(matrices))


def test_show_heatmaps_figsize_and_cmap(lib):
    matrices = lib.array(np.zeros((1, 2, 3, 3)), "float32")
    fig = lib.d2l.show_heatmaps(matrices, xlabel="Keys", ylabel="Queries", figsize=(6, 3), cmap="viridis")
    assert tuple(fig.get_size_inches()) == (6, 3)
    assert all(ax.images[0].get_cmap().name == "viridis" for ax in panels(fig).values())


def test_show_heatmaps_of_attention_weights_after_a_forward_pass(lib):
    """The chapter's use: the weights of a layer in evaluation mode."""
    queries, keys, values = (lib.randn(shape, seed=4) for shape in ((2, 1, 2), (2, 10, 2), (2, 10, 4)))
    _, weights = lib.layer("dot", 0.5)(queries, keys, values, lib.array([2, 6]))
    fig = lib.d2l.show_heatmaps(lib.d2l.reshape(weights, (1, 1, 2, 10)), xlabel="Keys", ylabel="Queries")
    (ax,) = panels(fig).values()
    shown = drawn(ax)
    assert (shown[0, 2:] == 0).all() and (shown[1, 6:] == 0).all()
    assert (shown[0, :2] > 0).all() and (shown[1, :6] > 0).all()
