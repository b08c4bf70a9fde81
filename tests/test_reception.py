"""Which city takes the manslayer in: the 48 and intent, a full city, a city with no elders."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from refuge_map.errors import RefugeError
from refuge_map.simulation import Run, Scenario, simulate
from refuge_map.simulation.exile.rules import room_in_city
from refuge_map.simulation.reception import Reception
from refuge_map.simulation.scenario_cities import CityConditions

NEAR_HEBRON = {"lon": 35.12, "lat": 31.54}  # 2 km from Hebron's site
NEAR_GEZER = {"lon": 34.95, "lat": 31.86}  # 3 km east of Gezer, a Levitical city (Josh 21:21)

#: Two killings by Hebron an hour apart; the avengers learn of them too late to catch anyone.
BASE: dict[str, Any] = {
    "name": "reception-test",
    "seed": 3,
    "dt_s": 120,
    "horizon_h": 48,
    "incidents": [
        {"place": NEAR_HEBRON, "time_h": 0},
        {"place": NEAR_HEBRON, "time_h": 1},
    ],
    "avenger": {"delay_h": {"dist": "fixed", "value": 700}},
}


def run_with(**sections: Any) -> Run:
    data = copy.deepcopy(BASE)
    data.update(sections)
    return simulate(Scenario.model_validate(data), 0)


def events_of(run: Run, incident: int) -> list[tuple[str, str]]:
    rows = run.events[(run.events["incident"] == incident) & (run.events["role"] == "fugitive")]
    return list(zip(rows["kind"], rows["city"], strict=True))


def test_a_full_city_turns_the_next_manslayer_away_and_he_goes_on() -> None:
    # Hebron has one inhabitant beside one manslayer: the first arrival makes them a majority
    run = run_with(cities={"by_city": {"hebron": {"population": 1, "resident_manslayers": 1}}})
    assert ("arrival", "hebron") in events_of(run, 0)
    second = events_of(run, 1)
    assert ("turned_away", "hebron") in second
    arrivals = [city for kind, city in second if kind == "arrival"]
    assert len(arrivals) == 1 and arrivals[0] not in ("hebron", "")
    turned = run.events[run.events["kind"] == "turned_away"].iloc[0]
    assert "majority" in turned["rule"] and "Makkot 10b" in turned["citation"]
    hebron = run.summary["cities"]["by_city"]["hebron"]
    assert hebron == {
        "population": 1.0,
        "residents_at_start": 1,
        "received": 1,
        "turned_away": 1,
        "residents_at_end": 2,
        "full": True,
        "receives": True,
    }
    assert run.summary["cities"]["turned_away"] == 1


def test_with_room_both_are_received() -> None:
    run = run_with(cities={"by_city": {"hebron": {"population": 2, "resident_manslayers": 1}}})
    assert "turned_away" not in set(run.events["kind"])
    assert run.summary["cities"]["by_city"]["hebron"]["received"] == 2


def test_a_city_with_no_elders_does_not_receive_under_rambam() -> None:
    conditions = {"by_city": {"hebron": {"elders": False}}}
    run = run_with(cities=conditions)
    turned = run.events[run.events["kind"] == "turned_away"]
    assert sorted(turned["incident"]) == [0, 1] and set(turned["city"]) == {"hebron"}
    assert set(turned["citation"]) == {"Makkot 10b; Rambam, Rotzeach 7:6"}
    assert run.opinions["cities"]["no_elders"].keys() == {"not_received"}
    received = run_with(cities={**conditions, "no_elders": "received"})
    assert "turned_away" not in set(received.events["kind"])
    assert received.summary["cities"]["by_city"]["hebron"]["received"] == 2


def test_majority_rule_counts_room() -> None:
    # population 3 beside the manslayers: it receives while they are no majority (m <= 3)
    assert room_in_city(np.array([0, 3, 4]), 3.0).tolist() == [4, 1, 0]
    reception = Reception.of(
        ("a", "b"),
        np.array(["refuge", "levitical"]),
        CityConditions(population=1, by_city={"b": {"elders": False}}),
    )
    received, rule, _ = reception.admit(np.array([0, 0, 0, 1]))
    assert received.tolist() == [True, True, False, False]
    assert rule[2].startswith("the majority") and rule[3].startswith("a city with no elders")
    assert reception.summary()["received_by_kind"] == {"levitical": 0, "refuge": 2}


def test_arrivals_at_cities_of_their_own_are_received_as_when_ranked_together() -> None:
    # `admit` counts a step whose arrivals are each at a city of his own without ranking
    # them; the same arrivals in one call (ranked by city) are received and refused alike
    def reception() -> Reception:
        return Reception.of(
            ("a", "b", "c"),
            np.array(["refuge", "refuge", "refuge"]),
            CityConditions(population=1, by_city={"b": {"elders": False}}),
        )

    together, apart = reception(), reception()
    ranked = together.admit(np.array([0, 1, 2, 0, 0]))
    steps = [apart.admit(np.array(cities)) for cities in ([0, 1, 2], [0], [0])]
    one_by_one = [np.concatenate([step[k] for step in steps]) for k in range(3)]
    assert ranked[0].tolist() == one_by_one[0].tolist() == [True, False, True, True, False]
    assert ranked[1].tolist() == one_by_one[1].tolist()
    assert ranked[2].tolist() == one_by_one[2].tolist()
    assert one_by_one[1][1].startswith("a city with no elders")
    assert one_by_one[1][4].startswith("the majority")
    assert together.summary() == apart.summary()
    assert apart.summary()["by_city"]["a"]["turned_away"] == 1


def test_an_unknown_city_in_by_city_names_the_field() -> None:
    with pytest.raises(ValueError, match="'jericho' is not a city of the network"):
        run_with(cities={"by_city": {"jericho": {"population": 10}}})
    with pytest.raises(ValueError, match="'gezer' is not a city"):  # not among the six
        run_with(cities={"by_city": {"gezer": {"elders": False}}})
    levitical = {"refuges": "levitical"}
    assert run_with(network=levitical, cities={"by_city": {"gezer": {"elders": False}}})
    with pytest.raises(RefugeError, match=r"cities\.by_city\.jericho"):
        Reception.of(("hebron",), np.array(["refuge"]), CityConditions(by_city={"jericho": {}}))


def _near_gezer(knows_law_p: float) -> Run:
    return run_with(
        network={"refuges": "levitical"},
        incidents=[{"place": NEAR_GEZER}],
        fugitive={"knows_law_p": knows_law_p},
    )


def test_one_who_knows_the_law_makes_for_the_nearest_levitical_city() -> None:
    run = _near_gezer(1.0)
    arrival = run.events[run.events["kind"] == "arrival"].iloc[0]
    assert arrival["city"] == "gezer"
    assert "intending refuge" in arrival["rule"] and "Makkot 10a" in arrival["citation"]
    assert run.summary["cities"]["received_by_kind"] == {"levitical": 1, "refuge": 0}
    assert run.opinions["refuges"].keys() == {"levitical"} and run.opinions["knows_law_p"] == 1.0


def test_one_who_does_not_know_it_makes_for_the_six() -> None:
    run = _near_gezer(0.0)
    arrival = run.events[run.events["kind"] == "arrival"].iloc[0]
    assert arrival["city"] in ("hebron", "shechem", "bezer")
    assert "Makkot 2:7" in arrival["citation"]
    assert run.summary["cities"]["received_by_kind"] == {"levitical": 0, "refuge": 1}


def test_a_city_to_come_receives_only_from_its_designation() -> None:
    six = ["bezer", "golan", "ramoth_gilead", "kedesh", "shechem", "hebron"]
    network = {
        "added_cities": [{"id": "lod", "name": "Lod", "lon": 34.9, "lat": 31.95}],
        "designation": [{"year": 0, "cities": six}, {"year": 100, "cities": ["lod"]}],
    }
    near_lod = [{"place": {"lon": 34.93, "lat": 31.96}, "year": 50}, {"place": "lod", "year": 120}]
    run = run_with(network=network, incidents=near_lod)
    arrivals = run.events[run.events["kind"] == "arrival"].set_index("incident")["city"]
    assert arrivals[1] == "lod" and arrivals[0] != "lod"
