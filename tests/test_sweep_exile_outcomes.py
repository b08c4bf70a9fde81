"""The exile outcomes of every run (summary["exile"]) become columns of runs.parquet."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from refuge_map.simulation import OUTCOMES, load_scenario, simulate
from refuge_map.sweep import load_sweep, open_backend, run_sweep
from refuge_map.sweep.worker import EXILE_COLUMNS, exile_outcomes, outcomes

SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"

EXILE_BASE: dict[str, Any] = {
    "name": "small-exile",
    "dt_s": 300,
    "horizon_h": 12,
    "generate": {"n": 4},
    "exile": {
        "cases": [{"file": "002_lowering_cask"}, {"file": "030_kills_high_priest"}],
        "office_share": 1.0,
        "horizon_years": 20,
    },
}


@pytest.fixture(scope="module")
def whole_life() -> dict[str, Any]:
    """The summary of the teaching scenario of six lives (Mishnah Makkot 2:6-8)."""
    return simulate(load_scenario(SCENARIOS / "exile_whole_life.yaml")).summary


def test_exile_columns_carry_the_summary(whole_life: dict[str, Any]) -> None:
    exile = whole_life["exile"]
    row = exile_outcomes(exile)
    assert list(row) == list(EXILE_COLUMNS)
    assert {kind: row[f"exile_{kind}"] for kind in OUTCOMES} == exile["outcomes"]
    assert sum(row[f"exile_{kind}"] for kind in OUTCOMES) == whole_life["overall"]["incidents"]
    assert row["life_killed_high_priest"] == exile["life_exiles"]["killed_high_priest"] == 1
    assert row["office_restored"] == exile["office"]["restored"]
    assert row["rent_total"] == pytest.approx(exile["rent"]["total"])
    assert outcomes(whole_life).items() >= row.items()


def test_a_run_without_exile_has_nan_exile_columns() -> None:
    summary = simulate(load_scenario(SCENARIOS / "tiny.yaml")).summary
    row = outcomes(summary)
    assert all(math.isnan(row[column]) for column in EXILE_COLUMNS)
    assert row["incidents"] == 3


def _sweep_runs(folder: Path, base: dict[str, Any], grid: dict[str, list[Any]]) -> pd.DataFrame:
    path = folder / "sweep.yaml"
    spec = {"name": "exile", "seed": 3, "base": base, "axes": {"grid": grid}}
    path.write_text(yaml.safe_dump(spec))
    run_sweep(load_sweep(path), folder / "out", backend=open_backend(serial_run=True))
    return pd.read_parquet(folder / "out" / "runs.parquet")


def test_runs_parquet_has_the_exile_columns(tmp_path: Path) -> None:
    runs = _sweep_runs(tmp_path, EXILE_BASE, {"exile.rent": ["judah", "meir"]})
    assert set(EXILE_COLUMNS) <= set(runs.columns)
    counts = runs[[f"exile_{kind}" for kind in OUTCOMES]].sum(axis=1)
    assert (counts == runs["incidents"]).all()
    rent = runs.set_index("exile.rent")["rent_total"]
    assert rent["meir"] == 0.0  # Mishnah Makkot 2:8: R. Meir, they paid no rent
    assert rent["judah"] > 0.0  # R. Judah: they paid rent to the Levites


def test_a_sweep_without_exile_keeps_nan_exile_columns(tmp_path: Path) -> None:
    base = {key: value for key, value in EXILE_BASE.items() if key != "exile"}
    runs = _sweep_runs(tmp_path, base, {"escorts.enabled": [False, True]})
    assert runs[list(EXILE_COLUMNS)].isna().all().all()
