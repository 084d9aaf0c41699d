"""TensorFlow (Keras) behind the contract of ``tests/library``: ``d2l_lib.tensorflow`` and the
few array operations the shared tests need (see ``tests/library/conftest.py``)."""

from __future__ import annotations

import contextlib
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from d2l_lib import tensorflow as d2l  # noqa: E402


class Module:
    """A Keras layer of ``d2l_lib.tensorflow``, sized on its first call when its sizes are not given."""

    def __init__(self, make, kind: str, sizes: dict):
        self.make, self.kind, self.sizes = make, kind, sizes
        self.layer = None

    def _build(self, queries, keys):
        if self.kind == "additive":
            query_size = self.sizes.get("query_size") or queries.shape[-1]
            key_size = self.sizes.get("key_size") or keys.shape[-1]
            self.layer = self.make(key_size=key_size, query_size=query_size, num_hiddens=self.sizes["num_hiddens"])
        else:
            self.layer = self.make()

    def __call__(self, queries, keys, values, valid_lens=None, training=False):
        """Call the layer with ``training=``; return ``(output, attention_weights)``."""
        if self.layer is None:
            self._build(queries, keys)
        out = self.layer(queries, keys, values, valid_lens, training=training)
        return out, self.layer.attention_weights

    def set_additive(self, W_q, W_k, w_v):
        """Give an AdditiveAttention the text's W_q (h x q), W_k (h x k) and w_v (h,): Dense kernels are (in, out)."""
        if self.layer is None:
            self.sizes |= {"query_size": np.shape(W_q)[1], "key_size": np.shape(W_k)[1]}
            self._build(None, None)
        self.layer.W_q.kernel.assign(np.asarray(W_q).T)
        self.layer.W_k.kernel.assign(np.asarray(W_k).T)
        self.layer.w_v.kernel.assign(np.asarray(w_v)[:, None])

    def copy_from(self, other: Module):
        """Take the kernels of ``other`` (a layer of the same kind and sizes), by their names."""
        for name in ("W_k", "W_q", "w_v", "M"):
            if hasattr(other.layer, name):
                getattr(self.layer, name).kernel.assign(getattr(other.layer, name).kernel)


class Lib:
    """What the shared tests know of TensorFlow."""

    d2l = d2l

    def dtype(self, name: str) -> tf.DType:
        """The TensorFlow dtype of a NumPy-style name ("float32", "bool", ...)."""
        return tf.as_dtype(name)

    def dtype_repr(self, name: str) -> str:
        """How the library's messages write the dtype ``name``."""
        return name

    def dtype_name(self, x) -> str:
        """The dtype of ``x`` as a NumPy-style name."""
        return x.dtype.name

    def precision(self, dtype: str):
        """Nothing to switch on: TensorFlow computes in any dtype."""
        return contextlib.nullcontext()

    def array(self, data, dtype: str | None = None) -> tf.Tensor:
        """A tensor of ``data`` (nested lists or a NumPy array), in ``dtype`` if given."""
        data = np.asarray(data)
        return tf.constant(data) if dtype is None else tf.cast(tf.constant(data), dtype)

    def randn(self, shape, seed=0, dtype="float32", scale=1.0) -> tf.Tensor:
        """Standard normal samples times ``scale``, drawn by NumPy (the same in every framework)."""
        return tf.cast(tf.constant(np.random.default_rng(seed).standard_normal(shape) * scale), dtype)

    def numpy(self, x) -> np.ndarray:
        """``x`` as NumPy: floating point as float64, other dtypes as they are."""
        x = tf.convert_to_tensor(x)
        return np.asarray(tf.cast(x, tf.float64)) if x.dtype.is_floating else x.numpy()

    def softmax(self, X) -> tf.Tensor:
        """The framework's own softmax over the last axis."""
        return tf.nn.softmax(X, axis=-1)

    def grad(self, fn, *args) -> list[np.ndarray]:
        """The gradients of the scalar ``fn(*args)`` with respect to every argument."""
        with tf.GradientTape() as tape:
            tape.watch(args)
            result = fn(*args)
        return [self.numpy(g) for g in tape.gradient(result, list(args))]

    def total(self, x):
        """The sum of every element, as a scalar the framework can differentiate."""
        return tf.reduce_sum(x)

    def layer(self, kind: str, dropout: float, *, num_hiddens=8, query_size=None, key_size=None, dtype=None) -> Module:
        """A fresh layer of ``d2l_lib.tensorflow``; ``kind`` is ``dot``, ``additive``, ``distance`` or ``bilinear``;
        ``dtype`` is its Keras dtype policy (float32 by default, whatever the inputs)."""
        sizes = {"num_hiddens": num_hiddens, "query_size": query_size, "key_size": key_size, "dtype": dtype}
        return self.lesson_layer(vars(d2l), kind, dropout, **sizes)

    def lesson_layer(self, namespace: dict, kind: str, dropout: float, **sizes) -> Module:
        """The ``kind`` of layer as ``namespace`` (the library's, or the lesson's cells) defines it."""
        sizes.setdefault("num_hiddens", 8)
        policy = {"dtype": sizes["dtype"]} if sizes.get("dtype") else {}
        if kind == "additive":

            def make(**shape):
                return namespace["AdditiveAttention"](**shape, dropout=dropout, **policy)

        elif kind == "bilinear":

            def make():
                cls = namespace["BilinearAttention"]
                return cls(query_size=sizes["query_size"], key_size=sizes["key_size"], dropout=dropout, **policy)

        else:

            def make():
                return namespace[{"dot": "DotProductAttention", "distance": "DistanceAttention"}[kind]](
                    dropout, **policy
                )

        return Module(make, kind, sizes)
