"""`make lab` runs every notebook on the d2l-book kernel, whatever kernel the notebook names."""

from __future__ import annotations

from booktools.runtime import kernel
from booktools.servers.lab import BookKernelSpecManager


def test_every_kernel_name_gets_the_book_kernel_and_its_fixed_environment():
    manager = BookKernelSpecManager()
    assert list(manager.find_kernel_specs()) == [kernel.NAME], "run make setup: it installs the d2l-book kernel"
    # The derived notebooks name `python3` (for Colab); here they run on d2l-book.
    spec = manager.get_kernel_spec("python3")
    assert spec.display_name == kernel.DISPLAY_NAME
    assert spec.env["MPLBACKEND"] == kernel.ENV["MPLBACKEND"], "figures show whatever the caller's MPLBACKEND"
