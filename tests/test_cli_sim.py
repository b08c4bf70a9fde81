"""`refuge run` and `refuge scenario schema|check`: outputs, summary, and bad input (exit 2)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from rich.console import Console

from refuge_map._atomic import MARKER
from refuge_map.simulation.events import EXILE_OUTCOMES
from refuge_map.simulation.io import REPLICATIONS_FILE, RUN_FILES
from refuge_map.simulation.report import exile_table

SCENARIOS = Path(__file__).parents[1] / "data" / "scenarios"
TINY = SCENARIOS / "tiny.yaml"
EXILE = SCENARIOS / "exile_whole_life.yaml"


def test_run_writes_files_and_prints_summary(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    result = run_cli("run", TINY, "--out", tmp_path / "out", "--seed", "5")
    assert result.code == 0, result.err
    written = sorted(p.name for p in (tmp_path / "out").iterdir())
    files = sorted([*RUN_FILES, REPLICATIONS_FILE])
    assert written == sorted([*files, MARKER])  # and the marker that claims the folder
    marker = json.loads((tmp_path / "out" / MARKER).read_text())
    assert marker["written_by"] == "refuge-map" and sorted(marker["files"]) == files
    assert "tiny" in result.out and "capture" in result.out
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["seed"] == 5 and summary["run_id"].endswith("-s5")


def test_run_without_exile_prints_no_exile_table(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    result = run_cli("run", TINY, "--out", tmp_path / "out")
    assert result.code == 0, result.err
    assert "Flight and pursuit" in result.out and "Trial, exile and release" not in result.out


def test_run_with_exile_prints_the_exile_table(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    result = run_cli("run", EXILE, "--out", tmp_path / "out")
    assert result.code == 0, result.err
    exile = json.loads((tmp_path / "out" / "summary.json").read_text())["exile"]
    assert "Trial, exile and release" in result.out
    text = " ".join(result.out.split())
    row = " ".join(["│ released", *(f"│ {n}" for n in _column_counts(exile, "released"))])
    assert row in text
    assert f"rent: {exile['rent']['stays']} stays" in text
    assert f"median years in exile: all {exile['years_in_exile']['all_exiles']['p50']:.2f}" in text
    assert "life exiles:" in text and "office:" in text


def _column_counts(exile: dict[str, Any], outcome: str) -> list[int]:
    """The exile table's counts of `outcome`: per city fled to, then all."""
    return [counts[outcome] for counts in exile["by_city"].values()] + [exile["outcomes"][outcome]]


def test_exile_table_of_a_summary() -> None:
    summary = {
        "outcomes": dict.fromkeys(EXILE_OUTCOMES, 0) | {"released": 2},
        "by_city": {"hebron": {"released": 2}},
        "life_exiles": {"killed_high_priest": 1},
        "years_in_exile": {"all_exiles": None, "released": {"p50": 4.5}},
        "rent": {"stays": 0, "total": 0.0},
        "office": {"held": 0, "restored": 0},
    }
    console = Console(width=120, record=True)
    console.print(exile_table(summary))
    text = " ".join(console.export_text().split())
    assert "hebron" in text and "median years in exile: all -, released 4.50" in text
    assert "caught in flight" in text


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


def test_run_of_levitical_routes_some_manslayers_to_the_42(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    result = run_cli("run", SCENARIOS / "levitical.yaml", "--out", tmp_path / "out")
    assert result.code == 0, result.err
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    received = summary["cities"]["received_by_kind"]
    assert received["levitical"] > 0 and received["refuge"] > 0
    events = pd.read_parquet(tmp_path / "out" / "events.parquet")
    levitical = events[(events["kind"] == "arrival") & events["citation"].str.contains("Abaye")]
    assert len(levitical) == received["levitical"]
    assert not set(levitical["city"]) & {"kedesh", "shechem", "hebron", "bezer", "golan"}
    ledger = pd.read_parquet(tmp_path / "out" / "ledger.parquet")  # rent in the 42 alone
    assert len(ledger) and set(ledger["city"]) <= set(levitical["city"])
    assert (events["kind"] == "teacher_exiled").any()


def test_run_of_three_more_sends_manslayers_to_the_added_cities(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    result = run_cli("run", SCENARIOS / "three_more.yaml", "--out", tmp_path / "out")
    assert result.code == 0, result.err
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert {"dibon", "megiddo", "lod"} <= set(summary["by_city"])
    assert summary["opinions"]["added_cities"][0]["id"] == "dibon"


def test_a_runs_progress_bar_on_a_terminal_is_drawn_with_no_thread_of_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a thread would keep `replicate` from forking the child it shares the replications with
    import io
    import threading

    from refuge_map.cli import sim_commands
    from refuge_map.simulation import load_scenario

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    monkeypatch.setattr("sys.stderr", screen)
    monkeypatch.setattr(sim_commands, "REDRAW_S", 0.0)  # drawn at every step
    threads = threading.active_count()
    with sim_commands._progress_bar(load_scenario(SCENARIOS / "default.yaml")) as progress:
        assert progress is not None  # a long run, on a terminal: a bar
        assert threading.active_count() == threads
        for step in (1, 2, 3):
            progress(step, 3600)
        assert "default: steps" in screen.getvalue()
    assert threading.active_count() == threads
