"""Answers to ``attention-cost``, right and wrong: plain Python, the same in every framework."""

from __future__ import annotations


def right(n, m, d, v, batch_size=1, bytes_per_number=4):
    """Another way to write the right counts: term by term."""
    flops = 2 * n * m * d + 6 * n * m + 2 * n * m * v
    numbers = n * d + m * d + m * v + n * v
    return {
        "flops": flops * batch_size,
        "bytes": (numbers + 4 * n * m) * bytes_per_number * batch_size,
        "bytes_fused": numbers * bytes_per_number * batch_size,
    }


def no_softmax(n, m, d, v, batch_size=1, bytes_per_number=4):
    """Counts only the two matrix products."""
    io = n * d + m * d + m * v + n * v
    return {
        "flops": batch_size * 2 * n * m * (d + v),
        "bytes": batch_size * bytes_per_number * (io + 4 * n * m),
        "bytes_fused": batch_size * bytes_per_number * io,
    }


def madd_once(n, m, d, v, batch_size=1, bytes_per_number=4):
    """Counts a multiply-add as one operation."""
    io = n * d + m * d + m * v + n * v
    return {
        "flops": batch_size * (n * m * d + n * m * v + 6 * n * m),
        "bytes": batch_size * bytes_per_number * (io + 4 * n * m),
        "bytes_fused": batch_size * bytes_per_number * io,
    }


def no_batch(n, m, d, v, batch_size=1, bytes_per_number=4):
    """Takes batch_size and forgets it."""
    io = n * d + m * d + m * v + n * v
    return {"flops": 2 * n * m * (d + v) + 6 * n * m, "bytes": 4 * (io + 4 * n * m), "bytes_fused": 4 * io}


def numbers_not_bytes(n, m, d, v, batch_size=1, bytes_per_number=4):
    """Counts the numbers moved, not their bytes."""
    io = n * d + m * d + m * v + n * v
    return {
        "flops": batch_size * (2 * n * m * (d + v) + 6 * n * m),
        "bytes": batch_size * (io + 4 * n * m),
        "bytes_fused": batch_size * io,
    }


def scores_once(n, m, d, v, batch_size=1, bytes_per_number=4):
    """Counts the n x m scores and weights written but not read back: 2nm."""
    io = n * d + m * d + m * v + n * v
    return {
        "flops": batch_size * (2 * n * m * (d + v) + 6 * n * m),
        "bytes": batch_size * bytes_per_number * (io + 2 * n * m),
        "bytes_fused": batch_size * bytes_per_number * io,
    }


def floats(n, m, d, v, batch_size=1, bytes_per_number=4):
    """Divides by 2 with ``/``: the counts are floats."""
    return {key: value / 2 * 2 for key, value in right(n, m, d, v, batch_size, bytes_per_number).items()}


def tuple_not_dict(n, m, d, v, batch_size=1, bytes_per_number=4):
    """Returns the three counts as a tuple."""
    return tuple(right(n, m, d, v, batch_size, bytes_per_number).values())


def by_arrays(n, m, d, v, batch_size=1, bytes_per_number=4):
    """Counts by building the arrays, and multiplies the scores by a (d, v) matrix: NumPy raises."""
    import numpy as np

    scores = np.ones((batch_size, n, m))
    output = scores @ np.ones((d, v))
    return {"flops": 2 * output.size * (d + m), "bytes": 0, "bytes_fused": 0}


def stub(n, m, d, v, batch_size=1, bytes_per_number=4):
    """The starter."""
    raise NotImplementedError


def ellipsis_body(n, m, d, v, batch_size=1, bytes_per_number=4):
    """The starter with ``...`` as its body."""
    ...


MISTAKES = {  # name -> answer
    "cost_no_softmax": no_softmax,
    "cost_madd_once": madd_once,
    "cost_no_batch": no_batch,
    "cost_numbers_not_bytes": numbers_not_bytes,
    "cost_scores_once": scores_once,
    "cost_floats": floats,
}
