"""Flight and pursuit throughput: this engine against two idiomatic Mesa-Geo models, in one run.

All run the same flight on the real network with the same incidents, speeds and delays: each
manslayer walks to the nearest city of refuge, the asylum predicate is asked for every fugitive
each step, and an avenger kills a fugitive he reaches outside asylum. The engine steps all agents
in compiled loops over its arrays (numba, `simulation/_compiled.py`) under the default rules
(`avenger.knows: nearest_city`): the avenger goes by the
shortest road to the gate of the city nearest the scene and chases the fugitive by the roads
(re-routing every step to his road position, precomputed all-pairs next hops) while the two are
within `avenger.sight_m`; a fugitive who sees him may leave the road (`World.leaves_road`) and go
straight across country for his city, and an avenger after one off the road follows him straight.

The Mesa-Geo models are written as a Mesa-Geo user would: a `GeoAgent` per fugitive and per
avenger in a `GeoSpace`, a Python `step` method each, zones as GeoAgents asked through
`GeoSpace.get_relation`, `GeoSpace.distance` for sight and capture, the fugitive's route
precomputed with the router. They differ only in the avenger:

- same rules: the avenger walks his precomputed route to the gate (re-routed from where he is
  when he loses sight of the fugitive); while he sees the fugitive he takes, every step, the
  shortest road path (weight ``length_m``) from his nearest node to the fugitive's nearest node,
  joins that path (plus the last straight leg to the fugitive) at its nearest point and walks
  speed * dt along it, reaching its end being reaching the fugitive; after a fugitive who left
  the road, straight at him at his off-road speed. The fugitive who sees him and would leave the
  road goes straight for the end of his route at his off-road speed. Only the geometry of the
  first and last leg is simpler (straight). As a Mesa-Geo user would on a graph of a few dozen
  nodes, the model computes every pair's shortest path once (`networkx.all_pairs_dijkstra_path`,
  as the engine precomputes its all-pairs next hops) and caches each path's coordinates;
  nearest nodes come from a shapely STRtree.
- lighter, trail following: the avenger follows the fugitive's trail (straight to the place of
  the killing, then the fugitive's precomputed route) and the fugitive keeps to the road, which
  is less work per step than the rules above and so flatters Mesa-Geo.

Counted: active agent-steps (a fugitive and his avenger count until the fugitive arrives or is
killed) per second of the stepping loop only; building the agents and routes is not timed for
any. The ratios compare like with like: the engine and the Mesa-Geo models over the same first
`MESA_STEPS`, each side timed the same way, the median of `REPEATS` runs (a fresh model each
time), the sides' runs interleaved (engine, each Mesa-Geo model, and again: a slow spell of a
loaded machine falls on every side alike); the engine's rate over the whole hour (`STEPS`, as
agents finish and fewer stay active) is printed too, also the median of `REPEATS`. Each rate is
given by wall-clock time and, labelled "CPU", by this process's CPU time over the same loop
(steadier when the machine is loaded); the load average is printed beside the figures. Peak
memory: the traced peak of the engine's run (tracemalloc, a separate untimed pass) and the
process's maximum resident size.

First (`compiled_start`) the cost of the engine's compiled loops to a process: its first flight
(numba's import and the loading of the kernels from numba's cache, or their compilation when the
cache is cold) against the same flight again; every figure after it is taken warm.

Then the engine alone (`engine_sizes`): 8, 1k, 10k and 100k incidents (1M with ``--million``:
about 5 GB and a few minutes), whole `run_flight` calls over the hour, set-up included; stacked
runs against the same runs one by one (`stacked_vs_alone`: 30 replications of 1k incidents, 64
sweep-sized runs of 8); and the default scenario's own flight, 120 hours (`default_flight`):
its 30 replications stacked, and one replication alone.

Run: ``.venv/bin/pip install -e '.[bench]'`` then ``.venv/bin/python benchmarks/bench_flight.py``
(``--no-mesa`` for the engine's figures alone).
"""

from __future__ import annotations

import argparse
import math
import resource
import statistics
import sys
import time
import tracemalloc
import warnings
from collections.abc import Callable
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import Any

import mesa
import mesa_geo as mg
import networkx as nx
import numpy as np
from shapely import STRtree
from shapely.geometry import LineString, Point

