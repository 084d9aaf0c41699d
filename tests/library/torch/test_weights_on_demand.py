"""Issue 27: ``DotProductAttention`` at fused-kernel speed, ``AdditiveAttention`` in bounded memory.

``DotProductAttention`` computes its output with one ``scaled_dot_product_attention`` call
unless it needs the weights anyway (the last call's weights were read, and dropout is off;
since issue 37, autograd recording alone goes through the built-in, see
``test_training_path.py``); ``attention_weights`` is then computed when first read, from
what the call saw, and cached. The hazards of computing later are tested here: inputs
changed in place before the read, a second call before the read, autograd, torch.compile,
state dicts and pickles. ``AdditiveAttention`` computes its features a chunk of queries at a
time, with activation checkpointing under autograd.
"""

from __future__ import annotations

import copy
import math
import pickle

import pytest
import torch
from torch import nn

from d2l_lib import torch as d2l

DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
TOLERANCE = {torch.float16: 2e-3, torch.bfloat16: 1.6e-2, torch.float32: 1e-5, torch.float64: 1e-12}
LENGTHS = {
    "none": None,
    "1-D": [0, 3, 6],
    "2-D": [[0, 1, 2, 6], [6, 5, 4, 0], [1, 1, 1, 1]],
    "float with inf": [math.inf, 2.0, 0.0],
}
needs_cuda = pytest.mark.skipif(
    not torch.cuda.is_available(), reason="needs a CUDA GPU (flash and memory-efficient kernels); CI has none"
)


def _inputs(dtype=torch.float32, device="cpu", seed=0, sizes=(3, 4, 6, 8, 5)):
    batch_size, num_queries, num_keys, d, v = sizes
    gen = torch.Generator().manual_seed(seed)
    return tuple(
        torch.randn(batch_size, n, m, generator=gen, dtype=torch.float64).to(dtype=dtype, device=device)
        for n, m in ((num_queries, d), (num_keys, d), (num_keys, v))
    )


def _lengths(case, device="cpu"):
    return None if LENGTHS[case] is None else torch.tensor(LENGTHS[case], device=device)


def _explicit(queries, keys, values, lens):
    """The layer's computation before issue 27: scores, masked softmax, weighted sum."""
    scores = torch.bmm(queries / math.sqrt(queries.shape[-1]), keys.transpose(1, 2))
    weights = d2l._masked_softmax(scores, lens, overwrite=True)
    return torch.bmm(weights, values), weights


def _count_softmax_calls(monkeypatch):
    calls = []
    original = d2l._masked_softmax

    def spy(*args, **kwargs):
        calls.append(args[0].shape)
        return original(*args, **kwargs)

    monkeypatch.setattr(d2l, "_masked_softmax", spy)
    return calls


# ------------------------------------------------------------------ the weights, computed on read
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", LENGTHS)
@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
def test_weights_read_later_are_the_masked_softmax_exactly(dtype, case, mode):
    queries, keys, values = _inputs(dtype)
    lens = _lengths(case)
    attention = d2l.DotProductAttention(dropout=0.5).eval()
    with torch.no_grad() if mode == "no_grad" else torch.inference_mode():
        output = attention(queries, keys, values, lens)
        expected_output, expected_weights = _explicit(queries, keys, values, lens)
    assert attention._pending is not None  # not computed yet
    weights = attention.attention_weights
    assert torch.equal(weights, expected_weights) and weights.dtype == dtype
    tolerance = TOLERANCE[dtype]
    torch.testing.assert_close(output, expected_output, rtol=tolerance, atol=tolerance)
    if case in ("1-D", "float with inf"):
        empty = torch.tensor(LENGTHS[case]) == 0
        assert (output[empty] == 0).all() and (weights[empty] == 0).all()
    if case == "2-D":
        empty = torch.tensor(LENGTHS[case]) == 0
        assert (output[empty] == 0).all() and (weights[empty] == 0).all()
    assert attention.attention_weights is weights  # cached


def test_an_unread_call_computes_no_weights(monkeypatch):
    queries, keys, values = _inputs()
    attention = d2l.DotProductAttention(dropout=0.0).eval()
    calls = _count_softmax_calls(monkeypatch)
    with torch.no_grad():
        for _ in range(3):
            attention(queries, keys, values, torch.tensor([1, 2, 3]))
    assert calls == []
    assert attention.attention_weights.shape == (3, 4, 6)
    assert calls == [(3, 4, 6)]


