"""The preliminaries' helpers in TensorFlow only: ``check_shape`` of shapes, variables and
arrays and inside ``tf.function``, ``normal`` and the aliases as TensorFlow's own functions,
and heatmaps of variables.

What every framework shares is in ``tests/library/test_helpers.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from d2l_lib import tensorflow as d2l


# ------------------------------------------------------------------ check_shape
def test_check_shape_accepts_a_tensor_shape():
    assert d2l.check_shape(tf.zeros((2, 3, 4)), tf.TensorShape([2, 3, 4])) is None


def test_check_shape_accepts_scalars_empty_tensors_variables_and_arrays():
    assert d2l.check_shape(tf.constant(1.0), ()) is None
    assert d2l.check_shape(tf.zeros((0, 5)), [0, 5]) is None
    assert d2l.check_shape(tf.Variable(tf.zeros((2, 3))), (2, 3)) is None
    assert d2l.check_shape(np.zeros((4, 1)), (4, 1)) is None


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


def test_show_heatmaps_takes_variables():
    for matrices in (tf.Variable(tf.eye(3)),):
        ax = d2l.show_heatmaps(matrices, xlabel="Keys", ylabel="Queries").axes[0]  # the panel; [1] is the colorbar
        np.testing.assert_array_equal(np.asarray(ax.images[0].get_array()), np.asarray(matrices))


def test_show_heatmaps_panels_share_one_color_scale():
    matrices = tf.reshape(tf.stack([tf.fill((2, 2), 0.1), tf.eye(2)]), (1, 2, 2, 2))
    matrices = tf.tensor_scatter_nd_update(matrices, [[0, 0, 0, 0]], [0.0])
    fig = d2l.show_heatmaps(matrices, xlabel="Keys", ylabel="Queries")
    assert {(ax.images[0].norm.vmin, ax.images[0].norm.vmax) for ax in fig.axes if ax.images} == {(0.0, 1.0)}
