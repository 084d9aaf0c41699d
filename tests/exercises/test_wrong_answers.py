"""Wrong answers, in every framework: each common mistake fails with a report that names it, and
stubs, exceptions and wrong types are told in one clear line, never a traceback; ``check_exercise``
itself never raises for a wrong answer.

The readers' answers are in ``answers/`` (one module per framework; the cost model's in
``cost.py``); ``MISTAKES`` below says, for each, the property that must fail, the problem it is
reported under and the common mistake the report names (``None`` where the check cannot tell
the mistake from another wrong value: the report then shows the input, expected and received).
"""

from __future__ import annotations

import re
import sys

import pytest

from d2l_lib.exercises import EXERCISES

FRAMEWORKS = sys.modules["d2l_tests_frameworks"]  # tests/frameworks.py, loaded by conftest.py
CHECKING = sys.modules["d2l_tests_exercise_checking"]  # checking.py, loaded by conftest.py
ENGLISH, flat, check, failure_of = CHECKING.ENGLISH, CHECKING.flat, CHECKING.check, CHECKING.failure_of

ALL = ("torch", "jax", "tensorflow")
TORCH = ("torch",)
# (exercise, answer's name in answers/) -> {frameworks: (property, problem, mistake)}
MISTAKES: dict[tuple[str, str], dict[tuple[str, ...], tuple[str, str, str | None]]] = {
    ("masked-softmax", "fill_minus_10"): {ALL: ("ms_values", "values", "fill_too_small")},
    ("masked-softmax", "less_or_equal"): {ALL: ("ms_values", "values", "off_by_one")},
    ("masked-softmax", "over_queries"): {ALL: ("ms_values", "values", "wrong_axis")},
    ("masked-softmax", "in_place"): {TORCH: ("ms_unmodified", "values", "inplace")},
    ("masked-softmax", "promoted"): {ALL: ("ms_float16", "dtype", "dtype_promoted")},
    ("masked-softmax", "nan_for_zero"): {ALL: ("ms_zero", "zero_row", "zero_len_nan")},
    ("masked-softmax", "uniform_for_zero"): {TORCH: ("ms_zero", "zero_row", "zero_len_uniform")},
    ("masked-softmax", "first_length_only"): {ALL: ("ms_values", "values", "lens_2d_as_1d")},
    ("masked-softmax", "never_masks"): {ALL: ("ms_zero", "values", "no_mask")},
    ("masked-softmax", "overflowing"): {TORCH: ("ms_float16", "not_finite", "overflow")},
    ("distance-attention", "no_half"): {ALL: ("layer_values", "values", "dist_no_half")},
    ("distance-attention", "no_scale"): {ALL: ("layer_values", "values", "dist_no_scale")},
    ("distance-attention", "wrong_sign"): {ALL: ("layer_values", "values", "dist_sign")},
    ("distance-attention", "by_d"): {TORCH: ("layer_values", "values", "scale_d")},
    ("distance-attention", "unmasked"): {ALL: ("layer_values", "values", "no_masking")},
    ("distance-attention", "dropout_in_eval"): {
        ("torch", "tensorflow"): ("layer_eval", "eval_random", "dropout_in_eval"),
        # a fixed PRNG key drops the same weights on every call: only the values tell it
        ("jax",): ("layer_values", "values", None),
    },
    ("distance-attention", "in_place"): {TORCH: ("layer_unmodified", "modified", "inplace")},
    ("distance-attention", "no_attribute"): {("torch", "tensorflow"): ("layer_api", "weights_not_stored", None)},
    ("distance-attention", "output_only"): {("jax",): ("layer_api", "jax_returns", None)},
    ("bilinear-attention", "by_key_size"): {ALL: ("layer_values", "values", "bl_scale_dk")},
    ("bilinear-attention", "unscaled"): {ALL: ("layer_values", "values", "no_scale")},
    ("bilinear-attention", "with_bias"): {ALL: ("bl_matrix", "bl_params", None)},
    ("bilinear-attention", "unchecked"): {ALL: ("bl_refuses", "bl_refuses", None)},
    ("bilinear-attention", "unmasked"): {ALL: ("layer_values", "values", "no_masking")},
    ("bilinear-attention", "other_arguments"): {("torch", "tensorflow"): ("layer_constructs", "raised", None)},
    ("attention-cost", "cost_no_softmax"): {ALL: ("cost_flops", "cost_value", "cost_no_softmax")},
    ("attention-cost", "cost_madd_once"): {ALL: ("cost_flops", "cost_value", "cost_madd_once")},
    ("attention-cost", "cost_no_batch"): {ALL: ("cost_flops", "cost_value", "cost_no_batch")},
    ("attention-cost", "cost_numbers_not_bytes"): {ALL: ("cost_bytes", "cost_value", "cost_numbers_not_bytes")},
    ("attention-cost", "cost_scores_once"): {ALL: ("cost_bytes", "cost_value", "cost_scores_once")},
    ("attention-cost", "cost_floats"): {ALL: ("cost_returns", "wrong_type", None)},
}
# The problem each kind of unusable answer is reported under.
UNUSABLE = {
    "stub": "not_implemented",
    "ellipsis": "returns_none",  # a body of ... returns None
    "raises": "raised",
    "numpy": "wrong_type",
    "list": "wrong_type",
    "tuple": "wrong_type",
    "class": "not_a_function",
    "instance": "instance_not_class",
    "function": "not_layer_class",
    "array": "not_layer_class",
}


