"""The package ``benchmarks/`` (``make bench``): its baselines compute what the library computes,
so the benchmark compares like with like; its timing and table behave as documented; and the
GPU table's code runs on a CPU in a dry run, so it cannot rot where there is no GPU (the
timing itself is not tested)."""

from __future__ import annotations

import importlib
import sys
from types import SimpleNamespace

import pytest
import torch

from d2l_lib import torch as d2l


@pytest.fixture(scope="module")
def bench(root):
    """The modules of ``benchmarks/`` that the tests use, imported from the repository."""
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    names = ("agreement", "baselines", "gpu_rows", "gpu_table", "inputs", "rows_issue27", "rows_training", "settings",
             "table", "timing")  # fmt: skip
    return SimpleNamespace(**{name: importlib.import_module(f"benchmarks.{name}") for name in names})


def test_baselines_agree_with_the_library(bench):
    bench.agreement.check_agreement(d2l)  # raises if they differ
    baselines = bench.baselines
    gen = torch.Generator().manual_seed(3)
    X = torch.randn(4, 3, 9, generator=gen)
    for lens in (torch.tensor([1, 9, 4, 12]), torch.randint(1, 10, (4, 3), generator=gen)):
        torch.testing.assert_close(baselines.d2l_masked_softmax(X.clone(), lens), d2l.masked_softmax(X, lens))
    q, k, v = (torch.randn(4, n, 8, generator=gen) for n in (3, 9, 9))
    attention = d2l.DotProductAttention(dropout=0.5).eval()
    for lens in (torch.tensor([1, 9, 4, 12]), torch.randint(1, 10, (4, 3), generator=gen)):
        expected = attention(q, k, v, lens)
        mask = baselines.attention_mask(lens, 9)
        assert mask.shape == ((4, 1, 9) if lens.dim() == 1 else (4, 3, 9))
        torch.testing.assert_close(baselines.sdpa(q, k, v, mask), expected)
        torch.testing.assert_close(baselines.sdpa_fused(q, k, v, mask), expected)
    lens = torch.tensor([1, 9, 4, 12])
    inside = baselines.sdpa_mask_inside(q.unsqueeze(1), k.unsqueeze(1), v.unsqueeze(1), lens)
    torch.testing.assert_close(inside.squeeze(1), attention(q, k, v, lens))


def test_the_training_baseline_agrees_with_the_layer_with_a_length_0(bench):
    """Issue 37's training rows compare like with like, with and without an example of length 0."""
    gen = torch.Generator().manual_seed(5)
    q, k, v = bench.inputs.attention_inputs((4, 3, 9, 8), gen, requires_grad=True)
    for zero in (False, True):
        lens = bench.inputs.lengths((4,), 9, gen, zero=zero)
        assert int((lens == 0).sum()) == zero and int(lens.max()) <= 9
        bench.agreement.check_training_agreement(d2l, q, k, v, lens)  # raises if they differ


def test_the_d2l_baseline_writes_into_its_argument(bench):
    """Why the benchmark hands each call of it a fresh copy of the scores."""
    X = torch.zeros(1, 2, 4)
    bench.baselines.d2l_masked_softmax(X, torch.tensor([1]))
    assert (X[0, :, 1:] == -1e6).all() and (X[0, :, 0] == 0).all()


def test_the_baseline_keeps_d2l_s_behaviour_for_length_zero(bench):
    """What the library fixes: D2L's approach spreads a length-0 row evenly over padding."""
    weights = bench.baselines.d2l_masked_softmax(torch.zeros(1, 1, 4), torch.tensor([0]))
    torch.testing.assert_close(weights, torch.full((1, 1, 4), 0.25))
    assert (d2l.masked_softmax(torch.zeros(1, 1, 4), torch.tensor([0])) == 0).all()


def test_the_d2l_style_additive_layer_loads_the_library_s_parameters(bench):
    gen = torch.Generator().manual_seed(4)
    q, k, v = (torch.randn(2, n, m, generator=gen) for n, m in ((3, 6), (5, 4), (5, 2)))
    lens = torch.tensor([2, 5])
    ours = d2l.AdditiveAttention(num_hiddens=7, dropout=0.0)
    theirs = bench.baselines.D2LStyleAdditiveAttention(num_hiddens=7, dropout=0.0)
    ours(q, k, v, lens)
    theirs(q, k, v, lens)
    theirs.load_state_dict(ours.state_dict())
    torch.testing.assert_close(theirs(q, k, v, lens), ours(q, k, v, lens))


