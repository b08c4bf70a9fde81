"""Release and the priesthood: the term of an exile, and the priests whose deaths release.

The manslayer dwells in his city "until the death of the high priest" (Numbers 35:25, 28); the
succession itself is drawn by `refuge_map.simulation.priesthood`.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numpy.typing import NDArray

from geo import to_metric
from geo.arrays import Floats
from geo.gazetteer import reference_point
from refuge_map.simulation.events import OFFICES, EventLog
from refuge_map.simulation.exile.rules import holds, war_priest_releases
from refuge_map.simulation.priesthood import YEAR_S, Interruption, Succession, draw_succession
from refuge_map.simulation.scenario_exile import ExileOptions


def succession_of(
    options: ExileOptions,
    rngs: dict[str, np.random.Generator],
    case: NDArray[np.intp],
    killed_y: Floats,
) -> Succession:
    """The high priests of the run, and the priests anointed for war where their death
    releases too (Mishnah Makkot 2:6), each office from its own stream. A killing whose victim
    or killer is the high priest (incident ``i`` of case ``case[i]`` at year ``killed_y[i]``)
    ends the term of the high priest then in office (Mishnah Makkot 2:7)."""
    priesthood = options.priesthood
    return draw_succession(
        priesthood.chain(high_priest=True),
        priesthood.chain(high_priest=False) if war_priest_releases(options) else None,
        (rngs["high_priests"], rngs["war_priests"]),
        options.horizon_years,
        interruption(options, case, killed_y),
    )


def interruption(options: ExileOptions, case: NDArray[np.intp], killed_y: Floats) -> Interruption:
    """The killings that end a high priest's term: he is the victim (``killed``) or the
    killer (``killed_in_error``), in time order (Mishnah Makkot 2:7)."""
    victim = np.array([c.case.victim.high_priest for c in options.cases])[case]
    killer = np.array([c.case.killer.high_priest for c in options.cases])[case]
    idx = np.flatnonzero(victim | killer)
    idx = idx[np.argsort(killed_y[idx], kind="stable")]
    why = np.where(victim[idx], "killed", "killed_in_error")
    return Interruption(killed_y[idx], why, idx.astype(np.int64))


def priest_deaths(log: EventLog, succession: Succession, options: ExileOptions) -> None:
    """One event per priest who dies within the horizon (they release, Mishnah Makkot 2:6)."""
    priests = succession.columns
    died_y = priests["died_y"]
    dead = died_y <= options.horizon_years
    office = priests["office"][dead]
    temple = np.tile(_temple(), (len(office), 1))
    war = holds("exile.priesthood.war_priest", options.priesthood.war_priest)
    rule = np.select(
        [
            office == "war_priest",
            priests["stood_down"][dead],
            priests["term_end"][dead] == "killed",
        ],
        [
            f"the priest anointed for war died; {war}",
            "a high priest who had stood down died",
            "the high priest was killed in error: his term ends (Mishnah Makkot 2:7)",
        ],
        "the high priest died",
    )
    for name in OFFICES:
        rows = office == name
        log.event(
            "high_priest_died",
            np.full(rows.sum(), -1),
            name,
            died_y[dead][rows] * YEAR_S,
            temple[rows],
            rule=rule[rows],
        )


@cache
def _temple() -> Floats:
    """Where the priests die, for their events: Jerusalem (metric x, y)."""
    lon, lat = reference_point("jerusalem")
    return np.concatenate(to_metric(lon, lat), axis=None)
