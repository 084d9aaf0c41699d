"""The checks of the exercises whose answer is a layer class: ``distance-attention`` and ``bilinear-attention``.

The check constructs the class as D2L's code does (keyword arguments), runs it in evaluation
mode on inputs shaped as the lesson's, and compares output, attention weights and gradients
with the library's layer: ``DistanceAttention`` for distance attention, and for bilinear
attention ``DotProductAttention`` on the keys mapped by the reader's own matrix ``M``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from d2l_lib.exercises import mistakes
from d2l_lib.exercises.backend import Backend, LayerInputs, LayerRun, guarded, type_name
from d2l_lib.exercises.report import Failure
from d2l_lib.exercises.steps import Step, compare

RTOL, ATOL = 1e-4, 1e-5  # float32 sums of products, in whatever order the reader's code adds them
VALUE_CASES = ("example_1d", "example_2d", "no_lens", "zero_len", "large_1d")


def _inputs(d_q: int, d_k: int) -> dict[str, LayerInputs]:
    """The inputs of a layer's checks, by case (seeded: the same on every run)."""
    rng = np.random.default_rng(7)

    def make(batch: int, n: int, m: int, v: int, lens: np.ndarray | None) -> LayerInputs:
        def normal(*shape: int) -> np.ndarray:
            return rng.standard_normal(shape).astype(np.float32)

        return LayerInputs(normal(batch, n, d_q), normal(batch, m, d_k), normal(batch, m, v), lens, normal(batch, n, v))

    return {
        "example_1d": make(2, 1, 10, 4, np.array([2, 6])),
        "example_2d": make(2, 3, 10, 4, np.array([[1, 4, 10], [2, 6, 9]])),
        "no_lens": make(2, 3, 10, 4, None),
        "zero_len": make(2, 3, 10, 4, np.array([[0, 4, 10], [2, 0, 9]])),
        "large_1d": make(4, 17, 33, 5, np.array([1, 9, 20, 33])),
    }


def _class_steps(backend: Backend, answer: Any, name: str, kwargs: dict[str, Any]) -> list[Step]:
    call = name + "(" + ", ".join(f"{k}={v}" for k, v in kwargs.items()) + ")"

    def is_class() -> None:
        if backend.is_layer(answer):
            raise Failure("instance_not_class", fatal=True, name=name)
        if not backend.is_layer_class(answer):
            raise Failure("not_layer_class", fatal=True, name=name, base=backend.layer_base, received=type_name(answer))

    def constructs() -> None:
        guarded(lambda: answer(**kwargs), call)

    return [("layer_class", "", is_class), ("layer_constructs", "", constructs)]


Variants = dict[str, tuple[np.ndarray, np.ndarray]]  # mistake -> (weights, output) it would give


def _check_run(run: LayerRun, want: LayerRun, variants: Variants) -> None:
    """Compare a layer's weights, then its output, with the reference; name a mistake they match."""
    compare("attention_weights", want.weights, run.weights, RTOL, ATOL, {k: w for k, (w, _) in variants.items()})
    compare("output", want.output, run.output, RTOL, ATOL, {k: o for k, (_, o) in variants.items()})


def _api(run: LayerRun, inputs: LayerInputs) -> None:
    batch, n, m, v = *inputs.queries.shape[:2], inputs.keys.shape[1], inputs.values.shape[-1]
    if run.output.shape != (batch, n, v):
        raise Failure("shape", fatal=True, what="output", expected=(batch, n, v), received=run.output.shape)
    if run.weights.shape != (batch, n, m):
        raise Failure("shape", fatal=True, what="attention_weights", expected=(batch, n, m), received=run.weights.shape)


