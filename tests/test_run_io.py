"""Run folders: the files, their schema, reading back, byte-identical reruns, atomic writes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pyogrio
import pytest
import shapely

from refuge_map import _aside
from refuge_map._atomic import MARKER
from refuge_map.simulation import (
    EVENT_COLUMNS,
    TRACK_COLUMNS,
    Run,
    load_scenario,
    read_run,
    simulate,
    write_run,
)
from refuge_map.simulation.events import EVENT_KINDS, OUTCOME_EVENTS, Coded, EventLog, codes_of
from refuge_map.simulation.io import RUN_FILES, read_tracks, write_parquet
from refuge_map.simulation.run import _lexorder, agent_ids, outcome_rules

TINY = Path(__file__).parents[1] / "data" / "scenarios" / "tiny.yaml"
EXILE = TINY.with_name("exile_whole_life.yaml")


@pytest.fixture(scope="module")
def run() -> Run:
    return simulate(load_scenario(TINY))


def test_write_and_read_back(run: Run, tmp_path: Path) -> None:
    written = write_run(run, tmp_path / "out")
    assert sorted(p.name for p in written) == sorted(RUN_FILES)
    back = read_run(tmp_path / "out")
    assert back.run_id == run.run_id and back.seed == run.seed
    assert back.scenario == run.scenario
    assert back.opinions == run.opinions
    assert list(back.events.columns) == list(EVENT_COLUMNS)
    assert list(back.trajectories.columns) == [*TRACK_COLUMNS, "geometry"]
    assert back.trajectories.crs.to_epsg() == 4326
    text = [c for c in run.events.columns if isinstance(run.events[c].dtype, pd.CategoricalDtype)]
    assert {"agent_id", "role", "kind", "city", "rule", "citation"} <= set(text)
    pd.testing.assert_frame_equal(back.events, run.events.astype(dict.fromkeys(text, "str")))
    pd.testing.assert_frame_equal(back.trajectories, run.trajectories)
    pd.testing.assert_frame_equal(back.lines(), run.lines())


def test_a_run_without_trajectory_rows_writes_and_reads_back(tmp_path: Path) -> None:
    bare = simulate(load_scenario(TINY), record=False)
    assert bare.tracks.empty and not bare.events.empty
    write_run(bare, tmp_path / "out")
    back = read_run(tmp_path / "out")
    assert back.trajectories.empty and list(back.trajectories.columns) == [
        *TRACK_COLUMNS,
        "geometry",
    ]
    assert len(back.events) == len(bare.events)


def test_lines_layer_for_qgis(run: Run, tmp_path: Path) -> None:
    write_run(run, tmp_path / "out")
    lines = pyogrio.read_dataframe(tmp_path / "out" / "trajectories.gpkg", layer="lines")
    assert len(lines) == run.trajectories["agent_id"].nunique()
    assert set(lines.geometry.geom_type) == {"LineString"}


def test_same_seed_byte_identical_files(run: Run, tmp_path: Path) -> None:
    again = simulate(run.scenario, run.seed)
    other = simulate(run.scenario, run.seed + 1)
    for name, result in (("a", run), ("b", again), ("c", other)):
        write_run(result, tmp_path / name)
    for file in RUN_FILES:
        assert (tmp_path / "a" / file).read_bytes() == (tmp_path / "b" / file).read_bytes(), file
    events = "events.parquet"
    assert (tmp_path / "a" / events).read_bytes() != (tmp_path / "c" / events).read_bytes()


@pytest.mark.usefixtures("can_fork")  # tests/conftest.py
def test_a_geopackage_written_by_a_child_is_the_same_file(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forked_pids: list[int]
) -> None:
    written = {}
    for spare in (True, False):
        monkeypatch.setattr(_aside, "spare_core", lambda spare=spare: spare)
        out = tmp_path / str(spare)
        write_run(run, out)
        written[spare] = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
    assert len(forked_pids) == 1  # the GeoPackage's child, a core spare; none without
    assert written[True] == written[False]
    assert {*RUN_FILES, MARKER} <= set(written[True])


@pytest.mark.usefixtures("can_fork")
def test_a_killed_child_s_lines_are_written_here(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parent, lines = os.getpid(), Run.lines

    def half_then_killed(self: Run) -> Any:
        if os.getpid() != parent:  # the child: a temporary file begun, then killed
            for folder in tmp_path.glob(".out.*.part"):
                (folder / ".trajectories.x.part.gpkg-journal").write_bytes(b"half")
            os.kill(os.getpid(), 9)
        return lines(self)

    monkeypatch.setattr(_aside, "spare_core", lambda: True)
    monkeypatch.setattr(Run, "lines", half_then_killed)
    write_run(run, tmp_path / "out")
    monkeypatch.setattr(Run, "lines", lines)
    write_run(run, tmp_path / "expected", split=False)
    out, expected = (sorted(p.name for p in (tmp_path / n).iterdir()) for n in ("out", "expected"))
    assert out == expected
    for name in out:
        if name != MARKER:
            assert (tmp_path / "out" / name).read_bytes() == (
                tmp_path / "expected" / name
            ).read_bytes(), name


def test_failed_write_leaves_nothing(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: Run) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(Run, "lines", broken)
    with pytest.raises(RuntimeError):
        write_run(run, tmp_path / "out")
    assert list(tmp_path.iterdir()) == []


def test_events_written_a_row_group_at_a_time_are_the_file_pandas_writes(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from refuge_map.simulation import io

    monkeypatch.setattr(io, "ROW_GROUP", 4)  # several groups, the last one short
    io.write_parquet(run.events, tmp_path / "ours.parquet")
    as_text = run.events.astype({c: "str" for c in run.events.select_dtypes("category")})
    as_text.to_parquet(tmp_path / "pandas.parquet", index=False, row_group_size=4)
    assert len(run.events) > 2 * 4
    ours, theirs = (tmp_path / f"{name}.parquet" for name in ("ours", "pandas"))
    assert ours.read_bytes() == theirs.read_bytes()


def test_an_event_logged_with_coded_texts_reads_as_with_the_texts() -> None:
    texts = np.array(["bezer", "hebron", "golan", ""])
    codes = np.array([1, 3, 1, 0])
    logs = [EventLog(60.0, EVENT_KINDS) for _ in range(2)]
    for log, city in zip(
        logs, (texts[codes], pd.Categorical.from_codes(codes, texts)), strict=True
    ):
        log.event("flight_start", np.arange(4), "fugitive", 0.0, np.zeros((4, 2)), city=city)
        log.event("horizon", np.arange(2), "fugitive", 60.0, np.zeros((2, 2)), city="shechem")
    plain, coded = (log.frame() for log in logs)
    assert coded["city"].tolist() == ["hebron", "", "hebron", "bezer", "shechem", "shechem"]
    assert list(coded["city"].cat.categories) == ["", "bezer", "hebron", "shechem"]
    pd.testing.assert_frame_equal(coded, plain)


def test_events_coded_on_shared_and_separate_tables_read_as_their_texts() -> None:
    """Parts coded into one shared table and into others (a categorical of int8 codes after
    a table of 200 texts) read as the same events logged with the texts themselves."""
    many = np.array([f"town {k:03d}" for k in range(200)])
    few = np.array(["bezer", "hebron", "golan"])
    kedesh_ramoth = pd.Categorical.from_codes(np.array([1, 0], dtype=np.int8), ["ramoth", "kedesh"])
    parts = [  # (coded, the same texts plainly)
        (Coded(np.array([0, 199, 5]), many), many[[0, 199, 5]]),
        (Coded(np.array([2, 2]), few), few[[2, 2]]),
        (Coded(np.array([7]), many), many[[7]]),
        (kedesh_ramoth, np.array(["kedesh", "ramoth"])),
        ("shechem", np.array(["shechem"])),
    ]
    logs = [EventLog(60.0, EVENT_KINDS) for _ in range(2)]
    for k, (coded, texts) in enumerate(parts):
        idx, xy = np.arange(len(texts)) + 10 * k, np.zeros((len(texts), 2))
        logs[0].event("horizon", idx, "fugitive", 60.0 * k, xy, city=coded)
        logs[1].event("horizon", idx, "fugitive", 60.0 * k, xy, city=texts)
    coded_frame, plain_frame = (log.frame() for log in logs)
    assert coded_frame["city"].tolist() == [t for _, texts in parts for t in texts]
    pd.testing.assert_frame_equal(coded_frame, plain_frame)


def test_columnwise_geoparquet_is_the_file_geopandas_writes(run: Run, tmp_path: Path) -> None:
    """`write_parquet` with points: the GeoParquet of `Run.trajectories` byte for byte, with
    the geometry in the place of ``lon`` (a column after the points stays after it)."""
    tracks = run.tracks.assign(run=7)
    write_parquet(tracks, tmp_path / "columnwise.parquet", points=("lon", "lat"))
    run.trajectories.assign(run=7).to_parquet(tmp_path / "geopandas.parquet", index=False)
    written = (tmp_path / "columnwise.parquet").read_bytes()
    assert written == (tmp_path / "geopandas.parquet").read_bytes()
    assert list(pd.read_parquet(tmp_path / "columnwise.parquet").columns[-2:]) == [
        "geometry",
        "run",
    ]


@pytest.mark.parametrize("n", [3, 10_000, 123_456])
def test_agent_ids_are_the_incident_padded_and_the_agent(n: int) -> None:
    incident = np.array([0, n - 1, 7 % n, 0, n - 1])
    code = np.array([0, 1, 2, 3, 0])  # fugitive, avenger, escort1, escort2 (AGENTS)
    ids = agent_ids(incident, code, n)
    width = max(4, len(str(n - 1)))
    suffix = ["fugitive", "avenger", "escort1", "escort2"]
    expected = [f"i{i:0{width}d}-{suffix[c]}" for i, c in zip(incident, code, strict=True)]
    assert list(ids.astype(str)) == expected
    assert list(ids.categories) == sorted(set(expected))  # each id once, in text order


@pytest.mark.parametrize(
    ("low", "high"),
    [(0, 4), (0, 300), (-5, 5), (0, 2**40)],  # ties, wide spans; negative or too wide: lexsort
)
def test_lexorder_is_lexsort(low: int, high: int) -> None:
    rng = np.random.default_rng(high)
    keys = [rng.integers(low, high, 5_000) for _ in range(3)]
    assert np.array_equal(_lexorder(*keys), np.lexsort(keys))
    assert _lexorder(np.empty(0, np.int64)).size == 0


def test_each_line_spans_its_agents_rows(run: Run) -> None:
    lines = run.lines().set_index("agent_id")
    rows = run.tracks.astype({"agent_id": "str", "role": "str"}).groupby("agent_id")
    assert sorted(lines.index) == sorted(rows.groups)
    expected = rows.agg(
        incident=("incident", "first"),
        role=("role", "first"),
        t_start=("t", "min"),
        t_end=("t", "max"),
        captured=("captured", "any"),
    )
    pd.testing.assert_frame_equal(
        pd.DataFrame(lines[expected.columns]).sort_index(), expected, check_names=False
    )
    last = run.tracks.sort_values("step").astype({"agent_id": "str"}).groupby("agent_id").last()
    assert (lines["in_asylum"] == last["in_asylum"].reindex(lines.index)).all()
    assert (lines.geometry.apply(lambda g: len(g.coords)) == rows.size()[lines.index]).all()


def test_each_manslayers_rule_is_that_of_the_event_that_ended_him() -> None:
    run = simulate(load_scenario(EXILE))
    assert run.manslayers is not None
    events = run.events.astype({"kind": "str", "rule": "str", "citation": "str"})
    for incident, man in run.manslayers.set_index("incident").iterrows():
        ends = events[
            (events["incident"] == incident) & (events["kind"] == OUTCOME_EVENTS[man["outcome"]])
        ]
        assert not ends.empty, (incident, man["outcome"])
        assert (man["rule"], man["citation"]) == tuple(ends[["rule", "citation"]].iloc[-1])
    outcome = run.manslayers.set_index("incident")["outcome"]
    kind = events["kind"] == OUTCOME_EVENTS[outcome[0]]
    without = outcome_rules(outcome, run.events[~((events["incident"] == 0) & kind)])
    assert tuple(without.loc[0]) == ("", "")  # his ending event missing: no rule
    assert without.drop(index=0).equals(outcome_rules(outcome, run.events).drop(index=0))
    empty = outcome_rules(outcome, run.events.iloc[:0])
    assert (empty == "").all().all() and len(empty) == len(run.manslayers)


@pytest.mark.parametrize("byte_order", [1, 0])
def test_tracks_read_back_as_their_points_whatever_wkb_another_tool_wrote(
    tmp_path: Path, byte_order: int
) -> None:
    """Little-endian 2D points are read by numpy; big-endian ones (another tool's) and a null
    by shapely, never as bytes misread as numbers."""
    x, y = np.array([35.21, 35.5, 35.9]), np.array([31.77, 32.2, 33.1])
    wkb = list(shapely.to_wkb(shapely.points(x, y), byte_order=byte_order))
    path = tmp_path / "trajectories.parquet"
    pq.write_table(pa.table({"agent_id": ["a", "b", "c"], "geometry": wkb}), path)
    tracks = read_tracks(path)
    assert tracks["lon"].tolist() == x.tolist() and tracks["lat"].tolist() == y.tolist()
    pq.write_table(pa.table({"agent_id": ["a", "b"], "geometry": [wkb[0], None]}), path)
    assert read_tracks(path)["lon"].tolist()[0] == x[0]
    assert np.isnan(read_tracks(path)["lat"].tolist()[1])


@pytest.mark.parametrize("dtype", [str, object])
def test_codes_of_a_numpy_column_are_those_of_its_pandas_column(dtype: type) -> None:
    """Compared text by text (a forked child's flight and headlines, no pandas) or hashed (a
    table's column): the same index in the texts, -1 for another text or a missing one."""
    texts = ("kedesh", "shechem", "hebron")
    values = np.array(["hebron", "", "kedesh", "golan", "hebron", "shechem"], dtype=dtype)
    codes = codes_of(values, texts)
    np.testing.assert_array_equal(codes, [2, -1, 0, -1, 2, 1])
    np.testing.assert_array_equal(codes, codes_of(pd.Series(values), texts))
    if dtype is object:
        values[1] = None
        np.testing.assert_array_equal(codes_of(values, texts), codes)
        np.testing.assert_array_equal(codes_of(pd.Series(values), texts), codes)