def test_interleaved_medians_times_every_function(bench):
    calls = {"a": 0, "b": 0}

    def count(name):
        calls[name] += 1

    (a, b), rounds = bench.timing.interleaved_medians(
        [lambda: count("a"), lambda: count("b")], budget_s=0.05, min_rounds=5, max_rounds=9
    )
    assert rounds % 2 == 1 and 5 <= rounds <= 9
    assert a > 0 and b > 0
    assert calls["a"] == calls["b"] > rounds  # warm-up + calibration + the rounds


def test_a_dry_run_calls_each_function_once(bench):
    calls = []
    with bench.timing.dry_run():
        samples, rounds = bench.timing.interleaved_samples(
            [lambda: calls.append("a"), lambda: calls.append("b")], 9, 9, 99
        )
    assert calls == ["a", "b"] and rounds == 1 and [len(s) for s in samples] == [1, 1]
    bench.timing.interleaved_samples([lambda: calls.append("c")], 0.01, 3, 3)
    assert calls.count("c") > 3  # outside, timing is back


def test_prepared_arguments_are_made_outside_the_timer_and_used_once(bench):
    made, used = [], []

    def prepare():
        made.append(object())
        return made[-1]

    bench.timing.interleaved_medians(
        [bench.timing.Timed(used.append, prepare)], budget_s=0.02, min_rounds=3, max_rounds=5
    )
    assert len(used) == len(made) and len({id(x) for x in used}) == len(used)


def test_rows_say_whether_a_goal_is_met(bench):
    def row(cand, base, goal, limit=None):
        return bench.table.Row("c", "b", (1,), "per example", cand, base, goal, limit)

    assert row([0.9, 0.8, 1.0], [1.0, 1.0, 1.0], 1.0).met == "yes"
    assert row([1.1, 1.2, 0.9], [1.0, 1.0, 1.0], 1.0).met == "NO"
    assert row([1.1], [1.0], None).met == "-"
    assert row([1.6], [1.0], None, limit=1.5).met == "(!)"
    cells = [cell.strip() for cell in str(row([0.5, 4.0, 1.0], [1.0, 4.0, 4.0], 0.9)).split("|")]
    assert cells[5:11] == ["1.0000", "4.0000", "0.50", "<= 0.9", "yes", "3"]  # medians; median of the ratios


def test_the_gpu_table_has_a_kernel_column(bench):
    table = bench.table
    assert table.header(kernel=True).splitlines()[0].rstrip(" |").endswith("kernel ms")
    timed = table.Row("c", "b", (1,), "per example", [1.0], [2.0], 1.1, kernel_ms=0.25)
    assert timed.line(kernel=True).split("|")[-2].strip() == "0.2500"
    assert table.Row("c", "b", (1,), "per example", [1.0], [2.0], 1.1).line(kernel=True).split("|")[-2].strip() == "-"
    assert str(timed).count("|") == len(table.COLUMNS) + 1  # the CPU table has no kernel column


def test_the_ratio_is_the_median_of_the_ratios_within_rounds(bench):
    """A round that is slow for both (the machine was busy) does not move the ratio."""
    r = bench.table.Row("c", "b", (1,), "per example", [1.0, 10.0, 1.1], [2.0, 20.0, 2.0], 1.0)
    assert r.ratio == 0.5 and r.cand_ms == 1.1 and r.base_ms == 2.0


def test_sync_brackets_every_timed_group(bench):
    """A GPU's calls are timed from launch to finish: ``sync`` is called before each group
    (with None) and after it (with the group's last result)."""
    events = []
    bench.timing.interleaved_samples([lambda: events.append("call") or len(events)], 0.01, 3, 3, sync=events.append)
    groups = "".join("(" if e is None else ")" if isinstance(e, int) else "." for e in events)
    assert groups.startswith("(.)") and groups.count("(") == groups.count(")") >= 3 + 7
    assert all(part.startswith("(") and part.endswith(")") for part in groups.replace(")(", ")|(").split("|"))