from geo import REGION_CRS
from geo.roads import Route
from refuge_map.simulation import Scenario
from refuge_map.simulation._setup import World, build_world
from refuge_map.simulation.engine import Flight, fly, run_flight
from refuge_map.simulation.replications import replication_seeds
from refuge_map.simulation.scenario import load_scenario
from refuge_map.simulation.stack import fly_stacked

from _timing import clock, load, median

DT_S = 60.0
STEPS = 60  # one hour of flight
MESA_STEPS = 10  # the first ten minutes, when nearly every agent is active
REPEATS = 5  # each side: the median of five runs, the sides interleaved (`interleaved`)
CAPTURE_M = 20.0
SIGHT_M = 300.0  # the scenario default (`avenger.sight_m`)
SIZES = (16, 1_000, 10_000)  # agents: half fugitives, half avengers (16: a sweep-sized run)
DEFAULT = "data/scenarios/default.yaml"
#: `run_flight`'s options for an hour of flight without recording (every engine-alone figure)
HOUR_UNRECORDED: dict[str, Any] = {
    "dt_s": DT_S,
    "horizon_s": STEPS * DT_S,
    "sight_m": SIGHT_M,
    "capture_m": CAPTURE_M,
    "record_every": None,
}


def world(n_incidents: int, seed: int = 35) -> World:
    """Incidents along the roads; avengers set out at once from homes up to 3 km away."""
    scenario = Scenario.model_validate(
        {
            "name": "bench",
            "generate": {
                "n": n_incidents,
                "home_distance_km": {"dist": "uniform", "low": 0, "high": 3},
            },
            # word of the killing runs to the kin (news_speed_kmh); within the hour benchmarked
            # both walk (walk_h_per_day) and no heart cools: the Mesa-Geo model's rules
            "avenger": {
                "delay_h": {"dist": "fixed", "value": 0},
                "give_up_per_day": 0.0,
                "sight_m": SIGHT_M,
            },
        }
    )
    return build_world(scenario, seed=seed)


def bench_engine(w: World, steps: int = STEPS) -> tuple[float, float]:
    """Active agent-steps per second of the engine's stepping loop (steps 1..`steps`), by wall
    clock and by CPU time."""
    marks: list[tuple[float, float]] = []
    flight = run_flight(
        w,
        dt_s=DT_S,
        horizon_s=steps * DT_S,
        sight_m=SIGHT_M,
        capture_m=CAPTURE_M,
        record_every=None,
        progress=lambda step, n_steps: marks.append((time.perf_counter(), time.process_time())),
    )
    steps = len(marks) - 1
    end_step = (flight.outcomes["end_s"] / DT_S).fillna(steps).clip(upper=steps)
    active = 2 * float(end_step.sum())
    (wall0, cpu0), (wall1, cpu1) = marks[0], marks[-1]
    return active / (wall1 - wall0), active / (cpu1 - cpu0)


def engine_peak_mb(w: World) -> float:
    """Traced peak memory (MB) of one engine run."""
    tracemalloc.start()
    run_flight(w, **HOUR_UNRECORDED)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1e6


# --------------------------------------------------------------------------- Mesa-Geo


class Zone(mg.GeoAgent):
    """A city's protecting zone, an agent of the space that does not move."""

    def step(self) -> None:
        """Zones do nothing."""


class Fugitive(mg.GeoAgent):
    """A manslayer walking his route to the gate of the nearest city of refuge; one who would
    leave the road goes straight across country for its end once he sees his avenger."""

    model: PursuitModel

    def __init__(
        self,
        model: PursuitModel,
        route: Route,
        speed: float,
        offroad: float,
        *,
        leaves_road: bool,
    ) -> None:
        super().__init__(model, Point(route.geometry.coords[0]), model.space.crs)
        self.route, self.speed, self.offroad, self.along = route.geometry, speed, offroad, 0.0
        self.road_from = route.offroad_m  # he is on the road past his off-road leg
        self.leaves_road, self.across = leaves_road, False
        self.avenger: Avenger | None = None
        self.in_asylum = False
        self.captured = False

    def step(self) -> None:
        """Walk speed * dt along the route (or across country), then ask the space whether he
        is in a zone, and look out for his avenger."""
        if self.in_asylum or self.captured:
            return
        if self.across:
            self.geometry = toward(self.geometry, Point(self.route.coords[-1]), self.offroad * DT_S)
        else:
            self.along = min(self.along + self.speed * DT_S, self.route.length)
            self.geometry = self.route.interpolate(self.along)
        within = self.model.space.get_relation(self, "within")
        self.in_asylum = any(isinstance(other, Zone) for other in within)
        avenger = self.avenger
        on_road = self.along >= self.road_from and not self.across
        if self.leaves_road and on_road and avenger is not None and avenger.on_his_way():
            self.across = self.model.space.distance(self, avenger) <= SIGHT_M


