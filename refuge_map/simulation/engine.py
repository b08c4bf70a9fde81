"""The flight: every manslayer runs for refuge while his avenger pursues, stepped over all agents.

Design. Positions are stepped (fixed `dt_s`), not solved in closed form: the chasing avenger's
target moves, and the asylum predicate, the capture test and the escorts' plea must see every
agent at one common time. Within a step movement is exact: the road walk (`_walk.RoadGraph.walk`)
spends each agent's budget edge by edge along shortest paths, and an avenger who reaches the
fugitive's road position within the step counts as reaching him even if the two would pass each
other between two steps. Off the road (a fugitive who left it on seeing his avenger, an avenger
after him) both go straight at their off-road speeds. What the avenger knows of the way
(`scenario.Avenger.knows`) sets where he goes while he does not see the fugitive; one who does
not know the way and has no signposts goes by `_walk.Ways`. Event times are the end of the step
in which they are seen (a resolution of one step, 60 s by default); positions are not
interpolated back.

The state is one array per quantity with a row per incident still in play (`_Pursuit`). A step
is a few compiled loops over those rows (`_compiled`, numba: the step's clock, who runs, each
agent taken through his move, his sight of the other, the avenger's setting out, giving up, aim
and contact, the trajectory rows due, one pass each), so that its cost follows the agents, not
a fixed count of array calls; what the compiled loops flag is turned into events here (the
event vocabulary stays in `events`), and the asylum predicate (geometry, `geo`: its compiled
test, `geo.asylum.Asylum.compile`), the cities' reception and the logging of events and
trajectory rows stay outside them, asked only for the rows concerned. The engine draws no
random numbers (every draw is in `_setup.build_world`), so stacked runs (`stack`) step exactly
as they would alone.

The orchestrator (`refuge_map.simulation.model.simulate`) builds the world, calls the flight
and then the exile; this module is the flight alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from geo import BOUGH_OPINIONS
from geo.arrays import Bools, Floats, Ints
from refuge_map.simulation._setup import World
from refuge_map.simulation._walk import (
    Heading,
    RoadGraph,
    Ways,
    bearing_ways,
    compiled,
)
from refuge_map.simulation.events import (
    ARRIVAL,
    AVENGER,
    CAPTURE,
    EVENT_FIELDS,
    EVENT_KINDS,
    FUGITIVE,
    HORIZON,
    LEVITICAL_ARRIVAL,
    ROLES,
    Coded,
    EventLog,
    codes_of,
)
from refuge_map.simulation.persuasion import CITATION, RULE
from refuge_map.simulation.reception import (
    LEVITICAL,
    Reception,
    city_goals,
    may_make_for,
    nearest_city,
)
from refuge_map.simulation.scenario import AvengerKnows, Scenario
from refuge_map.simulation.scenario_cities import CityConditions
from refuge_map.simulation.travel import walked_s

if TYPE_CHECKING:
    from collections.abc import Mapping

    import pandas as pd

    #: A flight's outcomes as read column by column: its table (`Flight.outcomes`) or its
    #: columns (`Flight.outcome_columns`, what a forked child's headlines read: no pandas).
    Outcomes = pd.DataFrame | Mapping[str, NDArray[Any]]

Progress = Callable[[int, int], None]
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
    # the off-road leg by coordinate, for 1-D gathers in `place` (cheaper than 2-D ones)
    _foot_x: Floats = field(init=False, repr=False)
    _foot_y: Floats = field(init=False, repr=False)
    _leg_x: Floats = field(init=False, repr=False)
    _leg_y: Floats = field(init=False, repr=False)
    # the way each last chose on his road (`RoadGraph.walk`'s memo)
    _heading: Heading = field(init=False, repr=False)
    # the arrays the compiled move reads and updates (`_compiled.move`), as it takes them: made
    # once (the arrays change in place only; a tuple made at each of a step's moves cost ~2 us)
    _arrays: tuple[NDArray[Any], ...] = field(init=False, repr=False)

    # the walk's memo is used (`RoadGraph.walk`); a test turns it off to show it changes nothing
    remembers = True

    def __post_init__(self) -> None:
        self._foot_x, self._foot_y = self.foot[:, 0].copy(), self.foot[:, 1].copy()
        self._leg_x = self.start[:, 0] - self._foot_x
        self._leg_y = self.start[:, 1] - self._foot_y
        self._heading = Heading.none(len(self.s))
        self._arrays = (
            self.edge,
            self.s,
            self.run_m,
            self.road,
            self.offroad,
            self.off_total,
            self.off_left,
            self._foot_x,
            self._foot_y,
            self._leg_x,
            self._leg_y,
        )

    def take(self, rows: Ints) -> _Mover:
        """The movers of `rows` only (compaction: the others have ended)."""
        movers = _Mover(
            self.start[rows],
            self.foot[rows],
            self.off_total[rows],
            self.off_left[rows],
            self.edge[rows],
            self.s[rows],
            self.road[rows],
            self.offroad[rows],
            self.run_m[rows],
        )
        movers._heading = self._heading.take(rows)
        return movers

    @classmethod
    def at(cls, world: World, start: Floats, road: Floats, offroad: Floats) -> _Mover:
        """Movers standing at `start` with speeds `road` and `offroad` (m/s)."""
        edge, s, off = world.snap(start)
        edge, s, off = np.array(edge, dtype=np.intp), np.array(s, dtype=float), off.astype(float)
        foot = np.column_stack(world.graph.xy(edge, s))
        road, offroad = road.astype(float), offroad.astype(float)
        return cls(start, foot, off, off.copy(), edge, s, road, offroad, np.zeros(len(s)))

    def move(
        self,
        graph: RoadGraph,
        tau: Floats,
        across: Bools,
        to_edge: Ints,
        to_s: Floats,
        to_xy: Floats,
        xy: Floats,
    ) -> tuple[Bools, Floats]:
        """Spend `tau` seconds each (one with none stays): one `across` goes straight across
        country at his off-road speed from his position in `xy` towards `to_xy`; any other
        walks the rest of his off-road leg first, then the road towards the road positions
        (`to_edge`, `to_s`). Each who moved has his position in `xy` (n, 2) set (in place).
        Returns where each reached his target, and the seconds each has left over (0 across
        country)."""
        n = len(tau)
        reached, spare = np.empty(n, dtype=bool), np.empty(n)
        scratch = (np.empty(n), np.empty(n), np.empty(n, dtype=np.intp), np.empty(n, dtype=np.intp))
        compiled().move(  # every argument as the engine makes it: contiguous, float or intp
            tau,
            across,
            to_edge,
            to_s,
            to_xy,
            xy,
            reached,
            spare,
            scratch,
            self._arrays,
            self._heading.arrays,
            self.remembers,
            graph.road_tables,
            graph.shape_tables,
        )
        return reached, spare

    def place(self, graph: RoadGraph, out: Floats) -> None:
        """Write the metric positions of every mover into `out` (n, 2): on the road, or on the
        straight off-road leg for those still walking it."""
        compiled().place(self._arrays, graph.shape_tables, out, np.arange(len(out)), len(out))


@dataclass(frozen=True)
class Flight:
    """The state at the end of the flight, for `make_run` and for later phases (trial, exile).

    Attributes
    ----------
    world
        The concrete scenario.
    log
        The events: the flight's `EventLog`, or the table of a run's own (`events`: incident,
        role, kind, ``t_s`` (seconds on the scenario clock), step, metric x/y, city, rule,
        citation).
    tracks
        Trajectory rows as arrays: incident, role code, step, x, y, city index (-1: not in
        asylum), captured.
    outcome_columns
        The columns of `outcomes`, one value per incident: ``outcome`` (``arrival``,
        ``capture``, ``horizon``), ``city`` (where he found refuge, "" otherwise), ``heading``
        (the city he ran for, or "tree"), ``end_s`` (time of arrival or death; NaN at the
        horizon), ``run_m`` (metres he ran), ``deterred`` (the escorts turned his avenger
        back), ``gave_up`` (his avenger gave up the pursuit, Deuteronomy 19:6), metric
        ``x``/``y`` at the end.
    dt_s
        The time step, seconds.
    reception
        The manslayers in every city, received and turned away (Makkot 10b).
    """

    world: World
    log: EventLog | pd.DataFrame
    tracks: dict[str, NDArray[Any]]
    outcome_columns: dict[str, NDArray[Any]]
    dt_s: float
    reception: Reception

    @cached_property
    def events(self) -> pd.DataFrame:
        """The events (`EVENT_FIELDS`): `log`'s, made a table on first read (a flight whose
        events nobody reads, a replication's for its headline, makes none: and so a child
        that flies them imports no pandas)."""
        if isinstance(self.log, EventLog):
            return self.log.take_frame()[list(EVENT_FIELDS)]
        return self.log

    @cached_property
    def outcomes(self) -> pd.DataFrame:
        """`outcome_columns` as a table (one row per incident), made on first read."""
        import pandas as pd

        return pd.DataFrame(self.outcome_columns).rename_axis("incident")


def _gates(world: World, edge: Ints, s: Floats, heading: NDArray[np.str_]) -> Ints:
    """The gate of the city `heading` (a city id per row) nearest by road to each road
    position (`edge`, `s`): where one who knows or guesses his city waits for him."""
    graph, router = world.graph, world.network.router
    gate = np.zeros(len(edge), dtype=np.intp)
    best = np.full(len(edge), np.inf)
    cities = np.unique(heading[heading != ""])
    for node in np.flatnonzero(np.isin(router.node_gate, cities)):  # the gates of their cities
        to_edge, to_s = graph.node_edge[[node]], graph.node_s[[node]]
        d = graph.road_distance(edge, s, to_edge, to_s)
        better = (router.node_gate[node] == heading) & (d < best)
        gate[better], best[better] = node, d[better]
    return gate


# the pursuit's per-incident working arrays: compaction keeps the rows of incidents in play
_ROWS = (
    "ids",
    "run",
    "recorded",
    "t0_s",
    "year",
    "setout_s",
    "give_up_s",
    "deterred_if",
    "persuader",
    "has_tree",
    "trunk",
    "bough",
    "at_trunk",
    "fxy",
    "axy",
    "goal_edge",
    "goal_s",
    "goal_xy",
    "a_goal_edge",
    "a_goal_s",
    "a_goal_xy",
    "heading",
    "target",
    "finds_way",
    "waypoint",
    "came_from",
    "junctions",
    "leaves_road",
    "f_across",
    "a_across",
    "saw",
    "f_end",
    "a_end",
    "city",
    "asked",
    "since",
    "walked",
    "walking",
    "clear_until",
    "nowhere",
    "never_captured",
    "captured",
    "deterred",
    "in_tree",
    "waiting",
    "set_out",
    "gave_up",
    "intends",
    "allowed",
)
# the working arrays `result` reads, kept for every incident as rows leave
_OUTCOME_ROWS = ("f_end", "city", "captured", "deterred", "gave_up", "fxy")


class _Pursuit:
    """The state of every incident's flight and pursuit, advanced one step at a time.

    The working arrays hold one row per incident still in play (`ids` gives its number):
    an incident whose fugitive and avenger have both ended and have their last trajectory row
    leaves them (`_compact`), so that a step's cost follows the incidents still running.
    """

    # in a step in which nobody walks (the night's rest) the walking is skipped; a test turns
    # this off to show it changes nothing
    skips_idle = True

    def __init__(
        self,
        world: World,
        *,
        dt_s: float,
        knows: AvengerKnows,
        sight_m: float,
        capture_m: float,
        record_every: int | None,
        recorded: Bools | None,
        logged: Bools | None,
        conditions: CityConditions,
    ) -> None:
        self.world, self.graph, n = world, world.graph, world.n
        self.dt_s, self.capture_m, self.record_every = dt_s, capture_m, record_every
        self.knows, self.sight_m = knows, sight_m
        self.ids, self.run = np.arange(n), world.run
        self.recorded = np.ones(n, dtype=bool) if recorded is None else recorded
        self.t0_s, self.year, self.setout_s = world.t0_s, world.year, world.setout_s
        self.give_up_s, self.persuader = world.give_up_s, world.persuader
        self.deterred_if, self.has_tree = world.deterred_if, world.has_tree
        self.trunk, self.bough, self.at_trunk = world.trunk, world.bough, world.at_trunk
        self.fug = _Mover.at(world, world.place, world.fugitive_road, world.fugitive_offroad)
        self.ave = _Mover.at(world, world.avenger_start, world.avenger_road, world.avenger_offroad)
        self.fxy, self.axy = np.empty((n, 2)), np.empty((n, 2))
        self.fug.place(self.graph, self.fxy)
        self.ave.place(self.graph, self.axy)
        # he intends refuge where he knows the law (Makkot 10a, Abaye): the 42 receive him
        self.intends, self.allowed = world.knows_law, may_make_for(world)
        self.city_kind = world.network.city_kinds
        self.levitical = self.city_kind == LEVITICAL  # per city: one of the 42 (asked by step)
        # The texts of the place codes (`_event`'s `city`): each city index's name
        # (`World.city_names`), then "tree" (`TREE`: he runs for a tree), and "" at -1.
        n_cities = len(world.city_ids)
        self.place_name = np.insert(world.city_names(np.arange(n_cities + 1)), n_cities, "tree")
        # each run (`World.run`) counts its own manslayers in every city (Makkot 10b)
        runs = int(world.run.max(initial=0)) + 1
        self.reception = Reception.of(world.city_ids, self.city_kind, conditions, runs=runs)
        self.city_goal_edge, self.city_goal_s = city_goals(world)
        heading = nearest_city(world, world.place, self.allowed)
        target = codes_of(heading, world.city_ids)
        # the road position of each tree's trunk (snapped for those who run for one only)
        trees = np.flatnonzero(world.has_tree)
        tree_edge, tree_s = np.zeros(n, dtype=np.intp), np.zeros(n)
        if trees.size:
            tree_edge[trees], tree_s[trees] = world.snap(world.trunk[trees])[:2]
        self.goal_edge = np.where(world.has_tree, tree_edge, self.city_goal_edge[target])
        self.goal_s = np.where(world.has_tree, tree_s, self.city_goal_s[target])
        # across country he makes straight for the trunk, or his city's road end in the town
        self.goal_xy = np.column_stack(self.graph.xy(self.goal_edge, self.goal_s))
        self.goal_xy[world.has_tree] = world.trunk[world.has_tree]
        self.target = np.where(world.has_tree, -1, target)  # the city his way leads to
        # the place code (`place_name`) of the city he ran for, or of his tree
        self.heading = np.where(world.has_tree, n_cities, target)
        self._avenger_goals(heading)
        # one who neither knows the way nor has the signposts (Makkot 10b) goes by `Ways`
        self.finds_way = world.finds_way | (self.target < 0)
        self.waypoint, self.came_from = np.full(n, -1), np.full(n, -1)
        self.junctions = np.zeros(n, dtype=np.int64)
        self.ways: Ways | None = None
        if not self.finds_way.all():
            self.ways = bearing_ways(self.graph, self.city_goal_edge, self.city_goal_s)
            self._first_waypoints(np.flatnonzero(~self.finds_way))
        self.leaves_road = world.leaves_road
        self.sees = np.zeros(n, dtype=bool)  # this step's: they are within sight of each other
        self.f_end, self.a_end = np.full(n, NEVER), np.full(n, NEVER)
        # the last step at which anyone ended, and the last killing's time (for `_record`)
        self.last_end, self.last_start = -2, float(world.t0_s.max(initial=-np.inf))
        self.city = np.full(n, -1)
        self.asked = np.zeros(n, dtype=bool)  # the asylum predicate has seen where he is now
        # each fugitive and his avenger (columns `FUGITIVE`, `AVENGER`): when he sets out, the
        # seconds he walks a day (whether he rests), the seconds he had walked by the previous
        # step's time (`_clock`; the first step's is 0) and those he walks in this step
        self.since = np.column_stack([world.t0_s, world.setout_s])
        self.walk_s = np.array([world.fugitive_walk_s, world.avenger_walk_s], dtype=np.float64)
        self.walked = walked_s(self.since, 0.0, self.walk_s)
        self.walking = np.zeros_like(self.walked)
        # metres run (`run_m`) below which he cannot have come into any zone since last asked
        self.clear_until = np.full(n, -np.inf)
        self.asylum = world.network.asylum
        self.nowhere, self.never_captured = np.full(n, -1), np.zeros(n, dtype=bool)  # avengers
        flags = [np.zeros(n, dtype=bool) for _ in range(9)]
        (self.captured, self.deterred, self.in_tree, self.waiting) = flags[:4]
        (self.set_out, self.gave_up, self.f_across, self.a_across, self.saw) = flags[4:]
        # the rule of an arrival in his tree (`in_tree`: he climbed it), the network's reading
        tree_rule = BOUGH_OPINIONS[world.network.options["bough_opinion"]]
        # an arrival's rule and citation (`_flee`), by code: on foot, in his tree, Levitical
        arrival_rule, arrival_citation = EVENT_KINDS["arrival"]
        self.arrival_rules = np.array([arrival_rule, tree_rule, LEVITICAL_ARRIVAL[0]])
        self.arrival_citations = np.array([arrival_citation, LEVITICAL_ARRIVAL[1]])
        # what `result` reads, for every incident (rows that leave are copied in first)
        self.outcome = {name: getattr(self, name).copy() for name in _OUTCOME_ROWS}
        self.outcome["heading"], self.outcome["run_m"] = self.heading, np.zeros(n)
        self.log = EventLog(dt_s, EVENT_KINDS, keep=True if logged is None else logged)
        self._event(
            "flight_start", np.ones(n, bool), FUGITIVE, world.t0_s, 0, world.place, self.heading
        )

    def _avenger_goals(self, heading: NDArray[np.str_]) -> None:
        """Where each avenger goes while he does not see his fugitive (`Avenger.knows`): the
        scene of the killing (`sees_him`: the last place he knows him at); the gate of the
        city of refuge nearest the scene (`nearest_city`: the six and any added, not the 42,
        which receive only one who intends refuge); the gate of the fugitive's own city, or
        his tree (`destination`)."""
        world = self.world
        self.a_goal_edge, self.a_goal_s = self.fug.edge.copy(), self.fug.s.copy()
        self.a_goal_xy = world.place.copy()
        if self.knows == "sees_him":
            return
        if self.knows == "nearest_city":
            refuges = self.allowed & ~self.levitical[None, :]
            heading = nearest_city(world, world.place, refuges)
        elif self.has_tree.any():  # he knows the tree he runs for
            tree = self.has_tree
            self.a_goal_edge[tree], self.a_goal_s[tree] = self.goal_edge[tree], self.goal_s[tree]
            self.a_goal_xy[tree] = self.goal_xy[tree]
            heading = np.where(tree, "", heading)
        self._wait_at_gates(np.flatnonzero(heading != ""), heading)

    def _wait_at_gates(self, rows: Ints, heading: NDArray[np.str_]) -> None:
        """Set the avengers of `rows` to go for the gate of `heading` (a city id per working
        row) nearest by road to their fugitive's road position."""
        if rows.size == 0:
            return
        gate = _gates(self.world, self.fug.edge[rows], self.fug.s[rows], heading[rows])
        edge, s = self.graph.node_edge[gate], self.graph.node_s[gate]
        self.a_goal_edge[rows], self.a_goal_s[rows] = edge, s
        self.a_goal_xy[rows] = np.column_stack(self.graph.xy(edge, s))

    def _first_waypoints(self, rows: Ints) -> None:
        """Start the fugitives of `rows` on the way of one who does not know it (`Ways`):
        first to the end of his road that lies towards his city, and not back along it after
        (unless he stood at that end)."""
        assert self.ways is not None
        edge, target = self.fug.edge[rows], self.target[rows]
        s = self.fug.s[rows]
        first = self.ways.first_node(self.graph, edge, s, target)
        u, v = self.graph.edge_u[edge], self.graph.edge_v[edge]
        # one who stands at a node chooses freely there; else not back along his road
        at_node = (s <= 0.0) | (s >= self.graph.length[edge])
        self.waypoint[rows] = first
        self.came_from[rows] = np.where(at_node, -1, np.where(first == u, v, u))
        self.goal_edge[rows], self.goal_s[rows] = (
            self.graph.node_edge[first],
            self.graph.node_s[first],
        )

    def _event(
        self,
        kind: str,
        mask: Bools,
        role: int,
        t_s: Floats | float,
        step: int,
        xy: Floats,
        city: Ints | str = "",
        rule: NDArray[np.str_] | None = None,
        cite: NDArray[np.str_] | None = None,
    ) -> None:
        """Log `kind` for the working rows where `mask` holds, at their positions in `xy` (and
        their times, place codes (`place_name`), rules and citations where those are arrays
        over the working rows)."""
        idx = mask.nonzero()[0]
        if idx.size == 0:
            return
        self._log(
            kind,
            idx,
            role,
            t_s[idx] if isinstance(t_s, np.ndarray) else t_s,
            step,
            xy.take(idx, axis=0),  # (the method: ~1 us, where xy[idx] costs ~4)
            self._places(city[idx]) if isinstance(city, np.ndarray) else city,
            None if rule is None else rule[idx],
            None if cite is None else cite[idx],
        )

    def _places(self, code: Ints) -> Coded:
        """The texts of place codes (`place_name`), as codes into it (no string per row)."""
        return Coded(code % len(self.place_name), self.place_name)  # -1: the last, ""

    def _log(
        self,
        kind: str,
        rows: Ints,
        role: int,
        t_s: Floats | float,
        step: int,
        xy: Floats,
        city: NDArray[np.str_] | Coded | str = "",
        rule: NDArray[np.str_] | Coded | None = None,
        cite: NDArray[np.str_] | Coded | None = None,
    ) -> None:
        """Log `kind` for the working `rows` (not empty), with their times, positions, cities,
        rules and citations (arrays over `rows`, or one value for all)."""
        self.log.event(
            kind,
            self.ids[rows],
            ROLES[role],
            t_s,
            xy,
            step=step,
            city=city,
            rule=rule,
            citation=cite,
        )

    def step(self, step: int) -> None:
        """Advance everyone from the previous step's time to this step's."""
        t, t_prev = step * self.dt_s, max(step - 1, 0) * self.dt_s
        started = self.t0_s <= t
        self._clock(t, t_prev)
        self._flee(step, t, started)
        self._pursue(step, t, started)
        if self.record_every is not None:
            self._record(step, t_prev, started)
        self._compact(step)

    def _compact(self, step: int) -> None:
        """Drop the rows of incidents ended before this step (their last trajectory row is
        written now), once they are an eighth of the rows: nothing reads them again. (An
        eighth, not a quarter: a step's passes over the rows cost more than the copying.)"""
        n_gone = compiled().ended(self.f_end, self.a_end, step)
        if n_gone == 0 or 8 * n_gone < len(self.f_end):
            return
        gone = (self.f_end < step) & (self.a_end < step)
        self._store(gone)
        keep = np.flatnonzero(~gone)
        for name in _ROWS:
            setattr(self, name, getattr(self, name)[keep])
        self.fug, self.ave = self.fug.take(keep), self.ave.take(keep)

    def _store(self, rows: Bools) -> None:
        """Copy the outcomes of working `rows` into those of every incident."""
        ids = self.ids[rows]
        for name in _OUTCOME_ROWS:
            self.outcome[name][ids] = getattr(self, name)[rows]
        self.outcome["run_m"][ids] = self.fug.run_m[rows]

    def _clock(self, t: float, t_prev: float) -> None:
        """The seconds each fugitive and avenger walks in this step (`walking`), counted from
        when he set out (`since`), walking `walk_s` of every 24 hours from then and resting
        the rest (`travel.walked_s`): for one who rests, the seconds walked by `t` less those
        walked by `t_prev` (the previous step's time, `walked`), both movers' at once
        (`_compiled.clock`, every row written in place)."""
        compiled().clock(t, t_prev, self.dt_s, self.since, self.walk_s, self.walked, self.walking)

    def _flee(self, step: int, t: float, started: Bools) -> None:
        """The manslayer runs (Numbers 35:11) and the asylum predicate is asked where he is."""
        n = len(started)
        in_flight, tau, ask = np.empty(n, dtype=bool), np.empty(n), np.empty(n, dtype=bool)
        # The predicate depends only on his position, tree and year, and in flight he is in no
        # zone (else he arrived): ask it only where one of them changed since it last answered,
        # and of those who moved only who may have run as far as a zone's bounding box.
        runs = compiled().runners(
            started,
            self.f_end,
            NEVER,
            self.waiting,
            self.in_tree,
            self.asked,
            self.walking,
            in_flight,
            tau,
            ask,
        )
        reached = None  # in a step in which nobody walks nobody moves or reaches anything
        if runs or not self.skips_idle:
            reached = self._run(tau)
            climbs = np.empty(n, dtype=bool)
            if compiled().climbers(
                reached,
                self.has_tree,
                self.in_tree,
                self.trunk,
                self.fxy,
                in_flight,
                tau,
                self.fug.run_m,
                self.clear_until,
                ask,
                climbs,
            ):
                self._event("climbs_tree", climbs, FUGITIVE, t, step, self.fxy)
        # only who is asked now can be found in a city: one found in flight before arrived
        # then or was turned away (`_admit`); and only who is in flight arrives (all asked
        # here are, but the shortcut test's reference asks also of those not yet started)
        found = self._ask_asylum(ask)
        arrive, turned = found[in_flight[found]], found[:0]
        if arrive.size:
            received = self._admit(arrive, step, t)
            if received is not None:
                arrive, turned = arrive[received], arrive[~received]
        if arrive.size:
            found = self.city[arrive]
            # the rule of an arrival on foot, in his tree, or in a Levitical city
            levitical = self.levitical[found]
            rule = Coded(np.where(levitical, 2, self.in_tree[arrive]), self.arrival_rules)
            citation = Coded(levitical.astype(np.intp), self.arrival_citations)
            city, at = self._places(found), self.fxy.take(arrive, axis=0)
            self._log("arrival", arrive, FUGITIVE, t, step, at, city, rule, citation)
            self.f_end[arrive] = step
            self.last_end = step
        if reached is not None:
            self._strand(reached.nonzero()[0], turned, step, t)
        self._watch(in_flight, step, t)

    def _strand(self, reached: Ints, turned: Ints, step: int, t: float) -> None:
        """Those of `reached` (the rows that reached their goal) who are in no city, not
        `turned` away from one now and have no tree wait there (`waiting`), unprotected."""
        stranded = reached[
            ~self.has_tree[reached] & (self.city[reached] < 0) & ~self.waiting[reached]
        ]
        if turned.size:
            stranded = stranded[~np.isin(stranded, turned)]
        if stranded.size:
            self.waiting[stranded] = True
            city, at = self._places(self.heading[stranded]), self.fxy.take(stranded, axis=0)
            self._log("reached_unprotected", stranded, FUGITIVE, t, step, at, city)

    def _run(self, tau: Floats) -> Bools:
        """The fugitives walk `tau` seconds each: by the road, by `Ways`, or across country.
        Returns where each reached his goal."""
        reached, left = self.fug.move(
            self.graph, tau, self.f_across, self.goal_edge, self.goal_s, self.goal_xy, self.fxy
        )
        if self.ways is None:
            return reached
        across = reached & self.f_across  # across country he makes straight for his city
        return self._follow_ways(reached & ~self.f_across, left) | across

    def _follow_ways(self, reached: Bools, left: Floats) -> Bools:
        """Those who go by `Ways` and reached a node take the next road there, and walk on with
        the seconds `left` of the step (a pass per node, never per walker). Returns where the
        final goal (the city's road end, or the node itself) was reached."""
        for _ in range(self.graph.n_nodes + 2):
            at_node = reached & (self.waypoint >= 0)
            if not at_node.any():
                break
            self._next_waypoints(at_node.nonzero()[0])
            again = at_node & (left > 0)
            reached = reached & ~at_node
            if not again.any():
                break
            more, rest = self.fug.move(
                self.graph,
                np.where(again, left, 0.0),
                self.f_across,
                self.goal_edge,
                self.goal_s,
                self.goal_xy,
                self.fxy,
            )
            reached |= again & more
            left = np.where(again, rest, 0.0)
        return reached

    def _next_waypoints(self, rows: Ints) -> None:
        """The fugitives of `rows` stand at their waypoint: the next road by `Ways`, or, at the
        node of his city (or after as many nodes as the network has: he is going round and
        asks), the shortest way to its road end in the town."""
        assert self.ways is not None
        node, target = self.waypoint[rows], self.target[rows]
        home = (node == self.ways.target_node[target]) | (
            self.junctions[rows] >= self.graph.n_nodes
        )
        onward = self.ways.next_node(node, self.came_from[rows], target)
        self.came_from[rows], self.junctions[rows] = node, self.junctions[rows] + 1
        self.waypoint[rows] = np.where(home, -1, onward)
        graph = self.graph
        self.goal_edge[rows] = np.where(home, self.city_goal_edge[target], graph.node_edge[onward])
        self.goal_s[rows] = np.where(home, self.city_goal_s[target], graph.node_s[onward])

    def _watch(self, in_flight: Bools, step: int, t: float) -> None:
        """Whether each fugitive still running (`in_flight` at the step's start, not ended in
        it) and his avenger, on his way, see each other (`sight_m`, straight line); one who
        sees him for the first time says so, and one who would leave the road
        (`World.leaves_road`) goes across country from the next step."""
        n = len(in_flight)
        self.sees = np.empty(n, dtype=bool)
        first, leaves = np.empty(n, dtype=bool), np.empty(n, dtype=bool)
        if not compiled().watch(
            in_flight,
            self.f_end,
            self.fxy,
            self.axy,
            self.set_out,
            self.a_end,
            NEVER,
            self.sight_m,
            self.saw,
            self.leaves_road,
            self.f_across,
            self.in_tree,
            self.waiting,
            self.fug.off_left,
            self.sees,
            first,
            leaves,
        ):
            return
        self._event("sees_avenger", first, FUGITIVE, t, step, self.fxy)
        self._event("leaves_road", leaves, FUGITIVE, t, step, self.fxy, self.heading)

    def _admit(self, rows: Ints, step: int, t: float) -> Bools | None:
        """The cities receive those arriving (the working `rows`, ascending), or turn them away
        (a full city, Makkot 10b; one with no elders, Rambam, Rotzeach 7:6): they make for the
        nearest other city. Returns whether each of `rows` was received, None if all were
        (most steps: nothing to pick out)."""
        slot = self.reception.slot(self.run[rows], self.city[rows])
        received, rule, citation = self.reception.admit(slot)
        if received.all():
            return None
        idx, out = rows[~received], ~received
        why, cites = np.asarray(rule, dtype=object)[out], np.asarray(citation, dtype=object)[out]
        city = self._places(self.city[idx])
        self._log("turned_away", idx, FUGITIVE, t, step, self.fxy[idx], city, why, cites)
        self.allowed[idx, self.city[idx]] = False
        self.city[idx] = -1
        heading = nearest_city(self.world, self.fxy[idx], self.allowed[idx])
        nowhere = heading == ""
        self.waiting[idx[nowhere]] = True  # no city is left to receive him
        go, heading = idx[~nowhere], heading[~nowhere]
        target = codes_of(heading, self.world.city_ids)
        self.target[go] = target
        self.goal_edge[go], self.goal_s[go] = self.city_goal_edge[target], self.city_goal_s[target]
        self.goal_xy[go] = np.column_stack(self.graph.xy(self.goal_edge[go], self.goal_s[go]))
        if self.knows == "destination":  # he knows where the fugitive goes now
            headings = np.full(len(self.ids), "", dtype=object)
            headings[go] = heading
            self._wait_at_gates(go, headings.astype(str))
        lost = go[~self.finds_way[go]]
        if lost.size:
            self.junctions[lost] = 0
            self._first_waypoints(lost)
        return received

    def _ask_asylum(self, rows: Bools) -> Ints:
        """Ask the asylum predicate where the fugitives of `rows` are (Mishnah Makkot 2:7).
        Returns the rows found in a city's asylum, ascending."""
        # He moves at most as far as he runs: until he has run his distance to the nearest
        # zone (less a metre for rounding) the zones cannot hold him; one at a distance from
        # every zone is in none, and the predicate need not be asked (unless he is in a tree,
        # where his bough decides).
        n = len(rows)
        gap, near = np.empty(n), np.empty(n, dtype=np.intp)
        self.asylum.clearance_where(self.fxy, rows, gap)
        ask = near[
            : compiled().nearing(
                rows,
                self.fug.run_m,
                self.in_tree,
                gap,
                self.clear_until,
                self.asked,
                self.city,
                near,
            )
        ]
        if ask.size == 0:
            return ask
        bough_x = bough_y = None  # nobody asked is in a tree: his own position decides
        if self.in_tree[ask].any():
            bough = np.where(self.in_tree[ask, None], self.bough[ask], np.nan)
            bough_x, bough_y = bough[:, 0], bough[:, 1]
        found = self.world.network.city_xy(
            self.fxy[ask, 0],
            self.fxy[ask, 1],
            bough_x=bough_x,
            bough_y=bough_y,
            at_trunk=self.at_trunk[ask],
            t=self.year[ask],
            intends_refuge=self.intends[ask],
        )[0]
        # a city he may not make for (turned away from it) does not hold him
        held = (found >= 0) & self.allowed[ask, np.maximum(found, 0)]
        self.city[ask] = np.where(held, found, -1)
        return ask[held]

    def _pursue(self, step: int, t: float, started: Bools) -> None:
        """The avenger pursues "while his heart is hot" and may give up (Deuteronomy 19:6);
        escorts may turn him back (Makkot 2:5)."""
        n = len(started)
        sets_out, gives_up, chasing = (np.empty(n, dtype=bool) for _ in range(3))
        tau = np.empty(n)
        to_edge, to_s, to_xy = np.empty(n, dtype=np.intp), np.empty(n), np.empty((n, 2))
        # he chases whom he sees (by the road, or across country after one who left it);
        # otherwise he goes where he knows to look (`_avenger_goals`) and waits there
        set_out, gave_up, walks = compiled().pursuers(
            step,
            t,
            started,
            self.f_end,
            self.a_end,
            NEVER,
            self.set_out,
            self.setout_s,
            self.give_up_s,
            self.gave_up,
            self.walking,
            self.sees,
            self.f_across,
            self.a_across,
            sets_out,
            gives_up,
            tau,
            chasing,
            (self.fug.edge, self.fug.s, self.fxy),
            (self.a_goal_edge, self.a_goal_s, self.a_goal_xy),
            (to_edge, to_s, to_xy),
        )
        if set_out:
            self._event("avenger_sets_out", sets_out, AVENGER, self.setout_s, step, self.axy)
        if gave_up:
            self._event("avenger_gives_up", gives_up, AVENGER, self.give_up_s, step, self.axy)
            self.last_end = step
        self._last_seen(chasing)  # his goal after: where he makes for now is set (`pursuers`)
        if not walks and self.skips_idle:  # nobody moves, so nobody reaches anyone
            return
        reached, _ = self.ave.move(self.graph, tau, self.a_across, to_edge, to_s, to_xy, self.axy)
        # only one who moved can kill; he must be on his way
        turned, killed = np.empty(len(tau), dtype=bool), np.empty(len(tau), dtype=bool)
        met = compiled().contact(
            step,
            tau,
            reached,
            chasing,
            self.axy,
            self.fxy,
            self.capture_m,
            self.deterred_if,
            self.deterred,
            self.captured,
            self.f_end,
            self.a_end,
            turned,
            killed,
        )
        if not met:
            return
        if turned.any():  # the escorts, or his own plea (Mishnah Makkot 2:5): whoever spoke
            who = turned.nonzero()[0]
            speaker = self.persuader[who]
            rule, cite = RULE[speaker], CITATION[speaker]
            self._log("deterred", who, AVENGER, t, step, self.axy[who], rule=rule, cite=cite)
        self._event("capture", killed, FUGITIVE, t, step, self.fxy, self.heading)
        self.last_end = step

    def _last_seen(self, seen: Bools) -> None:
        """`sees_him`: where an avenger sees his fugitive is where he will look for him."""
        if self.knows != "sees_him" or not seen.any():
            return
        self.a_goal_edge[seen], self.a_goal_s[seen] = self.fug.edge[seen], self.fug.s[seen]
        self.a_goal_xy[seen] = self.fxy[seen]

    def _record(self, step: int, t_prev: float, started: Bools) -> None:
        """Trajectory rows: every `record_every` steps, at each agent's first step, and at
        the step he ends and the one after (so every agent has at least two rows)."""
        if self._nobody_due(step, t_prev):
            return
        regular = step % self.record_every == 0  # type: ignore[operator]  # not None: step() checks
        fugitive, avenger = np.empty(len(started), dtype=bool), np.empty(len(started), dtype=bool)
        compiled().due(
            step,
            regular,
            t_prev,
            started,
            self.t0_s,
            self.recorded,
            self.f_end,
            self.a_end,
            fugitive,
            avenger,
        )
        self.log.row(fugitive, FUGITIVE, step, self.fxy, self.city, self.captured, ids=self.ids)
        self.log.row(
            avenger, AVENGER, step, self.axy, self.nowhere, self.never_captured, ids=self.ids
        )

    def _nobody_due(self, step: int, t_prev: float) -> bool:
        """Whether no trajectory row falls at `step` (known without looking at the agents):
        not a regular row's step, every agent started before, nobody ended now or just
        before."""
        return bool(
            step % self.record_every  # type: ignore[operator]  # not None: step() checks
            and t_prev >= self.last_start
            and self.last_end < step - 1
        )

    def done(self, step: int) -> bool:
        """Whether every agent ended before this step (and so has its last row)."""
        return bool(compiled().ended(self.f_end, self.a_end, step) == len(self.f_end))

    def result(self, step: int) -> Flight:
        """Close the flight at `step`: the still running meet the horizon."""
        alive = self.f_end == NEVER  # of the working rows: every one alive is among them
        self._event("horizon", alive, FUGITIVE, step * self.dt_s, step, self.fxy, self.heading)
        self._store(np.ones(len(self.ids), dtype=bool))
        out = self.outcome
        alive = out["f_end"] == NEVER
        outcomes = {
            "outcome": np.where(out["captured"], CAPTURE, np.where(alive, HORIZON, ARRIVAL)),
            "city": self.world.city_names(np.where(out["captured"], -1, out["city"])),
            "heading": self.place_name[out["heading"]],
            "end_s": np.where(alive, np.nan, out["f_end"] * self.dt_s),
            "run_m": out["run_m"],
            "deterred": out["deterred"],
            "gave_up": out["gave_up"],
            "x": out["fxy"][:, 0],
            "y": out["fxy"][:, 1],
        }
        tracks = self.log.take_tracks()
        return Flight(self.world, self.log, tracks, outcomes, self.dt_s, self.reception)


