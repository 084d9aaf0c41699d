"""Common mistakes, computed: what a wrong answer returns, so that a check can name the mistake.

The checks compare a reader's answer with the library (``d2l_lib.<framework>``), the
reference. When they differ, the check computes here, in NumPy, what each common mistake
would have returned on the same input, and names the mistake the answer matches. NumPy
keeps this in one place for the three frameworks; it decides nothing about right or wrong.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Variant = Callable[..., np.ndarray]


def softmax(X: np.ndarray, axis: int = -1) -> np.ndarray:
    """Return the softmax of ``X`` along ``axis``, in float64."""
    X = X.astype(np.float64)
    e = np.exp(X - X.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def keep_mask(shape: tuple[int, ...], valid_lens: np.ndarray | None) -> np.ndarray:
    """Return the boolean (batch, queries, keys) mask of the keys each query may see."""
    batch, queries, keys = shape
    if valid_lens is None:
        return np.ones(shape, dtype=bool)
    lens = valid_lens.reshape(batch, -1) if valid_lens.ndim == 1 else valid_lens
    lens = np.broadcast_to(lens.reshape(batch, -1)[..., None], (batch, queries, 1))
    return np.arange(keys) < lens


def masked_softmax(X: np.ndarray, valid_lens: np.ndarray | None, axis: int = -1) -> np.ndarray:
    """The lesson's masked softmax in float64 (zeros past each length, a zero row for length 0)."""
    keep = keep_mask(X.shape, valid_lens)
    with np.errstate(invalid="ignore"):  # a row without valid keys is NaN here, and zero below
        weights = softmax(np.where(keep, X.astype(np.float64), -np.inf), axis=axis)
    return np.nan_to_num(weights) * keep


def masked_softmax_variants(X: np.ndarray, valid_lens: np.ndarray | None) -> dict[str, np.ndarray]:
    """What ``masked_softmax(X, valid_lens)`` returns under each common mistake."""
    variants = {"no_mask": softmax(X)}
    if valid_lens is None:  # a softmax over the queries shows already without lengths
        return variants | {"wrong_axis": softmax(X, axis=-2)}
    variants["off_by_one"] = masked_softmax(X, valid_lens + 1)
    variants["off_by_one_short"] = masked_softmax(X, np.maximum(valid_lens - 1, 0))
    with np.errstate(invalid="ignore", divide="ignore"):
        keep = keep_mask(X.shape, valid_lens)
        over_queries = softmax(np.where(keep, X.astype(np.float64), -1e30), axis=-2) * keep
        variants["wrong_axis"] = over_queries
    if valid_lens.ndim == 2:
        variants["lens_2d_as_1d"] = masked_softmax(X, valid_lens[:, 0])
    return variants


def scores_distance(q: np.ndarray, k: np.ndarray) -> dict[str, np.ndarray]:
    """Distance-attention scores, right (``right``) and under each common mistake."""
    d = q.shape[-1]
    dots = q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), 1, 2)
    half_norms = 0.5 * (k.astype(np.float64) ** 2).sum(-1)[:, None, :]
    return {
        "right": (dots - half_norms) / np.sqrt(d),
        "dist_no_half": (dots - 2 * half_norms) / np.sqrt(d),
        "dist_no_scale": dots - half_norms,
        "scale_d": (dots - half_norms) / d,
        "dist_sign": (dots + half_norms) / np.sqrt(d),
        "dist_no_norm": dots / np.sqrt(d),
    }


def scores_bilinear(q: np.ndarray, k: np.ndarray, M: np.ndarray) -> dict[str, np.ndarray]:
    """Bilinear scores ``q^T M k / sqrt(d_q)``, right and under each common mistake."""
    d_q, d_k = M.shape
    products = q.astype(np.float64) @ M.astype(np.float64) @ np.swapaxes(k.astype(np.float64), 1, 2)
    return {
        "right": products / np.sqrt(d_q),
        "bl_scale_dk": products / np.sqrt(d_k),
        "no_scale": products,
        "scale_d": products / d_q,
    }


def attention_from_scores(
    scores: dict[str, np.ndarray], v: np.ndarray, valid_lens: np.ndarray | None
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """(weights, output) for each version of the scores, plus the right scores without a mask."""
    right = scores["right"]
    versions = {name: masked_softmax(s, valid_lens) for name, s in scores.items()}
    if valid_lens is not None:
        versions["no_masking"] = softmax(right)
    return {name: (w, w @ v.astype(np.float64)) for name, w in versions.items()}


def cost_variants(n: int, m: int, d: int, v: int, batch_size: int, bytes_per_number: int) -> dict[str, dict[str, int]]:
    """What ``attention_cost`` returns under each common mistake (and ``right``)."""
    io = n * d + m * d + m * v + n * v

    def cost(flops: int, unfused: int, fused: int, per_number: int = bytes_per_number, batch: int = batch_size):
        per_example = {"flops": flops, "bytes": per_number * unfused, "bytes_fused": per_number * fused}
        return {key: batch * count for key, count in per_example.items()}

    flops = 2 * n * m * (d + v) + 6 * n * m
    return {
        "right": cost(flops, io + 4 * n * m, io),
        "cost_no_softmax": cost(2 * n * m * (d + v), io + 4 * n * m, io),
        "cost_madd_once": cost(n * m * (d + v) + 6 * n * m, io + 4 * n * m, io),
        "cost_no_batch": cost(flops, io + 4 * n * m, io, batch=1),
        "cost_numbers_not_bytes": cost(flops, io + 4 * n * m, io, per_number=1),
        "cost_scores_once": cost(flops, io + 2 * n * m, io),
        "cost_fused_scores": cost(flops, io + 4 * n * m, io + 2 * n * m),
        "cost_d_for_v": cost(4 * n * m * d + 6 * n * m, 2 * n * d + 2 * m * d + 4 * n * m, 2 * n * d + 2 * m * d),
    }


def matching(received: np.ndarray, variants: dict[str, np.ndarray], rtol: float, atol: float) -> str | None:
    """Return the name of the first variant ``received`` equals (within tolerance), or None."""
    for name, variant in variants.items():
        if name != "right" and variant.shape == received.shape:
            if np.allclose(received.astype(np.float64), variant, rtol=rtol, atol=atol):
                return name
    return None
