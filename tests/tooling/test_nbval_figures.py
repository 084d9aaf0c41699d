"""nbval compares figures too (booktools.nbval_figures), so a changed heatmap fails."""

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

from booktools.nbval_figures import compare_pngs  # noqa: E402


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


def test_nbval_fails_on_weights_and_heatmap_when_the_mask_value_changes(root: Path, tmp_path: Path):
    """The issue's acceptance check: mask with 0 instead of the dtype's lowest value."""
    notebook_path = tmp_path / "chapters/en/attention-scoring-functions.ipynb"
    notebook_path.parent.mkdir(parents=True)
    shutil.copy(root / "chapters/en/attention-scoring-functions.ipynb", notebook_path)
    notebook = nbformat.read(notebook_path, as_version=4)
    cell = next(c for c in notebook.cells if c.get("id") == "masked-softmax")
    assert "lowest = torch.finfo(X.dtype).min" in cell.source
    cell.source = cell.source.replace("lowest = torch.finfo(X.dtype).min", "lowest = 0")
    nbformat.write(notebook, notebook_path)

    env = dict(os.environ, PYTHONHASHSEED="0")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--nbval", str(notebook_path), "-p", "booktools.nbval_figures",
         "-p", "no:cacheprovider", "-q", "--rootdir", str(tmp_path)],
        cwd=root, capture_output=True, text=True, env=env, timeout=300,
    )
    assert result.returncode == 1, result.stdout[-3000:]
    failed = set(re.findall(r"^FAILED \S+::(Cell \d+)", result.stdout, re.MULTILINE))
    code = [c for c in notebook.cells if c.cell_type == "code"]  # nbval numbers code cells from 0
    heatmap_cells = {f"Cell {n}" for n, c in enumerate(code) if c.get("id") in ("sdpa-heatmap", "additive-heatmap")}
    weight_cells = {f"Cell {n}" for n, c in enumerate(code) if c.get("id") == "masked-softmax-demo-1d"}
    assert heatmap_cells <= failed and weight_cells <= failed, result.stdout[-3000:]
    assert "differs from the stored one: RMS" in result.stdout
