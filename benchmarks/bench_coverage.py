"""Benchmark the coverage field: the vectorized field against three peers a user could write.

Times `refuge_map.coverage.coverage_field` on the full 500 m grid of the land (about 118,000
cells, shipped network, scenario defaults, 256 speed draws) against:

- the per-origin loop, on a 500-cell sample: for each cell, the nearest road segment by
  shapely, a networkx Dijkstra from the gates, and the chance to reach asylum from the same
  speed draws with numpy;
- the same loop with the Dijkstra hoisted out of it (it does not depend on the cell: one
  multi-source flood before the loop), as a careful user would write it;
- a vectorized geopandas peer on the full grid: `geopandas.sjoin_nearest` of the cells to the
  road edges, one networkx multi-source flood from the gates, the off-road legs that enter a
  zone cut at its boundary with shapely's array functions (a cell in a zone: no way at all),
  and the same probability for all cells at once.

Every peer must give the same way and the same probability as the field (the field's
probability is tabulated and interpolated: within `TABLE_TOLERANCE` of the exact one, which is
also checked on the whole grid). Each is timed the same way: the median of `REPEATS` runs, by
the wall clock and by the process's CPU time (the machine may be shared; the load average is
printed). Printed: the per-cell speed-up of the field over each peer (the whole field, and the
way alone), every ratio, including those below the goal of 100x.

Run: ``.venv/bin/python benchmarks/bench_coverage.py``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import geopandas as gpd
import networkx as nx
import numpy as np
import shapely

from geo import RefugeNetwork, load_network
from geo.arrays import Floats
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

from _timing import Seconds, load, median, repeated

N_LOOP = 500
DRAWS = 256
SEED = 19  # Deut 19
REPEATS = 3  # every method: the median of three runs


@dataclass(frozen=True)
class Peer:
    """What every peer starts from: the road edges, gates, zones and the same speed draws."""

    graph: nx.MultiGraph
    edges: gpd.GeoDataFrame
    gates: list[int]
    zones: list[shapely.Polygon]
    speeds: SpeedDraws
    avenger: Avenger

    @classmethod
    def of(cls, network: RefugeNetwork) -> Peer:
        """The peer's inputs from the network (not timed)."""
        graph = network.roads
        _, edges = graph_to_gdfs(graph)
        avenger = Avenger()
        return cls(
            graph=graph,
            edges=edges,
            gates=[n for n, d in graph.nodes(data=True) if d["gate"]],
            zones=list(network.zones.geometry),
            speeds=SpeedDraws.draw(Fugitive(), avenger, np.random.default_rng(SEED), DRAWS),
            avenger=avenger,
        )

    def flood(self) -> dict[int, float]:
        """Road distance from the nearest gate to every node: one networkx multi-source pass."""
        return nx.multi_source_dijkstra_path_length(self.graph, self.gates, weight="length_m")

    def p_asylum(self, offroad: Floats, road: Floats) -> Floats:
        """The chance to reach asylum, from the same speed draws as the field's."""
        cdf = lambda h: delay_cdf(self.avenger.delay_h, h)  # noqa: E731
        return 1.0 - overtaken_probability(offroad, road, self.speeds, cdf)


def networkx_loop(
    peer: Peer, x: Floats, y: Floats, *, hoist: bool
) -> tuple[Floats, Floats, Seconds]:
    """Per cell: nearest edge by shapely, the gates' Dijkstra by networkx (per cell, or once
    before the loop if `hoist`; the way ends early where the off-road leg enters a zone), then
    the probability. Returns the way, the probability and the seconds spent on the way."""
    lines = peer.edges.geometry.to_numpy()
    way, p, way_s, way_cpu = np.empty(len(x)), np.empty(len(x)), 0.0, 0.0
    start, cpu = time.perf_counter(), time.process_time()
    hoisted = peer.flood() if hoist else None
    way_s, way_cpu = time.perf_counter() - start, time.process_time() - cpu
    for i, (px, py) in enumerate(zip(x, y, strict=True)):
        start, cpu = time.perf_counter(), time.process_time()
        point = shapely.Point(px, py)
        distances = shapely.distance(point, lines)
        nearest = int(np.argmin(distances))
        (u, v, _), line = peer.edges.index[nearest], lines[nearest]
        node_dist = peer.flood() if hoisted is None else hoisted
        along = line.project(point)
        road = min(along + node_dist[u], line.length - along + node_dist[v])
        offroad = float(distances[nearest])
        foot = line.interpolate(along)
        entered = next((zone for zone in peer.zones if zone.contains(foot)), None)
        if entered is not None:  # the off-road leg crosses into the zone: the way ends there
            offroad = point.distance(shapely.LineString([point, foot]).intersection(entered))
            road = 0.0
        way[i] = offroad + road
        way_s += time.perf_counter() - start
        way_cpu += time.process_time() - cpu
        p[i] = peer.p_asylum(np.array([offroad]), np.array([road]))[0]
    return way, p, (way_s, way_cpu)


