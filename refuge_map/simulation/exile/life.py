"""The exile phase from start to end: trial, the years in the city, release, for every
manslayer; and what it adds to a run (`ExileLife`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from refuge_map.law import judge
from refuge_map.simulation.events import EVENT_FIELDS, EXILE_KINDS, EventLog
from refuge_map.simulation.exile.city import LEDGER, City
from refuge_map.simulation.exile.people import Manslayers
from refuge_map.simulation.exile.release import priest_deaths, succession_of
from refuge_map.simulation.exile.rules import holds, places_of_exile
from refuge_map.simulation.exile.trial import trial
from refuge_map.simulation.priesthood import YEAR_S
from refuge_map.simulation.scenario_exile import ExileOptions
from refuge_map.simulation.seeds import streams

if TYPE_CHECKING:
    from refuge_map.simulation.engine import Flight

#: Spawn key of the exile's seed stream, far from the flight's streams (`_setup.STREAMS`).
EXILE_STREAM = 100
STREAMS = ("cases", "people", "trial", "high_priests", "war_priests", "city")


@dataclass(frozen=True)
class ExileLife:
    """What Simulation II adds to a run.

    Attributes
    ----------
    events
        The flight's event columns (incident, role, kind, ``t_s``, step, metric x/y, city, rule,
        citation); priests' deaths have incident -1.
    tracks
        The fugitive's position at each of his events: incident, role code 0, step, x, y, city
        index (-1 outside asylum), captured.
    manslayers
        One row per incident: ``outcome`` (`EXILE_OUTCOMES`), case, verdict, city, life exile
        and why, years in exile, Levite, office, moves and goings-out.
    ledger
        Rent paid to the Levites (Mishnah Makkot 2:8), one row per stay in a city; empty under
        R. Meir.
    priests
        The succession (`Succession.priests`).
    opinions
        The exile's opinions (law, boundary, war priest, office, rent, bough).
    """

    events: pd.DataFrame
    tracks: dict[str, NDArray[Any]]
    manslayers: pd.DataFrame
    ledger: pd.DataFrame
    priests: pd.DataFrame
    opinions: dict[str, Any]


def _tracks(events: pd.DataFrame, city_ids: tuple[str, ...]) -> dict[str, NDArray[Any]]:
    """The fugitive's position at each of his events; one row per step (the last event)."""
    mine = events[events["role"] == "fugitive"].drop_duplicates(["incident", "step"], keep="last")
    city = pd.Index(city_ids).get_indexer(mine["city"])
    return {
        "incident": mine["incident"].to_numpy(np.int64),
        "role": np.zeros(len(mine), np.int64),
        "step": mine["step"].to_numpy(np.int64),
        "x": mine["x"].to_numpy(float),
        "y": mine["y"].to_numpy(float),
        "city": np.where(mine["inside"].to_numpy(bool), city, -1),
        "captured": mine["captured"].to_numpy(bool),
    }


def exile_opinions(options: ExileOptions, bough_opinion: str) -> dict[str, Any]:
    """Every opinion the exile phase follows, with what each holds."""
    boundary, priesthood = options.boundary, options.priesthood
    return {
        "law": options.law.model_dump(),
        "outside_boundary": {boundary.opinion: holds("exile.boundary.opinion", boundary.opinion)},
        "war_priest": {
            priesthood.war_priest: holds("exile.priesthood.war_priest", priesthood.war_priest)
        },
        "office": {options.office: holds("exile.office", options.office)},
        "rent": {options.rent: holds("exile.rent", options.rent)},
        "bough": {bough_opinion: holds("network.bough_opinion", bough_opinion)},
        "mortality": {
            "model": "gompertz",
            "alpha_per_year": priesthood.alpha_per_year,
            "beta_per_year": priesthood.beta_per_year,
            "base_age_years": priesthood.base_age_years,
        },
        "year_s": YEAR_S,
    }


def live_in_exile(flight: Flight, options: ExileOptions, seed: int) -> ExileLife:
    """Simulation II: trial, verdict, the years in the city and release, for every manslayer.

    Parameters
    ----------
    flight
        The end of the flight (`run_flight`); only those who arrived go on to trial.
    options
        The scenario's `exile:` section.
    seed
        The run's root seed; the phase draws from its own spawned streams.

    Returns
    -------
    ExileLife
        Events and trajectory rows on the flight's clock, one row per manslayer, the rent
        ledger, the priests and the opinions.
    """
    rngs, world = streams(seed, STREAMS, key=EXILE_STREAM), flight.world
    rulings = [judge(choice.case, options.law) for choice in options.cases]
    people = Manslayers.draw(flight, options, rulings, rngs)
    succession = succession_of(options, rngs, people.case, world.t0_s / YEAR_S)
    log = EventLog(flight.dt_s, EXILE_KINDS)
    exiles, back_y = trial(log, flight, people, options, succession, rulings, rngs["trial"])
    clock = np.full(world.n, np.nan)
    clock[exiles] = back_y
    city = City(
        log,
        world,
        people,
        options,
        succession,
        places_of_exile(options),
        rngs["city"],
        clock,
        clock.copy(),
    )
    city.live(exiles)
    priest_deaths(log, succession, options)
    events = log.frame()
    ledger = pd.DataFrame(
        {k: np.concatenate([part[k] for part in city.ledger]) for k in LEDGER}
        if city.ledger
        else {k: [] for k in LEDGER}
    )
    return ExileLife(
        events=events[list(EVENT_FIELDS)],
        tracks=_tracks(events, world.city_ids),
        manslayers=people.table(flight, options),
        ledger=ledger.sort_values(["incident", "from_y"], kind="stable").reset_index(drop=True),
        priests=succession.priests,
        opinions=exile_opinions(options, world.bough_opinion),
    )
