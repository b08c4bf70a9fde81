"""Stacked runs: replications and sweep runs stepped as one flight give, run by run, exactly what
running them one by one gives (summaries, events, outcomes, tables and the files written)."""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml

from refuge_map.simulation import Run, Scenario, simulate
from refuge_map.simulation import reception as reception_module
from refuge_map.simulation._setup import build_world
from refuge_map.simulation.engine import flight_options, run_flight
from refuge_map.simulation.io import write_run
from refuge_map.simulation.model import after_flight, replicate
from refuge_map.simulation.replications import across, headline, replication_seeds
from refuge_map.simulation.stack import chunks, fly_stacked, split_flight, stack_worlds

SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"


def shipped(name: str, **changes: Any) -> dict[str, Any]:
    data = yaml.safe_load((SCENARIOS / f"{name}.yaml").read_text(encoding="utf-8"))
    for path, value in changes.items():
        *parents, last = path.split(".")
        node = data
        for key in parents:
            node = node.setdefault(key, {})
        node[last] = value
    return data


#: The default scenario cut small (its exile included), four replications.
DEFAULT_SMALL = shipped("default", **{"generate.n": 24, "horizon_h": 48, "replications": 4})
#: The 48 with little room in the six: later arrivals are turned away (Makkot 10b); the flight
#: alone (the exile is the default's).
CROWDED = shipped(
    "levitical",
    **{
        "generate.n": 40,
        "horizon_h": 24,
        "replications": 3,
        "cities.population": 3,
        "cities.resident_manslayers": 2,
        "exile": None,
    },
)
#: Trees at Shechem's boundary (Mishnah Makkot 2:7) with escorts who may persuade the avenger.
TREES_ESCORTED = shipped(
    "bough_at_boundary",
    **{"escorts.enabled": True, "escorts.persuade_p": 0.7, "replications": 3},
)
CASES = {"default_small": DEFAULT_SMALL, "crowded": CROWDED, "trees_escorted": TREES_ESCORTED}


@functools.cache
def runs_of(case: str, how: str) -> list[Run]:
    """A case's replications ``alone`` or ``stacked`` (once per test process)."""
    scenario = Scenario.model_validate(CASES[case])
    return one_by_one(scenario) if how == "alone" else stacked(scenario)


def one_by_one(scenario: Scenario) -> list[Run]:
    """Every replication run alone (`simulate`), each recorded."""
    return [simulate(scenario, seed) for seed in replication_seeds(scenario)]


def stacked(scenario: Scenario) -> list[Run]:
    """Every replication from one stacked flight."""
    seeds = replication_seeds(scenario)
    worlds = [build_world(scenario, seed) for seed in seeds]
    flights = fly_stacked(scenario, worlds)
    return [after_flight(scenario, s, f) for s, f in zip(seeds, flights, strict=True)]


def files(run: Run, out: Path) -> dict[str, bytes]:
    write_run(run, out)
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}


def assert_same_run(a: Run, b: Run, tmp: Path) -> None:
    assert json.dumps(a.summary, sort_keys=True) == json.dumps(b.summary, sort_keys=True)
    pd.testing.assert_frame_equal(a.events, b.events)
    pd.testing.assert_frame_equal(a.trajectories, b.trajectories)
    for table in ("manslayers", "ledger", "priests", "residence"):
        left, right = getattr(a, table), getattr(b, table)
        assert (left is None) == (right is None)
        if left is not None:
            pd.testing.assert_frame_equal(left, right)
    assert files(a, tmp / "a") == files(b, tmp / "b")


@pytest.mark.parametrize("case", sorted(CASES))
def test_stacked_runs_are_byte_identical_to_runs_one_by_one(case: str, tmp_path: Path) -> None:
    alone, together = runs_of(case, "alone"), runs_of(case, "stacked")
    assert len(together) == CASES[case]["replications"]
    for r, (a, b) in enumerate(zip(alone, together, strict=True)):
        assert a.seed == b.seed and a.run_id == b.run_id
        incidents = b.events["incident"]  # a priest's events are of no incident (-1)
        assert incidents[incidents >= 0].min() == 0  # incident numbers restart in each run
        assert_same_run(a, b, tmp_path / str(r))


def test_the_scenarios_exercise_what_stacking_must_keep_apart() -> None:
    crowded = runs_of("crowded", "stacked")
    assert all(run.summary["cities"]["turned_away"] > 0 for run in crowded)
    trees = runs_of("trees_escorted", "stacked")
    kinds = set().union(*(set(run.events["kind"]) for run in trees))
    assert {"climbs_tree", "deterred", "capture"} <= kinds
    assert all("trees" in run.summary for run in trees)


