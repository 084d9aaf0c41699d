"""JAX's sharding trains a multi-head attention around d2l_lib's ``DotProductAttention`` as one
device does.

Usage: ``python jax_sharding.py OUTPUT_DIRECTORY``. XLA is asked for ``problem.NUM_REPLICAS``
CPU devices before JAX is imported (it reads the flag once); the jit-compiled training step then
runs on the whole batch on one device, and on the batch split over a mesh of all devices with
the parameters replicated. Saves the weights of every group of ``problem.GROUPS``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import problem

os.environ["XLA_FLAGS"] = (
    f"{os.environ.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count={problem.NUM_REPLICAS}"
).strip()
os.environ["JAX_PLATFORMS"] = "cpu"  # the host devices above, whatever accelerator there is

import jax  # noqa: E402
import numpy as np  # noqa: E402
from flax import linen as nn  # noqa: E402
from jax import numpy as jnp  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec  # noqa: E402

from d2l_lib import jax as d2l  # noqa: E402


class MultiHeadAttention(nn.Module):
    """Multi-head scaled dot-product attention: project, split into heads, attend, join, project."""

    num_hiddens: int
    num_heads: int

    def split_heads(self, X: jax.Array) -> jax.Array:
        """(batch, n, heads * d) -> (batch * heads, n, d): each head becomes an example."""
        batch_size, n, _ = X.shape
        X = X.reshape(batch_size, n, self.num_heads, -1).transpose(0, 2, 1, 3)
        return X.reshape(batch_size * self.num_heads, n, -1)

    def join_heads(self, X: jax.Array) -> jax.Array:
        """(batch * heads, n, d) -> (batch, n, heads * d), undoing ``split_heads``."""
        _, n, d = X.shape
        X = X.reshape(-1, self.num_heads, n, d).transpose(0, 2, 1, 3)
        return X.reshape(X.shape[0], n, self.num_heads * d)

    @nn.compact
    def __call__(self, queries, keys, values, valid_lens):
        def projection(name: str) -> nn.Dense:
            return nn.Dense(self.num_hiddens, use_bias=False, name=name)

        queries = self.split_heads(projection("W_q")(queries))
        keys = self.split_heads(projection("W_k")(keys))
        values = self.split_heads(projection("W_v")(values))
        # Every head of an example attends to as many keys as the example
        valid_lens = jnp.repeat(valid_lens, self.num_heads, axis=0)
        output, _ = d2l.DotProductAttention(dropout=0)(queries, keys, values, valid_lens)
        return projection("W_o")(self.join_heads(output))


MODEL = MultiHeadAttention(problem.NUM_HIDDENS, problem.NUM_HEADS)


def loss(params, arrays: dict[str, jax.Array]) -> jax.Array:
    """The mean squared error of the model's outputs on ``arrays``' examples."""
    outputs = MODEL.apply(params, arrays["queries"], arrays["keys"], arrays["values"], arrays["valid_lens"])
    return jnp.mean((outputs - arrays["targets"]) ** 2)


def step(params, arrays: dict[str, jax.Array]):
    """One step of SGD."""
    gradients = jax.grad(loss)(params, arrays)
    return jax.tree.map(lambda p, g: p - problem.LEARNING_RATE * g, params, gradients)


def train(train_step, params, arrays):
    """``params`` after ``problem.STEPS`` calls of ``train_step`` on ``arrays``."""
    for _ in range(problem.STEPS):
        params = train_step(params, arrays)
    return params


def as_params(weights: dict[str, np.ndarray]) -> dict:
    """Flax's parameter tree of the model with these (inputs, outputs) kernels."""
    return {"params": {name: {"kernel": jnp.asarray(matrix)} for name, matrix in weights.items()}}


def weights_of(params) -> dict[str, np.ndarray]:
    """The projections' kernels of Flax's parameter tree ``params``, as NumPy matrices."""
    return {name: np.asarray(layer["kernel"]) for name, layer in params["params"].items()}


def replica_weights(params, device) -> dict[str, np.ndarray]:
    """The weights as ``device`` holds them."""
    return {
        name: next(np.asarray(s.data) for s in layer["kernel"].addressable_shards if s.device == device)
        for name, layer in params["params"].items()
    }


def main(directory: Path) -> None:
    """Save the starting weights, train on one device, then on the mesh of every device."""
    devices = jax.devices()
    assert len(devices) == problem.NUM_REPLICAS, devices
    initial = problem.initial_weights()
    problem.save(directory, "initial", initial)
    whole = {name: jnp.asarray(array) for name, array in problem.batch().items()}
    single = train(jax.jit(step), as_params(initial), whole)
    problem.save(directory, "single", weights_of(single))

    mesh = Mesh(np.array(devices), ("batch",))
    replicated = NamedSharding(mesh, PartitionSpec())
    split = NamedSharding(mesh, PartitionSpec("batch"))  # the first axis, over the devices
    arrays = jax.device_put(problem.batch(), split)
    for rank, device in enumerate(devices):  # each device holds its part of the batch, and only that
        part = problem.shard(problem.batch(), rank)
        for name, array in arrays.items():
            (held,) = (s.data for s in array.addressable_shards if s.device == device)
            np.testing.assert_array_equal(held, part[name], err_msg=f"{name} on {device}")
    sharded_step = jax.jit(step, in_shardings=(replicated, split), out_shardings=replicated)
    parallel = train(sharded_step, jax.device_put(as_params(initial), replicated), arrays)
    for rank, device in enumerate(devices):
        problem.save(directory, f"replica{rank}", replica_weights(parallel, device))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
