"""Every column of every output file has a meaning (refuge_map.columns) and is on the files page."""

import pytest
from test_docs import docs_module

from refuge_map.columns import (
    EXILE_OUTCOME_MEANINGS,
    FLIGHT_OUTCOME_MEANINGS,
    LIFE_MEANINGS,
    described_by,
    meaning_of,
    unit_of,
)
from refuge_map.simulation.events import EXILE_OUTCOMES, FLIGHT_OUTCOMES, LIFE_REASONS
from refuge_map.simulation.run import EVENT_COLUMNS, TRACK_COLUMNS


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory):
    """Every output file, written small by the `refuge` commands, as the files page makes it."""
    return docs_module("_outputs").write_outputs(tmp_path_factory.mktemp("outputs"))


def test_every_written_column_has_a_meaning(tables) -> None:
    undocumented = [
        f"{table.file}: {column}"
        for table in tables
        for column, _ in table.columns
        if meaning_of(table.table, column) is None
    ]
    assert undocumented == []


def test_every_command_and_file_is_written(tables) -> None:
    files = {(table.command, table.file) for table in tables}
    for name in ("events", "trajectories", "manslayers", "ledger", "priests"):
        assert ("refuge run", f"{name}.parquet") in files
    assert ("refuge run", "summary.json") in files
    assert ("refuge sweep run", "runs.parquet") in files
    assert ("refuge coverage", "coverage.gpkg, layer coverage") in files
    assert ("refuge layers", "FILE.lpf.json") in files
    assert ("refuge layers", "network.gpkg, layer roads") in files
    run = {t.file: dict(t.columns) for t in tables if t.command == "refuge run"}
    assert tuple(run["events.parquet"]) == EVENT_COLUMNS
    assert tuple(run["trajectories.parquet"]) == (*TRACK_COLUMNS, "geometry")
    assert run["events.parquet"]["elapsed_s"] == "float"
    assert run["trajectories.parquet"]["t"] == "datetime"


def test_the_files_page_shows_every_column_with_its_type_and_unit(tables) -> None:
    text = docs_module("_pages").files_page(tables)
    for table in tables:
        section = text.split(f"### `{table.file}`\n", 1)[1].split("\n### ", 1)[0]
        for column, _ in table.columns:
            key, _ = described_by(table.table, column)
            assert f"`{key}`" in section, (table.file, column)
    assert "| `since_killing_s` | float | seconds | time since his own killing" in text
    assert "(undocumented)" not in text


def test_a_new_column_or_key_lacks_a_meaning() -> None:
    assert meaning_of("events", "speed_kmh") is None
    assert meaning_of("summary", "sensitivity.p_arrival") is None
    assert meaning_of("summary", "overall.outcomes.arrival") is not None
    assert meaning_of("runs", "avenger.delay_h.median") is not None  # an axis


@pytest.mark.parametrize(
    ("column", "unit"),
    [
        ("length_m", "metres"),
        ("zone_km2", "square kilometres"),
        ("distance_run_km", "kilometres"),
        ("time_to_asylum_h", "hours"),
        ("entered_y", "years since the killing"),
        ("p_asylum", "probability (0-1)"),
        ("width_cubits", "cubits"),
        ("overall.time_to_asylum_h", "hours"),
        ("name", ""),
    ],
)
def test_units_come_from_the_names(column: str, unit: str) -> None:
    assert unit_of(column) == unit


def test_every_outcome_and_reason_has_a_meaning() -> None:
    assert set(FLIGHT_OUTCOME_MEANINGS) == set(FLIGHT_OUTCOMES)
    assert set(EXILE_OUTCOME_MEANINGS) == set(EXILE_OUTCOMES)
    assert set(LIFE_MEANINGS) == set(LIFE_REASONS.values())
