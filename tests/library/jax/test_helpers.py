"""The preliminaries' helpers (JAX): ``check_shape``, ``get_key``, the array aliases and ``show_heatmaps``.

Errors these helpers raise are in ``test_errors.py``.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
from jax import numpy as jnp
from matplotlib.figure import Figure

from d2l_lib import jax as d2l


# ------------------------------------------------------------------ check_shape
@pytest.mark.parametrize("shape", [(2, 3, 4), [2, 3, 4]], ids=["tuple", "list"])
def test_check_shape_accepts_tuple_and_list(shape):
    assert d2l.check_shape(jnp.zeros((2, 3, 4)), shape) is None


def test_check_shape_accepts_a_scalar_an_empty_array_a_numpy_array_and_a_tracer():
    assert d2l.check_shape(jnp.array(1.0), ()) is None
    assert d2l.check_shape(np.zeros((0, 5)), [0, 5]) is None
    jax.jit(lambda x: d2l.check_shape(x, (2, 3)))(jnp.zeros((2, 3)))


def test_check_shape_on_the_chapter_bmm_example():
    Q, K = d2l.ones((2, 3, 4)), d2l.ones((2, 4, 6))
    assert d2l.check_shape(jax.lax.batch_matmul(Q, K), (2, 3, 6)) is None


# ------------------------------------------------------------------ get_key and normal
def test_get_key_gives_a_new_key_at_every_call():
    keys = [d2l.get_key() for _ in range(3)]
    data = {tuple(np.asarray(jax.random.key_data(key)).tolist()) for key in keys}
    assert len(data) == 3
    assert all(jnp.issubdtype(key.dtype, jax.dtypes.prng_key) for key in keys)


def test_normal_draws_d2l_shaped_float32_samples():
    x = d2l.normal(0, 1, (2, 10, 4))
    assert x.shape == (2, 10, 4) and x.dtype == jnp.float32
    y = np.asarray(d2l.normal(5.0, 0.5, (20000,), key=jax.random.key(3)))
    assert abs(y.mean() - 5.0) < 0.02 and abs(y.std() - 0.5) < 0.02
    np.testing.assert_array_equal(d2l.normal(5.0, 0.5, (20000,), key=jax.random.key(3)), y)  # a key: reproducible
    assert not np.array_equal(d2l.normal(0, 1, (2, 10, 4)), x)  # no key: a fresh one


# ------------------------------------------------------------------ aliases
def test_ones_and_tensor_aliases():
    assert d2l.ones is jnp.ones and d2l.tensor is jnp.array
    np.testing.assert_array_equal(d2l.ones((2, 3)), np.ones((2, 3)))
    lens = d2l.tensor([2, 6])
    assert lens.dtype == jnp.int32 and lens.tolist() == [2, 6]
    assert d2l.tensor([1.5]).dtype == jnp.float32


@pytest.mark.parametrize(
    "call",
    [lambda x: d2l.reshape(x, (3, 4)), lambda x: d2l.reshape(x, 3, 4), lambda x: d2l.reshape(x, [3, -1])],
    ids=["tuple", "sizes", "list-with--1"],
)
def test_reshape_alias(call):
    x = jnp.arange(12.0)
    y = call(x)
    assert y.shape == (3, 4)
    np.testing.assert_array_equal(np.asarray(y).ravel(), np.arange(12.0))
    assert x.shape == (12,)  # the input keeps its shape


def test_reshape_alias_on_the_heatmap_example():
    weights = np.random.default_rng(0).uniform(size=(2, 10)).astype(np.float32)
    np.testing.assert_array_equal(d2l.reshape(jnp.asarray(weights), (1, 1, 2, 10))[0, 0], weights)


# ------------------------------------------------------------------ show_heatmaps
def _panels(fig: Figure) -> dict[tuple[int, int], object]:
    """The heatmap axes of ``fig``, keyed by (grid row, grid column); the colorbar is left out."""
    panels = {}
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>":
            continue
        spec = ax.get_subplotspec()
        panels[(spec.rowspan.start, spec.colspan.start)] = ax
    return panels


def _colorbars(fig: Figure) -> int:
    return sum(ax.get_label() == "<colorbar>" for ax in fig.axes)


def _drawn(ax) -> np.ndarray:
    return np.asarray(ax.images[0].get_array())


def test_show_heatmaps_grid_labels_titles_one_colorbar_and_one_color_scale():
    matrices = np.random.default_rng(1).uniform(size=(2, 3, 4, 5)).astype(np.float32)
    fig = d2l.show_heatmaps(jnp.asarray(matrices), xlabel="Keys", ylabel="Queries", titles=["t0", "t1", "t2"])
    assert isinstance(fig, Figure)
    panels = _panels(fig)
    assert sorted(panels) == [(i, j) for i in range(2) for j in range(3)]
    assert _colorbars(fig) == 1
    for (i, j), ax in panels.items():
        np.testing.assert_allclose(_drawn(ax), matrices[i, j], rtol=1e-6)
        assert ax.get_xlabel() == ("Keys" if i == 1 else "")  # only under the bottom row
        assert ax.get_ylabel() == ("Queries" if j == 0 else "")  # only left of the first column
        if i == 0:
            assert ax.get_title() == f"t{j}"
        assert ax.images[0].get_cmap().name == "Reds"
        assert (ax.images[0].norm.vmin, ax.images[0].norm.vmax) == (matrices.min(), matrices.max())
    first = panels[(0, 0)]
    assert first.get_shared_x_axes().joined(first, panels[(1, 2)])
    assert first.get_shared_y_axes().joined(first, panels[(1, 2)])


def test_show_heatmaps_identity_example_of_the_preliminaries():
    fig = d2l.show_heatmaps(d2l.reshape(jnp.eye(10), (1, 1, 10, 10)), xlabel="Keys", ylabel="Queries")
    (ax,) = _panels(fig).values()
    np.testing.assert_array_equal(_drawn(ax), np.eye(10))
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == ("Keys", "Queries", "")
    assert _colorbars(fig) == 1
    assert tuple(fig.get_size_inches()) == (2.5, 2.5)


@pytest.mark.parametrize(
    "shape, grid", [((4, 5), (1, 1)), ((3, 4, 5), (1, 3)), ((2, 1, 4, 5), (2, 1))], ids=["2-D", "3-D", "4-D"]
)
def test_show_heatmaps_accepts_2d_3d_4d(shape, grid):
    matrices = np.random.default_rng(2).uniform(size=shape)
    fig = d2l.show_heatmaps(matrices, xlabel="x", ylabel="y")
    panels = _panels(fig)
    assert sorted(panels) == [(i, j) for i in range(grid[0]) for j in range(grid[1])]
    as_grid = matrices.reshape(grid + (4, 5))
    for (i, j), ax in panels.items():
        np.testing.assert_allclose(_drawn(ax), as_grid[i, j], rtol=1e-6)


@pytest.mark.parametrize("dtype", [jnp.float16, jnp.bfloat16], ids=["float16", "bfloat16"])
def test_show_heatmaps_takes_half_precision_arrays(dtype):
    matrices = jnp.asarray(np.random.default_rng(3).uniform(size=(1, 2, 3, 3)), dtype=dtype)
    fig = d2l.show_heatmaps(matrices, xlabel="Keys", ylabel="Queries")
    for (_, j), ax in _panels(fig).items():
        np.testing.assert_array_equal(_drawn(ax), np.asarray(matrices[0, j], dtype=np.float32))


def test_show_heatmaps_takes_lists_and_figsize_and_cmap():
    fig = d2l.show_heatmaps([[0.0, 1.0], [1.0, 0.0]], xlabel="Keys", ylabel="Queries", figsize=(6, 3), cmap="viridis")
    (ax,) = _panels(fig).values()
    np.testing.assert_array_equal(_drawn(ax), [[0.0, 1.0], [1.0, 0.0]])
    assert tuple(fig.get_size_inches()) == (6, 3) and ax.images[0].get_cmap().name == "viridis"


def test_show_heatmaps_of_attention_weights_after_a_forward_pass():
    """The chapter's use: the weights that DotProductAttention returns."""
    rng = np.random.default_rng(4)
    queries, keys, values = (
        jnp.asarray(rng.standard_normal(s), dtype=jnp.float32) for s in ((2, 1, 2), (2, 10, 2), (2, 10, 4))
    )
    (_, weights), _ = d2l.DotProductAttention(dropout=0.5).init_with_output(
        jax.random.key(0), queries, keys, values, d2l.tensor([2, 6])
    )
    fig = d2l.show_heatmaps(weights.reshape((1, 1, 2, 10)), xlabel="Keys", ylabel="Queries")
    (ax,) = _panels(fig).values()
    drawn = _drawn(ax)
    assert (drawn[0, 2:] == 0).all() and (drawn[1, 6:] == 0).all()
    assert (drawn[0, :2] > 0).all() and (drawn[1, :6] > 0).all()
