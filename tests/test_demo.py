"""`refuge demo`: every file it promises, a self-contained map, and the summary tables."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
from rich.console import Console
from test_render import tags

from refuge_map.cli.demo_command import _cities_table
from refuge_map.simulation.io import EXILE_FILES, RUN_FILES

SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"
PROMISED = ("network.gpkg", "cities.csv", "map.html", "map.png")


def test_demo_writes_every_promised_file_and_a_self_contained_map(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    out = tmp_path / "demo"
    result = run_cli("demo", "--out", out, "--scenario", SCENARIOS / "tiny.yaml")
    assert result.code == 0, result.err
    promised = [out / name for name in PROMISED] + [out / "run" / name for name in RUN_FILES]
    assert [p for p in promised if not p.is_file()] == []
    printed = "".join(result.out.split())  # rich folds long paths over lines
    assert all(f"wrote{p}" in printed for p in promised)
    assert f"openthemap:{(out / 'map.html').resolve()}" in printed
    assert "Flight and pursuit: tiny-" in result.out
    assert "Trial, exile and release" not in result.out
    assert "from the start" in result.out and "-inf" not in result.out  # all six designated
    page = (out / "map.html").read_text(encoding="utf-8")
    found = tags(page)
    assert not [url for _, url in found.refs if re.match(r"(https?:)?//", url)]
    assert not [url for tag, url in found.refs if tag in ("script", "link")]
    assert "L.TimeDimension=" in page and "Coverage: P(reach asylum alive), 5 km cells" in page
    assert (out / "map.png").read_bytes().startswith(b"\x89PNG")


def test_demo_of_an_exile_scenario_writes_and_prints_the_exile(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    out = tmp_path / "demo"
    result = run_cli("demo", "--out", out, "--scenario", SCENARIOS / "exile_whole_life.yaml")
    assert result.code == 0, result.err
    assert all((out / "run" / name).is_file() for name in EXILE_FILES)
    assert "Trial, exile and release" in result.out and "life exiles:" in result.out
    page = (out / "map.html").read_text(encoding="utf-8")
    assert "Events: released at the high priest" in page and "Events: trial and verdict" in page


def test_the_cities_table_says_when_each_city_was_designated() -> None:
    summary = pd.DataFrame(
        {"name": ["Bezer", "Shechem", "Golan"], "designated_at": [-math.inf, 14.0, math.inf]},
        index=pd.Index(["bezer", "shechem", "golan"]),
    )
    console = Console(width=200, record=True)
    console.print(_cities_table(summary))
    rows = {line.split()[1]: line for line in console.export_text().splitlines() if "│ " in line}
    assert "from the start" in rows["bezer"] and "year 14 " in rows["shechem"]
    assert "never" in rows["golan"]