def toward(here: Point, there: Point, budget: float) -> Point:
    """`budget` metres from `here` straight towards `there` (there, if nearer)."""
    gap = here.distance(there)
    if gap <= budget:
        return there
    return LineString([here, there]).interpolate(budget)


class Avenger(mg.GeoAgent):
    """An avenger after one fugitive; a subclass says how he moves (`move`)."""

    model: PursuitModel

    def __init__(
        self, model: PursuitModel, start: Point, prey: Fugitive, speed: float, setout_s: float
    ) -> None:
        super().__init__(model, start, model.space.crs)
        self.prey, self.speed, self.setout_s = prey, speed, setout_s
        prey.avenger = self

    def on_his_way(self) -> bool:
        """Whether word has reached him and he has set out."""
        return self.model.steps * DT_S >= self.setout_s

    def step(self) -> None:
        """Once word has reached him, move towards the prey unless he is safe or dead; kill
        him if reached or near."""
        prey = self.prey
        if prey.in_asylum or prey.captured or not self.on_his_way():
            return
        reached = self.move(self.speed * DT_S)
        if reached or self.model.space.distance(self, prey) <= CAPTURE_M:
            prey.captured = True

    def move(self, budget: float) -> bool:
        """Walk up to `budget` metres; True if he reached the prey on the way."""
        raise NotImplementedError


class GateAvenger(Avenger):
    """The default rules: to the gate of the city nearest the scene, chasing the fugitive by
    the roads (re-routing each step) while he sees him, straight after one off the road."""

    def __init__(
        self,
        model: PursuitModel,
        start: Point,
        prey: Fugitive,
        speed: float,
        setout_s: float,
        *,
        offroad: float,
        city: str,
    ) -> None:
        super().__init__(model, start, prey, speed, setout_s)
        self.offroad, self.city = offroad, city
        # his route to the gate: precomputed (as the fugitive's), then from where he lost sight
        self.way: LineString | None = model.gate_route(city, start)
        self.along, self.across = 0.0, False

    def move(self, budget: float) -> bool:
        """Chase the prey in sight, else walk on towards the gate."""
        model, prey = self.model, self.prey
        if model.space.distance(self, prey) <= SIGHT_M:
            self.way = None
            if prey.across or self.across:
                self.across = True
                self.geometry = toward(self.geometry, prey.geometry, self.offroad * DT_S)
                return self.geometry.distance(prey.geometry) <= 0.0
            return self.chase(budget)
        if self.across:  # off the road he goes straight for the gate
            end = Point(model.gate_route(self.city, self.geometry).coords[-1])
            self.geometry = toward(self.geometry, end, self.offroad * DT_S)
            return False
        if self.way is None:
            self.way, self.along = model.gate_route(self.city, self.geometry), 0.0
        self.along = min(self.along + budget, self.way.length)
        self.geometry = self.way.interpolate(self.along)
        return False

    def chase(self, budget: float) -> bool:
        """Route from his nearest node to the fugitive's, join the path at its nearest point
        (straight, off-road if he is off it) and walk along it; its end is the fugitive."""
        model, here, there = self.model, self.geometry, self.prey.geometry
        coords = model.path_coords(model.nearest_node(here), model.nearest_node(there))
        path = LineString([*coords, there.coords[0]])
        join = path.project(here)
        gap = here.distance(path.interpolate(join))
        if gap > budget:
            self.geometry = LineString([here, path.interpolate(join)]).interpolate(budget)
            return False
        along = join + budget - gap
        self.geometry = path.interpolate(along)
        return along >= path.length


