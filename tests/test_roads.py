"""Tests of geo.roads: reading road files, the road graph and its gates, snapping and routing."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

import geopandas as gpd
import networkx as nx
import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Point, box

from geo import load_network
from geo._errors import DataFileError, ParameterError
from geo.crs import REGION_CRS
from geo.hydrography import (
    jordan_divide,
    land_sides,
    mediterranean,
    read_hydrography,
    read_rivers,
    side_of_jordan,
)
from geo.roads import (
    HISTORY_FIELDS,
    REQUIRED_FIELDS,
    RoadRouter,
    build_road_graph,
    gdfs_to_graph,
    graph_to_gdfs,
    read_roads,
    roads_of_period,
)

# --------------------------------------------------------------------------- synthetic fixtures
#
#   north (10000, 10000) ---- c (L-shaped, drawn from north to west) ---- (0, 10000)
#        |                                                                    |
#        b                                           lonely (4000, 3000)      |
#        |                                                                    |
#   (10000, 0) ---------- a1 (10 km) ---------- (0, 0) ------------------------
#        |
#        a2 ---- east (20000, 0)

ZONE_HALF_M = 1000.0


def _roads(legs: list[tuple[str, list[tuple[float, float]]]]) -> gpd.GeoDataFrame:
    rows = [
        {
            "id": leg_id,
            "name": f"road {leg_id}",
            "from": f"{leg_id}_start",
            "to": f"{leg_id}_end",
            "route": "test_route",
            "source": "synthetic",
            "license": "CC0",
            "geometry": LineString(coords),
        }
        for leg_id, coords in legs
    ]
    return gpd.GeoDataFrame(rows, crs=REGION_CRS)


def _zones(sites: dict[str, tuple[float, float]]) -> gpd.GeoDataFrame:
    return gpd.GeoDataFrame(
        {"site": [Point(xy) for xy in sites.values()]},
        geometry=[
            box(x - ZONE_HALF_M, y - ZONE_HALF_M, x + ZONE_HALF_M, y + ZONE_HALF_M)
            for x, y in sites.values()
        ],
        index=list(sites),
        crs=REGION_CRS,
    )


ROADS = _roads(
    [
        ("a1", [(0, 0), (10000, 0)]),
        ("a2", [(10000, 0), (20000, 0)]),
        ("b", [(10000, 0), (10000, 10000)]),
        ("c", [(10000, 10000), (0, 10000), (0, 0)]),
    ]
)
ZONES = _zones({"east": (20000, 0), "north": (10000, 10000), "lonely": (4000, 3000)})


@pytest.fixture(scope="module")
def graph() -> nx.MultiGraph:
    return build_road_graph(ROADS, ZONES)


@pytest.fixture(scope="module")
def router(graph: nx.MultiGraph) -> RoadRouter:
    return RoadRouter(graph)


def _gates(graph: nx.MultiGraph, city: str) -> list[tuple[float, float]]:
    return sorted((d["x"], d["y"]) for _, d in graph.nodes(data=True) if d["gate"] == city)


# --------------------------------------------------------------------------- the graph


def test_gates_where_roads_enter_zones(graph: nx.MultiGraph) -> None:
    assert _gates(graph, "east") == [(19000.0, 0.0)]
    assert _gates(graph, "north") == [(9000.0, 10000.0), (10000.0, 9000.0)]
    assert graph.graph["crs"] == REGION_CRS


def test_spur_for_a_city_no_road_reaches(graph: nx.MultiGraph) -> None:
    spurs = [d for *_, d in graph.edges(data=True) if d["route"] == "spur"]
    assert sum(d["length_m"] for d in spurs) == pytest.approx(3000.0)
    assert _gates(graph, "lonely") == [(4000.0, 2000.0)]
    foot = [n for n, d in graph.nodes(data=True) if (d["x"], d["y"]) == (4000.0, 0.0)]
    assert graph.degree(foot[0]) == 3  # the road a1 was split where the spur meets it


def test_edge_attributes(graph: nx.MultiGraph) -> None:
    for _, _, data in graph.edges(data=True):
        assert data["length_m"] == pytest.approx(data["geometry"].length)
        assert data["walk_s"] == pytest.approx(data["length_m"] / (5000 / 3600))
        assert data["source"]


def test_disconnected_city_is_named() -> None:
    roads = _roads([("a", [(0, 0), (20000, 0)]), ("island", [(40000, 30000), (40000, 40000)])])
    zones = _zones({"east": (20000, 0), "far": (40000, 40000)})
    with pytest.raises(DataFileError, match=r"field 'city'.*far"):
        build_road_graph(roads, zones)


def test_graph_gdf_round_trip(graph: nx.MultiGraph) -> None:
    nodes, edges = graph_to_gdfs(graph)
    assert nodes.crs == REGION_CRS
    assert len(nodes) == graph.number_of_nodes()
    assert len(edges) == graph.number_of_edges()
    for (u, _, _), line in edges.geometry.items():
        assert Point(line.coords[0]).distance(nodes.geometry[u]) < 1e-6
    again = gdfs_to_graph(nodes, edges)
    assert nx.utils.graphs_equal(nx.MultiGraph(again), nx.MultiGraph(graph))


# --------------------------------------------------------------------------- snapping and routing


def test_snap_to_the_middle_of_a_long_segment(router: RoadRouter) -> None:
    snap = router.snap(5500.0, 120.0)
    assert snap.offroad_m[0] == pytest.approx(120.0)
    line = router.edge_geometries[snap.edge[0]]
    foot = line.interpolate(snap.along_m[0])
    assert (foot.x, foot.y) == pytest.approx((5500.0, 0.0))
    assert shapely.get_coordinates(line)[:, 1] == pytest.approx([0.0, 0.0])


def test_route_geometry_matches_its_length(router: RoadRouter) -> None:
    route = router.route(5500.0, 120.0, "east")
    assert route.geometry.length == pytest.approx(route.length_m)
    assert route.geometry.coords[0] == (5500.0, 120.0)
    assert route.geometry.coords[-1] == pytest.approx((19000.0, 0.0))
    assert route.length_m == pytest.approx(120.0 + 13500.0)
    assert route.offroad_m == pytest.approx(120.0)
    assert router.node_gate[route.gate_node] == "east"
    dist, city = router.distance_to_gates(5500.0, 120.0, ["east"])
    assert (dist[0], city[0]) == (pytest.approx(route.length_m), "east")


def test_route_follows_a_multi_vertex_road(router: RoadRouter) -> None:
    route = router.route(-300.0, 5000.0, "north")
    assert route.length_m == pytest.approx(300.0 + 5000.0 + 9000.0)
    assert route.geometry.length == pytest.approx(route.length_m)
    assert (0.0, 10000.0) in route.geometry.coords


def test_unknown_city_raises(router: RoadRouter) -> None:
    with pytest.raises(ParameterError, match="cities"):
        router.distance_to_gates(0.0, 0.0, ["atlantis"])


def _networkx_reference(
    graph: nx.MultiGraph, router: RoadRouter, x: np.ndarray, y: np.ndarray
) -> np.ndarray:
    gates = [n for n, d in graph.nodes(data=True) if d["gate"]]
    node_dist = nx.multi_source_dijkstra_path_length(graph, gates, weight="length_m")
    snap = router.snap(x, y)
    ids = router.node_ids
    via_u = snap.along_m + np.array([node_dist[ids[u]] for u in snap.u])
    via_v = (
        router.edge_length_m[snap.edge]
        - snap.along_m
        + np.array([node_dist[ids[v]] for v in snap.v])
    )
    return snap.offroad_m + np.minimum(via_u, via_v)


coords = st.lists(
    st.tuples(st.floats(-5000, 25000, allow_nan=False), st.floats(-5000, 15000, allow_nan=False)),
    min_size=1,
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(points=coords)
def test_distance_to_gates_vectorized_scalar_networkx(
    graph: nx.MultiGraph, router: RoadRouter, points: list[tuple[float, float]]
) -> None:
    x, y = np.array(points).T
    dist, city = router.distance_to_gates(x, y)
    scalar = [router.distance_to_gates(px, py) for px, py in points]
    np.testing.assert_allclose(dist, [d[0] for d, _ in scalar])
    assert city.tolist() == [c[0] for _, c in scalar]
    np.testing.assert_allclose(dist, _networkx_reference(graph, router, x, y))
    assert set(city.tolist()) <= {"east", "north", "lonely"}


@settings(max_examples=60, deadline=None)
@given(points=coords)
def test_snap_finds_the_nearest_road(router: RoadRouter, points: list[tuple[float, float]]) -> None:
    x, y = np.array(points).T
    snap = router.snap(x, y)
    brute = shapely.distance(shapely.points(x, y)[:, None], router.edge_geometries[None, :])
    np.testing.assert_allclose(snap.offroad_m, brute.min(axis=1), atol=1e-6)


@pytest.mark.parametrize("seed", [0, 1])
def test_many_positions_snap_as_each_alone(seed: int) -> None:
    # thousands at once go through the grid of cells; a hundred at a time, by brute force over
    # every segment of the shipped network: the same edge, place and distance, bit for bit
    router = load_network().router
    left, bottom, right, top = shapely.total_bounds(router.edge_geometries)
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.uniform(left - 5e3, right + 5e3, 6000), np.full(100, left - 1.0)])
    y = np.concatenate([rng.uniform(bottom - 5e3, top + 5e3, 6000), rng.uniform(bottom, top, 100)])
    many = router.snap(x, y)
    alone = [router.snap(x[k : k + 100], y[k : k + 100]) for k in range(0, len(x), 100)]
    for name in ("edge", "along_m", "offroad_m", "foot_x", "foot_y"):
        joined = np.concatenate([getattr(part, name) for part in alone])
        np.testing.assert_array_equal(getattr(many, name), joined, err_msg=name)


def test_node_distances_from_a_node(router: RoadRouter) -> None:
    start = int(np.flatnonzero((router.node_x == 0) & (router.node_y == 0))[0])
    dist = router.node_distances([start])
    assert dist[start] == 0.0
    east_gate = np.flatnonzero(router.node_gate == "east")[0]
    assert dist[east_gate] == pytest.approx(19000.0)
    assert router.matrix.shape == (len(router.node_x),) * 2


@pytest.mark.parametrize("options", [{}, {"refuges": "levitical"}, {"roads_period": "iron_age"}])
def test_the_floods_read_off_the_all_pairs_tables_are_scipys_own(options: dict[str, str]) -> None:
    # each set of cities' flood is read off the tables made once (`RoadRouter.node_dist`): the
    # same distances, nearest gates and predecessors as a multi-source pass of scipy's own
    from scipy.sparse.csgraph import dijkstra

    router = load_network(**options).router
    cities = router.cities
    rng = np.random.default_rng(4)
    subsets = [cities[:1], cities[-1:], cities, *(rng.permutation(cities)[:k] for k in (2, 3, 5))]
    for subset in subsets:
        flood = router.flood(list(subset))
        gates = np.flatnonzero(np.isin(router.node_gate, subset))
        dist, pred, src = dijkstra(
            router.matrix, directed=False, indices=gates, min_only=True, return_predecessors=True
        )
        np.testing.assert_array_equal(flood.dist, dist)
        np.testing.assert_array_equal(flood.pred, pred)
        np.testing.assert_array_equal(flood.city, np.where(src >= 0, router.node_gate[src], ""))
        np.testing.assert_array_equal(router.node_distances(gates), dist)


def test_unreachable_position_is_inf() -> None:
    roads = _roads([("a", [(0, 0), (10000, 0)]), ("z", [(50000, 0), (60000, 0)])])
    zones = _zones({"east": (10000, 0)})
    router = RoadRouter(build_road_graph(roads, zones))
    dist, city = router.distance_to_gates([55000.0, 5000.0], [10.0, 0.0])
    assert np.isinf(dist[0])
    assert city.tolist() == ["", "east"]
    assert dist[1] == pytest.approx(4000.0)


# --------------------------------------------------------------------------- bad data files

GOOD_LINE = [[35.10222, 31.525087], [35.207639, 31.704306]]


def _feature(**changes: Any) -> dict[str, Any]:
    properties = {field: f"{field} value" for field in REQUIRED_FIELDS}
    feature = {
        "type": "Feature",
        "properties": properties,
        "geometry": {"type": "LineString", "coordinates": GOOD_LINE},
    }
    for key, value in changes.items():
        if key == "geometry":
            feature["geometry"] = value
        elif value is None:
            properties.pop(key)
        else:
            properties[key] = value
    return feature


def _write(tmp_path: Path, features: list[dict[str, Any]], **extra: Any) -> Path:
    path = tmp_path / "roads.geojson"
    path.write_text(json.dumps({"type": "FeatureCollection", **extra, "features": features}))
    return path


def test_read_good_file(tmp_path: Path) -> None:
    roads = read_roads(_write(tmp_path, [_feature()]))
    assert roads.crs == REGION_CRS
    assert roads.geometry.length.iloc[0] == pytest.approx(22200, rel=0.05)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"source": None}, "source"),
        ({"geometry": None}, "geometry"),
        ({"geometry": {"type": "LineString", "coordinates": []}}, "geometry"),
        ({"geometry": {"type": "Point", "coordinates": GOOD_LINE[0]}}, "geometry"),
        (
            {"geometry": {"type": "LineString", "coordinates": [p[::-1] for p in GOOD_LINE]}},
            "geometry",
        ),
    ],
    ids=["missing field", "null geometry", "empty geometry", "point", "swapped lon/lat"],
)
def test_bad_file_raises(tmp_path: Path, changes: dict[str, Any], field: str) -> None:
    path = _write(tmp_path, [_feature(), _feature(**changes)])
    with pytest.raises(DataFileError, match=f"field '{field}'") as info:
        read_roads(path)
    assert str(path) in str(info.value)
    assert info.value.source == str(path)


def test_wrong_crs_raises(tmp_path: Path) -> None:
    crs = {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::3857"}}
    path = _write(tmp_path, [_feature()], crs=crs)
    with pytest.raises(DataFileError, match="field 'crs'") as info:
        read_roads(path)
    assert str(path) in str(info.value)


def test_all_problems_in_one_message(tmp_path: Path) -> None:
    path = _write(tmp_path, [_feature(source=None, name=None), _feature(geometry=None)])
    with pytest.raises(DataFileError, match="3 problem") as info:
        read_roads(path)
    for field in ("source", "name", "geometry"):
        assert f"field '{field}'" in str(info.value)


# --------------------------------------------------------------------------- the shipped data

DATA = Path(__file__).resolve().parents[1] / "data"
CITIES = ("kedesh", "shechem", "hebron", "bezer", "ramoth_gilead", "golan")
SHIPPED_LICENSES = {"CC BY 4.0 (OpenBible.info coordinates)", "own compilation, CC BY 4.0"}


@pytest.fixture(scope="module")
def shipped() -> tuple[gpd.GeoDataFrame, gpd.GeoDataFrame]:
    roads = read_roads(DATA / "roads.geojson")
    waypoints = gpd.read_file(DATA / "waypoints.geojson").set_index("id").to_crs(REGION_CRS)
    return roads, waypoints


def test_shipped_network_connects_the_six_cities_dan_and_beersheba(
    shipped: tuple[gpd.GeoDataFrame, gpd.GeoDataFrame],
) -> None:
    roads, waypoints = shipped
    sites = waypoints.loc[list(CITIES)]
    zones = gpd.GeoDataFrame(
        {"site": sites.geometry}, geometry=sites.geometry.buffer(1500.0), crs=REGION_CRS
    )
    graph = build_road_graph(roads, zones)
    assert not [d for *_, d in graph.edges(data=True) if d["route"] == "spur"]
    component = nx.node_connected_component(graph, 0)
    reached = {graph.nodes[n]["gate"] for n in component} | {
        graph.nodes[n]["waypoint"] for n in component
    }
    assert set(CITIES) | {"dan", "beersheba"} <= reached


def test_shipped_legs_have_source_and_licence(
    shipped: tuple[gpd.GeoDataFrame, gpd.GeoDataFrame],
) -> None:
    roads, waypoints = shipped
    for frame in (roads, waypoints):
        assert frame["source"].str.len().min() > 20
        assert set(frame["license"]) <= SHIPPED_LICENSES
        assert not frame["license"].str.contains("NC").any()
        assert not frame["source"].str.contains("DARMC", case=False).any()
    assert set(roads["from"]) | set(roads["to"]) <= set(waypoints.index)
    vertices = shapely.get_num_coordinates(roads.geometry.to_numpy())
    assert list(roads["schematic"]) == list(vertices == 2)  # straight legs say so
    length = roads.geometry.length
    assert length[vertices > 2].sum() > 0.5 * length.sum()  # most of the way follows a course


def test_shipped_legs_record_their_history(
    shipped: tuple[gpd.GeoDataFrame, gpd.GeoDataFrame],
) -> None:
    roads, _ = shipped
    for field, allowed in HISTORY_FIELDS.items():
        assert roads[field].notna().all(), field
        if allowed is not None:
            assert set(roads[field]) <= set(allowed), field
    assert roads["sources"].str.len().min() > 10
    assert set(roads["period"]) == {"iron_age", "hellenistic_roman", "both"}


# the shipped water: the coast, the lakes and the rivers the roads must respect

#: Natural Earth's 1:10m coast and lake outlines are generalised by a few hundred metres
#: (Tel Dor, on the shore, lies 41 m "at sea"); water nearer its edge than this is not crossed.
SHORE_TOLERANCE_M = 250.0

#: A river crossing belongs to a ford or bridge waypoint this near (metres): the rivers
#: meander around the ford.
FORD_TOLERANCE_M = 1000.0

WATER = {
    "the Mediterranean": None,
    "historic Lake Huleh": "lake_huleh_historic",
    "the Sea of Galilee": "sea_of_galilee",
    "the Dead Sea": "dead_sea_north_basin",
}


@pytest.fixture(scope="module")
def water() -> tuple[dict[str, Any], dict[str, Any]]:
    """The bodies of water (polygons) and the rivers (lines) of the shipped hydrography."""
    hydro = read_hydrography(DATA / "hydrography.geojson")
    rivers = read_rivers(DATA / "hydrography_osm_odbl.geojson").set_index("id").geometry
    polygons = hydro.set_index("id").geometry
    bodies = {name: polygons[fid] if fid else mediterranean(hydro) for name, fid in WATER.items()}
    lines = {
        "jordan": jordan_divide(hydro, rivers.reset_index()),
        "yarmouk": rivers["yarmouk_pleiades_osm"],
        "jabbok": rivers["jabbok_osm"],
        "arnon": rivers["arnon_osm"],
    }
    return bodies, lines


def test_every_waypoint_is_on_land_west_or_east_of_the_jordan(shipped, water) -> None:
    _, waypoints = shipped
    hydro = read_hydrography(DATA / "hydrography.geojson")
    rivers = read_rivers(DATA / "hydrography_osm_odbl.geojson")
    sides = side_of_jordan(waypoints.geometry, land_sides(hydro, rivers))
    assert list(waypoints.index[sides == ""]) == []


def test_no_leg_crosses_the_sea_or_a_lake(shipped, water) -> None:
    roads, _ = shipped
    bodies, _ = water
    wet = [
        (leg, name, round(leg_geom.intersection(body).length))
        for name, polygon in bodies.items()
        for body in [polygon.buffer(-SHORE_TOLERANCE_M)]
        for leg, leg_geom in zip(roads["id"], roads.geometry, strict=True)
        if leg_geom.intersects(body)
    ]
    assert wet == []


def test_every_river_crossing_is_at_a_ford_or_bridge(shipped, water) -> None:
    roads, waypoints = shipped
    _, lines = water
    fords = waypoints[waypoints["crossing"].notna()]
    assert set(fords["crossing"]) == {"jordan", "jabbok", "yarmouk"}
    dry, crossings = [], 0
    for leg in roads.to_dict("records"):
        ends = fords.loc[fords.index.intersection([leg["from"], leg["to"]])]
        for river, line in lines.items():
            for x, y in shapely.get_coordinates(leg["geometry"].intersection(line)):
                crossings += 1
                at = ends[ends["crossing"] == river].distance(Point(x, y))
                if not (at < FORD_TOLERANCE_M).any():
                    dry.append((leg["id"], river, round(x), round(y)))
    assert dry == []
    assert crossings >= 8  # the test sees the crossings it checks


def test_the_jordan_is_crossed_at_the_named_fords(shipped, water) -> None:
    roads, _ = shipped
    _, lines = water
    crossing = roads[roads.geometry.intersects(lines["jordan"])]
    ends = set(crossing["from"]) | set(crossing["to"])
    assert {
        "jordan_ford_jericho",
        "damiya_ford",
        "jordan_ford_beth_shean",
        "sennabris_bridge",
        "jordan_bridge_north",
    } <= ends


@pytest.mark.parametrize("period", ["all", "iron_age", "hellenistic_roman"])
def test_each_period_network_is_one_connected_whole(shipped, period) -> None:
    roads, _ = shipped
    legs = roads_of_period(roads, period)
    graph = nx.Graph(list(zip(legs["from"], legs["to"], strict=True)))
    assert nx.is_connected(graph)
    assert set(CITIES) | {"dan", "beersheba", "jerusalem"} <= set(graph)
    if period != "all":
        assert set(legs["period"]) == {period, "both"}
        assert len(legs) < len(roads)


def test_direct_roads_join_the_six_cities(shipped) -> None:
    roads, _ = shipped
    direct = roads[roads["direct_road"].astype(bool)]
    graph = nx.Graph(list(zip(direct["from"], direct["to"], strict=True)))
    assert set(CITIES) <= set(graph)
    assert nx.is_connected(graph)
    assert len(direct) < len(roads)  # not every road is a direct road


def test_acco_tyre_and_hazor_dan_stay_on_land(shipped, water) -> None:
    """The two legs the issue found in the water: over the sea, across Lake Huleh."""
    roads, _ = shipped
    bodies, lines = water
    tyre = roads[roads["to"] == "tyre"].geometry
    assert not tyre.intersects(bodies["the Mediterranean"].buffer(-SHORE_TOLERANCE_M)).any()
    dan = roads[(roads["to"] == "dan") & (roads["from"] == "hazor")].geometry
    assert len(dan) == 1
    assert not dan.intersects(bodies["historic Lake Huleh"]).any()
    assert not dan.intersects(lines["jordan"]).any()


def test_roads_period_filters_and_is_recorded() -> None:
    from geo import load_network

    network = load_network(roads_period="iron_age")
    assert network.options["roads_period"] == "iron_age"
    periods = {d["period"] for *_, d in network.roads.edges(data=True) if d["route"] != "spur"}
    assert periods == {"iron_age", "both"}
    with pytest.raises(ParameterError, match="roads_period"):
        load_network(roads_period="byzantine")  # type: ignore[arg-type]  # the bad value is the test


def test_the_build_reproduces_the_shipped_files(tmp_path: Path, monkeypatch) -> None:
    build = _tool("build_roads")
    monkeypatch.setattr(build, "DATA_DIR", tmp_path)
    build.main()
    for name in ("roads.geojson", "waypoints.geojson"):
        assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes(), name


# --------------------------------------------------------------------------- DARMC (unshipped)

#: The DARMC Roman roads (CC BY-NC) are never shipped: a user's copy (``REFUGE_MAP_DARMC``) or
#: the project's reference folder next to the repository.
DARMC = Path(
    os.environ.get(
        "REFUGE_MAP_DARMC",
        Path(__file__).resolve().parents[2] / "shared" / "reference" / "roads.geojson",
    )
)


def _tool(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, DATA / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not DARMC.is_file(), reason="no copy of the DARMC Roman roads")
def test_roads_md_records_each_legs_share_near_darmc(shipped) -> None:
    roads, _ = shipped
    check = _tool("check_roads_against_darmc")
    table = check.agreement(roads, check.read_darmc(DARMC)).set_index("route")
    recorded = (DATA / "ROADS.md").read_text(encoding="utf-8")
    rows = check.markdown(table).splitlines()[2:]
    missing = [row for row in rows if row not in recorded]
    assert missing == []
    assert len(rows) == len(roads)


def test_brute_force_snap_agrees_with_the_strtree(monkeypatch: pytest.MonkeyPatch) -> None:
    from geo import load_network
    from geo.roads import _Segments

    router = load_network().router
    rng = np.random.default_rng(3)
    x = rng.uniform(router.node_x.min() - 5e3, router.node_x.max() + 5e3, 5000)
    y = rng.uniform(router.node_y.min() - 5e3, router.node_y.max() + 5e3, 5000)
    assert router._segments.few
    fast = router.snap(x, y)
    monkeypatch.setattr(_Segments, "MAX", 0)  # force the STRtree
    slow = router.snap(x, y)
    np.testing.assert_allclose(fast.offroad_m, slow.offroad_m, rtol=1e-9, atol=1e-6)
    # equally near edges meet at a node: the snapped point is the same either way
    at_fast = shapely.line_interpolate_point(router.edge_geometries[fast.edge], fast.along_m)
    at_slow = shapely.line_interpolate_point(router.edge_geometries[slow.edge], slow.along_m)
    assert shapely.distance(at_fast, at_slow).max() < 1e-6


def test_a_pickled_router_snaps_many_positions_with_the_grid_it_was_made_with(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the router makes its snapping grid when it is made, so that a network loaded from the
    # cache (a pickle) carries it: a process snapping a world's positions makes none again,
    # and snaps them as the router it was pickled from does
    import pickle

    from geo.roads import _Grid

    router = load_network().router
    loaded = pickle.loads(pickle.dumps(router))
    rng = np.random.default_rng(5)
    x = rng.uniform(router.node_x.min(), router.node_x.max(), 2000)
    y = rng.uniform(router.node_y.min(), router.node_y.max(), 2000)
    made = router.snap(x, y)

    def again(cls: type[_Grid], *args: Any) -> _Grid:
        raise AssertionError("the grid made again")

    monkeypatch.setattr(_Grid, "of", classmethod(again))
    snapped = loaded.snap(x, y)
    for part in ("edge", "along_m", "offroad_m", "foot_x", "foot_y"):
        np.testing.assert_array_equal(getattr(snapped, part), getattr(made, part))
