"""The checks of the exercises whose answer is a function: ``masked-softmax`` and ``attention-cost``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from d2l_lib.exercises import mistakes
from d2l_lib.exercises.backend import Backend, guarded, returned, type_name
from d2l_lib.exercises.report import Failure
from d2l_lib.exercises.steps import Step, compare

RTOL, ATOL = 1e-5, 1e-6  # float32: the same softmax computed in another order
RTOL_16, ATOL_16 = 1e-2, 2e-3  # float16 has 11 significant bits


def _is_function(answer: Any, name: str) -> None:
    if isinstance(answer, type) or not callable(answer):
        raise Failure("not_a_function", fatal=True, name=name, received=type_name(answer))


def _masked_softmax_inputs() -> dict[str, tuple[np.ndarray, np.ndarray | None]]:
    """The inputs of the masked softmax's checks, by case (seeded: the same on every run)."""
    rng = np.random.default_rng(2024)
    X = rng.random((2, 2, 4), dtype=np.float32)
    large = (rng.standard_normal((4, 50, 300)) * 10).astype(np.float32)
    large_lens = np.array([0, 1, 137, 300])
    return {
        "example_1d": (X, np.array([2, 3])),
        "example_2d": (X, np.array([[1, 3], [2, 4]])),
        "no_lens": (X, None),
        "zero_len": (X, np.array([[0, 3], [2, 0]])),
        "large_1d": (large, large_lens),
        "large_2d": (large, rng.integers(0, 301, size=(4, 50))),
        "float16": (rng.random((2, 3, 5)).astype(np.float16), np.array([[0, 3, 5], [1, 2, 4]])),
    }


