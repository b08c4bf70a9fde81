"""Benchmark distance to the nearest asylum gate: vectorized RoadRouter versus a networkx loop.

Builds the shipped road network (data/roads.geojson) with 1.5 km stand-in zones around the six
cities, then times `RoadRouter.distance_to_gates` on 100,000 random positions in the region
against a per-point loop (nearest edge by shapely, then a networkx multi-source Dijkstra from
the gates, as a straightforward per-agent implementation would do) on a 1,000-point sample,
and checks that both give the same distances.

Run: ``.venv/bin/python benchmarks/bench_routing.py``.
"""

from __future__ import annotations

from pathlib import Path

import geopandas as gpd
import networkx as nx
import numpy as np
import shapely
from numpy.typing import NDArray

from geo.crs import REGION_CRS, to_metric
from geo.roads import RoadRouter, build_road_graph, graph_to_gdfs, read_roads

from _timing import clock

DATA = Path(__file__).resolve().parents[1] / "data"
CITIES = ["kedesh", "shechem", "hebron", "bezer", "ramoth_gilead", "golan"]
N_VECTOR = 100_000
N_LOOP = 1_000
SEED = 19  # Deut 19


def road_graph() -> nx.MultiGraph:
    """The shipped roads with 1.5 km circles standing in for the cities' zones."""
    sites = gpd.read_file(DATA / "waypoints.geojson").set_index("id").to_crs(REGION_CRS)
    sites = sites.loc[CITIES]
    zones = gpd.GeoDataFrame(
        {"site": sites.geometry}, geometry=sites.geometry.buffer(1500.0), crs=REGION_CRS
    )
    return build_road_graph(read_roads(DATA / "roads.geojson"), zones)


def random_positions(n: int, rng: np.random.Generator) -> tuple[NDArray, NDArray]:
    """Uniform positions over the box of the network (lon 34.8-36.2, lat 31.2-33.3)."""
    return to_metric(rng.uniform(34.8, 36.2, n), rng.uniform(31.2, 33.3, n))


def networkx_loop(graph: nx.MultiGraph, x: NDArray, y: NDArray) -> NDArray:
    """Per point: nearest edge by shapely, Dijkstra from the gates by networkx."""
    _, edges = graph_to_gdfs(graph)
    lines = edges.geometry.to_numpy()
    gates = [n for n, d in graph.nodes(data=True) if d["gate"]]
    out = np.empty(len(x))
    for i, (px, py) in enumerate(zip(x, y, strict=True)):
        point = shapely.Point(px, py)
        nearest = int(np.argmin(shapely.distance(point, lines)))
        (u, v, _), line = edges.index[nearest], lines[nearest]
        node_dist = nx.multi_source_dijkstra_path_length(graph, gates, weight="length_m")
        along = line.project(point)
        road = min(along + node_dist[u], line.length - along + node_dist[v])
        out[i] = line.distance(point) + road
    return out


def main() -> None:
    """Time both ways and print the rates and their ratio."""
    rng = np.random.default_rng(SEED)
    graph = road_graph()
    router, (build_s, _) = clock(RoadRouter, graph)
    x, y = random_positions(N_VECTOR, rng)
    router.distance_to_gates(x[:10], y[:10])  # the flood is cached per city set: warm it
    (dist, _), (vector_s, _) = clock(router.distance_to_gates, x, y)
    reference, (loop_s, _) = clock(networkx_loop, graph, x[:N_LOOP], y[:N_LOOP])
    np.testing.assert_allclose(dist[:N_LOOP], reference, rtol=1e-9)
    vector_rate, loop_rate = N_VECTOR / vector_s, N_LOOP / loop_s
    print(f"graph: {graph.number_of_nodes()} nodes, {graph.number_of_edges()} edges")
    print(f"RoadRouter built in {build_s * 1000:.1f} ms")
    print(f"vectorized: {N_VECTOR:,} points in {vector_s:.3f} s = {vector_rate:,.0f} points/s")
    print(f"networkx loop: {N_LOOP:,} points in {loop_s:.3f} s = {loop_rate:,.0f} points/s")
    print(f"ratio: {vector_rate / loop_rate:,.0f}x (same distances on the sample)")


if __name__ == "__main__":
    main()
