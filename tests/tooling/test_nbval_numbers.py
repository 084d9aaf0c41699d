"""nbval compares printed numbers as numbers (booktools.checks.nbval_numbers, through booktools.checks.nbval_plugin):
within the bar (booktools.configuration.bars.MAX_LAST_DIGIT_UNITS) of their last printed digit, and
everything around them character by character."""

from __future__ import annotations

from decimal import Decimal

import pytest
from nbformat.v4 import new_output

from booktools.checks.nbval_numbers import compare, split, units_apart
from booktools.checks.nbval_plugin import reconcile_numbers
from booktools.configuration.bars import MAX_LAST_DIGIT_UNITS

TORCH = "tensor([[[-0.3711,  0.5190,  0.3632,  0.4878]]], grad_fn=<BmmBackward0>)"


def agrees(stored: str, fresh: str) -> bool:
    return compare(stored, fresh) == []


def test_the_tolerance_is_the_bar_s_units_of_the_last_digit():
    """A number the bar's units off agrees, one unit further does not (the cases below hold the bar at one)."""
    assert agrees("0.5000", f"0.{5000 + MAX_LAST_DIGIT_UNITS}")
    assert not agrees("0.5000", f"0.{5000 + MAX_LAST_DIGIT_UNITS + 1}")


@pytest.mark.parametrize(
    ("stored", "fresh"),
    [
        (TORCH, TORCH.replace("0.5190", "0.5191")),  # what oneDNN without AVX-512 prints
        (TORCH, TORCH.replace("0.3632", "0.3631")),
        ("0.0000", "-0.0000"),  # across zero, with its padding
        ("tensor([ 0.0000,  0.5000])", "tensor([-0.0001,  0.5000])"),
        ("tensor([0.0001, 0.5000])", "tensor([-0.0000,  0.5000])"),
        ("Array([[ 0.0236617 ,  0.2007", "Array([[ 0.02366173,  0.2007"),  # NumPy's shortest digits
        ("loss 3.2e-05", "loss 3.3e-05"),
        ("-1e+06", "-1e+06"),
        ("9.99", "10.00"),
        ("ratio 2.", "ratio 3."),
        ("The slope is 0.52.", "The slope is 0.53."),  # a full stop after a number
    ],
)
def test_numbers_one_unit_apart_agree(stored, fresh):
    assert agrees(stored, fresh)


@pytest.mark.parametrize(
    ("stored", "fresh", "named"),
    [
        (TORCH, TORCH.replace("0.5190", "0.5195"), "stored 0.5190, fresh 0.5195: 5 units"),
        (TORCH, TORCH.replace("0.5190", "0.5192"), "2 units"),
        ("0.0000", "0.0002", "2 units"),
        ("loss 3.2e-05", "loss 3.2e-06", "the exponent differs"),
        ("-1e+06", "-1e+07", "the exponent differs"),
        ("Array([[ 0.0236617 ,", "Array([[ 0.02366193,", "units"),
    ],
)
def test_numbers_further_apart_fail_and_are_named(stored, fresh, named):
    mismatches = compare(stored, fresh)
    assert len(mismatches) == 1 and named in mismatches[0].message, mismatches
    assert "number" in mismatches[0].message and "line 1" in mismatches[0].message


@pytest.mark.parametrize(
    ("stored", "fresh"),
    [
        ("tensor([0.5000, 0.2500])", "tensor([nan, 0.2500])"),  # nan against a number
        ("tensor([0.5000, 0.2500])", "tensor([inf, 0.2500])"),
        ("tensor([0.5000, 0.2500])", "tensor([0.5000])"),  # a missing number
        ("torch.Size([2, 1, 4])", "torch.Size([2, 1, 5])"),  # integers are compared as text
        ("shape (2, 10)", "shape (2, 11)"),
        ("dtype=float32", "dtype=float16"),
        ("grad_fn=<BmmBackward0>)", "grad_fn=<MulBackward0>)"),
        ("weights 0.5000", "weight 0.5000"),  # words
        ("0.5000\n0.2500", "0.5000 0.2500"),  # the line layout
        ("torch 2.13.0", "torch 2.13.1"),  # a version string is not a number
        ("1 passed", "2 passed"),
    ],
)
def test_everything_but_a_numbers_last_digit_is_compared_as_text(stored, fresh):
    assert not agrees(stored, fresh)


def test_the_skeleton_keeps_words_integers_and_lines():
    pieces, numbers = split("x: tensor([[ 0.5000, -1.2500]])\nshape (2, 3), 1e-06 and 2.13.0")
    assert [number.text for number in numbers] == ["0.5000", "-1.2500", "1e-06"]
    assert pieces == ["x: tensor([[", ",", "]])\nshape (2, 3),", "and 2.13.0"]
    assert [number.line for number in numbers] == [1, 1, 2]


def test_units_are_those_of_the_coarser_last_digit():
    first, second = split("0.0236617 0.02366173")[1]
    assert first.unit == Decimal("1e-7") and second.unit == Decimal("1e-8")
    assert units_apart(first, second) == Decimal("0.3")
    assert split("3.2e-05")[1][0].unit == Decimal("1e-6")


def stream(text: str):
    return new_output("stream", name="stdout", text=text)


def result(text: str):
    return new_output("execute_result", data={"text/plain": text}, execution_count=1)


def test_a_fresh_text_within_the_tolerance_is_replaced_by_the_stored_one():
    stored = [stream("weights 0.5190\n"), result(TORCH)]
    fresh = [stream("weights 0.5191\n"), result(TORCH.replace("0.4878", "0.4877"))]
    reconciled, notes = reconcile_numbers(fresh, stored)
    assert reconciled == stored and notes == []
    assert fresh[0]["text"] == "weights 0.5191\n", "the fresh outputs themselves are left as they were"


def test_a_fresh_text_further_off_is_left_for_nbval_with_a_note_naming_the_number():
    stored = [stream("weights 0.5190\n"), result(TORCH)]
    fresh = [stream("weights 0.5196\n"), result(TORCH)]
    reconciled, notes = reconcile_numbers(fresh, stored)
    assert reconciled[0]["text"] == "weights 0.5196\n"
    assert notes == [
        "  stdout: number 1 (line 1): stored 0.5190, fresh 0.5196: 6 units of the last digit apart, "
        f"more than the {MAX_LAST_DIGIT_UNITS} allowed"
    ]