def run_flight(
    world: World,
    *,
    dt_s: float,
    horizon_s: float,
    knows: AvengerKnows = "nearest_city",
    sight_m: float = 300.0,
    capture_m: float = 20.0,
    record_every: int | None = 1,
    recorded: Bools | None = None,
    logged: Bools | None = None,
    conditions: CityConditions | None = None,
    progress: Progress | None = None,
) -> Flight:
    """Step the flight of every manslayer and the pursuit of every avenger until the horizon
    (or until every incident has ended).

    Parameters
    ----------
    world
        From `build_world`.
    dt_s, horizon_s
        Time step and horizon, seconds.
    knows
        What the avenger knows of the way: ``"sees_him"``, ``"nearest_city"`` or
        ``"destination"`` (see `scenario.Avenger`).
    sight_m
        The avenger and the fugitive see each other within this distance (metres): he chases
        him, and the fugitive may leave the road (`World.leaves_road`).
    capture_m
        The avenger kills a fugitive outside asylum within this distance (metres), or whom he
        reaches along the road within the step.
    record_every
        Record trajectory rows every this many steps (and at each agent's first and last); None
        records none (benchmarks).
    recorded
        The incidents whose trajectory rows are recorded (default: all).
    logged
        The incidents whose events are logged (default: all): the events of the others are
        not kept (`EventLog.keep`: a flight's outcomes are the same).
    conditions
        What a city must be to receive (the scenario's ``cities:``; default: every city has
        elders and room for a middling town's population).
    progress
        Called as ``progress(step, n_steps)`` after each step.

    Returns
    -------
    Flight
        The end state: each incident's outcome, the events, the trajectory rows and the
        cities' reception.
    """
    pursuit = _Pursuit(
        world,
        dt_s=dt_s,
        knows=knows,
        sight_m=sight_m,
        capture_m=capture_m,
        record_every=record_every,
        recorded=recorded,
        logged=logged,
        conditions=conditions or CityConditions(),
    )
    n_steps = int(np.ceil(horizon_s / dt_s - 1e-9))
    step = 0
    for step in range(n_steps + 1):
        pursuit.step(step)
        if progress is not None:
            progress(step, n_steps)
        if pursuit.done(step):
            break
    return pursuit.result(step)


def flight_options(scenario: Scenario, *, record: bool = True) -> dict[str, Any]:
    """The keyword arguments of `run_flight` a scenario sets: time step, horizon, what the
    avenger knows, sight and capture distances, recording (none if not `record`) and the
    cities' conditions."""
    return {
        "dt_s": scenario.dt_s,
        "horizon_s": scenario.horizon_h * 3600.0,
        "knows": scenario.avenger.knows,
        "sight_m": scenario.avenger.sight_m,
        "capture_m": scenario.avenger.capture_m,
        "record_every": scenario.output.record_every_steps if record else None,
        "conditions": scenario.cities,
    }


def fly(
    scenario: Scenario, world: World, *, progress: Progress | None = None, record: bool = True
) -> Flight:
    """`run_flight` with the scenario's `flight_options` (a `world` built from it)."""
    return run_flight(world, **flight_options(scenario, record=record), progress=progress)
