"""The engine's shortcuts change no result: the asylum predicate asked only where a fugitive
may have come into a zone, road positions interpolated without a search on edges of one
segment, ended incidents dropped from the working arrays, steps where no trajectory row can
fall not looked at for rows, a walker who keeps his edge and target walking on without choosing
his way again (`Heading`), the seconds walked by the previous step carried over, and the
walking skipped in a step in which nobody walks. Each run is compared with one that takes none
of these shortcuts."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from refuge_map.simulation import Scenario, load_scenario
from refuge_map.simulation._setup import build_world
from refuge_map.simulation._walk import compiled
from refuge_map.simulation.engine import NEVER, Flight, _Mover, _Pursuit, fly
from refuge_map.simulation.travel import DAY_S, walked_s

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
        world = dataclasses.replace(
            world,
            graph=dataclasses.replace(
                world.graph, _one_segment=np.zeros_like(world.graph._one_segment)
            ),
        )
    return fly(scenario, world)


def _clock_afresh(self: _Pursuit, t: float, t_prev: float) -> None:
    """`_Pursuit._clock` without the seconds carried over from the previous step."""
    since, walk_s = self.since, self.walk_s
    self.walking = np.where(
        walk_s >= DAY_S,
        np.clip(t - np.maximum(t_prev, since), 0.0, self.dt_s),
        walked_s(since, t, walk_s) - walked_s(since, t_prev, walk_s),
    )


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
    # ... chooses every walker's way afresh, walks in every step, and counts each step's
    # walking seconds from the two clock times
    monkeypatch.setattr(_Mover, "remembers", False)
    monkeypatch.setattr(_Pursuit, "skips_idle", False)
    monkeypatch.setattr(_Pursuit, "_clock", _clock_afresh)
    slow = flight(name, shortcuts=False)
    pd.testing.assert_frame_equal(fast.events, slow.events)
    pd.testing.assert_frame_equal(fast.outcomes, slow.outcomes)
    assert fast.tracks.keys() == slow.tracks.keys()
    for key, column in fast.tracks.items():
        np.testing.assert_array_equal(column, slow.tracks[key], err_msg=key)


def test_the_engine_hands_the_compiled_move_one_kind_of_argument() -> None:
    # `_Mover.move` passes its arguments to the compiled move unconverted: a caller that made
    # one of another dtype or layout (int32, a column view) would compile it afresh, unseen.
    # A flight that walks every way (road, `Ways` with no signposts, across country, off-road
    # legs, trees) with an avenger who looks where he saw him compiles it for one signature.

    scenario = Scenario.model_validate(
        {
            "name": "every-way",
            "seed": 3,
            "horizon_h": 6,
            "incidents": [
                {"place": "jerusalem"},
                {"place": [35.272114, 32.177345]},
                {
                    "place": [35.272114, 32.177345],
                    "tree": {"trunk": [35.279199, 32.203488], "bough": [35.279295, 32.203839]},
                },
            ],
            "network": {"signposts": False},
            "fugitive": {"knows_way_p": 0.0, "leave_road_p": 1.0},
            "avenger": {
                "knows": "sees_him",
                "sight_m": 3000,
                "delay_h": {"dist": "fixed", "value": 0.2},
            },
        }
    )
    flown = fly(scenario, build_world(scenario, scenario.seed))
    kinds = set(flown.events["kind"])
    assert {"leaves_road", "climbs_tree", "sees_avenger"} <= kinds
    assert len(compiled().move.signatures) == 1
