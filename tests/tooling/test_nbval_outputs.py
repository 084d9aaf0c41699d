"""nbval compares figures too (booktools.checks.nbval_plugin), so a changed heatmap fails, and
the d2l-book kernel draws them whatever Matplotlib backend the caller exports."""

from __future__ import annotations

import base64
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import nbformat  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook  # noqa: E402

from booktools.checks.nbval_figures import compare_pngs  # noqa: E402
from booktools.derive import notebooks as derive  # noqa: E402
from booktools.derive import outputs  # noqa: E402
from booktools.project import Project  # noqa: E402
from booktools.runtime.kernel import NAME as KERNEL_NAME  # noqa: E402
from booktools.sources.frameworks import FRAMEWORKS, by_name  # noqa: E402


def png(matrix: np.ndarray) -> str:
    fig, ax = plt.subplots(figsize=(1, 1))
    ax.imshow(matrix, cmap="Reds")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode()


def test_identical_images_pass():
    image = png(np.eye(4))
    assert compare_pngs([image], [image], "same") == []


def test_a_changed_heatmap_fails_with_its_rms():
    problems = compare_pngs([png(np.eye(4))], [png(np.ones((4, 4)))], "changed")
    assert len(problems) == 1 and "RMS" in problems[0]


def test_a_missing_image_fails():
    assert "made 0 image(s), the notebook stores 1" in compare_pngs([png(np.eye(2))], [], "missing")[0]


def nbval(
    notebook: Path, root: Path, rootdir: Path, kernel: str = KERNEL_NAME, **env: str
) -> subprocess.CompletedProcess:
    """Run nbval with the figure plugin on one notebook, as `make pytest` does, in ``kernel``."""
    environment = {key: value for key, value in os.environ.items() if key != "MPLBACKEND"}
    environment.update(env)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--nbval",
            str(notebook),
            "--nbval-kernel-name",
            kernel,
            "-p",
            "booktools.checks.nbval_plugin",
            "-p",
            "no:cacheprovider",
            "-q",
            "--rootdir",
            str(rootdir),
        ],
        cwd=root,
        capture_output=True,
        text=True,
        env=environment,
        timeout=600,
        check=False,
    )


def derive_page(source: Path, book: Path, framework: str = "pytorch") -> tuple[Path, nbformat.NotebookNode]:
    """Write the notebook of ``framework`` derived from ``source`` where `make notebooks` puts it."""
    notebook = derive.derive(source, by_name(framework), Project(book))
    path = derive.derived_path(source, by_name(framework), Project(book))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(derive.render(notebook), encoding="utf-8")
    return path, notebook


