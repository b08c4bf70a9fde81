"""Simulation II: the manslayer's life after the flight: trial, verdict, the city, release.

Years are Julian years (`refuge_map.simulation.priesthood.YEAR_S`) on the flight's clock: one
clock, one events table, one Run. All draws come from streams spawned with the spawn key
`EXILE_STREAM` (`refuge_map.simulation.seeds.streams`), one per purpose, so the flight's draws
are untouched and an opinion changes only what it governs.

Modules: `people` (the manslayers and their state), `rules` (the legal rules applied),
`trial` (the trial leg, verdict and sentence), `city` (the years in the city), `release` (the
priesthood and release), `summary`, `runs` (the exiles of several runs lived as one) and
`life` (the phase, start to end).
"""

from refuge_map.simulation.exile.life import (
    ExileLife,
    exile_headlines,
    exile_opinions,
    live_in_exile,
)
from refuge_map.simulation.exile.summary import exile_headline, summarize_exile

__all__ = [
    "ExileLife",
    "exile_headline",
    "exile_headlines",
    "exile_opinions",
    "live_in_exile",
    "summarize_exile",
]