class TrailAvenger(Avenger):
    """Lighter: on the fugitive's trail, straight to the place of the killing, then his route."""

    def __init__(
        self, model: PursuitModel, start: Point, prey: Fugitive, speed: float, setout_s: float
    ) -> None:
        super().__init__(model, start, prey, speed, setout_s)
        self.along = 0.0
        self.trail = LineString([start, *prey.route.coords])
        self.lead = start.distance(Point(prey.route.coords[0]))

    def move(self, budget: float) -> bool:
        """Walk along the trail; he reaches the prey when he overtakes him on it."""
        self.along = min(self.along + budget, self.trail.length)
        self.geometry = self.trail.interpolate(self.along)
        return self.along >= self.lead + self.prey.along


class PursuitModel(mesa.Model):
    """The pursuit as a Mesa-Geo model: GeoAgents in a GeoSpace, one step method each.

    Parameters
    ----------
    w
        The world whose incidents, speeds and network are used.
    avenger
        The avenger class (`GateAvenger` or `TrailAvenger`).
    seed
        Mesa's seed (nothing here draws from it).
    """

    def __init__(self, w: World, avenger: type[Avenger], seed: int = 35) -> None:
        super().__init__(seed=seed)
        self.avenger = avenger
        self.space = mg.GeoSpace(crs=REGION_CRS.to_wkt(), warn_crs_conversion=False)
        self.space.add_agents(
            [Zone(self, zone, self.space.crs) for zone in w.network.zones.geometry]
        )
        self.roads: nx.MultiGraph = w.network.roads
        self.router = w.network.router
        self._node_ids = list(self.roads.nodes)
        self._node_tree = STRtree([Point(self._xy(node)) for node in self._node_ids])
        self.paths = dict(nx.all_pairs_dijkstra_path(self.roads, weight="length_m"))
        _, heading = self.router.distance_to_gates(w.place[:, 0], w.place[:, 1])
        gated = avenger is GateAvenger
        for i in range(w.n):
            x, y, city = float(w.place[i, 0]), float(w.place[i, 1]), str(heading[i])
            fugitive = Fugitive(
                self,
                self.router.route(x, y, city),
                float(w.fugitive_road[i]),
                float(w.fugitive_offroad[i]),
                leaves_road=gated and bool(w.leaves_road[i]),
            )
            more = {"offroad": float(w.avenger_offroad[i]), "city": city} if gated else {}
            chaser = avenger(
                self,
                Point(w.avenger_start[i]),
                fugitive,
                float(w.avenger_road[i]),
                float(w.setout_s[i]),
                **more,
            )
            self.space.add_agents([fugitive, chaser])

    def gate_route(self, city: str, here: Point) -> LineString:
        """The shortest way from `here` to the nearest gate of `city` (the router's)."""
        return self.router.route(here.x, here.y, city).geometry

    def step(self) -> None:
        """Fugitives first, then avengers (as the engine does)."""
        self.agents_by_type[Fugitive].do("step")
        self.agents_by_type[self.avenger].do("step")

    def _xy(self, node: int) -> tuple[float, float]:
        """A road node's coordinates (metres)."""
        data = self.roads.nodes[node]
        return data["x"], data["y"]

    def nearest_node(self, point: Point) -> int:
        """The road node nearest to `point`."""
        return self._node_ids[int(self._node_tree.nearest(point))]

    @cache  # noqa: B019 - one model per benchmark run
    def path_coords(self, a: int, b: int) -> list[tuple[float, float]]:
        """Coordinates along the shortest road path from node `a` to node `b` (the shortest
        of parallel edges), from the all-pairs paths."""
        nodes = self.paths[a][b]
        coords = [self._xy(nodes[0])]
        for a, b in pairwise(nodes):
            coords += self._leg(a, b)[1:]
        return coords

    @cache  # noqa: B019 - one model per benchmark run
    def _leg(self, a: int, b: int) -> list[tuple[float, float]]:
        """The coordinates of the shortest edge from node `a` to node `b`, oriented a to b."""
        edge = min(self.roads[a][b].values(), key=lambda data: data["length_m"])
        coords = list(edge["geometry"].coords)
        if math.dist(coords[0], self._xy(a)) > math.dist(coords[-1], self._xy(a)):
            coords.reverse()
        return coords


