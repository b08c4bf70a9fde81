"""The model: one run of a scenario = build the world -> the flight -> the exile -> a `Run`;
and the scenario's replications, stepped as one stacked flight (shared with a forked child
where a core is spare) and summarized.

The orchestrator, apart from the steps it orchestrates (the flight in `engine`, stacking runs
in `stack`, the exile in `exile`, the result in `run`, the summary across runs in
`replications`, the child's share of them in `split`); nothing below imports it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence

from refuge_map._aside import aside
from refuge_map.simulation._setup import build_world
from refuge_map.simulation._walk import compiled
from refuge_map.simulation.engine import Flight, Progress, fly
from refuge_map.simulation.exile import exile_headlines, live_in_exile
from refuge_map.simulation.replications import (
    across,
    headline,
    headline_of,
    replication_seeds,
)
from refuge_map.simulation.run import Run, make_run, overall_of
from refuge_map.simulation.scenario import Scenario, run_incidents
from refuge_map.simulation.split import child_share
from refuge_map.simulation.stack import chunks, fly_stacked


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
    return after_flight(scenario, seed, flight)


def after_flight(scenario: Scenario, seed: int, flight: Flight) -> Run:
    """The rest of a run once its flight is flown: the exile (with one), then the `Run`."""
    life = None if scenario.exile is None else live_in_exile(flight, scenario.exile, seed)
    return make_run(scenario, seed, flight, life)


def simulate_replications(scenario: Scenario) -> list[Run]:
    """`scenario.replications` runs, one per seed of `replication_seeds`, in order (each
    recorded; the same as `simulate` of each seed, their flights stacked).

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
    seeds = replication_seeds(scenario)
    stacked = _stacks(scenario, seeds)
    return [after_flight(scenario, seeds[i], f) for group in stacked for i, f in group]


def replication_headline(scenario: Scenario, seed: int, flight: Flight) -> dict[str, float]:
    """A replication's `headline` from its flight and exile, without the run's tables (as
    `replicate` gets it for the replications after the first: `replication_headlines`).

    Parameters
    ----------
    scenario
        The scenario of the replications.
    seed
        The replication's seed.
    flight
        Its flight, flown.

    Returns
    -------
    dict
        The `replications.headline` outcomes of the run.
    """
    return replication_headlines(scenario, [seed], [flight])[0]


def replication_headlines(
    scenario: Scenario, seeds: Sequence[int], flights: Sequence[Flight]
) -> list[dict[str, float]]:
    """The `replication_headline` of each seed and flight (of one stack), their exiles lived
    as one (`exile_headlines`).

    Parameters
    ----------
    scenario
        The scenario of the replications.
    seeds
        The replications' seeds.
    flights
        Their flights, flown, in the same order.

    Returns
    -------
    list of dict
        The `replications.headline` outcomes of each run, in order.
    """
    overall = [overall_of(flight.outcome_columns) for flight in flights]
    if scenario.exile is None:
        return [headline_of(scenario, block, None, None, None) for block in overall]
    lives = exile_headlines(flights, scenario.exile, seeds)
    return [
        headline_of(scenario, block, exile, entered_y, succession)
        for block, (exile, entered_y, succession) in zip(overall, lives, strict=True)
    ]


def _stacks(
    scenario: Scenario,
    seeds: Sequence[int],
    *,
    recorded: int | None = None,
    progress: Progress | None = None,
    built: Callable[[], None] | None = None,
) -> Iterator[list[tuple[int, Flight]]]:
    """The flight of each seed's run, in order, stepped in stacks of at most
    `stack.STACK_INCIDENTS` incidents: per stack, ``(index of the seed, flight)`` of each of its
    runs. Only the first `recorded` runs (None: all) record their trajectories and keep their
    events (the others' headlines read neither); `progress` follows the stack that holds the
    first, and `built` is called once the first run's world is built (with it the network and
    its lookups) and the compiled kernels loaded (`_walk.compiled`)."""
    for group in chunks([run_incidents(scenario)] * len(seeds)):
        worlds = [build_world(scenario, seeds[group[0]])]
        if built is not None and group[0] == 0:
            compiled()
            built()
        worlds += [build_world(scenario, seeds[i]) for i in group[1:]]
        full = None if recorded is None else [i < recorded for i in group]
        flights = fly_stacked(
            scenario,
            worlds,
            recorded=full,
            logged=full,
            progress=progress if group[0] == 0 else None,
        )
        yield list(zip(group, flights, strict=True))


