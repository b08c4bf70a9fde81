"""The flight: every manslayer runs for refuge while his avenger pursues, stepped over all agents.

Design. Positions are stepped (fixed `dt_s`), not solved in closed form: the chasing avenger's
target moves, and the asylum predicate, the capture test and the escorts' plea must see every
agent at one common time. Within a step movement is exact: the road walk (`_walk.RoadGraph.walk`)
spends each agent's budget edge by edge along shortest paths, and an avenger who reaches the
fugitive's road position within the step counts as reaching him even if they would pass each
other between two steps. Event times are therefore the end of the step in which the predicate
first sees them (a resolution of one step: 60 s by default).

`simulate` = `build_world` -> `run_flight` -> (later phases append their events) -> `make_run`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from geo import BOUGH_OPINIONS, CITY_IDS
from refuge_map.simulation._setup import World, build_world
from refuge_map.simulation._walk import Floats, Ints, RoadGraph
from refuge_map.simulation.run import Run, make_run
from refuge_map.simulation.scenario import Scenario

Bools = NDArray[np.bool_]
Progress = Callable[[int, int], None]

#: Event kinds, each with the rule and the citation written beside it in the events table.
EVENT_KINDS: dict[str, tuple[str, str]] = {
    "flight_start": (
        "the manslayer flees at once to a city of refuge; the assembly judges later",
        "Numbers 35:11-12, 24",
    ),
    "avenger_sets_out": (
        "the blood avenger learns of the death and pursues, while his heart is hot",
        "Deuteronomy 19:6",
    ),
    "climbs_tree": (
        "he climbs a tree at the boundary: it all follows the boughs",
        "Mishnah Makkot 2:7",
    ),
    "arrival": (
        "as the city protects, so does its boundary: here the avenger may not kill him",
        "Numbers 35:11-12; Mishnah Makkot 2:7",
    ),
    "reached_unprotected": (
        "no city protects until all six are designated",
        "Mishnah Makkot 2:4; Numbers 35:13",
    ),
    "capture": (
        "outside the refuge the avenger kills him on the way and is not liable",
        "Deuteronomy 19:6; Numbers 35:27; Rambam, Rotzeach 5:9-10",
    ),
    "deterred": (
        "the two disciples of the Sages speak to the avenger and he desists",
        "Mishnah Makkot 2:5",
    ),
    "horizon": (
        "still on the road when the simulation ends, because the way is long",
        "Deuteronomy 19:6",
    ),
}

#: Agent roles; escorts walk with their fugitive (Mishnah Makkot 2:5).
ROLES = ("fugitive", "avenger", "escort")
FUGITIVE, AVENGER = 0, 1
NEVER = np.iinfo(np.int64).max // 2


@dataclass
class _Mover:
    """Agents that walk an off-road leg to their nearest road, then along the roads."""

    start: Floats
    foot: Floats
    off_total: Floats
    off_left: Floats
    edge: Ints
    s: Floats
    road: Floats
    offroad: Floats
    run_m: Floats

    @classmethod
    def at(cls, world: World, start: Floats, road: Floats, offroad: Floats) -> _Mover:
        edge, s, off = world.snap(start)
        foot = np.column_stack(world.graph.xy(edge, s))
        return cls(start, foot, off, off.copy(), edge, s, road, offroad, np.zeros(len(s)))

    def advance(self, graph: RoadGraph, tau: Floats, to_edge: Ints, to_s: Floats) -> Bools:
        """Spend `tau` seconds: off-road first, the rest on the road; True where the target
        was reached."""
        t_off = np.minimum(tau, self.off_left / self.offroad)
        self.off_left = self.off_left - t_off * self.offroad
        self.edge, self.s, used, reached = graph.walk(
            self.edge, self.s, (tau - t_off) * self.road, to_edge, to_s
        )
        self.run_m = self.run_m + t_off * self.offroad + used
        return reached & (self.off_left <= 0)

    def xy(self, graph: RoadGraph) -> Floats:
        """Current (n, 2) metric positions."""
        on_road = np.column_stack(graph.xy(self.edge, self.s))
        frac = np.divide(
            self.off_left,
            self.off_total,
            out=np.zeros_like(self.off_left),
            where=self.off_total > 0,
        )
        return np.where(
            (frac > 0)[:, None], self.foot + frac[:, None] * (self.start - self.foot), on_road
        )


@dataclass
class _Log:
    """Events and trajectory rows, gathered as arrays step by step."""

    events: list[dict[str, Any]] = field(default_factory=list)
    rows: list[tuple[NDArray[Any], ...]] = field(default_factory=list)

    def event(
        self,
        kind: str,
        mask: Bools,
        role: int,
        t_s: Floats | float,
        step: int,
        xy: Floats,
        city: NDArray[np.str_] | str = "",
        rule: NDArray[np.str_] | None = None,
    ) -> None:
        idx = np.flatnonzero(mask)
        if idx.size == 0:
            return
        default_rule, citation = EVENT_KINDS[kind]
        self.events.append(
            {
                "incident": idx,
                "role": ROLES[role],
                "kind": kind,
                "t_s": np.broadcast_to(t_s, mask.shape)[idx],
                "step": step,
                "x": xy[idx, 0],
                "y": xy[idx, 1],
                "city": np.broadcast_to(city, mask.shape)[idx],
                "rule": default_rule if rule is None else rule[idx],
                "citation": citation,
            }
        )

    def row(
        self, mask: Bools, role: int, step: int, xy: Floats, asylum: NDArray[Any], captured: Bools
    ) -> None:
        idx = np.flatnonzero(mask)
        if idx.size:
            self.rows.append(
                (
                    idx,
                    np.full(idx.size, role),
                    np.full(idx.size, step),
                    xy[idx],
                    asylum[idx],
                    captured[idx],
                )
            )

    def event_frame(self) -> pd.DataFrame:
        frames = [pd.DataFrame(e) for e in self.events]
        columns = ["incident", "role", "kind", "t_s", "step", "x", "y", "city", "rule", "citation"]
        events = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
        return events.sort_values(["t_s", "incident", "step"], kind="stable").reset_index(drop=True)

    def track_arrays(self) -> dict[str, NDArray[Any]]:
        if not self.rows:
            return {
                k: np.empty(0) for k in ("incident", "role", "step", "x", "y", "city", "captured")
            }
        idx, role, step, xy, asylum, captured = (
            np.concatenate(part) for part in zip(*self.rows, strict=True)
        )
        return {
            "incident": idx,
            "role": role,
            "step": step,
            "x": xy[:, 0],
            "y": xy[:, 1],
            "city": asylum,
            "captured": captured,
        }


@dataclass(frozen=True)
class Flight:
    """The state at the end of the flight, for `make_run` and for later phases (exile, trial).

    Attributes
    ----------
    world
        The concrete scenario.
    events
        Incident, role, kind, ``t_s`` (seconds on the scenario clock), step, metric x/y, city,
        rule, citation.
    tracks
        Trajectory rows as arrays: incident, role code, step, x, y, city index (-1: not in
        asylum), captured.
    outcomes
        One row per incident: ``outcome`` (``arrival``, ``capture``, ``horizon``), ``city``
        (where he found refuge, "" otherwise), ``heading`` (the city he ran for, or "tree"),
        ``end_s`` (time of arrival or death; NaN at the horizon), ``run_m`` (metres he ran),
        ``deterred`` (the escorts turned his avenger back), metric ``x``/``y`` at the end.
    dt_s
        The time step.
    """

    world: World
    events: pd.DataFrame
    tracks: dict[str, NDArray[Any]]
    outcomes: pd.DataFrame
    dt_s: float


def _city_nodes(world: World) -> dict[str, int]:
    """Road node index of each city's site (the end of the road into the town)."""
    roads, ids = world.network.roads, world.network.router.node_ids.tolist()
    return {
        roads.nodes[n]["waypoint"]: i
        for i, n in enumerate(ids)
        if roads.nodes[n]["waypoint"] in CITY_IDS
    }


