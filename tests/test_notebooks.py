"""Every tutorial notebook runs top to bottom with small parameters, and is committed stripped."""

import os
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
ALL = sorted(NOTEBOOKS.glob("*.ipynb"))
CELL_TIMEOUT_S = 120


def _run(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Execute in a `python3` kernel of this interpreter, in notebooks/, with ``CI=1``."""
    client = NotebookClient(
        notebook,
        kernel_name="python3",
        timeout=CELL_TIMEOUT_S,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    return client.execute(env={**os.environ, "CI": "1"})


def test_the_kernel_is_this_interpreter_with_ci_set():
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("import os, sys; print(sys.executable, os.environ['CI'])")]
    )
    out = _run(notebook).cells[0].outputs[0]["text"].split()
    assert Path(out[0]).resolve() == Path(sys.executable).resolve()
    assert out[1] == "1"


@pytest.mark.parametrize("path", ALL, ids=[p.name for p in ALL])
def test_notebook_runs(path: Path):
    notebook = nbformat.read(path, as_version=4)
    ran = _run(notebook)  # raises CellExecutionError, naming the cell, if any cell fails
    code = [cell for cell in ran.cells if cell.cell_type == "code"]
    assert code and all(cell.execution_count for cell in code), "a code cell did not run"


@pytest.mark.parametrize("path", ALL, ids=[p.name for p in ALL])
def test_notebook_is_stripped(path: Path):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code, "a notebook without code"
    assert 'os.environ.get("CI")' in code[0].source, "the first code cell reads the parameters"
    dirty = [i for i, cell in enumerate(code) if cell.outputs or cell.execution_count is not None]
    assert not dirty, f"outputs or execution counts in code cells {dirty}: strip before committing"
