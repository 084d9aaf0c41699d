"""JAX (Flax linen) behind the contract of ``tests/library``: ``d2l_lib.jax`` and the few
array operations the shared tests need (see ``tests/library/conftest.py``).

float64 needs ``jax.enable_x64`` (``jax.experimental.enable_x64`` in the 0.4 series that
``pyproject.toml`` still allows): ``precision("float64")`` switches it on, and arrays of
64-bit dtypes made outside it are NumPy arrays, which the library takes as they are.
"""

from __future__ import annotations

import contextlib

import jax
import jax.experimental
import numpy as np
from jax import numpy as jnp

from d2l_lib import jax as d2l

_X64 = jax.enable_x64 if hasattr(jax, "enable_x64") else jax.experimental.enable_x64


class Module:
    """A Flax layer of ``d2l_lib.jax`` with its parameters, called as a stateful layer."""

    def __init__(self, layer):
        self.layer = layer
        self.params = None
        self.calls = 0

    def __call__(self, queries, keys, values, valid_lens=None, training=False):
        """Apply the layer (initialising its parameters on the first call); dropout draws a new key per call."""
        if self.params is None:
            self.params = self.layer.init(jax.random.key(0), queries, keys, values, valid_lens)
        self.calls += 1
        rngs = {"dropout": jax.random.key(self.calls)} if training else None
        return self.layer.apply(self.params, queries, keys, values, valid_lens, training=training, rngs=rngs)

    def set_additive(self, W_q, W_k, w_v):
        """Give an AdditiveAttention the text's W_q (h x q), W_k (h x k) and w_v (h,): Dense kernels are (in, out)."""
        dtype = jnp.float64 if np.asarray(W_q).dtype == np.float64 and jax.config.jax_enable_x64 else jnp.float32
        kernels = {"W_q": np.asarray(W_q).T, "W_k": np.asarray(W_k).T, "w_v": np.asarray(w_v)[:, None]}
        self.params = {"params": {name: {"kernel": jnp.asarray(k, dtype=dtype)} for name, k in kernels.items()}}

    def copy_from(self, other: Module):
        """Take the parameters of ``other`` (a layer of the same kind, already called)."""
        self.params = other.params


class Lib:
    """What the shared tests know of JAX."""

    d2l = d2l

    @property
    def backend(self) -> str:
        """Where JAX puts new arrays: "cpu", "gpu" or "tpu"."""
        return jax.default_backend()

    @property
    def version(self) -> str:
        """The release of JAX installed (``jax.__version__``)."""
        return jax.__version__

    def dtype(self, name: str):
        """The dtype of a NumPy-style name ("float32", "bool", ...)."""
        return jnp.dtype(name)

    def dtype_repr(self, name: str) -> str:
        """How the library's messages write the dtype ``name``."""
        return name

    def dtype_name(self, x) -> str:
        """The dtype of ``x`` as a NumPy-style name."""
        return str(np.dtype(x.dtype))

    def precision(self, dtype: str):
        """``jax.enable_x64`` for float64, nothing for the other dtypes."""
        return _X64(True) if dtype == "float64" else contextlib.nullcontext()

    def array(self, data, dtype: str | None = None):
        """An array of ``data``: a jax.Array, or a NumPy array for a 64-bit dtype that JAX would narrow."""
        data = np.asarray(data) if dtype is None else np.asarray(data, dtype=dtype)
        if data.dtype.itemsize == 8 and not jax.config.jax_enable_x64:
            return data
        return jnp.asarray(data)

    def randn(self, shape, seed=0, dtype="float32", scale=1.0):
        """Standard normal samples times ``scale``, drawn by NumPy (the same in every framework)."""
        return self.array((np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype))

    def numpy(self, x) -> np.ndarray:
        """``x`` as NumPy: floating point as float64, other dtypes as they are."""
        x = np.asarray(x)
        return x.astype(np.float64) if jnp.issubdtype(x.dtype, jnp.floating) else x

    def softmax(self, X):
        """The framework's softmax over the last axis, compiled as the library's is (JAX 0.4
        runs it op by op outside ``jit``, which rounds some weights one ulp apart)."""
        return jax.jit(jax.nn.softmax, static_argnames="axis")(X, axis=-1)

    def grad(self, fn, *args) -> list[np.ndarray]:
        """The gradients of the scalar ``fn(*args)`` with respect to every argument."""
        return [self.numpy(g) for g in jax.grad(fn, argnums=tuple(range(len(args))))(*args)]

    def total(self, x):
        """The sum of every element, in float32 at least (half precision sums overflow)."""
        return x.astype(jnp.promote_types(x.dtype, jnp.float32)).sum()

    def layer(self, kind: str, dropout: float, *, num_hiddens=8, query_size=None, key_size=None, dtype=None) -> Module:
        """A fresh layer of ``d2l_lib.jax``; ``kind`` is ``dot``, ``additive``, ``distance`` or ``bilinear``
        (a Flax layer computes in the dtype of its inputs: ``dtype`` changes nothing)."""
        return self.lesson_layer(
            vars(d2l), kind, dropout, num_hiddens=num_hiddens, query_size=query_size, key_size=key_size
        )

    def lesson_layer(self, namespace: dict, kind: str, dropout: float, **sizes) -> Module:
        """The ``kind`` of layer as ``namespace`` (the library's, or the lesson's cells) defines it."""
        if kind == "additive":
            return Module(namespace["AdditiveAttention"](num_hiddens=sizes.get("num_hiddens", 8), dropout=dropout))
        if kind == "bilinear":
            cls = namespace["BilinearAttention"]
            return Module(cls(query_size=sizes["query_size"], key_size=sizes["key_size"], dropout=dropout))
        return Module(namespace[{"dot": "DotProductAttention", "distance": "DistanceAttention"}[kind]](dropout=dropout))
