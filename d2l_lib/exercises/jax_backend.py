"""The JAX backend of the exercise checks: layers are Flax ``linen`` modules, run with ``init`` and ``apply``.

As in D2L's JAX code, a layer returns ``(output, attention_weights)``, takes ``training``
(``False`` by default: no dropout), and keeps its parameters outside itself.
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np
from flax import linen as nn
from jax import numpy as jnp

from d2l_lib.exercises.backend import FrameworkBackend, LayerInputs, LayerRun, returned, wrong_type
from d2l_lib.exercises.report import Failure

INPUTS = ("queries", "keys", "values")


class JaxBackend(FrameworkBackend):
    """Arrays are ``jax.Array``; lengths are int32; gradients come from ``jax.grad``."""

    name = "jax"
    tensor_type = "jax.Array"
    layer_base = "flax.linen.Module"
    module = "jax"
    layer_class = nn.Module

    def tensor(self, array: np.ndarray) -> jax.Array:
        return jnp.asarray(array, dtype=jnp.int32 if array.dtype.kind in "iu" else None)

    def numpy(self, value: Any, what: str) -> np.ndarray:
        if not isinstance(value, jax.Array):
            raise wrong_type(self.tensor_type, value, what)
        return np.asarray(value)

    def _pair(self, result: Any) -> tuple[Any, Any]:
        if not (isinstance(result, tuple) and len(result) == 2):
            raise Failure("jax_returns", received=type(result).__name__)
        return result

    def run_layer(self, cls: type, kwargs: dict[str, Any], inputs: LayerInputs) -> LayerRun:
        layer = cls(**kwargs)
        arrays = [jnp.asarray(getattr(inputs, name)) for name in INPUTS]
        lens = None if inputs.valid_lens is None else self.tensor(inputs.valid_lens)
        variables = layer.init(jax.random.key(0), *arrays, lens)
        output, weights = self._pair(returned(layer.apply(variables, *arrays, lens), f"{cls.__name__}.__call__"))
        run = LayerRun(self.numpy(output, "output"), self.numpy(weights, "attention_weights"), grads=None)
        leaves = jax.tree_util.tree_leaves(variables)
        run.params = [np.asarray(leaf) for leaf in leaves]
        R = jnp.asarray(inputs.R)

        def loss(queries, keys, values, variables):
            output, _ = self._pair(layer.apply(variables, queries, keys, values, lens, training=False))
            return jnp.sum(output * R), output

        try:  # differentiated under tracing: an error here is told as such, not raised
            (_, again), grads = jax.value_and_grad(loss, argnums=(0, 1, 2, 3), has_aux=True)(*arrays, variables)
        except Failure:
            raise
        except Exception as error:  # noqa: BLE001 (the reader's code may raise anything)
            text = str(error).strip()
            run.grad_error = f"{type(error).__name__}: {text.splitlines()[0] if text else ''}"
            return run
        run.again = np.asarray(again)
        run.grads = {name: np.asarray(grad) for name, grad in zip(INPUTS, grads[:3])}
        run.param_grads = [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(grads[3])]
        return run

    def run_reference(self, kind: str, inputs: LayerInputs, M: np.ndarray | None = None) -> LayerRun:
        d2l = self.reference()
        lens = None if inputs.valid_lens is None else self.tensor(inputs.valid_lens)
        R = jnp.asarray(inputs.R)
        layer = d2l.DistanceAttention(dropout=0.5) if kind == "distance" else d2l.DotProductAttention(dropout=0.1)

        def loss(queries, keys, values, M):
            if M is not None:  # the bilinear scores: dot products with the keys mapped by M
                keys = keys @ M.T
            output, weights = layer.apply({}, queries, keys, values, lens)
            return jnp.sum(output * R), (output, weights)

        arrays = [jnp.asarray(getattr(inputs, name)) for name in INPUTS]
        matrix = None if M is None else jnp.asarray(M)
        argnums = (0, 1, 2) if M is None else (0, 1, 2, 3)
        (_, (output, weights)), grads = jax.value_and_grad(loss, argnums=argnums, has_aux=True)(*arrays, matrix)
        names = INPUTS if M is None else (*INPUTS, "M")
        return LayerRun(
            output=np.asarray(output),
            weights=np.asarray(weights),
            grads={name: np.asarray(grad) for name, grad in zip(names, grads)},
        )
