"""nbval replays the notebooks under this folder with the book's comparison of numbers and figures.

Generated with the notebooks beside it by ``python -m booktools notebooks`` (``booktools.derive.notebooks``);
do not edit. pytest reads this file whenever it collects a notebook here (``make pytest``, a replay by
hand, ``tests/tooling/test_other_kernels.py``), and only then: the hook imported below
(``booktools.checks.nbval_plugin``) installs the comparison in that run. Every other pytest run
(``tests/`` alone, the version matrix's) leaves nbval as it is.
"""

from booktools.checks.nbval_plugin import pytest_configure

__all__ = ["pytest_configure"]
