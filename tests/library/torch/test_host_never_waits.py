"""Issue 37: the PyTorch layers' forward never makes the host wait for the device.

Reading a tensor's value on the host (``.item()``, ``bool(tensor)``, ``.tolist()``,
``torch.equal``) makes the host wait until a GPU has computed it, so an attention layer that
read its lengths would be a synchronisation point in every model. Two ways to see that none
is left:

- On the CPU, the layers run on tensors on the ``meta`` device, which have shapes but no
  values: reading a value raises, so a forward pass that completes read none. (Lengths on
  the CPU are checked at once, on the host, where reading them waits for nothing; the
  tests of ``test_errors.py`` hold that.)
- On a CUDA GPU, ``torch.cuda.set_sync_debug_mode("error")`` raises at every
  synchronisation that PyTorch itself requests (``.item()``, a copy to the host, a blocking
  copy to the GPU). A bad length on a GPU is reported by a device-side assertion, at the next
  synchronisation; that test runs in a subprocess, since the CUDA context cannot recover.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
import torch

from d2l_lib import torch as d2l

BATCH, QUERIES, KEYS, D, V = 4, 5, 6, 8, 3
LENGTH_SHAPES = {"no lengths": None, "1-D": (BATCH,), "2-D": (BATCH, QUERIES)}
needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU; CI has none")


def _layers() -> dict[str, torch.nn.Module]:
    return {
        "DotProductAttention": d2l.DotProductAttention(dropout=0.0),
        "DotProductAttention, dropout": d2l.DotProductAttention(dropout=0.1),
        "AdditiveAttention": d2l.AdditiveAttention(num_hiddens=8, dropout=0.0),
        "DistanceAttention": d2l.DistanceAttention(dropout=0.0),
        "BilinearAttention": d2l.BilinearAttention(query_size=D, key_size=D, dropout=0.0),
    }


def test_a_meta_tensor_has_no_value_to_read():
    """What makes the meta tests below meaningful."""
    lens = torch.zeros(BATCH, dtype=torch.int64, device="meta")
    for read in (lambda: lens.min().item(), lambda: bool((lens == 0).any()), lens.tolist):
        with pytest.raises((RuntimeError, NotImplementedError)):
            read()


@pytest.mark.parametrize("lengths", LENGTH_SHAPES)
@pytest.mark.parametrize("training", [False, True], ids=["eval", "training"])
@pytest.mark.parametrize("name", list(_layers()))
def test_the_forward_and_backward_passes_read_no_value(name, training, lengths):
    layer = _layers()[name]
    # A first call on the CPU sizes AdditiveAttention's lazy layers
    layer(*(torch.zeros(BATCH, n, size) for n, size in ((QUERIES, D), (KEYS, D), (KEYS, V))))
    layer = layer.to("meta").train(training)
    inputs = [
        torch.empty(BATCH, n, size, device="meta", requires_grad=training)
        for n, size in ((QUERIES, D), (KEYS, D), (KEYS, V))
    ]
    shape = LENGTH_SHAPES[lengths]
    lens = None if shape is None else torch.empty(shape, dtype=torch.int64, device="meta")
    output = layer(*inputs, lens)
    assert output.shape == (BATCH, QUERIES, V) and output.is_meta
    if training:
        output.sum().backward()
        assert all(x.grad.shape == x.shape for x in inputs)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.float32])
def test_float_and_int_lengths_on_the_meta_device_read_no_value(dtype):
    queries, keys, values = (torch.empty(BATCH, n, D, device="meta") for n in (QUERIES, KEYS, KEYS))
    lens = torch.empty(BATCH, dtype=dtype, device="meta")
    assert d2l.DotProductAttention(dropout=0.0)(queries, keys, values, lens).is_meta
    assert d2l.masked_softmax(torch.empty(BATCH, QUERIES, KEYS, device="meta"), lens).is_meta


# ------------------------------------------------------------------ GPU (not in CI)
@needs_cuda
@pytest.mark.parametrize("lengths", ["no lengths", "1-D", "2-D", "1-D with 0", "float"])
@pytest.mark.parametrize("training", [False, True], ids=["eval", "training"])
@pytest.mark.parametrize("name", list(_layers()))
def test_no_synchronisation_on_cuda(name, training, lengths):
    layer = _layers()[name].to("cuda").train(training)
    gen = torch.Generator(device="cuda").manual_seed(0)
    inputs = [
        torch.randn(BATCH, n, size, device="cuda", generator=gen).requires_grad_(training)
        for n, size in ((QUERIES, D), (KEYS, D), (KEYS, V))
    ]
    lens = {
        "no lengths": None,
        "1-D": torch.tensor([1, 2, 3, 6], device="cuda"),
        "2-D": torch.randint(0, KEYS + 1, (BATCH, QUERIES), device="cuda", generator=gen),
        "1-D with 0": torch.tensor([0, 2, 3, 6], device="cuda"),
        "float": torch.tensor([0.0, 2.0, 3.0, float("inf")], device="cuda"),
    }[lengths]
    layer(*inputs, lens)  # warm-up: lazy layers and cuBLAS create their state
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        output = layer(*inputs, lens)
        if training:
            output.sum().backward()
    finally:
        torch.cuda.set_sync_debug_mode("default")
    assert torch.isfinite(output).all()


BAD_LENGTH_ON_CUDA = textwrap.dedent(
    """
    import torch
    from d2l_lib import torch as d2l

    queries = keys = values = torch.zeros(2, 3, 4, device="cuda")
    lens = torch.tensor({lens}, device="cuda")
    output = d2l.DotProductAttention(dropout=0.0)(queries, keys, values, lens)
    print("forward returned", flush=True)  # no error yet: the host did not wait
    try:
        torch.cuda.synchronize()
    except RuntimeError as error:
        print("synchronize raised:", error, flush=True)
    """
)


@needs_cuda
@pytest.mark.parametrize("lens", ["[2, -1]", "[2.0, 1.5]"])
def test_a_bad_length_on_cuda_raises_at_the_next_synchronisation(lens):
    result = subprocess.run(
        [sys.executable, "-c", BAD_LENGTH_ON_CUDA.format(lens=lens)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert "forward returned" in result.stdout, result.stderr
    assert "synchronize raised:" in result.stdout and "device-side assert" in result.stdout, result.stdout
