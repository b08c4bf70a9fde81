"""Simulation II: each path of the exile's life forced on a tiny scenario, results, bad input."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from refuge_map.simulation import Run, Scenario, load_scenario, simulate, write_run
from refuge_map.simulation.events import EXILE_KINDS
from refuge_map.simulation.events import EXILE_OUTCOMES as OUTCOMES
from refuge_map.simulation.priesthood import YEAR_S
from refuge_map.simulation.scenario_exile import LAST_CLOCK_TIME
from refuge_map.sweep.spec import apply_axes

SCENARIOS = Path(__file__).parents[1] / "data" / "scenarios"

#: Three killings near Jerusalem; the avenger learns of them too late to catch anyone, nobody
#: attacks on the trial leg, the trial is ten days after arrival, priests live for decades.
BASE: dict[str, Any] = {
    "name": "exile-test",
    "seed": 7,
    "dt_s": 120,
    "horizon_h": 24,
    "incidents": [{"place": "jerusalem", "kin_home": "bethlehem"}] * 3,
    "avenger": {"delay_h": {"dist": "fixed", "value": 700}},
    "exile": {
        "cases": [{"file": "002_lowering_cask"}],
        "trial": {"days_until_trial": [10, 10], "strike_per_100km": 0},
        "priesthood": {"first_term_years": 5.0},
        "age_years": [20, 20],
        "horizon_years": 20,
    },
}


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    merged = copy.deepcopy(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def run_with(seed: int = 7, **exile: Any) -> Run:
    """Simulate `BASE` with its exile section overridden by `exile`."""
    return simulate(Scenario.model_validate(_merge(BASE, {"exile": exile})), seed)


def kinds(run: Run) -> set[str]:
    return set(run.events["kind"])


def test_without_an_exile_section_the_run_ends_with_the_flight() -> None:
    scenario = Scenario.model_validate({k: v for k, v in BASE.items() if k != "exile"})
    run = simulate(scenario)
    assert run.manslayers is None and run.ledger is None
    assert not kinds(run) & (set(EXILE_KINDS) - {"deterred"})
    assert "exile" not in run.summary


def test_exile_verdict_returns_him_to_his_city_until_the_high_priest_dies() -> None:
    run = run_with()
    men = run.manslayers
    assert (men["verdict"] == "exile").all() and (men["outcome"] == "released").all()
    assert {"trial_start", "verdict", "returned_to_city", "released"} <= kinds(run)
    assert np.allclose(men["end_y"], 5.0)  # Numbers 35:25: at the death of the high priest
    assert np.allclose(men["years_in_exile"], 5.0 - men["entered_y"])
    back = run.events[run.events["kind"] == "returned_to_city"]
    assert (back["city"] == men["fled_to"].to_numpy()).all()  # to where he had fled
    assert run.summary["exile"]["outcomes"]["released"] == 3


def test_capital_verdict_executes_him() -> None:
    run = run_with(cases=[{"file": "032_struck_with_iron"}])
    assert (run.manslayers["outcome"] == "executed").all()
    executed = run.events[run.events["kind"] == "executed"]
    assert len(executed) == 3 and executed["citation"].str.contains("Numbers 35:16").all()


def test_no_exile_verdict_sends_him_home() -> None:
    run = run_with(cases=[{"file": "004_pulling_up_roller"}])
    assert (run.manslayers["outcome"] == "sent_home").all()
    assert "returned_to_city" not in kinds(run)


def test_enemy_sent_home_says_what_the_avenger_may_do() -> None:
    run = run_with(cases=[{"file": "026_enemy"}])
    home = run.events[run.events["kind"] == "sent_home"]
    assert home["rule"].str.contains("not liable").all()


def test_verdict_with_no_high_priest_in_office_is_exile_for_life() -> None:
    # the high priest dies within hours; no successor for 1000 days: the verdict falls between
    run = run_with(priesthood={"first_term_years": 0.001, "vacancy_days": [1000, 1000]})
    men = run.manslayers
    assert men["life_exile"].all()
    assert (men["life_reason"] == "no_high_priest_at_verdict").all()
    assert set(men["outcome"]) <= {"died_in_exile", "in_exile_at_horizon"}
    assert run.summary["exile"]["life_exiles"]["no_high_priest_at_verdict"] == 3


@pytest.mark.parametrize(
    ("case", "reason"),
    [
        ("030_kills_high_priest", "killed_high_priest"),
        ("031_high_priest_kills", "high_priest_killed"),
    ],
)
def test_killing_a_high_priest_or_by_one_is_exile_for_life(case: str, reason: str) -> None:
    run = run_with(cases=[{"file": case}])
    men = run.manslayers
    assert (men["life_reason"] == reason).all() and "released" not in set(men["outcome"])


def test_high_priest_dies_after_the_verdict_he_is_not_exiled() -> None:
    # Mishnah Makkot 2:6: verdict on day ~10, the high priest dies on day 20, before the
    # assembly brings him back (day 40)
    run = run_with(
        trial={"return_delay_days": [30, 30]}, priesthood={"first_term_years": 20 / 365.25}
    )
    assert (run.manslayers["outcome"] == "spared").all()
    home = run.events[run.events["kind"] == "sent_home"]
    assert home["rule"].str.contains("died after the verdict").all()
    assert "returned_to_city" not in kinds(run)


def test_high_priest_dies_before_the_verdict_his_successor_releases() -> None:
    run = run_with(priesthood={"first_term_years": 0.001, "vacancy_days": [0, 0]})
    successor = run.priests[run.priests["office"] == "high_priest"].iloc[1]
    released = run.manslayers[run.manslayers["outcome"] == "released"]
    assert np.allclose(released["end_y"], successor["died_y"])
    assert not run.manslayers["life_exile"].any()


def test_attack_on_the_trial_road_kills_or_is_turned_back_by_the_escorts() -> None:
    killed = run_with(trial={"strike_per_100km": 100, "persuade_p": 0.0})
    assert (killed.manslayers["outcome"] == "killed_on_trial_road").all()
    turned = run_with(trial={"strike_per_100km": 100, "persuade_p": 1.0})
    assert (turned.manslayers["deterred_on_trial_road"] >= 1).all()
    assert (turned.manslayers["outcome"] == "released").all()
    deterred = turned.events[turned.events["kind"] == "deterred"]
    assert (deterred["role"] == "avenger").all()


def test_outside_the_boundary_r_yose_the_galilean_the_avenger_must_kill() -> None:
    run = run_with(
        boundary={"leave_per_year": 0.9, "opinion": "yose_hagelili", "avenger_finds_p": 1.0}
    )
    assert (run.manslayers["outcome"] == "killed_outside_boundary").all()
    killed = run.events[run.events["kind"] == "killed_outside_boundary"]
    assert killed["rule"].str.contains("Yose the Galilean").all()
    assert run.opinions["exile"]["outside_boundary"].keys() == {"yose_hagelili"}


def test_outside_the_boundary_r_akiva_the_avenger_may_refrain() -> None:
    run = run_with(
        boundary={"leave_per_year": 0.9, "opinion": "akiva", "avenger_finds_p": 1.0,
                  "option_taken_p": 0.0}
    )  # fmt: skip
    assert (run.manslayers["went_out"] > 0).all()
    assert "killed_outside_boundary" not in set(run.manslayers["outcome"])
    assert "returned_inside" in kinds(run)


def test_the_bough_rule_decides_at_the_edge() -> None:
    run = run_with(
        boundary={"leave_per_year": 0.9, "opinion": "akiva", "tree_share": 1.0,
                  "option_taken_p": 0.0}
    )  # fmt: skip
    trees = run.events[run.events["kind"].isin(["in_boundary_tree", "left_boundary"])]
    assert set(trees["kind"]) == {"in_boundary_tree", "left_boundary"}
    assert trees["rule"].str.contains("boughs").all()


def test_killing_again_inside_moves_him_to_another_neighbourhood() -> None:
    run = run_with(kill_again_per_year=0.9)
    assert (run.manslayers["killed_again"] > 0).all()
    assert "moved_neighbourhood" in kinds(run) and "moved_city" not in kinds(run)
    assert (run.manslayers["city"] == run.manslayers["fled_to"]).all()


def test_a_levite_who_kills_again_moves_to_another_city_and_pays_rent_under_r_judah() -> None:
    run = run_with(kill_again_per_year=0.9, levite_share=1.0, rent="judah")
    assert "moved_city" in kinds(run) and "moved_neighbourhood" not in kinds(run)
    moved = run.manslayers["killed_again"] > 0
    assert moved.all()
    ledger = run.ledger
    assert (ledger.groupby("incident")["city"].nunique() >= 2).all()
    assert np.allclose(ledger["rent"], ledger["years"])  # one unit a year
    assert "rent_paid" in kinds(run)


def test_no_rent_under_r_meir() -> None:
    run = run_with(rent="meir")
    assert run.ledger.empty and "rent_paid" not in kinds(run)


@pytest.mark.parametrize(("office", "restored"), [("meir", True), ("judah", False)])
def test_return_to_former_office(office: str, restored: bool) -> None:
    run = run_with(office_share=1.0, office=office)
    released = run.manslayers["outcome"] == "released"
    assert released.all()
    assert (run.manslayers["office_restored"] == restored).all()
    rule = run.events.loc[run.events["kind"] == "released", "rule"]
    assert rule.str.contains("R. Meir" if restored else "R. Judah").all()


def test_died_in_exile_and_horizon() -> None:
    old = run_with(age_years=[95, 95], priesthood={"first_term_years": 300.0}, horizon_years=100)
    assert (old.manslayers["outcome"] == "died_in_exile").all()
    short = run_with(horizon_years=1)
    assert (short.manslayers["outcome"] == "in_exile_at_horizon").all()


def test_one_clock_events_tracks_and_citations() -> None:
    run = run_with(kill_again_per_year=0.5, boundary={"leave_per_year": 0.3})
    events = run.events
    assert events["elapsed_s"].is_monotonic_increasing
    assert (events["rule"] != "").all() and (events["citation"] != "").all()
    released = events[events["kind"] == "released"]
    assert np.allclose(released["elapsed_s"] / YEAR_S, 5.0)
    tracks = run.trajectories
    assert not tracks.duplicated(["agent_id", "t"]).any()
    assert tracks["elapsed_s"].max() <= run.scenario.horizon_h * 3600.0  # the flight alone
    residence = run.residence  # the years in the city have their own table
    assert residence["years_since_killing"].max() >= 4.9
    assert {"returned_to_city", "left_boundary", "released"} <= set(residence["kind"])
    assert (residence.groupby("incident")["years_since_killing"].diff().dropna() >= 0).all()
    released = run.manslayers[run.manslayers["outcome"] == "released"]
    assert released["citation"].str.contains("Numbers 35:25").all()  # each outcome cites
    priests = events[events["kind"] == "high_priest_died"]
    assert (priests["incident"] == -1).all() and (priests["agent_id"] == "high_priest").all()
    assert set(run.summary["exile"]["outcomes"]) == set(OUTCOMES)


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    extra = {"kill_again_per_year": 0.3, "boundary": {"leave_per_year": 0.3}, "rent": "judah"}
    for name in ("a", "b"):
        write_run(run_with(**extra), tmp_path / name)
    for path in sorted((tmp_path / "a").iterdir()):
        assert path.read_bytes() == (tmp_path / "b" / path.name).read_bytes(), path.name
    other = run_with(seed=8, **extra)
    assert not other.events.equals(run_with(**extra).events)


def test_an_opinion_changes_only_what_it_governs() -> None:
    # separate streams: the war priest (R. Judah) leaves the high priests as they were
    plain = run_with(priesthood={"first_term_years": None})
    judah = run_with(priesthood={"first_term_years": None, "war_priest": "judah"})
    high = judah.priests[judah.priests["office"] == "high_priest"].reset_index(drop=True)
    assert high.drop(columns="run_id").equals(plain.priests.drop(columns="run_id"))
    assert (judah.manslayers["end_y"] <= plain.manslayers["end_y"] + 1e-9).all()


BAD = {
    "unknown_opinion": ({"boundary": {"opinion": "yose"}}, "exile.boundary.opinion", "yose"),
    "unknown_case": ({"cases": [{"file": "999_nothing"}]}, "exile.cases.0", "no shipped case"),
    "both_sources": (
        {"cases": [{"file": "002_lowering_cask", "facts": {"act": "lowering_cask"}}]},
        "exile.cases.0",
        "either",
    ),
    "reversed_span": ({"trial": {"days_until_trial": [60, 7]}}, "exile.trial", "[60.0, 7.0]"),
    "certain_yearly": ({"kill_again_per_year": 1.0}, "exile.kill_again_per_year", "1.0"),
    "law_sage": ({"law": {"blind": "akiva"}}, "exile.law.blind", "akiva"),
    "unknown_field": ({"rentt": "judah"}, "exile.rentt", "judah"),
    "past_the_clock": ({"horizon_years": 400}, "exile", "2262"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_is_one_line_with_exit_2(
    name: str, tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    extra, field, shown = BAD[name]
    data = _merge(BASE, {"exile": extra})
    if name == "past_the_clock":
        data["start"] = "2200-01-01T00:00:00"
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    result = run_cli("run", path, "--out", tmp_path / "out")
    assert result.code == 2
    line = result.err.strip()
    assert "\n" not in line and str(path) in line and field in line and shown in line
    assert not (tmp_path / "out").exists()


def test_the_clocks_last_time_is_pandas_last_timestamp() -> None:
    """The scenario's check (`check_calendar`) knows it without importing pandas; the tables
    then hold every time of a scenario it lets through."""
    import pandas as pd

    assert pd.Timestamp.max.to_pydatetime(warn=False) == LAST_CLOCK_TIME
    assert pd.Timestamp(LAST_CLOCK_TIME) <= pd.Timestamp.max


def test_teaching_scenario_exercises_every_path() -> None:
    run = simulate(load_scenario(SCENARIOS / "priest_dies_early.yaml"))
    exile = run.summary["exile"]
    missing = {kind for kind, n in exile["outcomes"].items() if n == 0}
    assert missing <= {"flight_unfinished"}  # a flight path: its 48 h end every flight
    # the high priest killed or killing: tests/test_exile_mechanisms.py
    assert exile["life_exiles"]["no_high_priest_at_verdict"] > 0, exile["life_exiles"]
    assert set(EXILE_KINDS) <= kinds(run)
    assert exile["rent"]["stays"] > 0


def test_teaching_scenario_runs_under_the_other_opinions() -> None:
    run = simulate(load_scenario(SCENARIOS / "exile_whole_life.yaml"))
    opinions = run.opinions["exile"]
    assert opinions["outside_boundary"].keys() == {"yose_hagelili"}
    assert opinions["war_priest"].keys() == {"judah"}
    assert (opinions["office"].keys(), opinions["rent"].keys()) == ({"meir"}, {"judah"})
    assert len(run.manslayers) == 6 and (run.manslayers["verdict"] != "").sum() >= 4


def test_a_students_teacher_goes_into_exile_with_him() -> None:
    run = run_with(student_share=1.0)
    entered = run.events[run.events["kind"] == "returned_to_city"]
    teachers = run.events[run.events["kind"] == "teacher_exiled"]
    assert len(teachers) == len(entered) > 0
    assert sorted(teachers["incident"]) == sorted(entered["incident"])
    assert set(teachers["citation"]) == {"Makkot 10a; Rambam, Rotzeach 7:1"}
    assert run.manslayers["student"].all()
    assert "teacher_exiled" not in kinds(run_with())


def test_the_manslayers_in_each_city_are_counted_over_the_years() -> None:
    run = run_with()
    table = run.manslayers
    city = table["city"].iloc[0]
    counts = run.summary["exile"]["residents_by_year"][city]
    there = table[table["city"] == city]
    for year in ("1", "5", "10"):
        living = (there["entered_y"] <= float(year)) & (there["end_y"] > float(year))
        assert counts[year] == int(living.sum())
    assert counts["1"] == 3  # the three of BASE entered in the first weeks and are still there


def test_rent_is_paid_in_the_42_whatever_the_six_follow() -> None:
    from refuge_map.simulation.exile.rules import pays_rent
    from refuge_map.simulation.scenario_exile import ExileOptions

    levitical = np.array([True, False])
    for rent, expected in (("meir", [True, False]), ("judah", [True, True])):
        options = ExileOptions.model_validate(
            {"cases": [{"file": "002_lowering_cask"}], "rent": rent}
        )
        assert pays_rent(options, levitical).tolist() == expected


def test_the_exiles_by_city_are_by_the_city_each_ran_for_and_add_up() -> None:
    """`fled_to` is the city he ran for (as the flight's "ran for"), also for those the
    avenger caught on the way: each outcome's count by city adds up to its count in all (the
    exile table's columns to its "all"), and each city's caught are its flight's captures."""
    default = load_scenario(SCENARIOS / "default.yaml").model_dump(mode="json")
    crowd = apply_axes(default, {"replications": 1, "generate.n": 120})
    run = simulate(Scenario.model_validate(crowd))
    exile, flight = run.summary["exile"], run.summary["by_city"]
    assert exile["outcomes"]["caught_in_flight"] > 0
    for outcome in OUTCOMES:
        by_city = sum(counts[outcome] for counts in exile["by_city"].values())
        assert by_city == exile["outcomes"][outcome], outcome
    assert set(exile["by_city"]) == set(flight)
    for city, counts in exile["by_city"].items():
        assert counts["caught_in_flight"] == flight[city]["outcomes"]["capture"], city
        assert sum(counts.values()) == flight[city]["incidents"], city
    assert (run.manslayers["fled_to"] != "").all()
