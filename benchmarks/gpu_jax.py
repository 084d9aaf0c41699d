"""The GPU table's JAX rows: the layer under ``jax.jit`` on JAX's default device, its weights
returned or unused, against ``jax.nn.dot_product_attention`` (XLA's implementation, the
default), and that function's cuDNN implementation where cuDNN takes the inputs (for information)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from .settings import FRAMEWORK_BUDGET, FRAMEWORK_GOAL, FRAMEWORK_LIMIT, GPU_DTYPES, JAX_AGREEMENT, PER_EXAMPLE
from .table import Row, emit
from .timing import interleaved_samples

BASELINE = 'jax.nn.dot_product_attention, jit'


def jax_sync(result: object) -> object:
    """``sync`` for ``interleaved_samples`` with JAX: wait for a group's last result."""
    import jax

    return None if result is None else jax.block_until_ready(result)


def _builtin(implementation: str | None) -> Callable[..., Any]:
    """``jax.nn.dot_product_attention`` on one-head views, jitted, with ``implementation``."""
    import jax

    def attend(q, k, v, mask):
        out = jax.nn.dot_product_attention(
            q[:, :, None], k[:, :, None], v[:, :, None], mask=mask[:, None], implementation=implementation
        )
        return out[:, :, 0]

    return jax.jit(attend)


def jax_rows(sizes: list[tuple[int, int, int, int]], budget: float, rows: list[Row]) -> None:
    """The JAX layer under jax.jit on JAX's default device against jax.nn.dot_product_attention."""
    import jax
    import jax.numpy as jnp

    from d2l_lib import jax as d2l_jax

    layer = d2l_jax.DotProductAttention(dropout=0.1)
    rng = np.random.default_rng(2)
    # On a CPU, XLA's dot_general refuses the float16 and bfloat16 products that
    # jax.nn.dot_product_attention asks for (float32 accumulation)
    names = list(GPU_DTYPES) if jax.default_backend() == 'gpu' else ['float32']
    for name in names:
        for size in sizes:
            batch_size, num_queries, num_pairs, d = size
            q, k, v = (
                jnp.asarray(rng.standard_normal((batch_size, n, d), dtype=np.float32), dtype=name)
                for n in (num_queries, num_pairs, num_pairs)
            )
            lens = jnp.asarray(rng.integers(1, num_pairs + 1, (batch_size,)))
            mask = jnp.arange(num_pairs) < lens.reshape(batch_size, -1, 1)
            params = layer.init(jax.random.key(0), q[:1, :1], k[:1], v[:1], lens[:1])
            ours = jax.jit(partial(layer.apply, params))
            ours_output = jax.jit(lambda q, k, v, lens, params=params: layer.apply(params, q, k, v, lens)[0])
            xla = _builtin(None)
            # Both sides use JAX's default matmul precision (on a GPU, float32 products may
            # run in TF32); the layer's softmax runs in the inputs' dtype, the built-in's in
            # float32: show how far apart they are, refuse only what no rounding explains.
            difference = float(
                np.max(
                    np.abs(np.asarray(ours(q, k, v, lens)[0], np.float32) - np.asarray(xla(q, k, v, mask), np.float32))
                )
            )
            print(f'(jax {name} {size}: max |layer - jax.nn.dot_product_attention| = {difference:.2g})')
            if not difference < JAX_AGREEMENT:
                raise AssertionError(f'the JAX layer and the built-in differ by {difference} at {name} {size}')
            fns = [partial(ours, q, k, v, lens), partial(ours_output, q, k, v, lens), partial(xla, q, k, v, mask)]
            cudnn: Callable[..., Any] | None = _builtin('cudnn')
            try:
                jax.block_until_ready(cudnn(q, k, v, mask))  # type: ignore[misc]
            except Exception as error:  # noqa: BLE001 - cuDNN refuses some dtypes and shapes, in several ways
                cudnn = None
                print(f'(jax {name} {size}: cuDNN attention not available: {type(error).__name__})')
            else:
                fns.append(partial(cudnn, q, k, v, mask))
            times, _ = interleaved_samples(fns, budget * FRAMEWORK_BUDGET, 9, 301, jax_sync)
            cells = (name, *size)
            emit(rows, Row('jax DotProductAttention, jit', BASELINE, cells, PER_EXAMPLE, times[0], times[2], None,
                           FRAMEWORK_LIMIT), kernel=True)  # fmt: skip
            emit(rows, Row('... weights unused', BASELINE, cells, PER_EXAMPLE, times[1], times[2], FRAMEWORK_GOAL),
                 kernel=True)  # fmt: skip
            if cudnn is not None:
                emit(rows, Row('... implementation="cudnn"', BASELINE, cells, PER_EXAMPLE, times[3], times[2], None),
                     kernel=True)  # fmt: skip