def _cases(config) -> list:
    chosen = FRAMEWORKS.selected_frameworks(config)
    return [
        pytest.param(framework, exercise, name, expected, id=f"{framework}-{exercise}-{name}")
        for (exercise, name), table in MISTAKES.items()
        for frameworks, expected in table.items()
        for framework in frameworks
        if framework in chosen
    ]


def pytest_generate_tests(metafunc):
    if "mistake" in metafunc.fixturenames:
        metafunc.parametrize(("framework", "exercise", "mistake", "expected"), _cases(metafunc.config))


def test_a_common_mistake_fails_with_a_report_that_names_it(framework, exercise, mistake, expected, answers, capsys):
    d2l = FRAMEWORKS.load_lib(framework).d2l
    prop, key, named = expected
    result, out = check(d2l, exercise, answers(framework)[exercise]["mistakes"][mistake], capsys)
    assert not result and not result.passed, out
    outcome = failure_of(result, prop)
    assert outcome.failure.key == key, out
    assert outcome.failure.mistake == named, out
    assert flat(ENGLISH["properties"][prop]) in out
    if named is not None:
        assert flat(ENGLISH["mistakes"][named]) in out
    else:  # the report shows the case and what was expected against what was received
        if outcome.case:
            assert flat(ENGLISH["cases"][outcome.case]) in out
        line = ENGLISH["problems"][key].format(**outcome.failure.fields)
        assert flat(line) in out
        if "expected" in ENGLISH["problems"][key]:
            assert re.search(r"expected .+ received ", line), line
    count = len(result.outcomes) + result.skipped
    ending = ENGLISH["some_failed"].format(failed=len(result.failed), count=count, exercise=exercise, lang="en")
    assert out.endswith(flat(ending)), out  # and where to find a hint


@pytest.mark.parametrize("exercise", list(EXERCISES))
def test_a_stub_an_exception_and_a_wrong_type_are_told_clearly(lib, answers, exercise, capsys):
    given = answers(lib.name)[exercise]
    unusable = {kind: given[kind] for kind in ("stub", "ellipsis", "raises")} | given["wrong_types"]
    assert len(given["wrong_types"]) >= 2
    for kind, answer in unusable.items():
        result, out = check(lib.d2l, exercise, answer, capsys)
        assert not result, f"{kind}: {out}"
        failure = next(outcome.failure for outcome in result.outcomes if outcome.failure is not None)
        assert failure.key == UNUSABLE[kind], f"{kind}: {out}"
        if result.skipped:  # the steps that need this one are counted, not run
            assert any(outcome.failure.fatal for outcome in result.outcomes if outcome.failure is not None)
            assert flat(ENGLISH["skipped"].format(count=result.skipped)) in out
        assert flat(ENGLISH["problems"][failure.key].format(**failure.fields)) in out
        if kind == "raises":
            assert failure.fields["error"] in out and flat(failure.fields["message"]) in out, out


def test_nan_rows_in_float16_are_not_blamed_on_an_overflow(lib, answers, capsys):
    """NaN for length 0 shows in float16 too; float32 has it as well, so it is not the constant's overflow."""
    nan_for_zero = answers(lib.name)["masked-softmax"]["mistakes"]["nan_for_zero"]
    result, out = check(lib.d2l, "masked-softmax", nan_for_zero, capsys)
    assert failure_of(result, "ms_float16").failure.mistake == "zero_len_nan", out


def test_an_answer_that_never_masks_is_named_so_in_every_failure(lib, answers, capsys):
    """Every check a plain softmax fails names the missing mask, not the diagnosis of a row of
    length 0 (a shift that cancels) or of a fill that is not negative enough."""
    never_masks = answers(lib.name)["masked-softmax"]["mistakes"]["never_masks"]
    result, out = check(lib.d2l, "masked-softmax", never_masks, capsys)
    failures = [outcome.failure for outcome in result.outcomes if outcome.failure is not None]
    assert len(failures) >= 4, out
    assert {failure.mistake for failure in failures} == {"no_mask"}, out