def test_weights_read_after_every_call_are_computed_with_the_next_call(monkeypatch):
    """D2L's multi-head attention reads the weights after each call: after a read, the layer
    computes the weights with the output (the explicit path), once per call."""
    queries, keys, values = _inputs()
    attention = d2l.DotProductAttention(dropout=0.0).eval()
    calls = _count_softmax_calls(monkeypatch)
    with torch.no_grad():
        attention(queries, keys, values)
        first = attention.attention_weights
        assert len(calls) == 1  # computed on read
        output = attention(queries, keys, values)
        assert attention._pending is None and len(calls) == 2  # computed with the call
        assert torch.equal(attention.attention_weights, first) and len(calls) == 2
        torch.testing.assert_close(output, _explicit(queries, keys, values, None)[0], rtol=0, atol=0)
        attention(queries, keys, values)  # the last read was before this call's predecessor
        assert attention._pending is None
        attention(queries, keys, values)  # not read since: back to the fused call
        assert attention._pending is not None


def test_a_second_call_before_the_read_gives_the_second_calls_weights():
    queries, keys, values = _inputs()
    attention = d2l.DotProductAttention(dropout=0.0).eval()
    with torch.no_grad():
        attention(queries, keys, values, torch.tensor([1, 2, 3]))
        attention(keys[:, :4], queries, values[:, :4], torch.tensor([4, 0, 2]))
        expected = _explicit(keys[:, :4], queries, values[:, :4], torch.tensor([4, 0, 2]))[1]
    assert torch.equal(attention.attention_weights, expected)


@pytest.mark.parametrize("changed", ["queries", "keys", "valid_lens"])
def test_inputs_changed_in_place_before_the_read_raise(changed):
    queries, keys, values = _inputs()
    lens = torch.tensor([1, 2, 3])
    attention = d2l.DotProductAttention(dropout=0.0).eval()
    with torch.no_grad():
        attention(queries, keys, values, lens)
    {"queries": queries, "keys": keys, "valid_lens": lens}[changed].add_(1)
    with pytest.raises(RuntimeError, match=f"the {changed} of the last call were changed in place"):
        _ = attention.attention_weights
    with torch.no_grad():
        attention(queries, keys, values, lens)  # a new call: its weights are readable
    assert torch.equal(attention.attention_weights, _explicit(queries, keys, values, lens)[1])


def test_values_changed_in_place_do_not_matter_to_the_weights():
    queries, keys, values = _inputs()
    attention = d2l.DotProductAttention(dropout=0.0).eval()
    with torch.no_grad():
        attention(queries, keys, values)
    values.zero_()
    assert torch.equal(attention.attention_weights, _explicit(queries, keys, values, None)[1])


@pytest.mark.parametrize("lazy", [True, False], ids=["copy-on-write", "clone"])
def test_inference_tensors_changed_in_place_give_the_calls_weights(lazy, monkeypatch):
    """Inference tensors have no version counter: the layer keeps copies of them,
    copy-on-write where torch has ``_lazy_clone``, a plain clone where it has not."""
    if not lazy:
        monkeypatch.delattr(torch, "_lazy_clone", raising=False)
    elif not hasattr(torch, "_lazy_clone"):
        pytest.skip("this torch has no torch._lazy_clone (copy-on-write)")
    with torch.inference_mode():
        queries, keys, values = _inputs()
        lens = torch.tensor([1, 2, 3])
        expected = _explicit(queries, keys, values, lens)[1]
        attention = d2l.DotProductAttention(dropout=0.0).eval()
        attention(queries, keys, values, lens)
        queries.add_(1), keys.mul_(2), lens.zero_()
    assert torch.equal(attention.attention_weights, expected)


def test_weights_are_computed_in_the_calls_mode():
    queries, keys, values = _inputs()
    attention = d2l.DotProductAttention(dropout=0.0).eval()
    with torch.inference_mode():
        attention(queries, keys, values)
    weights = attention.attention_weights  # read outside inference mode
    assert weights.is_inference()
    with torch.no_grad():
        attention(queries.requires_grad_(), keys, values)
    assert not attention.attention_weights.requires_grad


# ------------------------------------------------------------------ autograd
def _gradients(output, inputs, upstream):
    return torch.autograd.grad(output, inputs, upstream)


