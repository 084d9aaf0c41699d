"""The baselines of ``benchmarks/attention.py`` compute what the library computes, so the
benchmark compares like with like (the timing itself is not tested)."""

from __future__ import annotations

import importlib.util

import pytest
import torch

from d2l_lib import torch as d2l


def load_script(path, name):
    """The benchmark script at ``path``, imported as module ``name``."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench(root):
    return load_script(root / "benchmarks" / "attention.py", "attention_benchmark")


def test_baselines_agree_with_the_library(bench):
    bench.check_agreement(d2l)  # raises if they differ
    gen = torch.Generator().manual_seed(3)
    X = torch.randn(4, 3, 9, generator=gen)
    for lens in (torch.tensor([1, 9, 4, 12]), torch.randint(1, 10, (4, 3), generator=gen)):
        torch.testing.assert_close(bench.d2l_masked_softmax(X.clone(), lens), d2l.masked_softmax(X, lens))
    q, k, v = (torch.randn(4, n, 8, generator=gen) for n in (3, 9, 9))
    attention = d2l.DotProductAttention(dropout=0.5).eval()
    for lens in (torch.tensor([1, 9, 4, 12]), torch.randint(1, 10, (4, 3), generator=gen)):
        expected = attention(q, k, v, lens)
        mask = bench.attention_mask(lens, 9)
        assert mask.shape == ((4, 1, 9) if lens.dim() == 1 else (4, 3, 9))
        torch.testing.assert_close(bench.sdpa(q, k, v, mask), expected)
        torch.testing.assert_close(bench.sdpa_fused(q, k, v, mask), expected)


def test_the_d2l_baseline_writes_into_its_argument(bench):
    """Why the benchmark hands each call of it a fresh copy of the scores."""
    X = torch.zeros(1, 2, 4)
    bench.d2l_masked_softmax(X, torch.tensor([1]))
    assert (X[0, :, 1:] == -1e6).all() and (X[0, :, 0] == 0).all()


def test_the_baseline_keeps_d2l_s_behaviour_for_length_zero(bench):
    """What the library fixes: D2L's approach spreads a length-0 row evenly over padding."""
    weights = bench.d2l_masked_softmax(torch.zeros(1, 1, 4), torch.tensor([0]))
    torch.testing.assert_close(weights, torch.full((1, 1, 4), 0.25))
    assert (d2l.masked_softmax(torch.zeros(1, 1, 4), torch.tensor([0])) == 0).all()


def test_the_d2l_style_additive_layer_loads_the_library_s_parameters(bench):
    gen = torch.Generator().manual_seed(4)
    q, k, v = (torch.randn(2, n, m, generator=gen) for n, m in ((3, 6), (5, 4), (5, 2)))
    lens = torch.tensor([2, 5])
    ours = d2l.AdditiveAttention(num_hiddens=7, dropout=0.0)
    theirs = bench.D2LStyleAdditiveAttention(num_hiddens=7, dropout=0.0)
    ours(q, k, v, lens)
    theirs(q, k, v, lens)
    theirs.load_state_dict(ours.state_dict())
    torch.testing.assert_close(theirs(q, k, v, lens), ours(q, k, v, lens))


def test_interleaved_medians_times_every_function(bench):
    calls = {"a": 0, "b": 0}

    def count(name):
        calls[name] += 1

    (a, b), rounds = bench.interleaved_medians(
        [lambda: count("a"), lambda: count("b")], budget_s=0.05, min_rounds=5, max_rounds=9
    )
    assert rounds % 2 == 1 and 5 <= rounds <= 9
    assert a > 0 and b > 0
    assert calls["a"] == calls["b"] > rounds  # warm-up + calibration + the rounds


def test_prepared_arguments_are_made_outside_the_timer_and_used_once(bench):
    made, used = [], []

    def prepare():
        made.append(object())
        return made[-1]

    bench.interleaved_medians([bench.Timed(used.append, prepare)], budget_s=0.02, min_rounds=3, max_rounds=5)
    assert len(used) == len(made) and len({id(x) for x in used}) == len(used)


def test_rows_say_whether_a_goal_is_met(bench):
    def row(cand, base, goal, limit=None):
        return bench.Row("c", "b", (1,), "per example", cand, base, goal, limit)

    assert row([0.9, 0.8, 1.0], [1.0, 1.0, 1.0], 1.0).met == "yes"
    assert row([1.1, 1.2, 0.9], [1.0, 1.0, 1.0], 1.0).met == "NO"
    assert row([1.1], [1.0], None).met == "-"
    assert row([1.6], [1.0], None, limit=1.5).met == "(!)"
    cells = [cell.strip() for cell in str(row([0.5, 4.0, 1.0], [1.0, 4.0, 4.0], 0.9)).split("|")]
    assert cells[5:11] == ["1.0000", "4.0000", "0.50", "<= 0.9", "yes", "3"]  # medians; median of the ratios


def test_the_ratio_is_the_median_of_the_ratios_within_rounds(bench):
    """A round that is slow for both (the machine was busy) does not move the ratio."""
    r = bench.Row("c", "b", (1,), "per example", [1.0, 10.0, 1.1], [2.0, 20.0, 2.0], 1.0)
    assert r.ratio == 0.5 and r.cand_ms == 1.1 and r.base_ms == 2.0


def test_sync_brackets_every_timed_group(bench):
    """A GPU's calls are timed from launch to finish: ``sync`` is called before each group
    (with None) and after it (with the group's last result)."""
    events = []
    bench.interleaved_samples([lambda: events.append("call") or len(events)], 0.01, 3, 3, sync=events.append)
    groups = "".join("(" if e is None else ")" if isinstance(e, int) else "." for e in events)
    assert groups.startswith("(.)") and groups.count("(") == groups.count(")") >= 3 + 7
    assert all(part.startswith("(") and part.endswith(")") for part in groups.replace(")(", ")|(").split("|"))


@pytest.fixture(scope="module")
def gpu_bench(root):
    return load_script(root / "benchmarks" / "attention_gpu.py", "attention_gpu_benchmark")


def test_the_gpu_benchmark_runs_its_code_paths_on_the_cpu(gpu_bench, capsys):
    """CI has no GPU: the GPU script's rows, checks and table still run, on tiny CPU tensors."""
    assert gpu_bench.main(["--device", "cpu", "--smoke"]) == 0
    out = capsys.readouterr().out
    assert "n/a (no CUDA GPU)" in out and "FAILED" not in out
    rows = [line for line in out.splitlines() if line.startswith("| DotProductAttention") or "jax" in line]
    assert len(rows) >= 3 * len(gpu_bench.SMOKE_SIZES) * 3


def test_the_gpu_benchmark_measures_nothing_without_a_gpu(gpu_bench, capsys, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert gpu_bench.main([]) == 0
    assert "no CUDA GPU here, nothing measured" in capsys.readouterr().out
