"""`refuge sensitivity`: Morris screening over the assumptions (refuge_map/sweep/sensitivity.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from refuge_map.simulation import Scenario
from refuge_map.sweep.sensitivity import factors, sensitivity_sweep

#: Killings near Jerusalem whose avenger hears too late to catch anyone, without escorts: the
#: fugitive's road speed decides the time to asylum; the escorts' persuasion cannot matter.
QUIET: dict[str, Any] = {
    "name": "quiet",
    "seed": 3,
    "dt_s": 300,
    "horizon_h": 24,
    "incidents": [
        {"place": "jerusalem", "kin_home": "bethlehem"},
        {"place": "bethlehem", "kin_home": "jerusalem"},
    ],
    "avenger": {"delay_h": {"dist": "uniform", "low": 600, "high": 700}},
}


def test_every_assumption_is_a_factor_over_its_range() -> None:
    scenario = Scenario.model_validate(QUIET)
    found = {f.name: f for f in factors(scenario)}
    assert found["fugitive.speed_road_kmh"].axis == "fugitive.speed_road_kmh.median"
    assert found["avenger.delay_h"].sets == "scale"  # a uniform: scaled around its middle
    assert found["avenger.delay_h"].at(1.0) == {
        "dist": "uniform",
        "low": 600 / 650,
        "high": 700 / 650,
    }
    assert (found["escorts.persuade_p"].low, found["escorts.persuade_p"].high) == (0.1, 0.9)
    spec, chosen, sample = sensitivity_sweep(scenario, size=2)
    assert len(spec.axes.points) == 2 * (len(chosen) + 1) == len(sample)


def test_a_parameter_that_drives_an_outcome_ranks_above_one_that_cannot(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    path = tmp_path / "quiet.json"
    path.write_text(json.dumps(QUIET))
    out = tmp_path / "sens"
    result = run_cli("sensitivity", path, "--out", out, "--serial", "--size", "3")
    assert result.code == 0, result.err
    table = pd.read_csv(out / "sensitivity.csv")
    time = table[table["outcome"] == "time_to_asylum_h"].set_index("parameter")
    assert time.loc["fugitive.speed_road_kmh", "rank"] == 1
    assert time.loc["fugitive.speed_road_kmh", "mu_star"] > 0.1  # hours
    assert time.loc["escorts.persuade_p", "mu_star"] == 0  # no escorts: it cannot matter
    assert (out / "sensitivity.png").read_bytes().startswith(b"\x89PNG")
    assert "fugitive.speed_road_kmh" in result.out
    again = run_cli("sensitivity", path, "--out", out, "--serial", "--size", "3", "--resume")
    assert again.code == 0, again.err  # a finished run resumes to the same table
    pd.testing.assert_frame_equal(pd.read_csv(out / "sensitivity.csv"), table)