def scratch_repository(project: Project, target: Path, *pages: str) -> Path:
    """A scratch repository with what derivation reads: ``_config.yml``, the library's version, pages."""
    scratch = Project(target)
    scratch.library_dir.mkdir(parents=True)
    shutil.copy(project.config_file, scratch.config_file)
    shutil.copy(project.library_dir / "__init__.py", scratch.library_dir / "__init__.py")
    for page in pages:
        (target / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(project.root / page, target / page)
    return target


def test_nbval_fails_on_weights_and_heatmap_when_the_mask_value_changes(project: Project, root: Path, tmp_path: Path):
    """The issue's acceptance check: mask with 0 instead of the dtype's lowest value, in the
    source page, and replay the PyTorch notebook derived from it."""
    book = scratch_repository(project, tmp_path, "chapters/en/attention-scoring-functions.ipynb")
    source = book / "chapters/en/attention-scoring-functions.ipynb"
    page = nbformat.read(source, as_version=4)
    cell = next(c for c in page.cells if c.get("id") == "masked-softmax")
    assert "lowest = torch.finfo(X.dtype).min" in cell.source
    cell.source = cell.source.replace("lowest = torch.finfo(X.dtype).min", "lowest = 0")
    nbformat.write(page, source)
    path, notebook = derive_page(source, book)

    result = nbval(path, root, tmp_path)
    assert result.returncode == 1, result.stdout[-3000:]
    failed = set(re.findall(r"^FAILED \S+::(Cell \d+)", result.stdout, re.MULTILINE))
    code = [c for c in notebook.cells if c.cell_type == "code"]  # nbval numbers code cells from 0
    heatmap_cells = {f"Cell {n}" for n, c in enumerate(code) if c.get("id") in ("sdpa-heatmap", "additive-heatmap")}
    weight_cells = {f"Cell {n}" for n, c in enumerate(code) if c.get("id") == "masked-softmax-demo-1d"}
    assert len(heatmap_cells) == 2 and len(weight_cells) == 1
    mutated = next(n for n, c in enumerate(code) if c.get("id") == "masked-softmax")
    assert not failed & {f"Cell {n}" for n in range(mutated + 1)}, "cells before the change must still pass"
    assert heatmap_cells <= failed and weight_cells <= failed, result.stdout[-3000:]
    assert "differs from the stored one: RMS" in result.stdout


def figure_page() -> nbformat.NotebookNode:
    """A source page whose one tab group draws a heatmap in every framework (with Matplotlib only)."""
    cells = [new_markdown_cell("(sec_figure)=\n# A Figure")]
    for framework in FRAMEWORKS:
        cells.append(
            new_code_cell(
                f"#@tab {framework.name}\nimport matplotlib.pyplot as plt\nimport numpy as np\n\n"
                "fig, ax = plt.subplots(figsize=(1.5, 1.5))\n"
                f"ax.imshow(np.eye({len(framework.name)}), cmap='Reds')\nplt.show()"
            )
        )
    for index, cell in enumerate(cells):
        cell["id"] = f"cell-{index}"
    return new_notebook(cells=cells)


def test_the_book_kernel_shows_figures_whatever_the_callers_backend(project: Project, root: Path, tmp_path: Path):
    """With MPLBACKEND=Agg exported (as CI often does), nbval in the d2l-book kernel still makes
    every stored figure; in a kernel that inherits the caller's environment the figure is gone."""
    book = scratch_repository(project, tmp_path)
    source = book / "chapters/en/figure.ipynb"
    source.parent.mkdir(parents=True)
    nbformat.write(figure_page(), source)
    path, notebook = derive_page(source, book)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MPLBACKEND", "Agg")  # the kernel that stores the outputs ignores it too
        outputs.execute(notebook, path.parent)
    assert [output.output_type for output in notebook.cells[-1].outputs] == ["display_data"]
    assert "image/png" in notebook.cells[-1].outputs[0].data
    path.write_text(derive.render(notebook), encoding="utf-8")

    passed = nbval(path, root, tmp_path, MPLBACKEND="Agg")
    assert passed.returncode == 0, passed.stdout[-3000:]
    assert re.search(r"\b2 passed\b", passed.stdout), passed.stdout[-3000:]
    inherited = nbval(path, root, tmp_path, kernel="python3", MPLBACKEND="Agg")
    assert inherited.returncode == 1, inherited.stdout[-3000:]
    assert "Missing output fields from running code" in inherited.stdout, inherited.stdout[-3000:]  # no figure


def printing_notebook(stored: str) -> nbformat.NotebookNode:
    """One cell that prints ``0.5190`` and a shape, with ``stored`` as its stored output."""
    cell = new_code_cell("print(f'weights {0.51904:.4f}, shape (2, 4)')")
    cell["id"] = "prints"
    cell.execution_count = 1
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=stored)]
    return new_notebook(cells=[cell])


@pytest.mark.parametrize(
    ("stored", "passes"),
    [
        ("weights 0.5191, shape (2, 4)\n", True),  # one unit of the last digit: another CPU's rounding
        ("weights 0.5195, shape (2, 4)\n", False),
        ("weights 0.5190, shape (2, 5)\n", False),  # an integer differs
    ],
)
def test_nbval_compares_printed_numbers_within_one_unit_of_their_last_digit(root, tmp_path, stored, passes):
    path = tmp_path / "numbers.ipynb"
    nbformat.write(printing_notebook(stored), path)
    result = nbval(path, root, tmp_path)
    assert (result.returncode == 0) == passes, result.stdout[-3000:]
    if not passes:
        assert stored.strip() in result.stdout and "weights 0.5190, shape (2, 4)" in result.stdout
    if stored.startswith("weights 0.5195"):
        assert "number 1 (line 1): stored 0.5195, fresh 0.5190: 5 units of the last digit apart" in result.stdout
