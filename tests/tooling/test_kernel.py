"""The `d2l-book` kernel (booktools.runtime.kernel): its environment is fixed whatever the caller's,
and `make setup` installed the current spec into the environment nbval runs from."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from jupyter_client.kernelspec import KernelSpecManager

from booktools.runtime import kernel


def test_the_spec_fixes_the_hash_seed_and_the_inline_figure_backend_and_leaves_out_c_level_output():
    spec = kernel.spec("/some/python")
    assert spec["env"]["PYTHONHASHSEED"] == "0"
    assert spec["env"]["MPLBACKEND"] == "module://matplotlib_inline.backend_inline"
    assert spec["argv"] == [
        "/some/python",
        "-m",
        "ipykernel_launcher",
        "--IPKernelApp.capture_fd_output=False",
        "-f",
        "{connection_file}",
    ]
    assert spec["language"] == "python"


def test_the_spec_is_a_fresh_copy_each_time():
    spec = kernel.spec()
    spec["env"]["MPLBACKEND"] = "Agg"
    assert kernel.spec()["env"]["MPLBACKEND"] == "module://matplotlib_inline.backend_inline"
    assert kernel.ENV["MPLBACKEND"] == "module://matplotlib_inline.backend_inline"


def test_install_writes_the_spec_where_jupyter_finds_it(tmp_path: Path):
    folder = kernel.install(tmp_path)
    assert folder == tmp_path / "share" / "jupyter" / "kernels" / kernel.NAME
    assert json.loads((folder / "kernel.json").read_text(encoding="utf-8")) == kernel.spec()
    found = KernelSpecManager(kernel_dirs=[str(folder.parent)]).get_kernel_spec(kernel.NAME)
    assert found.env == kernel.ENV and found.argv[0] == sys.executable


def test_the_environment_running_the_tests_has_the_current_kernel():
    found = KernelSpecManager().get_kernel_spec(kernel.NAME)
    assert found.env == kernel.ENV, "run `make setup` (python -m booktools kernel) to install the current kernel"
    assert found.argv == kernel.spec()["argv"], "the d2l-book kernel runs another Python; run `make setup`"
