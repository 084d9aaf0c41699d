"""TensorFlow's MirroredStrategy trains a multi-head attention around d2l_lib's
``DotProductAttention`` as one device does.

Usage: ``python tensorflow_mirrored.py OUTPUT_DIRECTORY``. The CPU is split into
``problem.NUM_REPLICAS`` logical devices before any operation runs (TensorFlow fixes its devices
then); a custom training loop then trains on the whole batch without a strategy, and with
``MirroredStrategy`` over the logical CPUs, each replica computing the gradients of its part of
the batch and their sum updating the mirrored weights. Saves the weights of every group of
``problem.GROUPS``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import problem

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # no start-up notices on stderr

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from d2l_lib import tensorflow as d2l  # noqa: E402


class MultiHeadAttention(keras.layers.Layer):
    """Multi-head scaled dot-product attention: project, split into heads, attend, join, project."""

    def __init__(self, weights: dict[str, np.ndarray], num_heads: int, **kwargs):
        super().__init__(**kwargs)
        self.num_heads = num_heads
        for name, matrix in weights.items():
            inputs, outputs = matrix.shape
            layer = keras.layers.Dense(outputs, use_bias=False, name=name)
            layer.build((None, None, inputs))
            layer.kernel.assign(matrix)
            setattr(self, name, layer)
        self.attention = d2l.DotProductAttention(dropout=0)

    def split_heads(self, X: tf.Tensor) -> tf.Tensor:
        """(batch, n, heads * d) -> (batch * heads, n, d): each head becomes an example."""
        batch_size, n = tf.shape(X)[0], tf.shape(X)[1]
        X = tf.transpose(tf.reshape(X, (batch_size, n, self.num_heads, -1)), (0, 2, 1, 3))
        return tf.reshape(X, (batch_size * self.num_heads, n, -1))

    def join_heads(self, X: tf.Tensor) -> tf.Tensor:
        """(batch * heads, n, d) -> (batch, n, heads * d), undoing ``split_heads``."""
        n, d = tf.shape(X)[1], tf.shape(X)[2]
        X = tf.transpose(tf.reshape(X, (-1, self.num_heads, n, d)), (0, 2, 1, 3))
        return tf.reshape(X, (tf.shape(X)[0], n, self.num_heads * d))

    def call(self, queries, keys, values, valid_lens):
        queries = self.split_heads(self.W_q(queries))
        keys = self.split_heads(self.W_k(keys))
        values = self.split_heads(self.W_v(values))
        # Every head of an example attends to as many keys as the example
        valid_lens = tf.repeat(valid_lens, self.num_heads, axis=0)
        output = self.attention(queries, keys, values, valid_lens)
        return self.W_o(self.join_heads(output))

    def projections(self) -> list:
        """The projections' kernels, in the order of ``problem.PROJECTIONS``."""
        return [getattr(self, name).kernel for name in problem.PROJECTIONS]


def loss(model: MultiHeadAttention, arrays) -> tf.Tensor:
    """The mean squared error of the model's outputs on ``arrays``' examples."""
    outputs = model(arrays["queries"], arrays["keys"], arrays["values"], arrays["valid_lens"])
    return tf.reduce_mean(tf.square(outputs - arrays["targets"]))


def gradients(model: MultiHeadAttention, arrays, scale: float = 1.0) -> list[tf.Tensor]:
    """The gradients of ``scale`` times the loss with respect to the projections' kernels."""
    with tf.GradientTape() as tape:
        value = scale * loss(model, arrays)
    return tape.gradient(value, model.projections())


def sgd(model: MultiHeadAttention, grads: list[tf.Tensor]) -> None:
    """One step of SGD on the projections' kernels, with their gradients ``grads``."""
    for kernel, gradient in zip(model.projections(), grads, strict=True):
        kernel.assign_sub(problem.LEARNING_RATE * gradient)


def weights_of(model: MultiHeadAttention) -> dict[str, np.ndarray]:
    """The projections' kernels as NumPy matrices."""
    return {name: np.asarray(kernel.numpy()) for name, kernel in zip(problem.PROJECTIONS, model.projections())}


def mirrors_of(model: MultiHeadAttention) -> list[dict[str, np.ndarray]]:
    """The weights each replica holds (the mirrors of every kernel), one dict per replica."""
    mirrors = [kernel.value.values for kernel in model.projections()]
    return [
        {name: np.asarray(copies[rank].numpy()) for name, copies in zip(problem.PROJECTIONS, mirrors)}
        for rank in range(problem.NUM_REPLICAS)
    ]


def train_single(directory: Path) -> None:
    """Train on the whole batch without a strategy; save the weights as ``single``."""
    model = MultiHeadAttention(problem.initial_weights(), problem.NUM_HEADS)
    arrays = {name: tf.constant(array) for name, array in problem.batch().items()}
    step = tf.function(lambda: sgd(model, gradients(model, arrays)))
    for _ in range(problem.STEPS):
        step()
    problem.save(directory, "single", weights_of(model))


def train_mirrored(directory: Path, devices: list[str]) -> None:
    """Train with the batch split over ``devices``; save each replica's weights."""
    strategy = tf.distribute.MirroredStrategy(devices)
    assert strategy.num_replicas_in_sync == problem.NUM_REPLICAS
    with strategy.scope():
        model = MultiHeadAttention(problem.initial_weights(), problem.NUM_HEADS)
    whole = problem.batch()
    arrays = strategy.experimental_distribute_values_from_function(
        lambda context: {
            name: tf.constant(array) for name, array in problem.shard(whole, context.replica_id_in_sync_group).items()
        }
    )

    @tf.function
    def step(arrays) -> None:
        # Each replica's loss is its part's mean over the number of replicas: the sum of their
        # gradients is the gradient of the whole batch's mean
        per_replica = strategy.run(gradients, args=(model, arrays, 1 / problem.NUM_REPLICAS))
        sgd(model, [strategy.reduce("SUM", gradient, axis=None) for gradient in per_replica])

    for _ in range(problem.STEPS):
        step(arrays)
    for rank, weights in enumerate(mirrors_of(model)):
        problem.save(directory, f"replica{rank}", weights)


def main(directory: Path) -> None:
    """Split the CPU, save the starting weights, train on one device, then mirrored."""
    (cpu,) = tf.config.list_physical_devices("CPU")
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration() for _ in range(problem.NUM_REPLICAS)]
    )
    tf.config.set_visible_devices([], "GPU")  # the logical CPUs only, whatever accelerator there is
    devices = [device.name for device in tf.config.list_logical_devices("CPU")]
    assert len(devices) == problem.NUM_REPLICAS, devices
    problem.save(directory, "initial", problem.initial_weights())
    with tf.device(devices[0]):
        train_single(directory)
    train_mirrored(directory, devices)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
