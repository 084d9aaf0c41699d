"""The preliminaries' helpers in TensorFlow: ``check_shape``, the tensor aliases and ``show_heatmaps``.

Errors these helpers raise are in ``test_errors.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from matplotlib.figure import Figure

from d2l_lib import tensorflow as d2l


# ------------------------------------------------------------------ check_shape
@pytest.mark.parametrize(
    "shape", [(2, 3, 4), [2, 3, 4], tf.TensorShape([2, 3, 4])], ids=["tuple", "list", "TensorShape"]
)
def test_check_shape_accepts_tuple_list_and_tensor_shape(shape):
    assert d2l.check_shape(tf.zeros((2, 3, 4)), shape) is None


def test_check_shape_accepts_scalars_empty_tensors_variables_and_arrays():
    assert d2l.check_shape(tf.constant(1.0), ()) is None
    assert d2l.check_shape(tf.zeros((0, 5)), [0, 5]) is None
    assert d2l.check_shape(tf.Variable(tf.zeros((2, 3))), (2, 3)) is None
    assert d2l.check_shape(np.zeros((4, 1)), (4, 1)) is None


def test_check_shape_on_the_chapter_bmm_example():
    Q, K = d2l.ones((2, 3, 4)), d2l.ones((2, 4, 6))
    assert d2l.check_shape(tf.matmul(Q, K), (2, 3, 6)) is None


def test_check_shape_compares_static_shapes_inside_tf_function():
    @tf.function(input_signature=[tf.TensorSpec((None, 3))])
    def checked(x):
        d2l.check_shape(x, (None, 3))
        with pytest.raises(ValueError, match=r"expected a tensor of shape \(2, 3\), got shape \(None, 3\)"):
            d2l.check_shape(x, (2, 3))
        return x

    checked(tf.zeros((2, 3)))


# ------------------------------------------------------------------ aliases
def test_aliases_are_d2l_s_tensorflow_functions():
    assert d2l.normal is tf.random.normal and d2l.ones is tf.ones
    assert d2l.tensor is tf.constant and d2l.reshape is tf.reshape


def test_normal_takes_the_shape_first_as_in_d2l():
    tf.random.set_seed(3)
    x = d2l.normal((2, 10, 4), 0, 1)
    tf.random.set_seed(3)
    np.testing.assert_array_equal(x.numpy(), tf.random.normal((2, 10, 4), 0, 1).numpy())
    assert x.shape == (2, 10, 4) and x.dtype == tf.float32
    y = d2l.normal((20000,), 5.0, 0.5).numpy()
    assert abs(y.mean() - 5.0) < 0.02 and abs(y.std() - 0.5) < 0.02


def test_ones_tensor_and_reshape():
    np.testing.assert_array_equal(d2l.ones((2, 3)).numpy(), np.ones((2, 3)))
    lens = d2l.tensor([2, 6])
    assert lens.dtype == tf.int32 and lens.numpy().tolist() == [2, 6]
    assert d2l.tensor([1.5]).dtype == tf.float32
    x = tf.range(12.0)
    for shape in ((3, 4), [3, -1]):
        y = d2l.reshape(x, shape)
        assert y.shape == (3, 4)
        np.testing.assert_array_equal(tf.reshape(y, [-1]).numpy(), x.numpy())
    weights = tf.random.stateless_uniform((2, 10), seed=(0, 0))
    np.testing.assert_array_equal(d2l.reshape(weights, (1, 1, 2, 10))[0, 0].numpy(), weights.numpy())


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


def _drawn(ax) -> np.ndarray:
    return np.asarray(ax.images[0].get_array())


def _colorbars(fig: Figure) -> int:
    return sum(ax.get_label() == "<colorbar>" for ax in fig.axes)


def test_show_heatmaps_grid_labels_titles_and_one_colorbar():
    matrices = tf.random.stateless_uniform((2, 3, 4, 5), seed=(1, 0))
    fig = d2l.show_heatmaps(matrices, xlabel="Keys", ylabel="Queries", titles=["t0", "t1", "t2"])
    assert isinstance(fig, Figure)
    panels = _panels(fig)
    assert sorted(panels) == [(i, j) for i in range(2) for j in range(3)]
    assert _colorbars(fig) == 1
    for (i, j), ax in panels.items():
        np.testing.assert_allclose(_drawn(ax), matrices[i, j].numpy(), rtol=1e-6)
        assert ax.get_xlabel() == ("Keys" if i == 1 else "")  # only under the bottom row
        assert ax.get_ylabel() == ("Queries" if j == 0 else "")  # only left of the first column
        if i == 0:
            assert ax.get_title() == f"t{j}"
        assert ax.images[0].get_cmap().name == "Reds"
    first = panels[(0, 0)]
    assert first.get_shared_x_axes().joined(first, panels[(1, 2)])
    assert first.get_shared_y_axes().joined(first, panels[(1, 2)])


def test_show_heatmaps_identity_example_of_the_preliminaries():
    fig = d2l.show_heatmaps(d2l.reshape(tf.eye(10), (1, 1, 10, 10)), xlabel="Keys", ylabel="Queries")
    (ax,) = _panels(fig).values()
    np.testing.assert_array_equal(_drawn(ax), np.eye(10))
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == ("Keys", "Queries", "")
    assert _colorbars(fig) == 1 and tuple(fig.get_size_inches()) == (2.5, 2.5)


@pytest.mark.parametrize(
    "shape, grid", [((4, 5), (1, 1)), ((3, 4, 5), (1, 3)), ((2, 1, 4, 5), (2, 1))], ids=["2-D", "3-D", "4-D"]
)
def test_show_heatmaps_accepts_2d_3d_4d(shape, grid):
    matrices = tf.random.stateless_uniform(shape, seed=(2, 0))
    panels = _panels(d2l.show_heatmaps(matrices, xlabel="x", ylabel="y"))
    assert sorted(panels) == [(i, j) for i in range(grid[0]) for j in range(grid[1])]
    as_grid = tf.reshape(matrices, grid + (4, 5)).numpy()
    for (i, j), ax in panels.items():
        np.testing.assert_allclose(_drawn(ax), as_grid[i, j], rtol=1e-6)


@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16, tf.float64])
def test_show_heatmaps_takes_low_and_high_precision(dtype):
    matrices = tf.cast(tf.random.stateless_uniform((1, 2, 3, 3), seed=(3, 0)), dtype)  # NumPy has no bfloat16
    for (_, j), ax in _panels(d2l.show_heatmaps(matrices, xlabel="Keys", ylabel="Queries")).items():
        np.testing.assert_allclose(_drawn(ax), tf.cast(matrices[0, j], tf.float32).numpy(), rtol=1e-6)


def test_show_heatmaps_takes_variables_arrays_and_lists():
    for matrices in (tf.Variable(tf.eye(3)), np.eye(3), [[0.0, 1.0], [1.0, 0.0]]):
        (ax,) = _panels(d2l.show_heatmaps(matrices, xlabel="Keys", ylabel="Queries")).values()
        np.testing.assert_array_equal(_drawn(ax), np.asarray(matrices))


def test_show_heatmaps_figsize_and_cmap():
    fig = d2l.show_heatmaps(tf.zeros((1, 2, 3, 3)), xlabel="Keys", ylabel="Queries", figsize=(6, 3), cmap="viridis")
    assert tuple(fig.get_size_inches()) == (6, 3)
    assert all(ax.images[0].get_cmap().name == "viridis" for ax in _panels(fig).values())


def test_show_heatmaps_panels_share_one_color_scale():
    matrices = tf.reshape(tf.stack([tf.fill((2, 2), 0.1), tf.eye(2)]), (1, 2, 2, 2))
    matrices = tf.tensor_scatter_nd_update(matrices, [[0, 0, 0, 0]], [0.0])
    fig = d2l.show_heatmaps(matrices, xlabel="Keys", ylabel="Queries")
    assert {(ax.images[0].norm.vmin, ax.images[0].norm.vmax) for ax in fig.axes if ax.images} == {(0.0, 1.0)}


def test_show_heatmaps_of_attention_weights_after_a_forward_pass():
    """The chapter's use: the weights a layer kept from its last call."""
    queries = tf.random.stateless_normal((2, 1, 2), seed=(4, 0))
    keys, values = tf.random.stateless_normal((2, 10, 2), seed=(4, 1)), tf.random.stateless_normal((2, 10, 4), (4, 2))
    attention = d2l.DotProductAttention(dropout=0.5)
    attention(queries, keys, values, tf.constant([2, 6]), training=False)
    fig = d2l.show_heatmaps(d2l.reshape(attention.attention_weights, (1, 1, 2, 10)), xlabel="Keys", ylabel="Queries")
    (ax,) = _panels(fig).values()
    drawn = _drawn(ax)
    assert (drawn[0, 2:] == 0).all() and (drawn[1, 6:] == 0).all()
    assert (drawn[0, :2] > 0).all() and (drawn[1, :6] > 0).all()
