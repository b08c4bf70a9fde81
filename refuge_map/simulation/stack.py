"""Stacked runs: several runs' worlds as one world, one vectorized flight, split back per run.

Every random draw of a run happens in `_setup.build_world` and the flight engine draws nothing,
so runs that share the network and the flight's settings step together exactly as they step one
by one: each incident carries its run (`World.run`), each run's cities count their own manslayers
(`reception.Reception`, Makkot 10b), and `split_flight` gives every run its own `Flight` (its
events, trajectory rows, outcomes and reception, with its own world and incident numbers from
0). A step's fixed cost (a few dozen array and compiled calls) is then paid once for the
stack, not once per run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from refuge_map.simulation._setup import World
from refuge_map.simulation.engine import Flight, Progress, flight_options, run_flight
from refuge_map.simulation.events import EventLog
from refuge_map.simulation.scenario import Scenario

if TYPE_CHECKING:
    import pandas as pd

#: Most incidents stepped in one stack: beyond some ten thousand agents a step's fixed cost is
#: already small beside its per-agent work, and the cap bounds a stack's memory (a few KB per
#: incident: about 200 MB).
STACK_INCIDENTS = 50_000


#: Run-level values compared by value (their type and repr, so that NaN equals NaN); any other
#: object (the network, the road graph) must be the very same one.
PLAIN = (bool, int, float, str, tuple, frozenset, type(None))


def _token(value: Any) -> tuple[Any, ...]:
    """What identifies a run-level field's value for stacking (`PLAIN`)."""
    if isinstance(value, PLAIN):
        return type(value).__name__, repr(value)
    return "object", id(value)


def stack_worlds(worlds: Sequence[World]) -> World:
    """One world holding the incidents of every world end to end, `World.run` the index of
    each incident's world in `worlds`.

    Every array field of `World` is per incident and is concatenated; every other field (the
    network, the road graph, the walking hours) is of the run and must be the same in every
    world (`stack_key`). A field added to `World` stacks without an edit here.

    Parameters
    ----------
    worlds
        From `build_world`, at least one.

    Returns
    -------
    World
        Incident ``i`` of world ``r`` is incident ``offsets[r] + i`` (`offsets`).

    Raises
    ------
    ValueError
        If `worlds` is empty, an array field is not one value per incident, or a run-level
        field differs between worlds.
    """
    if not worlds:
        raise ValueError("no worlds to stack")
    values: dict[str, Any] = {}
    for field in dataclasses.fields(World):
        parts = [getattr(world, field.name) for world in worlds]
        if field.name == "run":
            values["run"] = np.repeat(np.arange(len(worlds)), [w.n for w in worlds])
        elif isinstance(parts[0], np.ndarray):
            if any(len(part) != world.n for part, world in zip(parts, worlds, strict=True)):
                raise ValueError(f"World.{field.name} is not one value per incident")
            values[field.name] = np.concatenate(parts)
        elif all(_token(parts[0]) == _token(part) for part in parts[1:]):
            values[field.name] = parts[0]
        else:
            raise ValueError(f"runs that differ in World.{field.name} cannot be stacked")
    return World(**values)


def offsets(worlds: Sequence[World]) -> list[int]:
    """The number of each world's first incident in their stack (`stack_worlds`)."""
    return np.concatenate([[0], np.cumsum([w.n for w in worlds])[:-1]]).astype(int).tolist()


def split_flight(flight: Flight, worlds: Sequence[World]) -> list[Flight]:
    """Each run's flight from the flight of their stack: its events, trajectory rows and
    outcomes (incident numbers from 0 again, order kept), its reception and its own world.

    Parameters
    ----------
    flight
        The flight of ``stack_worlds(worlds)``.
    worlds
        The stacked worlds, in their order.

    Returns
    -------
    list of Flight
        One per world, as `run_flight` of that world alone gives it.
    """
    starts = offsets(worlds)
    run = flight.world.run
    events = _events_by_run(flight, len(worlds))
    tracks = flight.tracks
    track_run = run[tracks["incident"].astype(np.intp)] if len(tracks["incident"]) else None
    receptions = flight.reception.split()
    flights = []
    for r, (world, start) in enumerate(zip(worlds, starts, strict=True)):
        mine = None if track_run is None else track_run == r
        if mine is None or not mine.any():  # as a flight without rows gives them
            own = {name: np.empty(0) for name in tracks}
        else:
            own = {name: column[mine] for name, column in tracks.items()}
            own["incident"] = own["incident"] - start
        rows = slice(start, start + world.n)
        outcomes = {name: column[rows] for name, column in flight.outcome_columns.items()}
        flights.append(Flight(world, events(r, start), own, outcomes, flight.dt_s, receptions[r]))
    return flights


def _events_by_run(flight: Flight, runs: int) -> Callable[[int, int], EventLog | pd.DataFrame]:
    """A function giving each run's events (`Flight.log`) from the stacked `flight`'s, given
    the run and the number of its first incident in the stack: where the stack's log keeps
    none (`EventLog.keep`: its runs' events nobody reads), that empty log itself, made a table
    by whoever reads it; else the run's rows of the stack's table (`_by_run`), its incidents
    numbered from 0. (Asked of what the log keeps, not of what it holds now: a log whose
    events were read is empty, its table in `Flight.events`.)"""
    if isinstance(flight.log, EventLog) and flight.log.keep is False:
        empty = flight.log
        return lambda r, start: empty
    run = flight.world.run
    rows = _by_run(flight.events, run[flight.events["incident"].to_numpy()], runs)

    def own(r: int, start: int) -> pd.DataFrame:
        events = rows(r)
        events["incident"] = events["incident"].to_numpy() - start
        return events

    return own


