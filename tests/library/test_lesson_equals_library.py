"""The lesson's PyTorch code and the library's give the same results.

The chapter page teaches with short ``masked_softmax``, ``DotProductAttention``,
``AdditiveAttention`` and exercise solutions; ``d2l_lib.torch`` saves validated, faster
versions from the engineering page. On random and edge inputs (no, 1-D and 2-D lengths,
a length of 0, full and overlong lengths, float32 and float16) the weights are equal and
the outputs equal to within float rounding (the library scales the queries rather than
the scores, so the products round differently).
"""

from __future__ import annotations

import pytest
import torch

from d2l_lib import torch as d2l

LENGTHS = {
    "none": None,
    "1-D": [2, 3],
    "1-D, 0 and full": [0, 5],
    "2-D": [[1, 3, 5], [2, 4, 0]],
    "2-D, overlong": [[9, 1, 5], [5, 0, 7]],
}
DTYPES = [torch.float32, torch.float16]


def lengths(case):
    return None if LENGTHS[case] is None else torch.tensor(LENGTHS[case])


def inputs(dtype, seed=0, d=4, v=3, query_size=None):
    generator = torch.Generator().manual_seed(seed)

    def normal(*shape):
        return torch.randn(*shape, generator=generator).to(dtype)

    return normal(2, 3, query_size or d), normal(2, 5, d), normal(2, 5, v)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("case", LENGTHS)
def test_masked_softmax(lesson, case, dtype):
    X = torch.randn(2, 3, 5, generator=torch.Generator().manual_seed(1)).to(dtype) * 4
    before = X.clone()
    weights = lesson("pytorch")["masked_softmax"](X, lengths(case))
    assert torch.equal(X, before), "the lesson's masked_softmax modified its input"
    assert weights.dtype == dtype and not weights.isnan().any()
    assert torch.equal(weights, d2l.masked_softmax(X, lengths(case)))


def test_masked_softmax_large_scores_of_every_dtype(lesson):
    """Scores beyond float16's range of -1e6 and large tensors (the library's other path)."""
    for dtype in (torch.float64, torch.float32, torch.bfloat16, torch.float16):
        X = torch.randn(4, 64, 300, generator=torch.Generator().manual_seed(2)).to(dtype) * 100
        lens = torch.tensor([0, 1, 150, 300])
        weights = lesson("pytorch")["masked_softmax"](X, lens)
        assert torch.equal(weights, d2l.masked_softmax(X, lens)), dtype


def close(actual, expected):
    torch.testing.assert_close(actual, expected, rtol=2e-3 if actual.dtype == torch.float16 else 1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("case", LENGTHS)
def test_dot_product_attention(lesson, case, dtype):
    queries, keys, values = inputs(dtype)
    mine, theirs = lesson("pytorch")["DotProductAttention"](0.5), d2l.DotProductAttention(0.5)
    mine.eval(), theirs.eval()
    close(mine(queries, keys, values, lengths(case)), theirs(queries, keys, values, lengths(case)))
    close(mine.attention_weights, theirs.attention_weights)
    padding = theirs.attention_weights == 0
    assert torch.equal(mine.attention_weights == 0, padding), "zeros in other places"


@pytest.mark.parametrize("case", LENGTHS)
def test_additive_attention(lesson, case):
    queries, keys, values = inputs(torch.float32, query_size=6)
    mine, theirs = lesson("pytorch")["AdditiveAttention"](8, 0.1), d2l.AdditiveAttention(8, 0.1)
    mine.eval(), theirs.eval()
    theirs(queries, keys, values, lengths(case))
    mine(queries, keys, values, lengths(case))  # sizes the lazy layers
    mine.load_state_dict(theirs.state_dict())
    close(mine(queries, keys, values, lengths(case)), theirs(queries, keys, values, lengths(case)))
    close(mine.attention_weights, theirs.attention_weights)


@pytest.mark.parametrize("case", LENGTHS)
def test_exercise_solutions(lesson, case):
    queries, keys, values = inputs(torch.float32)
    distance, library_distance = lesson("pytorch")["DistanceAttention"](0.0), d2l.DistanceAttention(0.0)
    close(distance(queries, keys, values, lengths(case)), library_distance(queries, keys, values, lengths(case)))
    close(distance.attention_weights, library_distance.attention_weights)

    queries, keys, values = inputs(torch.float32, query_size=6)
    bilinear = lesson("pytorch")["BilinearAttention"](query_size=6, key_size=4, dropout=0.0)
    library_bilinear = d2l.BilinearAttention(query_size=6, key_size=4, dropout=0.0)
    bilinear.load_state_dict(library_bilinear.state_dict())
    close(bilinear(queries, keys, values, lengths(case)), library_bilinear(queries, keys, values, lengths(case)))
    close(bilinear.attention_weights, library_bilinear.attention_weights)