def _heading(world: World, fugitive: _Mover) -> NDArray[np.str_]:
    """The city each manslayer runs for: the nearest protecting one; before activation
    (Mishnah Makkot 2:4) the nearest designated one, or the nearest of all if none is."""
    network, heading = world.network, np.empty(world.n, dtype=object)
    x, y = fugitive.start[:, 0], fugitive.start[:, 1]
    for year in np.unique(world.year):  # the few timeline years of a scenario
        rows = world.year == year
        designated = network.designation.designated_at(float(year))
        cities = None if network.active(year) or not designated else sorted(designated)
        heading[rows] = network.router.distance_to_gates(x[rows], y[rows], cities)[1]
    return heading.astype(str)


def _gates(world: World, fugitive: _Mover, heading: NDArray[np.str_]) -> Ints:
    """The gate of his city where each manslayer will enter (the interceptor's goal)."""
    graph, router = world.graph, world.network.router
    gate = np.zeros(world.n, dtype=np.intp)
    best = np.full(world.n, np.inf)
    for node in np.flatnonzero(router.node_gate != ""):  # a dozen gates
        d = graph.road_distance(
            fugitive.edge,
            fugitive.s,
            np.full(world.n, graph.node_edge[node]),
            np.full(world.n, graph.node_s[node]),
        )
        better = (router.node_gate[node] == heading) & (d < best)
        gate[better], best[better] = node, d[better]
    return gate


