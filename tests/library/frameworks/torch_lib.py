"""PyTorch behind the contract of ``tests/library``: ``d2l_lib.torch`` and the few array
operations the shared tests need (see ``tests/library/conftest.py``)."""

from __future__ import annotations

import contextlib

import numpy as np
import torch

from d2l_lib import torch as d2l


class Module:
    """A layer of ``d2l_lib.torch`` called the way the shared tests call every layer."""

    def __init__(self, layer: torch.nn.Module):
        self.layer = layer

    def __call__(self, queries, keys, values, valid_lens=None, training=False):
        """Run the layer in training or evaluation mode; return ``(output, attention_weights)``."""
        self.layer.train(training)
        out = self.layer(queries, keys, values, valid_lens)
        return out, self.layer.attention_weights

    def set_additive(self, W_q, W_k, w_v):
        """Give an AdditiveAttention the text's W_q (h x q), W_k (h x k) and w_v (h,)."""
        dtype = torch.float64 if np.asarray(W_q).dtype == np.float64 else torch.float32
        self.layer.to(dtype)
        state = {"W_q.weight": W_q, "W_k.weight": W_k, "w_v.weight": np.asarray(w_v)[None, :]}
        self.layer.load_state_dict({name: torch.as_tensor(value, dtype=dtype) for name, value in state.items()})

    def copy_from(self, other: Module):
        """Load the parameters of ``other`` (a layer of the same kind, already sized)."""
        self.layer.load_state_dict(other.layer.state_dict())


class Lib:
    """What the shared tests know of PyTorch."""

    d2l = d2l

    def dtype(self, name: str) -> torch.dtype:
        """The torch dtype of a NumPy-style name ("float32", "bool", ...)."""
        return getattr(torch, name)

    def dtype_repr(self, name: str) -> str:
        """How the library's messages write the dtype ``name``."""
        return f"torch.{name}"

    def dtype_name(self, x) -> str:
        """The dtype of ``x`` as a NumPy-style name."""
        return str(x.dtype).removeprefix("torch.")

    def precision(self, dtype: str):
        """Nothing to switch on: PyTorch computes in any dtype."""
        return contextlib.nullcontext()

    def array(self, data, dtype: str | None = None) -> torch.Tensor:
        """A tensor of ``data`` (nested lists or a NumPy array), in ``dtype`` if given."""
        return torch.tensor(np.asarray(data), dtype=None if dtype is None else self.dtype(dtype))

    def randn(self, shape, seed=0, dtype="float32", scale=1.0) -> torch.Tensor:
        """Standard normal samples times ``scale``, drawn by NumPy (the same in every framework)."""
        sample = np.random.default_rng(seed).standard_normal(shape) * scale
        return torch.tensor(sample, dtype=torch.float64).to(self.dtype(dtype))

    def numpy(self, x) -> np.ndarray:
        """``x`` as NumPy: floating point as float64, other dtypes as they are."""
        if x.is_floating_point():
            return x.detach().to(torch.float64).numpy()
        return x.detach().numpy()

    def softmax(self, X) -> torch.Tensor:
        """The framework's own softmax over the last axis."""
        return torch.softmax(X, dim=-1)

    def grad(self, fn, *args) -> list[np.ndarray]:
        """The gradients of the scalar ``fn(*args)`` with respect to every argument."""
        leaves = [arg.detach().clone().requires_grad_() for arg in args]
        fn(*leaves).backward()
        return [self.numpy(leaf.grad) for leaf in leaves]

    def total(self, x):
        """The sum of every element, as a scalar the framework can differentiate."""
        return x.sum()

    def layer(self, kind: str, dropout: float, *, num_hiddens=8, query_size=None, key_size=None, dtype=None) -> Module:
        """A fresh layer of ``d2l_lib.torch``; ``kind`` is ``dot``, ``additive``, ``distance`` or ``bilinear``
        (``dtype`` is the inputs' business in PyTorch)."""
        return self.lesson_layer(
            vars(d2l), kind, dropout, num_hiddens=num_hiddens, query_size=query_size, key_size=key_size
        )

    def lesson_layer(self, namespace: dict, kind: str, dropout: float, **sizes) -> Module:
        """The ``kind`` of layer as ``namespace`` (the library's, or the lesson's cells) defines it."""
        if kind == "additive":
            return Module(namespace["AdditiveAttention"](sizes.get("num_hiddens", 8), dropout))
        if kind == "bilinear":
            cls = namespace["BilinearAttention"]
            return Module(cls(query_size=sizes["query_size"], key_size=sizes["key_size"], dropout=dropout))
        return Module(namespace[{"dot": "DotProductAttention", "distance": "DistanceAttention"}[kind]](dropout))
