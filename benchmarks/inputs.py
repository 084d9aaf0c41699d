"""What the rows time: the library under test, seeded inputs and lengths, a training step."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from types import ModuleType

import torch

from .settings import PER_EXAMPLE


def load_library(path: str | None) -> ModuleType:
    """``d2l_lib.torch``, or the module in file ``path`` (to time a proposed change)."""
    if path is None:
        from d2l_lib import torch as d2l

        return d2l
    spec = importlib.util.spec_from_file_location('candidate_lib', path)
    if spec is None or spec.loader is None:
        raise SystemExit(f'--lib {path}: not a Python file that can be imported')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def lengths(shape: tuple[int, ...], num_keys: int, generator: torch.Generator, zero: bool = False) -> torch.Tensor:
    """Valid lengths between 1 and the number of keys, seeded; with ``zero``, the lengths of one
    example (picked by the generator) are 0."""
    lens = torch.randint(1, num_keys + 1, shape, generator=generator)
    if zero:
        lens[int(torch.randint(shape[0], (), generator=generator))] = 0
    return lens


def length_shape(kind: str, batch_size: int, num_queries: int) -> tuple[int, ...]:
    """The shape of the lengths of ``kind``: (batch,) per example, (batch, queries) per query."""
    return (batch_size,) if kind == PER_EXAMPLE else (batch_size, num_queries)


def attention_inputs(
    size: tuple[int, int, int, int],
    generator: torch.Generator,
    device: str = 'cpu',
    dtype: torch.dtype = torch.float32,
    requires_grad: bool = False,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Seeded standard-normal queries (batch, n, d), keys and values (batch, m, d) for ``size``
    = (batch, n, m, d), drawn on the CPU in float32 and then moved to ``device`` and ``dtype``."""
    batch_size, num_queries, num_pairs, d = size
    return tuple(  # type: ignore[return-value]
        torch.randn(batch_size, n, d, generator=generator).to(device=device, dtype=dtype).requires_grad_(requires_grad)
        for n in (num_queries, num_pairs, num_pairs)
    )


def forward_backward(
    layer: Callable[..., torch.Tensor], queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, upstream
) -> Callable[[], None]:
    """A function that runs ``layer(queries, keys, values)`` and back-propagates ``upstream``,
    then drops the gradients so that the next call does not add to them."""

    def run() -> None:
        layer(queries, keys, values).backward(upstream)
        queries.grad = keys.grad = values.grad = None

    return run
