"""JupyterLab on the book's notebooks, every one on the ``d2l-book`` kernel (``make lab``).

The derived notebooks (``notebooks/<lang>/<framework>/``) name the kernel
``python3``, the name Colab knows. Opened here, every notebook must run on the
``d2l-book`` kernel instead (``booktools.runtime.kernel``): its environment is fixed, so
that figures show whatever the caller's ``MPLBACKEND`` is. ``BookKernelSpecManager``
offers that kernel alone and answers it for any name asked. The local Jupyter
server of ``make serve`` (``booktools.servers.serve``) uses it too.

Usage::

    python -m booktools lab [JupyterLab options]
"""

from __future__ import annotations

import os
from typing import Any

from jupyter_client.kernelspec import KernelSpec, KernelSpecManager

from booktools.derive import notebooks as derive
from booktools.project import Project
from booktools.runtime.kernel import NAME as KERNEL_NAME

SPEC_MANAGER = f"{__name__}.BookKernelSpecManager"


class BookKernelSpecManager(KernelSpecManager):
    """The kernel specs of the book: ``d2l-book`` only, whatever name a notebook gives."""

    def find_kernel_specs(self) -> dict[str, str]:
        """Return the ``d2l-book`` spec's folder (``make setup`` installs it)."""
        specs: dict[str, str] = super().find_kernel_specs()
        return {KERNEL_NAME: specs[KERNEL_NAME]} if KERNEL_NAME in specs else {}

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        """Return the ``d2l-book`` spec for any ``kernel_name``."""
        return super().get_kernel_spec(KERNEL_NAME)

    def get_all_specs(self) -> dict[str, Any]:
        """Return the ``d2l-book`` spec alone."""
        specs: dict[str, Any] = super().get_all_specs()
        return {name: spec for name, spec in specs.items() if name == KERNEL_NAME}


def server_options() -> list[str]:
    """Return the Jupyter server options that make ``d2l-book`` the only kernel.

    As root (a container, CI), the server needs ``allow_root`` to start at all.
    """
    options = [
        f"--ServerApp.kernel_spec_manager_class={SPEC_MANAGER}",
        f"--MappingKernelManager.default_kernel_name={KERNEL_NAME}",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        options.append("--ServerApp.allow_root=True")
    return options


def run(project: Project, options: list[str]) -> int:
    """``python -m booktools lab``: JupyterLab on ``notebooks/`` (derived first if missing), with ``options``."""
    from jupyterlab.labapp import LabApp  # type: ignore[import-untyped]

    if not project.notebooks_dir.is_dir():
        derive.run(project)
    args = [f"--ServerApp.root_dir={project.notebooks_dir}", *server_options(), *options]
    LabApp.launch_instance(argv=args)
    return 0