def geopandas_peer(peer: Peer, x: Floats, y: Floats) -> tuple[Floats, Floats, Seconds]:
    """All cells at once: `sjoin_nearest` to the edges, one flood, the legs into a zone cut
    by shapely, then the probability. Returns the way, the probability and the seconds spent
    on the way."""
    start, cpu = time.perf_counter(), time.process_time()
    cells = gpd.GeoDataFrame(geometry=gpd.points_from_xy(x, y), crs=peer.edges.crs)
    edges = peer.edges.reset_index()
    near = gpd.sjoin_nearest(cells, edges[["u", "v", "geometry"]], distance_col="offroad")
    near = near[~near.index.duplicated()]  # a cell equidistant from two edges: the first
    line = edges.geometry.to_numpy()[near["index_right"].to_numpy()]
    point = cells.geometry.to_numpy()
    along = shapely.line_locate_point(line, point)
    node_dist = peer.flood()
    from_u = near["u"].map(node_dist).to_numpy(dtype=float)
    from_v = near["v"].map(node_dist).to_numpy(dtype=float)
    road = np.minimum(along + from_u, shapely.length(line) - along + from_v)
    offroad = near["offroad"].to_numpy(dtype=float, copy=True)
    foot = shapely.line_interpolate_point(line, along)
    zones = gpd.GeoDataFrame(geometry=peer.zones, crs=peer.edges.crs)
    inside = gpd.sjoin(gpd.GeoDataFrame(geometry=foot, crs=peer.edges.crs), zones, "inner")
    inside = inside[~inside.index.duplicated()]
    rows, zone = inside.index.to_numpy(), zones.geometry.to_numpy()[inside["index_right"]]
    legs = shapely.linestrings(
        np.stack([shapely.get_coordinates(point[rows]), shapely.get_coordinates(foot[rows])], 1)
    )
    offroad[rows] = shapely.distance(point[rows], shapely.intersection(legs, zone))
    road[rows] = 0.0
    within = gpd.sjoin(cells, zones, "inner").index.unique().to_numpy()
    offroad[within] = road[within] = 0.0  # a cell in a zone is in asylum already
    seconds = (time.perf_counter() - start, time.process_time() - cpu)
    return offroad + road, peer.p_asylum(offroad, road), seconds


def main() -> None:
    """Time the field and its peers and print the figures."""
    network = load_network()
    grid = land_grid(network, cell_m=500.0)
    coverage_field(network, cell_m=5_000.0, draws=8)  # warm the imports and caches
    field, full = repeated(
        lambda: coverage_field(network, grid=grid, draws=DRAWS, seed=SEED), REPEATS
    )
    _, way_full = repeated(lambda: way_to_asylum(network, grid.x, grid.y), REPEATS)
    field_way = field.offroad_m + field.road_m
    peer = Peer.of(network)
    sample = np.random.default_rng(SEED).choice(len(grid.x), N_LOOP, replace=False)
    sample = sample[field_way[sample] > 0]  # the loops ask no zone whether a cell is in it
    cells, n = len(grid.x), len(sample)
    peers: dict[str, tuple[int, Seconds, Seconds]] = {}  # label: cells, whole, the way
    for label, hoist in (("networkx loop", False), ("networkx loop, Dijkstra hoisted", True)):
        ways: list[Seconds] = []

        def loop(hoist: bool = hoist, ways: list[Seconds] = ways) -> tuple[Floats, Floats]:
            way, p, seconds = networkx_loop(peer, grid.x[sample], grid.y[sample], hoist=hoist)
            ways.append(seconds)
            return way, p

        (way, p), whole = repeated(loop, REPEATS)
        np.testing.assert_allclose(way, field_way[sample], rtol=1e-9)
        np.testing.assert_allclose(p, field.p_asylum[sample], atol=TABLE_TOLERANCE)
        peers[label] = (n, whole, median(ways))
    ways = []

    def vectorized() -> tuple[Floats, Floats]:
        way, p, seconds = geopandas_peer(peer, grid.x, grid.y)
        ways.append(seconds)
        return way, p

    (way, p), whole = repeated(vectorized, REPEATS)
    np.testing.assert_allclose(way, field_way, rtol=1e-9, atol=1e-6)
    np.testing.assert_allclose(p, field.p_asylum, atol=TABLE_TOLERANCE)
    peers["geopandas peer (sjoin_nearest + one flood)"] = (cells, whole, median(ways))
    exact = peer.p_asylum(field.offroad_m, field.road_m)
    error = float(np.abs(exact - field.p_asylum).max())
    assert error < TABLE_TOLERANCE, error
    print(f"cells: {cells:,} of 500 m; draws {DRAWS}; each figure the median of {REPEATS} runs")
    print(
        f"P(asylum) vs exact per-cell computation: max abs error {error:.2e} over the grid "
        f"(bound {TABLE_TOLERANCE:g}); every peer agrees with the field; {load()}"
    )
    for label, k in (("wall", 0), ("CPU (process_time)", 1)):
        print(f"-- {label} --")
        print(
            f"vectorized field, full grid: {full[k]:.3f} s ({full[k] / cells * 1e6:.2f} us a "
            f"cell); of which the way (snap + one flood): {way_full[k]:.3f} s"
        )
        for name, (m, whole, way_s) in peers.items():
            per_cell, way_cell = whole[k] / m, way_s[k] / m
            print(
                f"{name}, {m:,} cells: {whole[k]:.3f} s ({per_cell * 1e6:,.1f} us a cell; "
                f"the way {way_s[k]:.3f} s); field's speed-up per cell: "
                f"{per_cell / (full[k] / cells):,.1f}x whole, "
                f"{way_cell / (way_full[k] / cells):,.1f}x the way"
            )
    print(load())


if __name__ == "__main__":
    main()