def bench_mesa(w: World, avenger: type[Avenger], steps: int) -> tuple[float, float]:
    """Active agent-steps per second of a Mesa-Geo model's stepping loop over `steps` steps,
    by wall clock and by CPU time (a fresh model; building it is not timed)."""
    model = PursuitModel(w, avenger)
    fugitives = list(model.agents_by_type[Fugitive])
    active, seconds, cpu_seconds = 0, 0.0, 0.0
    for _ in range(steps):
        active += 2 * sum(not (f.in_asylum or f.captured) for f in fugitives)
        start, cpu_start = time.perf_counter(), time.process_time()
        model.step()
        seconds += time.perf_counter() - start
        cpu_seconds += time.process_time() - cpu_start
    return active / seconds, active / cpu_seconds


def interleaved(
    runs: dict[str, Callable[[], tuple[float, float]]],
) -> dict[str, list[tuple[float, float]]]:
    """`REPEATS` rounds of every run in `runs` in turn (one of each, then again), so that a
    slow spell of a loaded machine falls on all of them alike: each run's (wall, CPU) rates."""
    rates: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
    for _ in range(REPEATS):
        for name, run in runs.items():
            rates[name].append(run())
    return rates


# label and avenger class of each Mesa-Geo model
VARIANTS: tuple[tuple[str, type[Avenger]], ...] = (
    ("same rules: gate, chase in sight", GateAvenger),
    ("lighter: trail following", TrailAvenger),
)


def mesa_comparison() -> None:
    """Print the engine's agent-steps per second and peak memory at each size, then each
    Mesa-Geo variant's rate and the engine's ratio to it."""
    warnings.simplefilter("ignore")
    print(
        f"steps of {DT_S:.0f} s; ratios over the first {MESA_STEPS} steps for both; "
        f"each figure the median of {REPEATS} runs, the sides' runs interleaved"
    )
    for agents in SIZES:
        w = world(agents // 2)
        hour, hour_cpu = median([bench_engine(w) for _ in range(REPEATS)])
        runs = {"engine": lambda w=w: bench_engine(w, MESA_STEPS)} | {
            label: lambda w=w, avenger=avenger: bench_mesa(w, avenger, MESA_STEPS)
            for label, avenger in VARIANTS
        }
        rates = interleaved(runs)
        engine, engine_cpu = median(rates["engine"])
        peak = engine_peak_mb(w)
        print(
            f"{agents:,} agents: engine {engine:,.0f} agent-steps/s (CPU {engine_cpu:,.0f}) "
            f"over {MESA_STEPS} steps; {hour:,.0f} (CPU {hour_cpu:,.0f}) over the hour's "
            f"{STEPS}; peak {peak:.1f} MB; {load()}"
        )
        for label, _ in VARIANTS:
            rate, rate_cpu = median(rates[label])
            print(
                f"  mesa-geo, {label + ':':<34} {rate:>9,.0f} agent-steps/s "
                f"(CPU {rate_cpu:,.0f}) over {MESA_STEPS} steps; "
                f"engine / mesa-geo = {engine / rate:,.0f}x (CPU {engine_cpu / rate_cpu:,.0f}x); "
                f"{load()}"
            )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"process max RSS: {rss:.0f} MB (Python {sys.version.split()[0]}, one core)")


# --------------------------------------------------------------------------- engine alone


def active_agent_steps(flight: Flight, steps: int) -> float:
    """Agent-steps while active: a fugitive and his avenger count until he ends (`steps` at
    the horizon), from the step of his killing."""
    start = np.floor(flight.world.t0_s / flight.dt_s)
    end = (flight.outcomes["end_s"].to_numpy() / flight.dt_s).copy()
    end[np.isnan(end)] = steps
    return 2 * float(np.maximum(np.minimum(end, steps) - start, 0).sum())


def timed_flights(fly: Callable[[], list[Flight]], steps: int) -> tuple[float, float, float]:
    """Wall and CPU seconds of `fly` (set-up and splitting included) and the active
    agent-steps of the flights it returns."""
    flights, (wall, cpu) = clock(fly)
    return wall, cpu, sum(active_agent_steps(f, steps) for f in flights)


