"""Where the JAX layer's time goes on a GPU with its weights unused (docs/benchmarks.md, issue 27).

The GPU table (``benchmarks.gpu_jax``) hands ``jax.nn.dot_product_attention`` a mask built before
timing while the layer builds its own from the lengths. Here every side receives the lengths
and builds its mask inside the compiled function: the library's layer, the same computation
without the pass that zeroes the padding after the softmax, and the built-in. Each row
prints the median time, the median ratio to the built-in in the same round, and how many
kernels (fusions and custom calls) the compiled program's entry computation launches.

    python -m benchmarks.jax_mask_setup     # on JAX's default device (a GPU if it has one)
"""

import os
import re
from functools import partial

os.environ.setdefault('XLA_PYTHON_CLIENT_PREALLOCATE', 'false')

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from d2l_lib import jax as d2l  # noqa: E402

from .gpu_jax import jax_sync  # noqa: E402
from .settings import ATTENTION_SIZES  # noqa: E402
from .timing import interleaved_samples  # noqa: E402


def layer(q, k, v, lens):
    """The library's layer, only its output."""
    return d2l.DotProductAttention(dropout=0.0).apply({}, q, k, v, lens)[0]


def no_zeroing(q, k, v, lens):
    """The layer's computation without the pass that zeroes the padding after the softmax."""
    scores = jnp.matmul(q, jnp.swapaxes(k, 1, 2)) / np.sqrt(q.shape[-1])
    padding = jnp.arange(k.shape[1]) >= lens.reshape(-1, 1, 1)
    weights = jax.nn.softmax(jnp.where(padding, jnp.finfo(scores.dtype).min, scores), axis=-1)
    return jnp.matmul(weights, v)


def builtin(q, k, v, lens):
    """``jax.nn.dot_product_attention`` with the mask built from the lengths."""
    mask = jnp.arange(k.shape[1]) < lens.reshape(-1, 1, 1, 1)
    return jax.nn.dot_product_attention(q[:, :, None], k[:, :, None], v[:, :, None], mask=mask)[:, :, 0]


def main() -> None:
    rng = np.random.default_rng(2)
    fns = {'layer': layer, 'layer without zeroing pass': no_zeroing, 'jax.nn.dot_product_attention': builtin}
    print(jax.devices())
    # On a CPU, XLA refuses the float16 products that the built-in asks for
    for dt in ('float32', 'float16') if jax.default_backend() == 'gpu' else ('float32',):
        for size in ATTENTION_SIZES:
            b, n, m, d = size
            q, k, v = (jnp.asarray(rng.standard_normal((b, x, d), dtype=np.float32), dtype=dt) for x in (n, m, m))
            lens = jnp.asarray(rng.integers(1, m + 1, (b,)))
            jitted = {name: jax.jit(f) for name, f in fns.items()}
            kernels = {}
            for name, f in jitted.items():
                text = f.lower(q, k, v, lens).compile().as_text()
                entry = text[text.index('ENTRY') :]
                kernels[name] = len(re.findall(r'= \S+ (?:fusion|custom-call)\(', entry))
            samples, _ = interleaved_samples(
                [partial(f, q, k, v, lens) for f in jitted.values()], 1.0, 9, 301, jax_sync
            )
            base = samples[2]
            for name, s in zip(jitted, samples):
                ratio = np.median([x / y for x, y in zip(s, base)])
                print(
                    f'{dt:8} {str(size):20} {name:30} {np.median(s):.4f} ms  ratio {ratio:.2f}  '
                    f'kernels in the entry computation: {kernels[name]}'
                )


if __name__ == '__main__':
    main()