def replicate(
    scenario: Scenario,
    seed: int | None = None,
    *,
    progress: Progress | None = None,
    split: bool | None = None,
    beside: Callable[[Run, bool], None] | None = None,
) -> Run:
    """Every replication of a scenario: the first run in full (its events, trajectories and
    tables), its summary with a ``replications`` block (`replications.across`: each outcome's
    mean and 95% interval across the runs), and the `Run.replications` table (one row per run).

    The replications' flights step together, stacked (`stack.fly_stacked`; at most
    `stack.STACK_INCIDENTS` incidents at once), with the results of running them one by one.
    With `split`, a forked child builds, flies and lives the last of them (`split.child_share`:
    as many as balance the two processes' work) while this process lives the others, the first
    in full; it sends back their headline rows. It is forked once this process has built the
    first run's world and loaded the compiled kernels (`_stacks`): the child inherits the
    network, its lookups and the kernels. The results are the same bytes whichever process
    computes them; where no child could be forked, or it failed, its replications are lived
    here after the others. Work given as `beside` is done here while the child lives its share
    (which is the larger for it: `split.FIRST_RUN_WRITING`).

    Parameters
    ----------
    scenario
        A validated `Scenario`; ``scenario.replications`` runs.
    seed
        The root seed (default: ``scenario.seed``): the first run's seed, the others spawned.
    progress
        Called for the steps of the stack that holds the first run.
    split
        Share the replications with a child process: True wherever a child can be forked
        (POSIX, no other thread running) and there are two or more; False never; None
        (default) where moreover a core is spare (`refuge_map._aside.spare_core`) and the
        child's share is worth a process (`split.MIN_CHILD_AGENT_STEPS`).
    beside
        Called as ``beside(first, shared)`` with the first run once this process has lived
        its replications, before the child's rows are waited for: what only the first run
        needs (`refuge run` writes its files, `io.write_run_files`), done while the child
        still works; `shared` tells whether one does (the cores are then both busy). The
        first run has its tables but not yet its replications' (`Run.replications`, the
        summary's ``replications``).

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
    here = len(seeds) - child_share(scenario, split=split, writing=beside is not None)
    theirs = seeds[here:]
    with aside(lambda: headline_rows(scenario, theirs), spare=bool(theirs), later=True) as child:
        first, rows = _lived_here(scenario, seeds[:here], progress=progress, built=child.start)
        if beside is not None:
            beside(first, child.working)
        rows += child.result()
    return with_replications(first, seeds, rows)


def _lived_here(
    scenario: Scenario,
    seeds: Sequence[int],
    *,
    progress: Progress | None,
    built: Callable[[], None],
) -> tuple[Run, list[dict[str, float]]]:
    """The first seed's run in full and the `headline` row of every seed's (`replicate`;
    `built` as for `_stacks`)."""
    first: Run | None = None
    rows = []
    for group in _stacks(scenario, seeds, recorded=1, progress=progress, built=built):
        if group[0][0] == 0:
            first = after_flight(scenario, seeds[0], group[0][1])
            rows.append(headline(first))
            group = group[1:]
        rows += _stack_headlines(scenario, seeds, group)
    assert first is not None  # replications >= 1
    return first, rows


def headline_rows(scenario: Scenario, seeds: Sequence[int]) -> list[dict[str, float]]:
    """The `headline` row of each seed's run, none recorded nor tabled (what a child of
    `replicate` sends back).

    Parameters
    ----------
    scenario
        The scenario of the replications.
    seeds
        The replications' seeds (none: no rows).

    Returns
    -------
    list of dict
        The `replications.headline` outcomes of each run, in order.
    """
    rows = []
    for group in _stacks(scenario, seeds, recorded=0):
        rows += _stack_headlines(scenario, seeds, group)
    return rows


def _stack_headlines(
    scenario: Scenario, seeds: Sequence[int], group: list[tuple[int, Flight]]
) -> list[dict[str, float]]:
    """The `headline` rows of a stack's runs (`_stacks`: index of the seed, flight), lived
    as one (`replication_headlines`); none for none."""
    if not group:
        return []
    return replication_headlines(scenario, [seeds[i] for i, _ in group], [f for _, f in group])


def with_replications(first: Run, seeds: list[int], rows: list[dict[str, float]]) -> Run:
    """The first run with the replications' table (one `headline` row per seed, the seed in
    front) and its summary's ``replications`` block (`replications.across`)."""
    import pandas as pd

    table = pd.DataFrame(rows)
    table.insert(0, "seed", seeds)
    summary = {**first.summary, "replications": across(table)}
    return dataclasses.replace(first, summary=summary, replications=table)
