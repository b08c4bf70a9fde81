"""`refuge run` and `refuge scenario schema|check`: outputs, summary, and bad input (exit 2)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from refuge_map.simulation.io import RUN_FILES

TINY = Path(__file__).parents[1] / "data" / "scenarios" / "tiny.yaml"


def test_run_writes_files_and_prints_summary(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    result = run_cli("run", TINY, "--out", tmp_path / "out", "--seed", "5")
    assert result.code == 0, result.err
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(RUN_FILES)
    assert "tiny" in result.out and "capture" in result.out
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["seed"] == 5 and summary["run_id"].endswith("-s5")


def test_schema_and_check(run_cli: Callable[..., Any]) -> None:
    schema = run_cli("scenario", "schema")
    assert schema.code == 0
    assert "dt_s" in json.loads(schema.out)["properties"]
    check = run_cli("scenario", "check", TINY)
    assert check.code == 0
    assert "ok" in check.out and "3 incidents" in check.out


BAD = {
    "unknown_field": ({"fugitive": {"speeed": 3}}, "fugitive.speeed", "3"),
    "wrong_type": ({"dt_s": "60 s"}, "dt_s", "60 s"),
    "wrong_unit": (
        {"fugitive": {"speed_road_kmh": {"dist": "fixed", "value": 5000}}},
        "speed_road_kmh",
        "5000",
    ),
    "zero_speed": (
        {"avenger": {"speed_road_kmh": {"dist": "fixed", "value": 0}}},
        "avenger.speed_road_kmh",
        "0",
    ),
    "outside_region": ({"incidents": [{"place": [35.2, 45.0]}]}, "incidents.0.place.lat", "45.0"),
    "unknown_city": (
        {"network": {"designation": [{"year": 0, "cities": ["sodom"]}]}},
        "cities.0",
        "sodom",
    ),
    "unknown_candidate": (
        {"network": {"candidates": {"golan": "golan__cand9"}}},
        "candidates.sites.golan",
        "golan__cand9",
    ),
    "unordered_timeline": (
        {
            "network": {
                "designation": [
                    {"year": 5, "cities": ["kedesh"]},
                    {"year": 1, "cities": ["hebron"]},
                ]
            }
        },
        "network.designation",
        "year 1.0",
    ),
    "empty_incidents": ({"incidents": []}, "incidents", "[]"),
    "short_horizon": ({"dt_s": 3600, "horizon_h": 0.5}, "horizon_h", "0.5"),
}


@pytest.mark.parametrize("command", ["run", "check"])
@pytest.mark.parametrize(("change", "field", "value"), BAD.values(), ids=BAD.keys())
def test_bad_input_one_line_exit_2_no_output(
    run_cli: Callable[..., Any],
    tmp_path: Path,
    command: str,
    change: dict[str, Any],
    field: str,
    value: str,
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        yaml.safe_dump({"name": "bad", "incidents": [{"place": "jerusalem"}], **change})
    )
    args = (
        ["run", path, "--out", tmp_path / "out"]
        if command == "run"
        else ["scenario", "check", path]
    )
    result = run_cli(*args)
    assert result.code == 2
    lines = result.err.strip().splitlines()
    assert len(lines) == 1
    assert str(path) in lines[0] and field in lines[0] and value in lines[0]
    assert not (tmp_path / "out").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml"]


def test_bad_seed_and_missing_file(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    bad_seed = run_cli("run", TINY, "--out", tmp_path / "out", "--seed", "-1")
    assert bad_seed.code == 2 and "--seed" in bad_seed.err
    missing = run_cli("run", tmp_path / "nope.yaml", "--out", tmp_path / "out")
    assert missing.code == 2 and "nope.yaml" in missing.err
    assert not (tmp_path / "out").exists()
