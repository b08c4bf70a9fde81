"""The exile phase from start to end: trial, the years in the city, release, for every
manslayer; and what it adds to a run (`ExileLife`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from geo import to_lonlat
from geo.arrays import Floats
from refuge_map.simulation.events import EVENT_FIELDS, EXILE_KINDS, RESIDENCE_KINDS, EventLog
from refuge_map.simulation.exile.city import LEDGER, City
from refuge_map.simulation.exile.people import Manslayers, manslayer_table
from refuge_map.simulation.exile.release import priest_deaths, succession_of
from refuge_map.simulation.exile.rules import holds, places_of_exile, rulings_of
from refuge_map.simulation.exile.runs import RunStreams, Successions, starts_of
from refuge_map.simulation.exile.summary import exile_headline
from refuge_map.simulation.exile.trial import trial
from refuge_map.simulation.priesthood import YEAR_S, Succession
from refuge_map.simulation.scenario_exile import ExileOptions
from refuge_map.simulation.seeds import streams

if TYPE_CHECKING:
    import pandas as pd

    from refuge_map.simulation._setup import World
    from refuge_map.simulation.engine import Flight

#: Spawn key of the exile's seed stream, far from the flight's streams (`_setup.STREAMS`).
EXILE_STREAM = 100
STREAMS = ("cases", "people", "trial", "high_priests", "war_priests", "city", "students")


@dataclass(frozen=True)
class ExileLife:
    """What Simulation II adds to a run.

    Attributes
    ----------
    log
        The phase's events as they were logged (`events` and `residence` are built from it
        when first asked for: a replication's headline needs neither).
    world
        The world of the run (the clock of `residence`).
    by_incident
        One array per column of `manslayers` (`Manslayers.columns`).
    rent
        One array per column of `ledger` (`LEDGER`), in its order.
    succession
        The priests (`Succession`; as a table, `priests`).
    opinions
        The exile's opinions (law, boundary, war priest, office, rent, bough).

    The tables (`manslayers`, `ledger`, `priests`, `events`, `residence`) are built from these
    when first asked for: a replication's headline reads the arrays alone.
    """

    log: EventLog
    world: World
    by_incident: dict[str, NDArray[Any]]
    rent: dict[str, NDArray[Any]]
    succession: Succession
    opinions: dict[str, Any]

    @cached_property
    def ledger(self) -> pd.DataFrame:
        """Rent paid to the Levites (Mishnah Makkot 2:8), one row per stay in a city, by
        incident and the year the stay began; empty under R. Meir."""
        import pandas as pd

        return pd.DataFrame(self.rent)

    @property
    def priests(self) -> pd.DataFrame:
        """The succession (`Succession.priests`)."""
        return self.succession.priests

    @cached_property
    def _frame(self) -> pd.DataFrame:
        return self.log.frame()

    @cached_property
    def manslayers(self) -> pd.DataFrame:
        """One row per incident: ``outcome`` (`EXILE_OUTCOMES`), case, verdict, city, life
        exile and why, years in exile, Levite, office, moves and goings-out."""
        return manslayer_table(self.by_incident)

    @cached_property
    def events(self) -> pd.DataFrame:
        """The flight's event columns (incident, role, kind, ``t_s``, step, metric x/y, city,
        rule, citation); priests' deaths have incident -1."""
        return self._frame[list(EVENT_FIELDS)]

    @cached_property
    def residence(self) -> pd.DataFrame:
        """The years in the city, one row per event of them (`_residence`): the trajectories
        keep the flight's timescale alone."""
        return _residence(self._frame, self.world)


def _residence(events: pd.DataFrame, world: World) -> pd.DataFrame:
    """The years in the city, one row per event of them (`RESIDENCE_KINDS`: back in the city,
    goings-out, moves, rent, release, death, the horizon), in time order per manslayer:
    incident, kind, city, ``years_since_killing``, where (WGS84 ``lon``/``lat``), rule,
    citation."""
    import pandas as pd

    rows = events[(events["role"] == "fugitive") & events["kind"].isin(RESIDENCE_KINDS)]
    incident = rows["incident"].to_numpy(np.int64)
    lon, lat = to_lonlat(rows["x"].to_numpy(float), rows["y"].to_numpy(float))
    frame = pd.DataFrame(
        {
            "incident": incident,
            "kind": rows["kind"].to_numpy(str),
            "city": rows["city"].to_numpy(str),
            "years_since_killing": (rows["t_s"].to_numpy(float) - world.t0_s[incident]) / YEAR_S,
            "lon": lon,
            "lat": lat,
            "rule": rows["rule"].to_numpy(str),
            "citation": rows["citation"].to_numpy(str),
        }
    )
    return frame.sort_values(["incident", "years_since_killing"], kind="stable").reset_index(
        drop=True
    )


