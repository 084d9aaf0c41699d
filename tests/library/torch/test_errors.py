"""Clear errors in PyTorch only (issue 5, item 2): inputs that are not tensors, a
``torch.Size``, and ``check_shape`` under ``python -O``. What every framework shares is in
``tests/library/test_errors.py``."""

from __future__ import annotations

import subprocess
import sys

import torch

from d2l_lib import torch as d2l


# ------------------------------------------------------------------ attention layers
def _qkv(q=(2, 3, 4), k=(2, 5, 4), v=(2, 5, 6)):
    return torch.rand(q), torch.rand(k), torch.rand(v)


def test_attention_inputs_not_tensors(raises):
    q, k, v = _qkv()
    raises(TypeError, lambda: d2l.DotProductAttention(0.0)(q.tolist(), k, v), "queries must be a torch.Tensor")
    raises(TypeError, lambda: d2l.AdditiveAttention(8, 0.0)(q, k, v.numpy()), "values must be a torch.Tensor")


# ------------------------------------------------------------------ check_shape
def test_check_shape_mismatch_names_a_torch_size_as_a_tuple(raises):
    shape = torch.Size([6])
    raises(
        ValueError,
        lambda: d2l.check_shape(torch.zeros(2, 3), shape),
        f"expected a tensor of shape {tuple(shape)}",
        "got shape (2, 3)",
    )


def test_check_shape_survives_python_optimize_mode(tmp_path):
    """D2L's check_shape is an assert, which ``python -O`` removes; this one is an if."""
    script = (
        "import sys, torch\n"
        "from d2l_lib import torch as d2l\n"
        "assert False, 'asserts are on'  # skipped under -O\n"
        "try:\n"
        "    d2l.check_shape(torch.zeros(2, 3), (3, 2))\n"
        "except ValueError as error:\n"
        "    print('optimize', sys.flags.optimize, 'ValueError:', error)\n"
        "else:\n"
        "    print('optimize', sys.flags.optimize, 'no error')\n"
    )
    result = subprocess.run(
        [sys.executable, "-O", "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ("optimize 1 ValueError: expected a tensor of shape (3, 2), got shape (2, 3)")