def rate_line(label: str, wall: float, cpu: float, active: float) -> str:
    """A figure: agent-steps per second by wall clock and CPU, and the seconds."""
    return (
        f"{label}: {active / wall:,.0f} agent-steps/s (CPU {active / cpu:,.0f}); "
        f"{wall:.2f} s wall, {cpu:.2f} s CPU; {load()}"
    )


def engine_sizes(million: bool) -> None:
    """The engine at 8, 1k, 10k, 100k (and 1M) incidents over the hour: whole calls, set-up
    included (median of `REPEATS` up to 10k, one run above)."""
    for n in (8, 1_000, 10_000, 100_000, *((1_000_000,) if million else ())):
        w = world(n)
        runs = [
            timed_flights(lambda w=w: [run_flight(w, **HOUR_UNRECORDED)], STEPS)
            for _ in range(REPEATS if n <= 10_000 else 1)
        ]
        wall, cpu, active = (statistics.median(r[k] for r in runs) for k in range(3))
        print(rate_line(f"engine, {n:,} incidents over {STEPS} steps", wall, cpu, active))


def stacked_vs_alone(runs: int, n: int, steps: int = STEPS) -> None:
    """`runs` runs of `n` incidents (seeds 0, 1, ...) one by one and stacked into one flight."""
    scenario = Scenario.model_validate(  # the flight's options only
        {"name": "bench", "dt_s": DT_S, "horizon_h": steps * DT_S / 3600, "generate": {"n": 1}}
    )
    worlds = [world(n, seed) for seed in range(runs)]
    assert scenario.avenger.capture_m == CAPTURE_M
    alone = timed_flights(lambda: [fly(scenario, w, record=False) for w in worlds], steps)
    together = timed_flights(lambda: fly_stacked(scenario, worlds, recorded=[False] * runs), steps)
    print(rate_line(f"{runs} runs of {n:,} incidents one by one", *alone))
    print(rate_line(f"{runs} runs of {n:,} incidents stacked", *together))
    print(
        f"  stacked / one by one: {alone[0] / together[0]:.1f}x wall, "
        f"{alone[1] / together[1]:.1f}x CPU"
    )


def default_flight() -> None:
    """The default scenario's flight (120 h): its replications stacked, and one alone."""
    scenario = load_scenario(Path(__file__).resolve().parents[1] / DEFAULT)
    worlds = [build_world(scenario, seed) for seed in replication_seeds(scenario)]
    steps = math.ceil(scenario.horizon_h * 3600 / scenario.dt_s)
    one = timed_flights(lambda: [fly(scenario, worlds[0], record=False)], steps)
    stacked = timed_flights(
        lambda: fly_stacked(scenario, worlds, recorded=[False] * len(worlds)), steps
    )
    print(rate_line("default scenario, one replication", *one))
    print(rate_line(f"default scenario, {len(worlds)} replications stacked", *stacked))
    ratio = len(worlds) * one[0] / stacked[0]
    print(f"  {len(worlds)} stacked against {len(worlds)} x one: {ratio:.1f}x wall")


def compiled_start() -> None:
    """Print the first flight of this process (numba imported, the kernels loaded from the
    cache or compiled) against the same flight again: what the compiled step adds to a run's
    start."""
    w = world(8)
    (_, (first, first_cpu)), (_, (again, again_cpu)) = (
        clock(run_flight, w, **HOUR_UNRECORDED) for _ in range(2)
    )
    print(
        f"compiled step: first flight {first:.2f} s wall ({first_cpu:.2f} s CPU: numba's "
        f"import and its cached kernels), then {again:.3f} s ({again_cpu:.3f} s CPU); {load()}"
    )


def main() -> None:
    """The Mesa-Geo comparison (unless ``--no-mesa``), then the engine alone: sizes, stacked
    against one by one, the default scenario."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-mesa", action="store_true", help="skip the Mesa-Geo comparison")
    parser.add_argument("--million", action="store_true", help="also 1M incidents (~5 GB)")
    args = parser.parse_args()
    compiled_start()
    if not args.no_mesa:
        mesa_comparison()
    engine_sizes(args.million)
    stacked_vs_alone(30, 1_000)
    stacked_vs_alone(64, 8)
    default_flight()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"process max RSS: {rss:.0f} MB")


if __name__ == "__main__":
    main()