def test_the_cpu_table_s_new_rows_run(bench, capsys):
    """Issue 37's CPU rows, one call each (a dry run): evaluation with a length 0 at the table's
    sizes, training at tiny sizes, with the goals of the issue."""
    rows = []
    with bench.timing.dry_run(), torch.no_grad():
        bench.rows_issue27.zero_length_rows(d2l, 0.0, 0, rows)
    with bench.timing.dry_run():
        bench.rows_training.training_rows(d2l, bench.settings.SMOKE_SIZES, 0.0, 0, rows)
    settings = bench.settings
    assert [(row.size, row.lengths, row.goal) for row in rows[:3]] == [
        (size, settings.WITH_ZERO, settings.FUSED_GOAL) for size in settings.ATTENTION_SIZES
    ]
    training = rows[3:]
    assert len(training) == len(settings.SMOKE_SIZES) * 2 * len(settings.TRAINING_DROPOUTS)
    assert {row.lengths for row in training} == {settings.PER_EXAMPLE, settings.WITH_ZERO}
    assert {row.candidate for row in training} == {
        "DotProductAttention train, drop 0",
        "DotProductAttention train, drop 0.1",
    }
    assert {row.goal for row in training} == {settings.TRAINING_GOAL}
    assert len(capsys.readouterr().out.splitlines()) == len(rows)


def test_the_gpu_table_runs_its_code_paths_on_the_cpu(bench, capsys):
    """CI has no GPU: the GPU table's rows, checks and table still run, one call each, on tiny CPU tensors."""
    assert bench.gpu_table.main(["--device", "cpu", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "n/a (no CUDA GPU)" in out and "FAILED" not in out
    rows = [line for line in out.splitlines() if line.startswith("| ")]
    dtypes, sizes = len(bench.settings.GPU_DTYPES), len(bench.settings.SMOKE_SIZES)
    assert sum("mask built inside" in line for line in rows) == dtypes * sizes
    assert sum("train, drop" in line and "a length 0" in line for line in rows) == dtypes * sizes * 2
    assert sum(line.startswith("| DotProductAttention") for line in rows) == dtypes * sizes * (4 + 4)
    assert sum(line.startswith("| jax") for line in rows) == 1  # one size; on a CPU, JAX runs float32 only


def test_the_goal_against_the_prebuilt_mask_needs_a_long_enough_kernel(bench, monkeypatch, capsys):
    """On a GPU, a kernel under KERNEL_FLOOR_MS leaves the row against the prebuilt mask without
    a goal; the row against the mask built inside keeps its goal."""
    floor = bench.settings.KERNEL_FLOOR_MS
    for kernel, goal in ((floor / 2, None), (floor, bench.settings.FUSED_GOAL)):
        monkeypatch.setattr(bench.gpu_rows, "kernel_ms", lambda fn, device, kernel=kernel: kernel)
        rows = []
        with bench.timing.dry_run(), torch.no_grad():
            bench.gpu_rows.fused_rows(d2l, "cpu", bench.settings.SMOKE_SIZES[:1], 0.0, rows)
        assert [row.goal for row in rows[:2]] == [goal, bench.settings.FUSED_GOAL]
        assert rows[0].kernel_ms == kernel and f"{kernel:.4f}" in capsys.readouterr().out


def test_the_gpu_table_measures_nothing_without_a_gpu(bench, capsys, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert bench.gpu_table.main([]) == 0
    assert "no CUDA GPU here, nothing measured" in capsys.readouterr().out


def test_every_benchmark_module_is_short_and_named_in_the_architecture(root):
    """One job a module: none over 300 lines, and docs/architecture.md names each one."""
    doc = (root / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = doc.split("### Benchmarks (`benchmarks/`)", 1)[1].split("\n### ", 1)[0]
    for path in sorted((root / "benchmarks").glob("*.py")):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 300, path.name
        assert f"| `{path.name}` |" in section, f"docs/architecture.md does not name benchmarks/{path.name}"