@pytest.mark.parametrize("case", ["none", "1-D", "2-D"])
def test_gradients_through_the_output_are_unchanged(case):
    """Autograd recording in evaluation mode: the output and its gradients are those of the
    explicit formula, and reading the weights changes neither."""
    queries, keys, values = (t.requires_grad_() for t in _inputs(torch.float64))
    lens = _lengths(case)
    upstream = torch.randn(3, 4, 5, dtype=torch.float64)
    expected_output, _ = _explicit(queries, keys, values, lens)
    expected = _gradients(expected_output, (queries, keys, values), upstream)
    attention = d2l.DotProductAttention(dropout=0.3).eval()
    output = attention(queries, keys, values, lens)
    assert attention.attention_weights.requires_grad
    for mine, theirs in zip(_gradients(output, (queries, keys, values), upstream), expected):
        torch.testing.assert_close(mine, theirs, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("read", [False, True], ids=["unread", "read"])
def test_training_with_dropout_reproducible_and_reading_changes_no_gradient(read):
    """Dropout active: the output comes from scaled_dot_product_attention with dropout_p, its
    pattern from the kernel's random numbers, reproducible under torch.manual_seed."""
    queries, keys, values = (t.requires_grad_() for t in _inputs())
    lens = torch.tensor([0, 3, 6])
    upstream = torch.randn(3, 4, 5)
    attention = d2l.DotProductAttention(dropout=0.5).train()
    results = []
    for _ in range(2):
        torch.manual_seed(3)
        output = attention(queries, keys, values, lens)
        weights = attention.attention_weights if read else None
        results.append((output, _gradients(output, (queries, keys, values), upstream), weights))
    (out1, grads1, weights1), (out2, grads2, _) = results
    assert torch.equal(out1, out2) and all(torch.equal(a, b) for a, b in zip(grads1, grads2))
    assert (out1[0] == 0).all()  # length 0
    torch.manual_seed(3)
    unread = d2l.DotProductAttention(dropout=0.5).train()
    out3 = unread(queries, keys, values, lens)
    assert torch.equal(out3, out1) and all(
        torch.equal(a, b) for a, b in zip(_gradients(out3, (queries, keys, values), upstream), grads1)
    )
    if read:
        assert weights1.requires_grad  # the weights before dropout, differentiable
        torch.testing.assert_close(weights1.sum(-1)[1:], torch.ones(2, 4))
        assert torch.equal(weights1.detach(), _explicit(queries, keys, values, lens)[1].detach())


def test_gradcheck_without_dropout_takes_the_twice_differentiable_path():
    """No dropout, autograd recording: the built-in's backward pass, and a graph of the
    gradients from ``_TwiceDifferentiableSDPA``'s explicit steps (the fused CPU kernel's
    backward pass has no derivative)."""
    queries, keys, values = (t.requires_grad_() for t in _inputs(torch.float64, sizes=(2, 3, 5, 4, 2)))
    attention = d2l.DotProductAttention(dropout=0.0)
    lens = torch.tensor([0, 4])
    assert torch.autograd.gradcheck(lambda q, k, v: attention(q, k, v, lens), (queries, keys, values))
    assert torch.autograd.gradgradcheck(lambda q, k, v: attention(q, k, v, lens), (queries, keys, values))


# ------------------------------------------------------------------ torch.compile, state
def test_the_layer_compiles_and_gives_the_same_output():
    queries, keys, values = _inputs()
    lens = torch.tensor([0, 3, 6])
    attention = d2l.DotProductAttention(dropout=0.0).eval()
    compiled = torch.compile(attention)
    with torch.no_grad():
        expected = d2l.DotProductAttention(dropout=0.0).eval()(queries, keys, values, lens)
        output = compiled(queries, keys, values, lens)
    torch.testing.assert_close(output, expected, rtol=1e-5, atol=1e-6)
    assert torch.equal(attention.attention_weights, _explicit(queries, keys, values, lens)[1])


def test_state_dict_pickle_and_deepcopy_hold_no_cached_tensor():
    queries, keys, values = _inputs(sizes=(4, 64, 64, 8, 8))
    attention = d2l.DotProductAttention(dropout=0.1).eval()
    empty = len(pickle.dumps(attention))
    with torch.no_grad():
        attention(queries, keys, values)  # pending: holds the queries and keys
    assert attention.state_dict() == {}
    assert len(pickle.dumps(attention)) == empty
    assert attention.attention_weights is not None  # computed and cached
    assert attention.state_dict() == {}
    assert len(pickle.dumps(attention)) == empty
    for restored in (pickle.loads(pickle.dumps(attention)), copy.deepcopy(attention)):
        assert restored.attention_weights is None and restored.dropout.p == 0.1
        assert restored(queries, keys, values).shape == (4, 64, 8)
    assert attention.attention_weights is not None  # the original keeps its own


def test_subclasses_that_set_the_weights_still_can():
    queries, keys, values = _inputs()
    attention = d2l.DistanceAttention(dropout=0.0)
    attention(queries, keys, values, torch.tensor([1, 2, 3]))
    assert attention.attention_weights.shape == (3, 4, 6)


# ------------------------------------------------------------------ GPU (not in CI)
@needs_cuda
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
@pytest.mark.parametrize("case", ["none", "1-D", "2-D"])
def test_fused_cuda_kernels_give_the_explicit_results(dtype, case):
    queries, keys, values = _inputs(dtype, device="cuda", sizes=(3, 4, 6, 8, 8))
    lens = _lengths(case, device="cuda")
    attention = d2l.DotProductAttention(dropout=0.0).eval()
    with torch.no_grad():
        output = attention(queries, keys, values, lens)
        expected_output, expected_weights = _explicit(queries, keys, values, lens)
    assert torch.equal(attention.attention_weights, expected_weights)
    tolerance = TOLERANCE[dtype]
    torch.testing.assert_close(output, expected_output, rtol=tolerance, atol=tolerance)


CUDA_KERNELS = ["FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION"]


@needs_cuda
@pytest.mark.parametrize("kernel", CUDA_KERNELS)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
@pytest.mark.parametrize("case", ["none", "1-D", "2-D"])
def test_each_fused_cuda_kernel_gives_the_explicit_results(kernel, dtype, case):
    """The layer's output under each of SDPA's CUDA kernels alone, where that kernel takes the
    inputs (flash attention takes no mask and no float32; the others depend on the GPU)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    queries, keys, values = _inputs(dtype, device="cuda", sizes=(3, 4, 6, 8, 8))
    lens = _lengths(case, device="cuda")
    # The mask in the layer's shape: (batch, 1, 1 or no. of queries, no. of keys)
    mask = None if lens is None else torch.arange(6, device="cuda") < lens.reshape(3, 1, -1, 1)
    attention = d2l.DotProductAttention(dropout=0.0).eval()
    with torch.no_grad(), sdpa_kernel([getattr(SDPBackend, kernel)]):
        try:  # the direct call: does this kernel take these inputs at all?
            nn.functional.scaled_dot_product_attention(
                queries.unsqueeze(1), keys.unsqueeze(1), values.unsqueeze(1), attn_mask=mask
            )
        except RuntimeError as error:
            pytest.skip(f"PyTorch's {kernel} kernel does not take {dtype} with lengths {case} here: {error}")
        output = attention(queries, keys, values, lens)
        expected_output, expected_weights = _explicit(queries, keys, values, lens)
    assert torch.equal(attention.attention_weights, expected_weights)
    tolerance = TOLERANCE[dtype]
    torch.testing.assert_close(output, expected_output, rtol=tolerance, atol=tolerance)


@needs_cuda
def test_cuda_training_with_dropout_is_reproducible():
    queries, keys, values = (
        t.requires_grad_() for t in _inputs(torch.float16, device="cuda", sizes=(2, 64, 64, 64, 64))
    )
    attention = d2l.DotProductAttention(dropout=0.5).train()
    outputs = []
    for _ in range(2):
        torch.manual_seed(5)
        outputs.append(attention(queries, keys, values, torch.tensor([0, 40], device="cuda")))
    assert torch.equal(outputs[0], outputs[1]) and (outputs[0][0] == 0).all()


# ------------------------------------------------------------------ AdditiveAttention in chunks
def _additive_pair(max_features, num_hiddens=6):
    whole = d2l.AdditiveAttention(num_hiddens=num_hiddens, dropout=0.0).double()
    chunked = d2l.AdditiveAttention(num_hiddens=num_hiddens, dropout=0.0).double()
    chunked.max_features = max_features
    return whole, chunked


def _record_chunks(monkeypatch, layer):
    sizes = []
    original = layer._scores

    def spy(queries, keys, in_place):
        sizes.append(queries.shape[0] * queries.shape[1] * keys.shape[1] * keys.shape[2])
        return original(queries, keys, in_place)

    monkeypatch.setattr(layer, "_scores", spy)
    return sizes


@pytest.mark.parametrize("case", ["none", "1-D", "2-D"])
def test_additive_chunks_give_todays_results_without_autograd(case, monkeypatch):
    queries, keys, values = _inputs(torch.float64, sizes=(3, 4, 6, 5, 2))
    lens = _lengths(case)
    whole, chunked = _additive_pair(max_features=3 * 6 * 6 * 2)  # two queries a chunk
    with torch.no_grad():
        expected = whole(queries, keys, values, lens)
        chunked(queries, keys, values, lens)
        chunked.load_state_dict(whole.state_dict())
        sizes = _record_chunks(monkeypatch, chunked)
        output = chunked(queries, keys, values, lens)
    assert sizes == [3 * 2 * 6 * 6] * 2  # each chunk within max_features
    torch.testing.assert_close(output, expected, rtol=1e-12, atol=1e-14)
    torch.testing.assert_close(chunked.attention_weights, whole.attention_weights, rtol=1e-12, atol=1e-15)
    assert torch.equal(chunked.attention_weights == 0, whole.attention_weights == 0)


def test_additive_chunks_of_one_query_when_one_exceeds_the_budget(monkeypatch):
    queries, keys, values = _inputs(torch.float64, sizes=(3, 4, 6, 5, 2))
    whole, chunked = _additive_pair(max_features=10)
    with torch.no_grad():
        expected = whole(queries, keys, values)
        chunked(queries, keys, values)
        chunked.load_state_dict(whole.state_dict())
        sizes = _record_chunks(monkeypatch, chunked)
        torch.testing.assert_close(chunked(queries, keys, values), expected, rtol=1e-12, atol=1e-14)
    assert sizes == [3 * 1 * 6 * 6] * 4


def test_additive_chunks_with_autograd_checkpoint_and_give_todays_gradients(monkeypatch):
    queries, keys, values = (t.requires_grad_() for t in _inputs(torch.float64, sizes=(2, 5, 4, 3, 2)))
    lens = torch.tensor([[0, 2, 4, 1, 3], [4, 4, 1, 2, 0]])
    whole, chunked = _additive_pair(max_features=2 * 2 * 4 * 6)  # two queries a chunk: 2, 2, 1
    whole(queries, keys, values, lens)
    chunked(queries, keys, values, lens)
    chunked.load_state_dict(whole.state_dict())
    upstream = torch.randn(2, 5, 2, dtype=torch.float64)
    inputs = (queries, keys, values, *whole.parameters())
    expected = torch.autograd.grad(whole(queries, keys, values, lens), inputs, upstream)
    sizes = _record_chunks(monkeypatch, chunked)
    output = chunked(queries, keys, values, lens)
    assert len(sizes) == 3
    grads = torch.autograd.grad(output, (queries, keys, values, *chunked.parameters()), upstream)
    assert len(sizes) == 6  # each chunk's features computed again in the backward pass
    for mine, theirs in zip(grads, expected):
        torch.testing.assert_close(mine, theirs, rtol=1e-12, atol=1e-14)
    assert torch.autograd.gradcheck(lambda q, k, v: chunked(q, k, v, lens), (queries, keys, values))


def test_additive_chunk_bound_at_the_benchmark_size():
    """Batch 8, n = m = 1024, h = 64: one chunk of 16 queries, 32 MiB of float32 features,
    where the whole (batch, n, m, h) tensor would take 2 GiB."""
    per_query = 8 * 1024 * 64
    assert d2l.AdditiveAttention.max_features // per_query == 16
    assert d2l.AdditiveAttention.max_features * 4 == 32 * 2**20 and 8 * 1024 * 1024 * 64 * 4 == 2 * 2**30


def test_additive_layer_is_still_a_plain_module():
    attention = d2l.AdditiveAttention(num_hiddens=4, dropout=0.1)
    queries, keys, values = _inputs(sizes=(2, 3, 5, 4, 2))
    attention(queries, keys, values)
    assert set(attention.state_dict()) == {"W_k.weight", "W_q.weight", "w_v.weight"}
    assert isinstance(attention.W_q, nn.Linear)