def masked_softmax_steps(backend: Backend, answer: Any) -> list[Step]:
    """The properties of ``masked_softmax(X, valid_lens)`` that the lesson states, case by case."""
    inputs = _masked_softmax_inputs()
    reference = backend.reference().masked_softmax

    def call(case: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        X, lens = inputs[case]
        x = backend.tensor(X)
        result = guarded(lambda: answer(x, None if lens is None else backend.tensor(lens)), "masked_softmax_by_adding")
        if result is None or result is Ellipsis:
            raise Failure("returns_none", fatal=True, name="masked_softmax_by_adding", received=repr(result))
        received = backend.numpy(result, "masked_softmax(X, valid_lens)")
        if received.shape != X.shape:
            raise Failure("shape", what="masked_softmax(X, valid_lens)", expected=X.shape, received=received.shape)
        return received, backend.numpy(x, "X"), lens

    def expected(case: str) -> np.ndarray:
        X, lens = inputs[case]
        return backend.numpy(reference(backend.tensor(X), None if lens is None else backend.tensor(lens)), "reference")

    def returns() -> None:
        try:  # nothing else can be checked unless this holds
            received, _, _ = call("example_1d")
        except Failure as failure:
            failure.fatal = True
            raise
        if received.dtype != inputs["example_1d"][0].dtype:
            raise Failure("dtype", fatal=True, expected="float32", received=received.dtype)

    def values(case: str) -> Callable[[], None]:
        def test() -> None:
            received, _, lens = call(case)
            X = inputs[case][0]
            want = expected(case)
            if lens is not None:
                _unmasked(X, want, received, RTOL, ATOL)
                if (np.asarray(lens) == 0).any():
                    _zero_rows(X, lens, received)
            _past_lengths(want, received)
            variants = mistakes.masked_softmax_variants(X, lens)
            compare("masked_softmax(X, valid_lens)", want, received, RTOL, ATOL, variants)

        return test

    def float16() -> None:
        received, _, _ = call("float16")
        X, lens = inputs["float16"]
        assert lens is not None
        if received.dtype != np.float16:
            raise Failure("dtype", mistake="dtype_promoted", expected="float16", received=received.dtype)
        if not np.isfinite(received).all():
            raise Failure("not_finite", mistake=_not_finite_in_float16(X, lens, received))
        _unmasked(X, expected("float16"), received, RTOL_16, ATOL_16)
        _zero_rows(X, lens, received)
        compare("masked_softmax(X, valid_lens)", expected("float16"), received, RTOL_16, ATOL_16)

    def _not_finite_in_float16(X: np.ndarray, lens: np.ndarray, received: np.ndarray) -> str:
        """The mistake behind NaN or inf in float16: an overflowing constant, unless float32 has them too."""
        try:
            wide = guarded(
                lambda: answer(backend.tensor(X.astype(np.float32)), backend.tensor(lens)), "masked_softmax_by_adding"
            )
            finite32 = np.isfinite(backend.numpy(wide, "masked_softmax(X, valid_lens)")).all()
        except Failure:  # float32 fails otherwise: the float16 steps are still what is told
            finite32 = True
        if finite32:
            return "overflow"
        return "zero_len_nan" if np.isfinite(received[mistakes.keep_mask(X.shape, lens).any(-1)]).all() else "nan"

    def unmodified() -> None:
        _, after, _ = call("example_1d")
        X = inputs["example_1d"][0]
        try:
            compare("X", X, after, 0.0, 0.0)
        except Failure as failure:  # whatever X became, an in-place operation changed it
            failure.mistake = "inplace"
            raise

    return [
        ("ms_returns", "example_1d", returns),
        ("ms_values", "no_lens", values("no_lens")),
        ("ms_values", "example_1d", values("example_1d")),
        ("ms_values", "example_2d", values("example_2d")),
        ("ms_zero", "zero_len", values("zero_len")),
        ("ms_values", "large_1d", values("large_1d")),
        ("ms_values", "large_2d", values("large_2d")),
        ("ms_float16", "float16", float16),
        ("ms_unmodified", "example_1d", unmodified),
    ]


def _unmasked(X: np.ndarray, want: np.ndarray, received: np.ndarray, rtol: float, atol: float) -> None:
    """Raise ``no_mask`` when ``received`` is the plain softmax of ``X`` and that is wrong here.

    Checked before the rows of length 0 and the weights past the lengths, whose own diagnoses
    (a shift that cancels, a fill not negative enough) would misname an answer that never masks.
    """
    plain = mistakes.softmax(X)
    if received.shape == plain.shape and np.allclose(received.astype(np.float64), plain, rtol=rtol, atol=atol):
        compare("masked_softmax(X, valid_lens)", want, received, rtol, atol, {"no_mask": plain})


def _zero_rows(X: np.ndarray, lens: np.ndarray, received: np.ndarray) -> None:
    """Raise unless every query of valid length 0 has only zero weights."""
    keep = mistakes.keep_mask(X.shape, lens)
    empty = ~keep.any(axis=-1)  # (batch, queries): no valid key
    rows = received[empty]
    if np.isnan(rows).any():
        raise Failure("zero_row", mistake="zero_len_nan", received="NaN")
    if (rows != 0).any():
        row = rows[(rows != 0).any(axis=-1)][0]
        mistake = "zero_len_uniform" if np.isclose(row.astype(np.float64).sum(), 1, atol=1e-2) else None
        shown = ", ".join(f"{float(w):.3g}" for w in row[:5]) + (", ..." if row.size > 5 else "")
        raise Failure("zero_row", mistake=mistake, received=f"[{shown}]")


def _past_lengths(want: np.ndarray, received: np.ndarray) -> None:
    """Raise ``fill_too_small`` when the weights past the lengths are tiny instead of zero."""
    past = (want == 0) & (received != 0) & ~np.isnan(received)
    if past.any() and np.abs(received[past]).max() < 1e-2:
        index = tuple(int(i) for i in np.argwhere(past)[0])
        raise Failure(
            "values",
            what="masked_softmax(X, valid_lens)",
            mistake="fill_too_small",
            index=list(index),
            expected="0",
            received=f"{float(received[index]):.4g}",
            count=f"{int(past.sum())}/{received.size}",
        )


COST_CASES = {
    "page": {"n": 1024, "m": 1024, "d": 64, "v": 64},
    "unequal": {"n": 3, "m": 5, "d": 7, "v": 11},
    "batch": {"n": 6, "m": 4, "d": 3, "v": 2, "batch_size": 8},
    "half": {"n": 10, "m": 20, "d": 8, "v": 16, "bytes_per_number": 2},
}
COST_KEYS = ("flops", "bytes", "bytes_fused")


def attention_cost_steps(backend: Backend, answer: Any) -> list[Step]:
    """The counts of ``attention_cost`` that the lesson derives, on four sets of sizes."""
    reference = backend.reference().attention_cost

    def call(case: str) -> dict[str, Any]:
        result = returned(guarded(lambda: answer(**COST_CASES[case]), "attention_cost"), "attention_cost")
        if not isinstance(result, dict):
            received = type_name(result)
            raise Failure("wrong_type", fatal=True, what="attention_cost(...)", expected="dict", received=received)
        missing = [key for key in COST_KEYS if key not in result]
        if missing:
            raise Failure("cost_keys", fatal=True, expected=", ".join(COST_KEYS), received=", ".join(map(str, result)))
        return result

    def returns() -> None:
        result = call("page")
        for key in COST_KEYS:
            if isinstance(result[key], bool) or not isinstance(result[key], int):
                raise Failure("wrong_type", what=f"['{key}']", expected="int", received=type_name(result[key]))

    def count(key: str) -> Callable[[], None]:
        def test() -> None:
            for case, sizes in COST_CASES.items():
                received = call(case)[key]
                want = reference(**sizes)[key]
                if received != want:
                    variants = mistakes.cost_variants(**{"batch_size": 1, "bytes_per_number": 4, **sizes})
                    named = [name for name, counts in variants.items() if name != "right" and counts[key] == received]
                    raise Failure(
                        "cost_value",
                        entry=key,
                        sizes=", ".join(f"{k}={v}" for k, v in sizes.items()),
                        expected=want,
                        received=received,
                        mistake=named[0] if named else None,
                    )

        return test

    return [
        ("cost_returns", "page", returns),
        *((f"cost_{key}", "four_sizes", count(key)) for key in COST_KEYS),
    ]


def is_function_step(answer: Any, name: str) -> Step:
    """The first step of a function's check: the answer is a function."""
    return ("is_function", "", lambda: _is_function(answer, name))
