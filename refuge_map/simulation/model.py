"""The model: one run of a scenario = build the world -> the flight -> the exile -> a `Run`;
and the scenario's replications, summarized.

The orchestrator, apart from the steps it orchestrates (the flight in `engine`, the exile in
`exile`, the result in `run`, the summary across runs in `replications`); nothing below imports
it.
"""

from __future__ import annotations

import dataclasses

import pandas as pd

from refuge_map.simulation._setup import build_world
from refuge_map.simulation.engine import Progress, fly
from refuge_map.simulation.exile import live_in_exile
from refuge_map.simulation.replications import across, headline, replication_seeds
from refuge_map.simulation.run import Run, make_run
from refuge_map.simulation.scenario import Scenario


def simulate(
    scenario: Scenario,
    seed: int | None = None,
    *,
    progress: Progress | None = None,
    record: bool = True,
) -> Run:
    """Run one scenario with one seed: a pure function of its arguments.

    Parameters
    ----------
    scenario
        A validated `Scenario`.
    seed
        Root seed of every draw (default: ``scenario.seed``).
    progress
        Called as ``progress(step, n_steps)`` after each step.
    record
        Record the flight's trajectories (False: the summary and tables only, faster).

    Returns
    -------
    Run
        Events, trajectories, summary and the opinions used.

    Raises
    ------
    GeoError
        If the network cannot be built with the scenario's options.
    """
    seed = scenario.seed if seed is None else seed
    flight = fly(scenario, build_world(scenario, seed), progress=progress, record=record)
    life = None if scenario.exile is None else live_in_exile(flight, scenario.exile, seed)
    return make_run(scenario, seed, flight, life)


def simulate_replications(scenario: Scenario) -> list[Run]:
    """`scenario.replications` runs, one per seed of `replication_seeds`, in order.

    Parameters
    ----------
    scenario
        A validated `Scenario`.

    Returns
    -------
    list of Run
        One full run per seed, the first with ``scenario.seed``.

    Raises
    ------
    GeoError
        If the network cannot be built with the scenario's options.
    """
    return [simulate(scenario, seed) for seed in replication_seeds(scenario)]


def replicate(
    scenario: Scenario, seed: int | None = None, *, progress: Progress | None = None
) -> Run:
    """Every replication of a scenario: the first run in full (its events, trajectories and
    tables), its summary with a ``replications`` block (`replications.across`: each outcome's
    mean and 95% interval across the runs), and the `Run.replications` table (one row per run).

    Parameters
    ----------
    scenario
        A validated `Scenario`; ``scenario.replications`` runs.
    seed
        The root seed (default: ``scenario.seed``): the first run's seed, the others spawned.
    progress
        Called for the first run's steps.

    Returns
    -------
    Run
        The first run, its summary with the ``replications`` block, and its
        ``replications`` table.

    Raises
    ------
    GeoError
        If the network cannot be built with the scenario's options.
    """
    seeds = replication_seeds(scenario, seed)
    first = simulate(scenario, seeds[0], progress=progress)
    rows = [headline(first)]
    rows += [headline(simulate(scenario, s, record=False)) for s in seeds[1:]]
    table = pd.DataFrame(rows)
    table.insert(0, "seed", seeds)
    summary = {**first.summary, "replications": across(table)}
    return dataclasses.replace(first, summary=summary, replications=table)
