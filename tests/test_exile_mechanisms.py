"""The avenger and the high priest across the phases: no killing where the refuge protects, the
same avenger on the trial road, the high priest's term ended by a killing (Mishnah Makkot 2:7)."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geo import to_metric
from refuge_map.simulation import Scenario, simulate
from refuge_map.simulation._setup import scenario_network
from refuge_map.simulation.priesthood import YEAR_S

#: Forty killings along the roads, an avenger close behind, escorts who persuade some, and an
#: avenger who strikes often on the trial road: many killings to check.
VIOLENT: dict[str, Any] = {
    "name": "violent",
    "dt_s": 120,
    "horizon_h": 72,
    "generate": {"n": 40, "home_distance_km": {"dist": "uniform", "low": 0, "high": 3}},
    "avenger": {"delay_h": {"dist": "fixed", "value": 0.1}, "give_up_per_day": 0.0},
    "escorts": {"enabled": True, "persuade_p": 0.3},
    "exile": {
        "cases": [{"file": "002_lowering_cask"}],
        "trial": {"days_until_trial": [1, 3], "strike_per_100km": 30, "persuade_p": 0.0},
        "horizon_years": 1,
    },
}


def _protecting(run: Any, kind: str) -> np.ndarray:
    """The city protecting each event of `kind` where it happened (-1: none)."""
    events = run.events[run.events["kind"] == kind]
    x, y = to_metric(events["lon"].to_numpy(), events["lat"].to_numpy())
    network = scenario_network(run.scenario)
    return network.city_xy(np.asarray(x), np.asarray(y), t=run.scenario.year)[0]


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_no_capture_or_trial_road_killing_inside_asylum(seed: int) -> None:
    run = simulate(Scenario.model_validate(VIOLENT), seed)
    for kind in ("capture", "killed_on_trial_road"):
        assert (_protecting(run, kind) == -1).all(), kind


def test_the_trial_road_avenger_is_the_flights_and_a_persuaded_one_does_not_strike() -> None:
    run = simulate(Scenario.model_validate(VIOLENT), 3)
    events = run.events
    struck = set(events.loc[events["kind"] == "killed_on_trial_road", "incident"])
    persuaded_in_flight = set(events.loc[(events["kind"] == "deterred"), "incident"])
    assert struck  # the rate is high: some are killed on the trial road
    assert persuaded_in_flight  # and some avengers were persuaded in flight
    assert not struck & persuaded_in_flight


def _high_priest_case(case: str) -> Scenario:
    return Scenario.model_validate(
        {
            "name": "high-priest",
            "dt_s": 120,
            "horizon_h": 24,
            "incidents": [
                {"place": "jerusalem", "kin_home": "bethlehem", "time_h": 5.0},
                {"place": "jerusalem", "kin_home": "bethlehem", "time_h": 9.0},
            ],
            "avenger": {"delay_h": {"dist": "fixed", "value": 700}},
            "exile": {"cases": [{"file": case}], "horizon_years": 5},
        }
    )


def test_the_high_priest_killed_at_t_ends_his_term_at_t() -> None:
    run = simulate(_high_priest_case("030_kills_high_priest"), 1)
    priests = run.priests
    assert set(run.manslayers["life_reason"]) == {"killed_high_priest"}
    first, second = priests.iloc[0], priests.iloc[1]
    assert first["term_end"] == "killed"
    assert first["incident"] == 0
    assert first["term_end_y"] * YEAR_S == 5.0 * 3600.0
    assert first["died_y"] == first["term_end_y"]
    assert second["appointed_y"] > first["term_end_y"]  # after a vacancy, not the second killing
    assert (priests["incident"] == 1).sum() == 0  # at 9 h no high priest is in office


def test_the_high_priest_who_kills_leaves_office_then_and_lives_on() -> None:
    run = simulate(_high_priest_case("031_high_priest_kills"), 1)
    first = run.priests.iloc[0]
    assert set(run.manslayers["life_reason"]) == {"high_priest_killed"}
    assert first["term_end"] == "killed_in_error"
    assert first["term_end_y"] * YEAR_S == 5.0 * 3600.0
    assert first["died_y"] > first["term_end_y"]


def _plea_run(plead: str) -> Any:
    scenario = _merge_plea(plead)
    return simulate(Scenario.model_validate(scenario), 2)


def _merge_plea(plead: str) -> dict[str, Any]:
    """Avengers close behind, no escorts; R. Meir's plea always persuades when he may plead."""
    return {
        **VIOLENT,
        "escorts": {"enabled": False, "plead_p": 1.0},
        "exile": {**VIOLENT["exile"], "law": {"plead": plead}},
    }


def test_under_r_meir_his_own_plea_turns_the_avenger_back() -> None:
    meir, first_tanna = _plea_run("meir"), _plea_run("first_tanna")
    deterred = meir.events[meir.events["kind"] == "deterred"]
    assert len(deterred) > 0
    assert deterred["citation"].str.contains("Mishnah Makkot 2:5").all()
    assert deterred["rule"].str.contains("R. Meir").all()
    assert (meir.events["kind"] == "capture").sum() == 0  # every avenger who reached him
    assert (first_tanna.events["kind"] == "capture").sum() > 0  # no escorts, no plea
    assert (first_tanna.events["kind"] == "deterred").sum() == 0
