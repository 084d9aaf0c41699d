"""The baselines of ``benchmarks/attention.py`` compute what the library computes, so the
benchmark compares like with like (the timing itself is not tested)."""

from __future__ import annotations

import importlib.util

import pytest
import torch

from d2l_lib import torch as d2l


@pytest.fixture(scope="module")
def bench(root):
    spec = importlib.util.spec_from_file_location("attention_benchmark", root / "benchmarks" / "attention.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_baselines_agree_with_the_library(bench):
    bench.check_agreement(d2l)  # raises if they differ
    gen = torch.Generator().manual_seed(3)
    X = torch.randn(4, 3, 9, generator=gen)
    for lens in (torch.tensor([1, 9, 4, 12]), torch.randint(1, 10, (4, 3), generator=gen)):
        torch.testing.assert_close(bench.d2l_style_masked_softmax(X, lens), d2l.masked_softmax(X, lens))
    q, k, v = (torch.randn(4, n, 8, generator=gen) for n in (3, 9, 9))
    attention = d2l.DotProductAttention(dropout=0.5).eval()
    for lens in (torch.tensor([1, 9, 4, 12]), torch.randint(1, 10, (4, 3), generator=gen)):
        expected = attention(q, k, v, lens)
        torch.testing.assert_close(bench.sdpa_with_valid_lens(q, k, v, lens), expected)
        torch.testing.assert_close(bench.sdpa_one_head_with_valid_lens(q, k, v, lens), expected)


def test_the_baseline_keeps_d2l_s_behaviour_for_length_zero(bench):
    """What the library fixes: D2L's approach spreads a length-0 row evenly over padding."""
    weights = bench.d2l_style_masked_softmax(torch.zeros(1, 1, 4), torch.tensor([0]))
    torch.testing.assert_close(weights, torch.full((1, 1, 4), 0.25))
    assert (d2l.masked_softmax(torch.zeros(1, 1, 4), torch.tensor([0])) == 0).all()


def test_interleaved_medians_times_every_function(bench):
    calls = {"a": 0, "b": 0}

    def count(name):
        calls[name] += 1

    (a, b), rounds = bench.interleaved_medians([lambda: count("a"), lambda: count("b")], budget_s=0.05,
                                               min_rounds=5, max_rounds=9)
    assert rounds % 2 == 1 and 5 <= rounds <= 9
    assert a > 0 and b > 0
    assert calls["a"] == calls["b"] > rounds  # warm-up + calibration + the rounds
