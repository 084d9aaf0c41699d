"""The preliminaries' helpers in JAX only: ``check_shape`` of NumPy arrays and tracers,
``get_key``, ``normal`` and the aliases as JAX's own functions.

What every framework shares is in ``tests/library/test_helpers.py``.
"""

from __future__ import annotations

import jax
import numpy as np
from jax import numpy as jnp

from d2l_lib import jax as d2l

# ------------------------------------------------------------------ check_shape


def test_check_shape_accepts_a_scalar_an_empty_array_a_numpy_array_and_a_tracer():
    assert d2l.check_shape(jnp.array(1.0), ()) is None
    assert d2l.check_shape(np.zeros((0, 5)), [0, 5]) is None
    jax.jit(lambda x: d2l.check_shape(x, (2, 3)))(jnp.zeros((2, 3)))


# ------------------------------------------------------------------ get_key and normal
def test_get_key_gives_a_new_key_at_every_call():
    keys = [d2l.get_key() for _ in range(3)]
    data = {tuple(np.asarray(jax.random.key_data(key)).tolist()) for key in keys}
    assert len(data) == 3
    assert all(jnp.issubdtype(key.dtype, jax.dtypes.prng_key) for key in keys)


def test_normal_draws_d2l_shaped_float32_samples():
    x = d2l.normal(0, 1, (2, 10, 4))
    assert x.shape == (2, 10, 4) and x.dtype == jnp.float32
    y = np.asarray(d2l.normal(5.0, 0.5, (20000,), key=jax.random.key(3)))
    assert abs(y.mean() - 5.0) < 0.02 and abs(y.std() - 0.5) < 0.02
    np.testing.assert_array_equal(d2l.normal(5.0, 0.5, (20000,), key=jax.random.key(3)), y)  # a key: reproducible
    assert not np.array_equal(d2l.normal(0, 1, (2, 10, 4)), x)  # no key: a fresh one


# ------------------------------------------------------------------ aliases
def test_ones_and_tensor_are_jax_numpy_s_own():
    assert d2l.ones is jnp.ones and d2l.tensor is jnp.array
    np.testing.assert_array_equal(d2l.ones((2, 3)), np.ones((2, 3)))
    lens = d2l.tensor([2, 6])
    assert lens.dtype == jnp.int32 and lens.tolist() == [2, 6]
    assert d2l.tensor([1.5]).dtype == jnp.float32


def test_reshape_alias_takes_the_sizes_as_arguments():
    np.testing.assert_array_equal(d2l.reshape(jnp.arange(12.0), 3, 4), np.arange(12.0).reshape(3, 4))
