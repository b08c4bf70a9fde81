"""Benchmark the coverage field: the vectorized field against a per-origin networkx loop.

Times `refuge_map.coverage.coverage_field` on the full 500 m grid of the land (about 118,000
cells, shipped network, scenario defaults, 256 speed draws) and a straightforward per-origin
loop on a 500-cell sample: for each cell, the nearest road segment by shapely, a networkx
Dijkstra from the gates, and the chance to reach asylum from the same speed draws with numpy.
Checks that both give the same way and the same probability (the field's probability is
tabulated and interpolated: within `TABLE_TOLERANCE` of the exact one, which is also checked on
the whole grid), and prints the per-cell speed-up (goal: at least 100x) and the full grid's
time, by the wall clock and by the process's CPU time (the machine may be shared).

Run: ``.venv/bin/python benchmarks/bench_coverage.py``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import networkx as nx
import numpy as np
import shapely
from numpy.typing import NDArray

from geo import RefugeNetwork, load_network
from geo.roads import graph_to_gdfs
from refuge_map.analysis import land_grid
from refuge_map.coverage import (
    TABLE_TOLERANCE,
    SpeedDraws,
    coverage_field,
    delay_cdf,
    overtaken_probability,
    way_to_asylum,
)
from refuge_map.simulation.scenario import Avenger, Fugitive

N_LOOP = 500
DRAWS = 256
SEED = 19  # Deut 19


def networkx_loop(
    network: RefugeNetwork, x: NDArray[np.float64], y: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], tuple[float, float]]:
    """Per cell: nearest edge by shapely, Dijkstra from the gates by networkx (the way ends
    early where the off-road leg enters a zone), then the
    probability from the same speed draws as the field's. Returns the way, the probability
    and the seconds (wall, CPU) spent on the way alone."""
    graph = network.roads
    _, edges = graph_to_gdfs(graph)
    lines = edges.geometry.to_numpy()
    gates = [n for n, d in graph.nodes(data=True) if d["gate"]]
    zones = list(network.zones.geometry)
    avenger = Avenger()
    speeds = SpeedDraws.draw(Fugitive(), avenger, np.random.default_rng(SEED), DRAWS)
    way, p, way_s, way_cpu = np.empty(len(x)), np.empty(len(x)), 0.0, 0.0
    for i, (px, py) in enumerate(zip(x, y, strict=True)):
        start, cpu = time.perf_counter(), time.process_time()
        point = shapely.Point(px, py)
        distances = shapely.distance(point, lines)
        nearest = int(np.argmin(distances))
        (u, v, _), line = edges.index[nearest], lines[nearest]
        node_dist = nx.multi_source_dijkstra_path_length(graph, gates, weight="length_m")
        along = line.project(point)
        road = min(along + node_dist[u], line.length - along + node_dist[v])
        offroad = float(distances[nearest])
        foot = line.interpolate(along)
        entered = next((zone for zone in zones if zone.contains(foot)), None)
        if entered is not None:  # the off-road leg crosses into the zone: the way ends there
            offroad = point.distance(shapely.LineString([point, foot]).intersection(entered))
            road = 0.0
        way[i] = offroad + road
        way_s += time.perf_counter() - start
        way_cpu += time.process_time() - cpu
        p[i] = (
            1.0
            - overtaken_probability(
                np.array([offroad]),
                np.array([road]),
                speeds,
                lambda h: delay_cdf(avenger.delay_h, h),
            )[0]
        )
    return way, p, (way_s, way_cpu)


def _timed(fn: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU seconds of the best of three calls."""
    best = (float("inf"), float("inf"))
    for _ in range(3):
        start, cpu = time.perf_counter(), time.process_time()
        fn()
        wall, used = time.perf_counter() - start, time.process_time() - cpu
        best = (min(best[0], wall), min(best[1], used))
    return best


def main() -> None:
    """Time both and print the figures."""
    network = load_network()
    grid = land_grid(network, cell_m=500.0)
    coverage_field(network, cell_m=5_000.0, draws=8)  # warm the imports and caches
    field = coverage_field(network, grid=grid, draws=DRAWS, seed=SEED)
    full = _timed(lambda: coverage_field(network, grid=grid, draws=DRAWS, seed=SEED))
    way_full = _timed(lambda: way_to_asylum(network, grid.x, grid.y))
    sample = np.random.default_rng(SEED).choice(len(grid.x), N_LOOP, replace=False)
    outside = (field.offroad_m + field.road_m)[sample] > 0  # the loop knows nothing of zones
    sample = sample[outside]
    start, cpu = time.perf_counter(), time.process_time()
    way, p, way_loop = networkx_loop(network, grid.x[sample], grid.y[sample])
    loop = (time.perf_counter() - start, time.process_time() - cpu)
    np.testing.assert_allclose(way, (field.offroad_m + field.road_m)[sample], rtol=1e-9)
    np.testing.assert_allclose(p, field.p_asylum[sample], atol=TABLE_TOLERANCE)
    avenger = Avenger()
    speeds = SpeedDraws.draw(Fugitive(), avenger, np.random.default_rng(SEED), DRAWS)
    exact = 1.0 - overtaken_probability(
        field.offroad_m, field.road_m, speeds, lambda h: delay_cdf(avenger.delay_h, h)
    )
    error = float(np.abs(exact - field.p_asylum).max())
    assert error < TABLE_TOLERANCE, error
    cells, n = len(grid.x), len(sample)
    print(f"cells: {cells:,} of 500 m; draws {DRAWS}")
    print(
        f"P(asylum) vs exact per-cell computation: max abs error {error:.2e} over the grid, "
        f"{np.abs(p - field.p_asylum[sample]).max():.2e} on the loop's sample "
        f"(bound {TABLE_TOLERANCE:g})"
    )
    for label, k in (("wall", 0), ("CPU (process_time)", 1)):
        print(f"-- {label} --")
        print(
            f"vectorized field, full grid (best of 3): {full[k]:.3f} s "
            f"({full[k] / cells * 1e6:.2f} us a cell)"
        )
        print(f"  of which the way (snap + one flood, best of 3): {way_full[k]:.3f} s")
        print(f"networkx loop, {n} cells: {loop[k]:.2f} s ({loop[k] / n * 1e3:.3f} ms a cell)")
        print(f"  of which the way: {way_loop[k]:.2f} s")
        whole = (loop[k] / n) / (full[k] / cells)
        print(f"speed-up per cell, whole field: {whole:,.0f}x (goal >= 100x)")
        print(f"speed-up per cell, the way: {(way_loop[k] / n) / (way_full[k] / cells):,.0f}x")
        print(f"the loop on the full grid would take ~{loop[k] / n * cells:.0f} s")


if __name__ == "__main__":
    main()
