"""The engine's shortcuts change no result: the asylum predicate asked only where a fugitive
may have come into a zone, road positions interpolated without a search when every edge is one
segment, ended incidents dropped from the working arrays, and steps where no trajectory row can
fall not looked at for rows. Each run is compared with one that takes none of these shortcuts."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from refuge_map.simulation import Scenario, load_scenario
from refuge_map.simulation._setup import build_world
from refuge_map.simulation.engine import NEVER, Flight, _Pursuit, fly

SCENARIOS = Path(__file__).parents[1] / "data" / "scenarios"


GENERATED = {  # many agents starting anywhere on the land, some near or inside a zone
    "name": "generated",
    "generate": {"n": 400, "where": "uniform_land", "time_spread_h": 2.0},
    "horizon_h": 6.0,
}


#: Few incidents, rows every 7 steps: an agent's last rows fall at steps where nobody else
#: ends, so the steps skipped for rows (`_nobody_due`) are many.
SPARSE = GENERATED | {"generate": {"n": 6}, "output": {"record_every_steps": 7}}


def flight(name: str, *, shortcuts: bool) -> Flight:
    if name in ("generated", "sparse"):
        scenario = Scenario.model_validate(GENERATED if name == "generated" else SPARSE)
    else:
        scenario = load_scenario(SCENARIOS / f"{name}.yaml")
    world = build_world(scenario, scenario.seed)
    if not shortcuts:
        world = dataclasses.replace(world, graph=dataclasses.replace(world.graph, _straight=False))
    return fly(scenario, world)


@pytest.mark.parametrize(
    "name", ["default", "bough_at_boundary", "before_joshua", "intercept", "generated", "sparse"]
)
def test_shortcuts_change_nothing(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = flight(name, shortcuts=True)
    ask = _Pursuit._ask_asylum
    # the reference asks about every fugitive still running, at every step, keeps every
    # incident's row to the end, and looks for trajectory rows at every step
    monkeypatch.setattr(
        _Pursuit, "_ask_asylum", lambda self, rows: ask(self, rows | (self.f_end == NEVER))
    )
    monkeypatch.setattr(_Pursuit, "_compact", lambda self, step: None)
    monkeypatch.setattr(_Pursuit, "_nobody_due", lambda self, step, t_prev: False)
    slow = flight(name, shortcuts=False)
    pd.testing.assert_frame_equal(fast.events, slow.events)
    pd.testing.assert_frame_equal(fast.outcomes, slow.outcomes)
    assert fast.tracks.keys() == slow.tracks.keys()
    for key, column in fast.tracks.items():
        np.testing.assert_array_equal(column, slow.tracks[key], err_msg=key)
