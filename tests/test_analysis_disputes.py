"""What each dispute changes in a sweep's outcomes, and the smaller sweep for a quick look."""

from pathlib import Path

import pandas as pd
import pytest

from refuge_map.analysis.disputes import (
    DISPUTE_SOURCES,
    EFFECT_COLUMNS,
    dispute_effects,
    smaller_sweep,
)
from refuge_map.sweep import load_sweep, plan_sweep
from refuge_map.sweep.worker import EXILE_COLUMNS

SWEEP = Path(__file__).resolve().parents[1] / "data" / "sweeps" / "disputes.yaml"
AXES = ["exile.rent", "exile.office"]


@pytest.fixture
def runs() -> pd.DataFrame:
    """A full 2 x 2 grid, one run per point, ten manslayers each; one failed run."""
    rows = []
    for rent, paid in (("judah", 40.0), ("meir", 0.0)):
        for office, restored in (("meir", 4), ("judah", 0)):
            row = dict.fromkeys(EXILE_COLUMNS, 0) | {
                "status": "done",
                "incidents": 10,
                "exile.rent": rent,
                "exile.office": office,
                "exile_released": 6,
                "exile_died_in_exile": 2,
                "exile_executed": 2,
                "office_restored": restored,
                "rent_total": paid,
            }
            rows.append(row)
    rows.append(rows[0] | {"status": "failed", "incidents": 0})
    return pd.DataFrame(rows)


def test_effects_are_per_100_manslayers_by_level(runs):
    table = dispute_effects(runs, AXES)
    assert table.loc[("exile.rent", "judah", "rent_total"), "per_100"] == pytest.approx(400.0)
    assert table.loc[("exile.rent", "meir", "rent_total"), "per_100"] == 0.0
    assert table.loc[("exile.office", "meir", "office_restored"), "per_100"] == 40.0
    assert table.loc[("exile.office", "judah", "exiled"), "per_100"] == pytest.approx(80.0)


def test_shift_is_against_the_first_level(runs):
    table = dispute_effects(runs, AXES)
    assert table.loc[("exile.rent", "judah", "rent_total"), "shift"] == 0.0
    assert table.loc[("exile.rent", "meir", "rent_total"), "shift"] == pytest.approx(-400.0)
    assert table.loc[("exile.office", "judah", "office_restored"), "shift"] == -40.0
    assert table.loc[("exile.rent", "meir", "exiled"), "shift"] == 0.0


def test_every_outcome_and_level_has_a_row_and_a_source(runs):
    table = dispute_effects(runs, AXES)
    assert len(table) == 2 * 2 * len(EFFECT_COLUMNS)
    rent = table.index.get_level_values("axis") == "exile.rent"
    assert set(table.loc[rent, "source"]) == {DISPUTE_SOURCES["exile.rent"]}
    assert "Mishnah Makkot 2:8" in DISPUTE_SOURCES["exile.office"]
    assert DISPUTE_SOURCES["exile.law.blind"].startswith("Mishnah Makkot 2:3 (")


def test_the_shipped_sweep_crosses_the_disputes():
    spec = load_sweep(SWEEP)
    assert set(spec.axes.grid) <= set(DISPUTE_SOURCES)
    assert len(plan_sweep(spec).runs) == 48 * spec.replications


def test_smaller_sweep_keeps_the_design_points():
    spec = load_sweep(SWEEP)
    small = smaller_sweep(spec, replications=1, incidents=5)
    assert small.replications == 1 and small.base["generate"]["n"] == 5
    assert small.axes == spec.axes and small.seed == spec.seed
    assert len(plan_sweep(small).runs) == 48