def _ledger(stays: list[dict[str, NDArray[Any]]]) -> dict[str, NDArray[Any]]:
    """The rent ledger's columns (`LEDGER`) from the stays `City` closed, a round at a time:
    by incident, then the year the stay began (in the order closed where both are equal)."""
    if not stays:
        return {k: np.empty(0) for k in LEDGER}
    columns = {k: np.concatenate([stay[k] for stay in stays]) for k in LEDGER}
    order = np.lexsort((columns["from_y"], columns["incident"]))
    return {k: column[order] for k, column in columns.items()}


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
        Events on the flight's clock, the years in the city, one row per manslayer, the rent
        ledger, the priests and the opinions.
    """
    log = EventLog(flight.dt_s, EXILE_KINDS)
    people, successions, city = _live([flight], options, [seed], log)
    succession = successions.runs[0]
    priest_deaths(log, succession, options)
    return ExileLife(
        log=log,
        world=flight.world,
        by_incident=people.columns(flight, options),
        rent=_ledger(city.ledger),
        succession=succession,
        opinions=exile_opinions(options, flight.world.bough_opinion),
    )


def exile_headlines(
    flights: Sequence[Flight], options: ExileOptions, seeds: Sequence[int]
) -> list[tuple[dict[str, Any], Floats, Succession]]:
    """What the headline of each run reads of its exile (`live_in_exile` of each flight and
    seed), the runs' exiles lived as one (`exile.runs`: each with the draws and the priests it
    has alone): `exile_headline`'s blocks, the manslayers' ``entered_y``, the succession.

    Parameters
    ----------
    flights
        The runs' flights, flown (of one stack: their worlds share the network).
    options
        The scenario's `exile:` section.
    seeds
        Each run's root seed.

    Returns
    -------
    list of tuple
        Per run, in order.
    """
    log = EventLog(flights[0].dt_s, EXILE_KINDS, keep=False)  # the tables are the first run's
    people, successions, _ = _live(flights, options, seeds, log)
    bounds = successions.starts
    headlines = []
    for r, succession in enumerate(successions.runs):
        column = people.headline_columns(slice(bounds[r], bounds[r + 1]))
        headlines.append((exile_headline(column), column["entered_y"], succession))
    return headlines


def _live(
    flights: Sequence[Flight], options: ExileOptions, seeds: Sequence[int], log: EventLog
) -> tuple[Manslayers, Successions, City]:
    """The exile of every run of `flights` (their incidents end to end), logged in `log`: the
    manslayers, the priests and the years in the city."""
    rngs = [streams(seed, STREAMS, key=EXILE_STREAM) for seed in seeds]
    rulings = list(rulings_of(options))
    world, outcomes = _together(flights)
    people = Manslayers.draw(world, outcomes, options, rulings, rngs)
    starts = starts_of([f.world.n for f in flights])
    priests = [
        succession_of(options, r, people.case[a:b], f.world.t0_s / YEAR_S)
        for f, r, a, b in zip(flights, rngs, starts[:-1], starts[1:], strict=True)
    ]
    successions = Successions(tuple(priests), starts)
    trial_streams = RunStreams(tuple(r["trial"] for r in rngs), starts)
    exiles, back_y = trial(
        log, world, outcomes, people, options, successions, rulings, trial_streams
    )
    clock = np.full(world.n, np.nan)
    clock[exiles] = back_y
    city = City(
        log,
        world,
        people,
        options,
        successions,
        places_of_exile(options),
        RunStreams(tuple(r["city"] for r in rngs), starts),
        clock,
        clock.copy(),
    )
    city.live(exiles)
    return people, successions, city


def _together(flights: Sequence[Flight]) -> tuple[World, dict[str, NDArray[Any]]]:
    """The world and the outcome columns of the flights' runs end to end (one run's as they
    are)."""
    if len(flights) == 1:
        return flights[0].world, flights[0].outcome_columns
    # here, not at the top: the stack module loads the flight engine, which the exile's
    # other users (a run read back from its folder) do not need
    from refuge_map.simulation.stack import stack_worlds

    columns = flights[0].outcome_columns
    outcomes = {k: np.concatenate([f.outcome_columns[k] for f in flights]) for k in columns}
    return stack_worlds([f.world for f in flights]), outcomes
