"""The benchmarks still import: they are run by hand (`make bench`), not by the suite."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

FOLDER = Path(__file__).parents[1] / "benchmarks"
BENCHMARKS = sorted(FOLDER.glob("bench_*.py"))


@pytest.mark.parametrize("path", BENCHMARKS, ids=[p.stem for p in BENCHMARKS])
def test_benchmark_imports(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if path.stem == "bench_flight":
        pytest.importorskip("mesa_geo", reason="mesa-geo comes with the bench extra")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.syspath_prepend(str(FOLDER))  # as `python bench_x.py` has it: its _timing
    monkeypatch.setitem(sys.modules, path.stem, module)  # and itself as a module
    spec.loader.exec_module(module)  # defines the benchmark; `main` is not called
    assert callable(module.main)