def _by_run(frame: pd.DataFrame, run: NDArray[np.intp], runs: int) -> Callable[[int], pd.DataFrame]:
    """A function giving the rows of `frame` of each run (`run` per row, from 0 to `runs` - 1),
    in their order and numbered from 0, each categorical column with its run's texts only (as
    the run's own flight has them). The rows are sorted by run once; a run's are a slice."""
    import pandas as pd

    order = np.argsort(run, kind="stable")
    bounds = np.searchsorted(run[order], np.arange(runs + 1))
    columns: dict[str, tuple[Any, pd.Index | None]] = {}
    for name in frame.columns:
        column = frame[name]
        if isinstance(column.dtype, pd.CategoricalDtype):
            columns[name] = (column.cat.codes.to_numpy()[order], column.cat.categories)
        else:  # a numpy column as an array, any other (an extension array) as itself
            data = column.to_numpy() if isinstance(column.dtype, np.dtype) else column.array
            columns[name] = (data[order], None)

    def rows(r: int) -> pd.DataFrame:
        part = slice(bounds[r], bounds[r + 1])
        values: dict[str, Any] = {}
        for name, (data, categories) in columns.items():
            if categories is None:
                values[name] = data[part]
            else:  # its texts only, in the stack's order (`remove_unused_categories`)
                used, codes = np.unique(data[part], return_inverse=True)
                if used.size and used[0] < 0:  # a missing text stays missing
                    used, codes = used[1:], codes - 1
                dtype = pd.CategoricalDtype(categories.take(used))
                values[name] = pd.Categorical.from_codes(codes.astype(data.dtype), dtype=dtype)
        return pd.DataFrame(values, columns=frame.columns)

    return rows


def stack_key(scenario: Scenario, world: World, *, record: bool = True) -> tuple[Any, ...]:
    """What runs must share to be stacked: the flight's options (`flight_options`) and every
    run-level field of the world (objects by identity: the cached network)."""
    options = tuple((k, repr(v)) for k, v in flight_options(scenario, record=record).items())
    fields = tuple(
        (f.name, _token(v))
        for f in dataclasses.fields(World)
        if not isinstance(v := getattr(world, f.name), np.ndarray)
    )
    return options, fields


def fly_stacked(
    scenario: Scenario,
    worlds: Sequence[World],
    *,
    recorded: Sequence[bool] | None = None,
    logged: Sequence[bool] | None = None,
    progress: Progress | None = None,
) -> list[Flight]:
    """The flights of runs of one `stack_key` (built from `scenario` or from scenarios that
    share its flight options), stepped as one.

    Parameters
    ----------
    scenario
        Gives the flight's options (`flight_options`).
    worlds
        The runs' worlds.
    recorded
        Per world: record its trajectory rows (default: every world's); a stack of which none
        is recorded runs without recording.
    logged
        Per world: keep its events (default: every world's). A run whose events nobody reads
        (a replication's headline alone: `refuge_map.simulation.model.replicate`) gets an
        empty events table: its outcomes and trajectory rows are the same; building and
        splitting the events of the runs that nobody reads was about a tenth of the flight.
    progress
        Called as ``progress(step, n_steps)`` after each step of the stack.

    Returns
    -------
    list of Flight
        One per world, in order, each as `run_flight` of that world alone gives it.
    """
    recorded = [True] * len(worlds) if recorded is None else list(recorded)
    options = flight_options(scenario, record=any(recorded))
    sizes = [w.n for w in worlds]
    rows = None if all(recorded) else np.repeat(recorded, sizes)
    kept = None if logged is None else np.repeat(list(logged), sizes)
    stacked = stack_worlds(worlds)
    flight = run_flight(stacked, **options, recorded=rows, logged=kept, progress=progress)
    return split_flight(flight, worlds)


def stacks(
    jobs: Sequence[tuple[Scenario, World]], *, limit: int = STACK_INCIDENTS
) -> list[list[int]]:
    """The jobs (scenario and world of a run) that can fly as one: groups of their indices
    with one `stack_key`, in order of first appearance, cut to at most `limit` incidents."""
    groups: dict[tuple[Any, ...], list[int]] = {}
    for i, (scenario, world) in enumerate(jobs):
        groups.setdefault(stack_key(scenario, world), []).append(i)
    return [
        [members[k] for k in chunk]
        for members in groups.values()
        for chunk in chunks([jobs[i][1].n for i in members], limit)
    ]


def chunks(sizes: Sequence[int], limit: int = STACK_INCIDENTS) -> list[list[int]]:
    """Consecutive groups of the indices of `sizes` whose sizes add up to at most `limit` (a
    larger one alone)."""
    groups: list[list[int]] = []
    total = 0
    for i, size in enumerate(sizes):
        if not groups or total + size > limit:
            groups.append([])
            total = 0
        groups[-1].append(i)
        total += size
    return groups
