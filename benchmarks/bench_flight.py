"""Flight and pursuit throughput: this engine against an idiomatic Mesa-Geo model, in one run.

Both run the same pursuit on the real network with the same incidents, speeds and delays: each
manslayer walks off-road to the nearest road and along it to the nearest city of refuge, the
asylum predicate is asked for every fugitive each step, and an avenger kills a fugitive he
reaches outside asylum. The engine steps all agents as numpy arrays (its avenger re-routes to the
fugitive's current road position every step). The Mesa-Geo model is written as a Mesa-Geo user
would: a `GeoAgent` per fugitive and per avenger in a `GeoSpace`, a Python `step` method each,
zones as GeoAgents asked through `GeoSpace.get_relation`, `GeoSpace.distance` for the capture,
routes precomputed with the router, and the avenger following the fugitive's trail (straight to
the place of the killing, then his route), which is less work per step than re-routing.

Counted: active agent-steps (a fugitive and his avenger count until the fugitive arrives or is
killed) per second of the stepping loop only; building the agents and routes is not timed for
either. Peak memory: the traced peak of the
engine's run (tracemalloc, a separate untimed pass) and the process's maximum resident size.

Run: ``.venv/bin/pip install -e '.[bench]'`` then ``.venv/bin/python benchmarks/bench_flight.py``.
"""

from __future__ import annotations

import resource
import sys
import time
import tracemalloc
import warnings

import mesa
import mesa_geo as mg
from shapely.geometry import LineString, Point

from geo import REGION_CRS
from refuge_map.simulation import Scenario
from refuge_map.simulation._setup import World, build_world
from refuge_map.simulation.engine import run_flight

DT_S = 60.0
STEPS = 60  # one hour of flight
MESA_STEPS = 10
CAPTURE_M = 20.0
SIZES = (1_000, 10_000)  # agents: half fugitives, half avengers


def world(n_incidents: int) -> World:
    """Incidents along the roads; avengers set out at once from homes up to 3 km away."""
    scenario = Scenario.model_validate(
        {
            "name": "bench",
            "generate": {
                "n": n_incidents,
                "home_distance_km": {"dist": "uniform", "low": 0, "high": 3},
            },
            "avenger": {"delay_h": {"dist": "fixed", "value": 0}},
        }
    )
    return build_world(scenario, seed=35)


def bench_engine(w: World) -> float:
    """Active agent-steps per second of the engine's stepping loop (steps 1..STEPS)."""
    marks: list[float] = []
    flight = run_flight(
        w,
        dt_s=DT_S,
        horizon_s=STEPS * DT_S,
        capture_m=CAPTURE_M,
        record_every=None,
        progress=lambda step, n_steps: marks.append(time.perf_counter()),
    )
    steps = len(marks) - 1
    end_step = (flight.outcomes["end_s"] / DT_S).fillna(steps).clip(upper=steps)
    return 2 * float(end_step.sum()) / (marks[-1] - marks[0])


def engine_peak_mb(w: World) -> float:
    """Traced peak memory (MB) of one engine run."""
    tracemalloc.start()
    run_flight(w, dt_s=DT_S, horizon_s=STEPS * DT_S, capture_m=CAPTURE_M, record_every=None)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1e6


# --------------------------------------------------------------------------- Mesa-Geo


class Zone(mg.GeoAgent):
    """A city's protecting zone, an agent of the space that does not move."""

    def step(self) -> None:
        """Zones do nothing."""


class Fugitive(mg.GeoAgent):
    """A manslayer walking his route to the gate of the nearest city of refuge."""

    def __init__(self, model: PursuitModel, route: LineString, speed: float) -> None:
        super().__init__(model, Point(route.coords[0]), model.space.crs)
        self.route, self.speed, self.along = route, speed, 0.0
        self.in_asylum = False
        self.captured = False

    def step(self) -> None:
        if self.in_asylum or self.captured:
            return
        self.along = min(self.along + self.speed * DT_S, self.route.length)
        self.geometry = self.route.interpolate(self.along)
        within = self.model.space.get_relation(self, "within")
        self.in_asylum = any(isinstance(other, Zone) for other in within)


class Avenger(mg.GeoAgent):
    """The avenger on the fugitive's trail: to the place of the killing, then his route."""

    def __init__(self, model: PursuitModel, start: Point, prey: Fugitive, speed: float) -> None:
        super().__init__(model, start, model.space.crs)
        self.prey, self.speed, self.along = prey, speed, 0.0
        self.trail = LineString([start, *prey.route.coords])
        self.lead = start.distance(Point(prey.route.coords[0]))

    def step(self) -> None:
        prey = self.prey
        if prey.in_asylum or prey.captured:
            return
        self.along = min(self.along + self.speed * DT_S, self.trail.length)
        self.geometry = self.trail.interpolate(self.along)
        overtaken = self.along >= self.lead + prey.along
        if overtaken or self.model.space.distance(self, prey) <= CAPTURE_M:
            prey.captured = True


class PursuitModel(mesa.Model):
    """The same pursuit as a Mesa-Geo model: GeoAgents in a GeoSpace, one step method each."""

    def __init__(self, w: World, seed: int = 35) -> None:
        super().__init__(seed=seed)
        self.space = mg.GeoSpace(crs=REGION_CRS.to_wkt(), warn_crs_conversion=False)
        self.space.add_agents(
            [Zone(self, zone, self.space.crs) for zone in w.network.zones.geometry]
        )
        router = w.network.router
        _, heading = router.distance_to_gates(w.place[:, 0], w.place[:, 1])
        for i in range(w.n):
            route = router.route(float(w.place[i, 0]), float(w.place[i, 1]), str(heading[i]))
            fugitive = Fugitive(self, route.geometry, float(w.fugitive_road[i]))
            avenger = Avenger(self, Point(w.avenger_start[i]), fugitive, float(w.avenger_road[i]))
            self.space.add_agents([fugitive, avenger])

    def step(self) -> None:
        self.agents_by_type[Fugitive].do("step")
        self.agents_by_type[Avenger].do("step")


def bench_mesa(w: World) -> float:
    """Active agent-steps per second of the Mesa-Geo model's stepping loop."""
    model = PursuitModel(w)
    fugitives = list(model.agents_by_type[Fugitive])
    active, seconds = 0, 0.0
    for _ in range(MESA_STEPS):
        active += 2 * sum(not (f.in_asylum or f.captured) for f in fugitives)
        start = time.perf_counter()
        model.step()
        seconds += time.perf_counter() - start
    return active / seconds


def main() -> None:
    """Print agent-steps per second for both at each size, the ratio and peak memory."""
    warnings.simplefilter("ignore")
    print(f"{'agents':>8} {'engine/s':>14} {'mesa-geo/s':>12} {'ratio':>8} {'engine peak MB':>15}")
    for agents in SIZES:
        w = world(agents // 2)
        engine = bench_engine(w)
        mesa_rate = bench_mesa(w)
        peak = engine_peak_mb(w)
        ratio = engine / mesa_rate
        print(f"{agents:>8} {engine:>14,.0f} {mesa_rate:>12,.0f} {ratio:>7.0f}x {peak:>15.1f}")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"process max RSS: {rss:.0f} MB (Python {sys.version.split()[0]}, one core)")


if __name__ == "__main__":
    main()
