"""The roads as prescribed: signposts along shortest ways, width of 32 cubits, bridges."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString

from geo.prescribed_roads import ROAD_WIDTH_CUBITS, SIGNPOST_TEXT, bridges, signposts
from geo.roads import RoadRouter


@st.composite
def road_graphs(draw):
    """A connected graph of straight roads between random points, some nodes gates."""
    n = draw(st.integers(4, 14))
    coords = draw(
        st.lists(
            st.tuples(st.integers(0, 50_000), st.integers(0, 50_000)),
            min_size=n,
            max_size=n,
            unique=True,
        )
    )
    graph = nx.MultiGraph(crs="EPSG:3857")
    for i, (x, y) in enumerate(coords):
        graph.add_node(i, x=float(x), y=float(y), gate="", waypoint="")
    order = draw(st.permutations(range(n)))
    pairs = {tuple(sorted((order[i], order[draw(st.integers(0, i - 1))]))) for i in range(1, n)}
    extra = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=2 * n))
    pairs |= {tuple(sorted(p)) for p in extra if p[0] != p[1]}
    for u, v in sorted(pairs):
        line = LineString([coords[u], coords[v]])
        graph.add_edge(u, v, geometry=line, length_m=line.length)
    # a few parallel roads, each bent through a point beside the straight one (longer)
    for u, v in draw(st.lists(st.sampled_from(sorted(pairs)), max_size=3, unique=True)):
        (x0, y0), (x1, y1) = coords[u], coords[v]
        bend = ((x0 + x1) / 2 + (y1 - y0) / 4 + 1, (y0 + y1) / 2 - (x1 - x0) / 4 + 1)
        line = LineString([coords[u], bend, coords[v]])
        graph.add_edge(u, v, geometry=line, length_m=line.length)
    gates = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3, unique=True))
    for k, node in enumerate(gates):
        graph.nodes[node]["gate"] = f"city{k % 2}"
    return graph


@settings(max_examples=60, deadline=None)
@given(graph=road_graphs())
def test_every_signpost_points_along_a_shortest_way(graph):
    router = RoadRouter(graph)
    signs = signposts(router)
    gates = [n for n, d in graph.nodes(data=True) if d["gate"]]
    dist = nx.multi_source_dijkstra_path_length(graph, gates, weight="length_m")
    position = {node: i for i, node in enumerate(router.node_ids.tolist())}
    for sign in signs.itertuples():
        node, toward = router.node_ids[sign.node], router.node_ids[sign.toward]
        step = min(d["length_m"] for d in graph[node][toward].values())
        # the road it points to is the first step of a shortest way to the nearest gate
        assert dist[node] == pytest.approx(step + dist[toward], abs=1e-6)
        assert sign.dist_m == pytest.approx(dist[node], abs=1e-6)
        assert 0.0 <= sign.bearing_deg < 360.0
        assert position[node] == sign.node
    junctions = {n for n in graph if len(set(graph[n]) - {n}) >= 3 and not graph.nodes[n]["gate"]}
    assert set(router.node_ids[signs["node"]].tolist()) == junctions


def test_a_signpost_reads_miklat_and_gives_its_bearing():
    # a crossroads at the origin; the gate lies 1 km due north (grid), the others are farther
    graph = nx.MultiGraph(crs="EPSG:3857")
    spots = {0: (0, 0), 1: (0, 1000), 2: (3000, 0), 3: (-3000, 0)}
    for node, (x, y) in spots.items():
        graph.add_node(node, x=float(x), y=float(y), gate="city" if node == 1 else "", waypoint="")
    for other in (1, 2, 3):
        line = LineString([spots[0], spots[other]])
        graph.add_edge(0, other, geometry=line, length_m=line.length)
    signs = signposts(RoadRouter(graph))
    assert len(signs) == 1
    sign = signs.iloc[0]
    assert sign["reads"] == SIGNPOST_TEXT and "Makkot 10b" in sign["source"]
    assert sign["compass"] == "N" and sign["city"] == "city"
    assert sign["dist_m"] == pytest.approx(1000.0)


def test_the_shipped_signposts_lead_to_the_cities_of_refuge(network):
    signs = network.signposts()
    assert len(signs) > 0
    assert set(signs["city"]) <= set(network.city_ids)
    # none stands inside a zone: there the manslayer is already protected
    assert not signs.geometry.within(network.zones.union_all()).any()


def test_every_road_is_32_cubits_wide(network):
    widths = {(d["width_cubits"], d["width_m"]) for _, _, d in network.roads.edges(data=True)}
    assert widths == {(ROAD_WIDTH_CUBITS, ROAD_WIDTH_CUBITS * network.options["cubit_m"])}


def test_a_road_across_a_river_has_a_bridge(network):
    bridges = network.bridges()  # on the OpenStreetMap rivers, as the divide is
    assert bridges["river"].str.contains("Jordan").sum() >= 4  # the fords of ROADS.md
    rivers = {"Jordan", "Jabbok", "Yarmouk", "Arnon"}
    assert all(any(name in river for name in rivers) for river in bridges["river"])
    assert "Rambam, Rotzeach 8:5" in bridges["source"].iloc[0]
    counted = sum(d["bridges"] for _, _, d in network.roads.edges(data=True))
    assert counted == len(bridges)
    assert np.all(bridges["width_m"] > 15)


def test_a_bridge_of_a_road_without_a_name_or_an_id_says_none(network):
    edges = network.road_frames()[1].reset_index(drop=True)
    crossing = edges.index[edges["bridges"] > 0][0]
    unnamed = edges.drop(columns="name")
    unnamed.loc[crossing, "id"] = None
    made, shipped = bridges(unnamed, network.rivers), network.bridges()
    mine = shipped["road_id"] == edges.loc[crossing, "id"]
    assert (made.loc[mine, "road_id"] == "").all() and (made.loc[~mine, "road_id"] != "").all()
    assert (made["road"] == "").all() and (shipped["road"] != "").all()
    assert made[["river", "width_m", "geometry"]].equals(shipped[["river", "width_m", "geometry"]])