def run_flight(
    world: World,
    *,
    dt_s: float,
    horizon_s: float,
    strategy: str = "chase",
    capture_m: float = 20.0,
    record_every: int = 1,
    record: bool = True,
    progress: Progress | None = None,
) -> Flight:
    """Step the flight of every manslayer and the pursuit of every avenger until the horizon.

    Parameters
    ----------
    world
        From `build_world`.
    dt_s, horizon_s
        Time step and horizon, seconds.
    strategy
        ``"chase"`` or ``"intercept"`` (see `Avenger`).
    capture_m
        The avenger kills a fugitive outside asylum within this distance (or whom he reaches
        along the road within the step).
    record_every, record
        Record trajectory rows every this many steps (and at every agent's first and last), or
        not at all (benchmarks).
    progress
        Called as ``progress(step, n_steps)`` after each step.
    """
    graph, network = world.graph, world.network
    fug = _Mover.at(world, world.place, world.fugitive_road, world.fugitive_offroad)
    ave = _Mover.at(world, world.avenger_start, world.avenger_road, world.avenger_offroad)
    heading = _heading(world, fug)
    city_node = _city_nodes(world)
    tree_edge, tree_s, _ = world.snap(np.where(world.has_tree[:, None], world.trunk, world.place))
    target = pd.Series(heading).map(city_node).to_numpy(dtype=np.intp)
    f_edge = np.where(world.has_tree, tree_edge, graph.node_edge[target])
    f_s = np.where(world.has_tree, tree_s, graph.node_s[target])
    gate = _gates(world, fug, heading)
    heading = np.where(world.has_tree, "tree", heading)
    log = _Log()
    log.event("flight_start", np.ones(world.n, bool), FUGITIVE, world.t0_s, 0, world.place, heading)

    n = world.n
    f_end = np.full(n, NEVER)
    a_end = np.full(n, NEVER)
    captured, deterred, in_tree, waiting, set_out, at_gate = (
        np.zeros(n, dtype=bool) for _ in range(6)
    )
    asylum_city = np.full(n, -1)
    chase_always = strategy == "chase"
    city_names = np.array([*CITY_IDS, ""])
    tree_rule = np.full(n, BOUGH_OPINIONS[network.options["bough_opinion"]])
    n_steps = int(np.ceil(horizon_s / dt_s - 1e-9))
    step = 0
    for step in range(n_steps + 1):
        t, t_prev = step * dt_s, max(step - 1, 0) * dt_s
        started = world.t0_s <= t
        # the manslayer runs (Numbers 35:11)
        moving = (f_end == NEVER) & ~waiting & ~in_tree
        tau = np.where(moving, np.clip(t - np.maximum(t_prev, world.t0_s), 0.0, dt_s), 0.0)
        reached = fug.advance(graph, tau, f_edge, f_s)
        climbs = reached & world.has_tree & ~in_tree
        in_tree |= climbs
        fxy = np.where(in_tree[:, None], world.trunk, fug.xy(graph))
        log.event("climbs_tree", climbs, FUGITIVE, t, step, fxy)
        bough = np.where(in_tree[:, None], world.bough, np.nan)
        city = network.city_xy(
            fxy[:, 0],
            fxy[:, 1],
            bough_x=bough[:, 0],
            bough_y=bough[:, 1],
            at_trunk=world.at_trunk,
            t=world.year,
        )[0]
        city = np.where(started, city, -1)
        arrive = (city >= 0) & (f_end == NEVER)
        asylum_city[arrive] = city[arrive]
        log.event(
            "arrival",
            arrive,
            FUGITIVE,
            t,
            step,
            fxy,
            city_names[city],
            np.where(in_tree, tree_rule, EVENT_KINDS["arrival"][0]),
        )
        f_end[arrive] = step
        stranded = reached & ~world.has_tree & (city < 0) & ~waiting
        waiting |= stranded
        log.event("reached_unprotected", stranded, FUGITIVE, t, step, fxy, heading)
        # the avenger pursues (Deuteronomy 19:6)
        pursuing = (a_end == NEVER) & (f_end == NEVER) & started
        a_end[(a_end == NEVER) & (f_end < NEVER)] = step
        sets_out = pursuing & ~set_out & (world.setout_s <= t)
        set_out |= sets_out
        log.event("avenger_sets_out", sets_out, AVENGER, world.setout_s, step, ave.xy(graph))
        tau = np.where(pursuing, np.clip(t - np.maximum(t_prev, world.setout_s), 0.0, dt_s), 0.0)
        chasing = chase_always | at_gate
        a_reached = ave.advance(
            graph,
            tau,
            np.where(chasing, fug.edge, graph.node_edge[gate]),
            np.where(chasing, fug.s, graph.node_s[gate]),
        )
        at_gate |= a_reached & ~chasing
        axy = ave.xy(graph)
        near = np.hypot(*(axy - fxy).T) <= capture_m
        contact = pursuing & set_out & ((a_reached & chasing) | near)
        turned = contact & world.deterred_if
        killed = contact & ~world.deterred_if
        deterred |= turned
        captured |= killed
        log.event("deterred", turned, AVENGER, t, step, axy)
        log.event("capture", killed, FUGITIVE, t, step, fxy, heading)
        f_end[killed] = step
        a_end[contact] = step
        if record:
            first = started & (world.t0_s > t_prev) | (step == 0)
            due = (step % record_every == 0) | first
            log.row(
                started & (f_end >= step - 1) & (due | (f_end <= step)),
                FUGITIVE,
                step,
                fxy,
                city,
                captured,
            )
            log.row(
                started & (a_end >= step - 1) & (due | (a_end <= step)),
                AVENGER,
                step,
                axy,
                np.full(n, -1),
                np.zeros(n, bool),
            )
        if progress is not None:
            progress(step, n_steps)
        if (f_end < step).all() and (a_end < step).all():
            break
    alive = f_end == NEVER
    log.event("horizon", alive, FUGITIVE, step * dt_s, step, fxy, heading)
    outcome = np.where(captured, "capture", np.where(alive, "horizon", "arrival"))
    end_s = np.where(alive, np.nan, f_end * dt_s)
    outcomes = pd.DataFrame(
        {
            "outcome": outcome,
            "city": city_names[asylum_city],
            "heading": heading,
            "end_s": end_s,
            "run_m": fug.run_m,
            "deterred": deterred,
            "x": fxy[:, 0],
            "y": fxy[:, 1],
        }
    )
    outcomes.index.name = "incident"
    return Flight(world, log.event_frame(), log.track_arrays(), outcomes, dt_s)


def simulate(
    scenario: Scenario, seed: int | None = None, *, progress: Progress | None = None
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

    Returns
    -------
    Run
        Events, trajectories, summary and the opinions used.
    """
    seed = scenario.seed if seed is None else seed
    world = build_world(scenario, seed)
    flight = run_flight(
        world,
        dt_s=scenario.dt_s,
        horizon_s=scenario.horizon_h * 3600.0,
        strategy=scenario.avenger.strategy,
        capture_m=scenario.avenger.capture_m,
        record_every=scenario.output.record_every_steps,
        progress=progress,
    )
    return make_run(scenario, seed, flight)


def replication_seeds(scenario: Scenario) -> list[int]:
    """The seeds of the scenario's replications, spawned from its root seed."""
    children = np.random.SeedSequence(scenario.seed).spawn(scenario.replications)
    return [int(child.generate_state(1, dtype=np.uint32)[0]) for child in children]


def simulate_replications(scenario: Scenario) -> list[Run]:
    """`scenario.replications` runs, one per seed of `replication_seeds` (in order)."""
    return [simulate(scenario, seed) for seed in replication_seeds(scenario)]