def _common_steps(
    runs: Callable[[str], tuple[LayerRun, LayerRun, Variants]],
    inputs: dict[str, LayerInputs],
    extra_grads: Callable[[LayerRun, LayerRun], None] | None = None,
) -> list[Step]:
    def api() -> None:
        try:
            run, _, _ = runs("example_1d")
        except Failure as failure:
            failure.fatal = True
            raise
        _api(run, inputs["example_1d"])

    def values(case: str) -> Callable[[], None]:
        def test() -> None:
            run, want, variants = runs(case)
            _api(run, inputs[case])
            _check_run(run, want, variants)

        return test

    def grads() -> None:
        run, want, _ = runs("example_2d")
        if run.grad_error is not None:
            raise Failure("grad_error", error=run.grad_error)
        assert run.grads is not None and want.grads is not None
        for name in ("queries", "keys", "values"):
            compare(f"∂/∂{name}", want.grads[name], run.grads[name], RTOL, ATOL)
        if extra_grads is not None:
            extra_grads(run, want)

    def deterministic() -> None:
        run, _, _ = runs("example_1d")
        if run.again is not None and not np.allclose(run.again, run.output, rtol=RTOL, atol=ATOL):
            raise Failure("eval_random", mistake="dropout_in_eval")

    def unmodified() -> None:
        run, _, _ = runs("example_1d")
        if run.modified:
            raise Failure("modified", mistake="inplace", names=", ".join(run.modified))

    return [
        ("layer_api", "example_1d", api),
        *(("layer_values", case, values(case)) for case in VALUE_CASES),
        ("layer_grads", "example_2d", grads),
        ("layer_eval", "example_1d", deterministic),
        ("layer_unmodified", "example_1d", unmodified),
    ]


def distance_steps(backend: Backend, answer: Any) -> list[Step]:
    """The properties of a ``DistanceAttention`` class, as the lesson's solution states them."""
    inputs = _inputs(2, 2)
    cache: dict[str, Any] = {}

    def runs(case: str) -> tuple[LayerRun, LayerRun, Variants]:
        if case not in cache:
            x = inputs[case]
            run = guarded(lambda: backend.run_layer(answer, {"dropout": 0.5}, x), "DistanceAttention")
            want = backend.run_reference("distance", x)
            scores = mistakes.scores_distance(x.queries, x.keys)
            cache[case] = (run, want, mistakes.attention_from_scores(scores, x.values, x.valid_lens))
        return cache[case]

    return _class_steps(backend, answer, "DistanceAttention", {"dropout": 0.5}) + _common_steps(runs, inputs)


def _matrix(run: LayerRun, d_q: int, d_k: int) -> tuple[np.ndarray, bool]:
    """Return the reader's M as (d_q, d_k), and whether the layer stores it transposed."""
    matrices = [p for p in run.params if p.shape in ((d_q, d_k), (d_k, d_q))]
    if len(matrices) != 1 or len(run.params) != 1:
        raise Failure("bl_params", fatal=not matrices, d_q=d_q, d_k=d_k, received=[p.shape for p in run.params])
    return (matrices[0], False) if matrices[0].shape == (d_q, d_k) else (matrices[0].T, True)


def bilinear_steps(backend: Backend, answer: Any) -> list[Step]:
    """The properties of a ``BilinearAttention`` class, as the lesson's solution states them."""
    d_q, d_k = 20, 2
    kwargs = {"query_size": d_q, "key_size": d_k, "dropout": 0.1}
    inputs = _inputs(d_q, d_k)
    cache: dict[str, Any] = {}

    def runs(case: str) -> tuple[LayerRun, LayerRun, Variants]:
        if case not in cache:
            x = inputs[case]
            run = guarded(lambda: backend.run_layer(answer, kwargs, x), "BilinearAttention")
            M, _ = _matrix(run, d_q, d_k)
            want = backend.run_reference("bilinear", x, M)
            scores = mistakes.scores_bilinear(x.queries, x.keys, M)
            cache[case] = (run, want, mistakes.attention_from_scores(scores, x.values, x.valid_lens))
        return cache[case]

    def matrix() -> None:
        run, _, _ = runs("example_1d")
        _matrix(run, d_q, d_k)

    def grad_M(run: LayerRun, want: LayerRun) -> None:
        M, transposed = _matrix(run, d_q, d_k)
        grad = run.param_grads[0] if run.param_grads else None
        if grad is None:
            raise Failure("grad_error", error="M: no gradient")
        assert want.grads is not None
        compare("∂/∂M", want.grads["M"], grad.T if transposed else grad, RTOL, ATOL)

    def refuses() -> None:
        x = inputs["example_1d"]
        wrong = LayerInputs(x.queries, np.tile(x.keys, (1, 1, 2)), x.values, x.valid_lens, x.R)
        try:
            backend.run_layer(answer, kwargs, wrong)
        except ValueError:
            return
        except Exception as error:  # noqa: BLE001 (any other error is the failure reported)
            raise Failure("bl_refuses", received=type(error).__name__) from error
        raise Failure("bl_refuses", received="—")

    return (
        _class_steps(backend, answer, "BilinearAttention", kwargs)
        + [("bl_matrix", "example_1d", matrix)]
        + _common_steps(runs, inputs, grad_M)
        + [("bl_refuses", "wrong_key_length", refuses)]
    )