def test_a_shared_reception_would_be_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """With one count of the cities for all runs (not each run's), the runs differ from the
    runs one by one: the comparison above would fail."""
    scenario = Scenario.model_validate(CROWDED)
    alone = runs_of("crowded", "alone")
    original = reception_module.Reception.of.__func__  # type: ignore[attr-defined]

    def shared(cls: Any, city_ids: Any, kinds: Any, conditions: Any, *, runs: int = 1) -> Any:
        one = original(cls, city_ids, kinds, conditions)
        k = len(city_ids)

        def admit(slot: np.ndarray) -> Any:
            return type(one).admit(one, slot % k)

        def split() -> list[Any]:
            return [one] * runs

        object.__setattr__(one, "admit", admit)
        object.__setattr__(one, "split", split)
        return one

    monkeypatch.setattr(reception_module.Reception, "of", classmethod(shared))
    together = stacked(scenario)
    differ = [
        json.dumps(a.summary["cities"]) != json.dumps(b.summary["cities"])
        for a, b in zip(alone, together, strict=True)
    ]
    assert any(differ)


def test_replicate_gives_the_table_of_runs_one_by_one(tmp_path: Path) -> None:
    scenario = Scenario.model_validate(DEFAULT_SMALL)
    seeds = replication_seeds(scenario)
    first = simulate(scenario, seeds[0])
    rows = [headline(first)] + [headline(simulate(scenario, s, record=False)) for s in seeds[1:]]
    table = pd.DataFrame(rows)
    table.insert(0, "seed", seeds)
    run = replicate(scenario)
    assert run.replications is not None
    pd.testing.assert_frame_equal(run.replications, table)
    assert run.summary["replications"] == json.loads(json.dumps(across(table)))
    assert run.summary["replications"]["n"] == 4
    pd.testing.assert_frame_equal(run.trajectories, first.trajectories)


def test_worlds_that_differ_in_a_run_setting_are_not_stacked() -> None:
    tiny = shipped("tiny")
    one = build_world(Scenario.model_validate(tiny), 1)
    other = build_world(
        Scenario.model_validate(copy.deepcopy(tiny) | {"fugitive": {"walk_h_per_day": 10}}), 1
    )
    with pytest.raises(ValueError, match="fugitive_walk_s"):
        stack_worlds([one, other])
    both = stack_worlds([one, one])
    assert both.n == 2 * one.n and both.run.tolist() == [0] * one.n + [1] * one.n


def test_chunks_keep_order_and_the_limit() -> None:
    assert chunks([3, 3, 3, 3], limit=7) == [[0, 1], [2, 3]]
    assert chunks([10, 2, 2], limit=5) == [[0], [1, 2]]


@pytest.mark.parametrize("case", ["default_small", "trees_escorted"])
def test_a_run_not_logged_keeps_no_event_and_flies_the_same(case: str) -> None:
    """The runs whose events nobody reads (`fly_stacked(logged=...)`: a replication's headline)
    keep none, in an events table of the same columns and dtypes (text categorical); the
    logged run's events, and every run's outcomes, tracks and receptions, are those of the
    fully logged stack."""
    scenario = Scenario.model_validate(CASES[case])
    worlds = [build_world(scenario, seed) for seed in replication_seeds(scenario)]
    every = fly_stacked(scenario, worlds)
    logged = [True] + [False] * (len(worlds) - 1)
    some = fly_stacked(scenario, worlds, logged=logged)
    assert len(every[0].events) > 0
    pd.testing.assert_frame_equal(some[0].events, every[0].events)
    for full, lean in zip(every, some, strict=True):
        pd.testing.assert_frame_equal(lean.outcomes, full.outcomes)
        assert lean.tracks.keys() == full.tracks.keys()
        for name, column in full.tracks.items():
            np.testing.assert_array_equal(lean.tracks[name], column)
        for name, value in vars(full.reception).items():
            np.testing.assert_array_equal(getattr(lean.reception, name), value)
    for full, lean in zip(every[1:], some[1:], strict=True):
        assert len(full.events) > 0 and len(lean.events) == 0
        assert list(lean.events.columns) == list(full.events.columns)
        assert [d.name for d in lean.events.dtypes] == [d.name for d in full.events.dtypes]


def test_a_stacks_events_read_before_it_is_split_are_each_runs_still() -> None:
    """Reading a stacked flight's events makes their table and empties its log
    (`Flight.events`): split after, each run has its own events, as split unread."""
    scenario = Scenario.model_validate(CASES["default_small"])
    worlds = [build_world(scenario, seed) for seed in replication_seeds(scenario)]
    stacked = stack_worlds(worlds)
    unread = split_flight(run_flight(stacked, **flight_options(scenario)), worlds)
    read = run_flight(stacked, **flight_options(scenario))
    assert len(read.events) == sum(len(f.events) for f in unread) > 0
    for before, after in zip(unread, split_flight(read, worlds), strict=True):
        assert len(before.events) > 0
        pd.testing.assert_frame_equal(after.events, before.events)
