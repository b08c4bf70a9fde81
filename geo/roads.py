"""Build the road graph, snap positions onto it, and route to asylum.

The roads are the "direct roads" prepared from city to city (Deut 19:3; Mishnah Makkot 2:5).
A road file holds one LineString per road leg in WGS84; `read_roads` validates it and projects
it to `geo.crs.REGION_CRS`. `build_road_graph` nodes the legs at their shared end points, splits
them where they cross the boundary of a city's protecting zone (each crossing becomes a *gate*,
the first point of asylum along that road) and adds a spur to any city no road reaches.
`RoadRouter` answers the queries of a simulation without networkx: one multi-source Dijkstra pass
from the gates ("network flooding", as in ORBIS) gives the road distance to the nearest asylum
from every node, and positions are snapped onto the nearest road segment.

Whether a position is already inside a zone is the caller's concern, not the router's.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, cast, get_args

import numpy as np
import shapely
from numpy.typing import ArrayLike, NDArray
from pyproj import CRS
from shapely.geometry import LineString, Point
from shapely.ops import substring

from geo._errors import DataFileError, ParameterError, QueryError
from geo._validate import read_layer
from geo.arrays import Floats
from geo.crs import REGION_CRS, check_finite

if TYPE_CHECKING:
    import geopandas as gpd
    import networkx as nx
    from scipy.sparse import csr_array

#: Fields every road leg must carry.
REQUIRED_FIELDS = ("id", "name", "from", "to", "route", "source", "license")

#: Walking speed behind the `walk_s` edge attribute: 5 km/h, a convenience, not a ruling.
WALK_SPEED_M_S = 5000.0 / 3600.0

#: End points closer than this (metres) are the same node.
NODE_TOLERANCE_M = 0.01

_EDGE_FIELDS = ("id", "name", "route", "source", "license")

#: Fields a historical road file records for every leg (the shipped one does; a user's file may
#: leave them out, and then only ``roads_period="all"`` applies). Each field's allowed values:
#: ``class``: a main or a secondary road; ``period``: attested for the Iron Age, the
#: Hellenistic-Roman period or both; ``certainty``: ``certain`` (the course is attested),
#: ``conjectural`` (a road is attested, its course inferred) or ``hypothetical`` (the road is
#: inferred); ``direct_road``: whether the leg lies on a shortest road between two cities of
#: refuge, the "direct roads" of Deut 19:3 (computed by ``data/tools/build_roads.py``).
#: ``sources`` (the works that attest the road) is free text.
HISTORY_FIELDS: dict[str, tuple[Any, ...] | None] = {
    "class": ("main", "secondary"),
    "period": ("iron_age", "hellenistic_roman", "both"),
    "certainty": ("certain", "conjectural", "hypothetical"),
    "sources": None,
    "direct_road": (True, False),
}

#: Which roads count for routing (`roads_of_period`).
RoadsPeriod = Literal["all", "iron_age", "hellenistic_roman"]
ROADS_PERIODS: tuple[str, ...] = get_args(RoadsPeriod)
#: Every leg counts unless the user chooses a period.
DEFAULT_ROADS_PERIOD: RoadsPeriod = "all"


# --------------------------------------------------------------------------- reading


def read_roads(path: str | PathLike[str]) -> gpd.GeoDataFrame:
    """Read and validate a road file, returning its legs in `REGION_CRS`.

    Parameters
    ----------
    path
        A GeoJSON (or any OGR format) file of LineStrings in WGS84 longitude/latitude, each with
        the fields of `REQUIRED_FIELDS`.

    Returns
    -------
    geopandas.GeoDataFrame
        One row per road leg, projected to `REGION_CRS`.

    Raises
    ------
    DataFileError
        If the file cannot be read, or naming every problem found at once: a missing or empty
        field, a missing, empty, invalid or non-LineString geometry, coordinates outside
        `REGION_BOUNDS_LONLAT` (such as longitude and latitude swapped), or a CRS other than
        WGS84.
    """
    roads = read_layer(Path(path), REQUIRED_FIELDS, geom_types=("LineString",))
    problems = [
        f"field {field!r}: {sorted(map(str, bad))[:3]} not one of {list(allowed)}"
        for field, allowed in HISTORY_FIELDS.items()
        if allowed is not None and field in roads
        for bad in [set(roads[field].dropna()) - set(allowed)]
        if bad
    ]
    if problems:
        raise DataFileError(f"{len(problems)} problem(s): " + "; ".join(problems), source=str(path))
    return roads.to_crs(REGION_CRS)


def roads_of_period(roads: gpd.GeoDataFrame, period: RoadsPeriod) -> gpd.GeoDataFrame:
    """The legs that count in `period`: all of them, or those attested for it (or for both).

    Parameters
    ----------
    roads
        Road legs as returned by `read_roads`.
    period
        One of `ROADS_PERIODS`.

    Raises
    ------
    ParameterError
        If `period` is unknown.
    DataFileError
        If a period is chosen and the legs do not record theirs (field ``period``).
    """
    if period not in ROADS_PERIODS:
        raise ParameterError("unknown roads period", field="roads_period", value=period)
    if period == "all":
        return roads
    if "period" not in roads:
        raise DataFileError(
            f"roads_period={period!r} needs the legs' periods", source="roads", field="period"
        )
    return roads[roads["period"].isin([period, "both"])]


# --------------------------------------------------------------------------- building


@dataclass
class _Leg:
    """A piece of road before noding: its geometry and the attributes its edges inherit."""

    geometry: LineString
    attrs: dict[str, Any]
    ends: tuple[str, str]


def build_road_graph(roads: gpd.GeoDataFrame, zones: gpd.GeoDataFrame) -> nx.MultiGraph:
    """Build the road graph with a gate node wherever a road enters a city's protecting zone.

    Parameters
    ----------
    roads
        Road legs in `REGION_CRS`, as returned by `read_roads`.
    zones
        One row per city, indexed by city id, with the protecting polygon as geometry and the
        city's site (a shapely Point) in the column ``site``; in `REGION_CRS`.

    Returns
    -------
    networkx.MultiGraph
        Integer nodes with ``x``, ``y``, ``gate`` (the city id, or "" for no gate) and
        ``waypoint`` (the road file's end point id, the city id for a spur's site, or "");
        edges with ``geometry`` (oriented from the node at its first coordinate), ``length_m``,
        ``walk_s``, ``route``, ``source``, ``license``, ``name`` and ``id``, and the fields of
        `HISTORY_FIELDS` that the road file records.
        ``G.graph["crs"]`` is `REGION_CRS`. Legs meet only at shared end points.

    Raises
    ------
    DataFileError
        If either frame is not in `REGION_CRS`, or if some city's gates are not connected to
        the rest of the network (the message names the city).
    """
    _check_region_crs(roads, "roads")
    _check_region_crs(zones, "zones")
    legs = [_leg_from_record(cast(dict[str, Any], r)) for r in roads.to_dict("records")]
    for city in zones.index[~zones.geometry.intersects(shapely.union_all(roads.geometry))]:
        legs = _add_spur(legs, str(city), cast(Point, zones.at[city, "site"]))
    boundaries = zones.geometry.boundary.to_numpy()
    legs = [piece for leg in legs for piece in _split_at_zones(leg, boundaries)]
    graph = _graph_from_legs(legs, zones)
    _check_connected(graph, list(map(str, zones.index)))
    return graph


def _check_region_crs(frame: gpd.GeoDataFrame, name: str) -> None:
    if frame.crs is None or not CRS(frame.crs).equals(REGION_CRS):
        crs = None if frame.crs is None else frame.crs.name
        raise DataFileError("must be in geo.crs.REGION_CRS", source=name, field="crs", value=crs)


def _leg_from_record(record: dict[str, Any]) -> _Leg:
    fields = (*_EDGE_FIELDS, *(f for f in HISTORY_FIELDS if f in record))
    attrs = {field: record[field] for field in fields}
    return _Leg(record["geometry"], attrs, (str(record["from"]), str(record["to"])))


def _add_spur(legs: list[_Leg], city: str, site: Point) -> list[_Leg]:
    """Join `site` to the nearest point of the network, splitting the leg it lands on."""
    tree = shapely.STRtree([leg.geometry for leg in legs])
    nearest = int(tree.query_nearest(site)[0])
    target = legs[nearest]
    along = target.geometry.project(site)
    foot = target.geometry.interpolate(along)
    spur = _Leg(
        LineString([site, foot]),
        {
            "id": f"spur_{city}",
            "name": f"spur to {city}",
            "route": "spur",
            "source": "generated: straight spur from the city site to the nearest road",
            "license": "generated",
        },
        (city, ""),
    )
    return [*legs[:nearest], *_split_leg(target, [along]), *legs[nearest + 1 :], spur]


def _split_leg(leg: _Leg, cuts: Sequence[float]) -> list[_Leg]:
    """Cut a leg at distances along it; pieces shorter than the node tolerance are dropped."""
    bounds = [0.0, *sorted(c for c in cuts if 0.0 < c < leg.geometry.length), leg.geometry.length]
    pieces = []
    for start, end in pairwise(bounds):
        if end - start > NODE_TOLERANCE_M:
            piece = substring(leg.geometry, start, end)
            first, last = (
                leg.ends[0] if start == 0.0 else "",
                leg.ends[1] if end == bounds[-1] else "",
            )
            pieces.append(_Leg(cast(LineString, piece), leg.attrs, (first, last)))
    return pieces


def _split_at_zones(leg: _Leg, boundaries: NDArray[np.object_]) -> list[_Leg]:
    """The leg cut wherever it crosses one of the zones' `boundaries`."""
    crossings = shapely.intersection(leg.geometry, boundaries)
    points = shapely.get_coordinates(crossings)
    if len(points) == 0:
        return [leg]
    along = shapely.line_locate_point(leg.geometry, shapely.points(points))
    return _split_leg(leg, np.atleast_1d(along).tolist())


def _graph_from_legs(legs: list[_Leg], zones: gpd.GeoDataFrame) -> nx.MultiGraph:
    import networkx as nx  # here: a network loaded from the cache needs none (`RoadRouter`)

    graph: nx.MultiGraph[int] = nx.MultiGraph(crs=REGION_CRS)
    index: dict[tuple[float, float], int] = {}
    boundaries = zones.geometry.boundary
    for leg in legs:
        coords = shapely.get_coordinates(leg.geometry)
        ends = [
            _node(graph, index, coords[i], name) for i, name in zip((0, -1), leg.ends, strict=True)
        ]
        length = float(leg.geometry.length)
        graph.add_edge(
            *ends,
            geometry=leg.geometry,
            length_m=length,
            walk_s=length / WALK_SPEED_M_S,
            **leg.attrs,
        )
    nodes = graph.nodes
    xy = np.array([(nodes[n]["x"], nodes[n]["y"]) for n in nodes], dtype=np.float64)
    points = cast("NDArray[np.object_]", shapely.points(xy.reshape(-1, 2)))
    on_boundary = np.asarray(
        shapely.distance(points[:, None], boundaries.to_numpy()) < NODE_TOLERANCE_M
    )
    # each node's gate: the first zone whose boundary it lies on
    on_any = cast("list[bool]", on_boundary.any(axis=1).tolist())
    gates = zip(on_any, on_boundary.argmax(axis=1).tolist(), strict=True)
    for node, (gated, zone) in zip(nodes, gates, strict=True):
        nodes[node]["gate"] = str(boundaries.index[zone]) if gated else ""
    return graph


def _node(
    graph: nx.MultiGraph, index: dict[tuple[float, float], int], xy: NDArray[np.float64], name: str
) -> int:
    """The node at `xy` (within `NODE_TOLERANCE_M`), created if new."""
    key = (round(float(xy[0]) / NODE_TOLERANCE_M), round(float(xy[1]) / NODE_TOLERANCE_M))
    if key not in index:
        index[key] = len(index)
        graph.add_node(index[key], x=float(xy[0]), y=float(xy[1]), waypoint="")
    if name and not graph.nodes[index[key]]["waypoint"]:
        graph.nodes[index[key]]["waypoint"] = name
    return index[key]


def _check_connected(graph: nx.MultiGraph, cities: list[str]) -> None:
    import networkx as nx  # with the graph's build (`_graph_from_legs`)

    main = max(nx.connected_components(graph), key=len, default=set())
    gated = {data["gate"] for node, data in graph.nodes(data=True) if node in main}
    cut_off = [city for city in cities if city not in gated]
    if cut_off:
        raise DataFileError(
            "no road from the main network reaches the zone of these cities (disconnected data)",
            source="roads",
            field="city",
            value=cut_off,
        )


# --------------------------------------------------------------------------- converting


def _oriented_edges(graph: nx.MultiGraph) -> Iterator[tuple[int, int, int, dict[str, Any]]]:
    """Edges as (u, v, key, data) with u the node at the first coordinate of the geometry."""
    for u, v, key, data in graph.edges(keys=True, data=True):
        x0, y0 = data["geometry"].coords[0]
        nu, nv = graph.nodes[u], graph.nodes[v]
        u_first = np.hypot(nu["x"] - x0, nu["y"] - y0) <= np.hypot(nv["x"] - x0, nv["y"] - y0)
        yield (u, v, key, data) if u_first else (v, u, key, data)


def graph_to_gdfs(graph: nx.MultiGraph) -> tuple[gpd.GeoDataFrame, gpd.GeoDataFrame]:
    """Convert a road graph to a node and an edge GeoDataFrame.

    Parameters
    ----------
    graph
        A graph from `build_road_graph`.

    Returns
    -------
    nodes, edges
        Nodes indexed by node id with Point geometry; edges indexed by (u, v, key) with their
        LineString oriented from u to v. Both in ``graph.graph["crs"]``.
    """
    import geopandas as gpd
    import pandas as pd

    crs = graph.graph["crs"]
    node_ids = list(graph.nodes)
    xy = [(graph.nodes[n]["x"], graph.nodes[n]["y"]) for n in node_ids]
    nodes = gpd.GeoDataFrame(
        [graph.nodes[n] for n in node_ids],
        index=pd.Index(node_ids, name="node"),
        geometry=shapely.points(np.array(xy).reshape(-1, 2)),
        crs=crs,
    )
    records = list(_oriented_edges(graph))
    edges = gpd.GeoDataFrame(
        [data for *_, data in records],
        index=pd.MultiIndex.from_tuples([r[:3] for r in records], names=["u", "v", "key"]),
        geometry="geometry",
        crs=crs,
    )
    return nodes, edges


def gdfs_to_graph(nodes: gpd.GeoDataFrame, edges: gpd.GeoDataFrame) -> nx.MultiGraph:
    """Convert node and edge GeoDataFrames (as from `graph_to_gdfs`) back to a road graph."""
    import networkx as nx  # with the graph's build (`_graph_from_legs`)

    graph: nx.MultiGraph[Any] = nx.MultiGraph(crs=nodes.crs)
    graph.add_nodes_from(
        (node, row) for node, row in nodes.drop(columns="geometry").to_dict("index").items()
    )
    rows = cast(dict[tuple[Any, Any, Any], dict[str, Any]], edges.to_dict("index"))
    for (u, v, key), row in rows.items():
        graph.add_edge(u, v, key=key, **row)
    return graph


# --------------------------------------------------------------------------- routing


@dataclass(frozen=True)
class Snap:
    """Where positions meet the road network: one entry per position.

    Attributes
    ----------
    edge
        Index into `RoadRouter.edge_geometries` of the nearest road segment.
    u, v
        Node indices of that edge's first and last coordinate.
    along_m
        Distance from u along the edge to the snapped point.
    offroad_m
        Straight distance from the position to the snapped point (the nearest point of the
        edge; ``shapely.line_interpolate_point(edge_geometries[edge], along_m)``).
    foot_x, foot_y
        The snapped point.
    """

    edge: NDArray[np.intp]
    u: NDArray[np.intp]
    v: NDArray[np.intp]
    along_m: NDArray[np.float64]
    offroad_m: NDArray[np.float64]
    foot_x: NDArray[np.float64]
    foot_y: NDArray[np.float64]


@dataclass(frozen=True)
class Route:
    """The way from one position to the nearest gate of a city.

    Attributes
    ----------
    geometry
        From the position, the off-road leg to the road, then along the roads to the gate.
    length_m
        Length of `geometry`.
    offroad_m
        Length of the off-road leg.
    city
        The city whose gate is reached.
    gate_node
        Node index (equal to the graph's node id for graphs from `build_road_graph`) of the gate.
    nodes
        Node indices along the road, from the end of the snapped edge to the gate.
    """

    geometry: LineString
    length_m: float
    offroad_m: float
    city: str
    gate_node: int
    nodes: tuple[int, ...]


@dataclass(frozen=True)
class Way:
    """The way from positions to asylum in two parts: one entry per position.

    Attributes
    ----------
    offroad_m
        The straight leg across country to the road (or into a zone it enters first).
    road_m
        The distance along the roads from there to the gate.
    city
        The city reached ("" where none is).
    foot_x, foot_y
        Where the off-road leg meets the road (`REGION_CRS`).
    """

    offroad_m: NDArray[np.float64]
    road_m: NDArray[np.float64]
    city: NDArray[np.str_]
    foot_x: NDArray[np.float64]
    foot_y: NDArray[np.float64]


@dataclass(frozen=True)
class Flood:
    """The gates of a set of cities flooded: a multi-source Dijkstra pass from them.

    Attributes
    ----------
    dist
        Road distance (metres) from each node to its nearest gate (inf where none is reached).
    pred
        The node before each node on its way from that gate (-9999 at a gate or unreached).
    city
        The city of that gate ("" where none is reached).
    """

    dist: NDArray[np.float64]
    pred: NDArray[np.int32]
    city: NDArray[np.str_]


@dataclass(frozen=True)
class _Segments:
    """The roads' straight segments as arrays, for snapping by brute force when they are few.

    Projecting every position onto every segment in numpy needs no shapely point per position
    and is about ten times faster than the STRtree for a network of some dozens of segments
    (the shipped one has 174); past `MAX` segments the STRtree wins. Many positions at once go
    through a grid of cells (`_Grid`) that keeps, per cell, only the segments that can be
    nearest to a point in it: the same answer, bit for bit, at a fraction of the work.
    """

    MAX: ClassVar[int] = 4096
    #: Positions per block: the (block x segments) temporaries stay in the cache (256 is about
    #: twice as fast as 2048 for the shipped network's 174 segments)
    CHUNK: ClassVar[int] = 256
    #: Positions at once from which the grid is worth building (once per network).
    GRID_FROM: ClassVar[int] = 512

    start: Floats  # (n, 2) first point of each segment
    delta: Floats  # (n, 2) segment vector
    edge: NDArray[np.intp]  # edge index of each segment
    before_m: Floats  # length of the edge before the segment starts

    @classmethod
    def of(cls, edge_geometries: NDArray[Any]) -> _Segments:
        coords, owner = shapely.get_coordinates(edge_geometries, return_index=True)
        inner = owner[1:] == owner[:-1]
        start, edge = coords[:-1][inner], owner[:-1][inner].astype(np.intp)
        delta = coords[1:][inner] - start
        length = np.hypot(delta[:, 0], delta[:, 1])
        before = np.cumsum(length) - length
        before -= before[np.searchsorted(edge, edge)]  # restart the count at each edge
        return cls(start, delta, edge, before)

    @property
    def few(self) -> bool:
        return 0 < len(self.edge) <= self.MAX

    @cached_property
    def _length2(self) -> Floats:
        """|d|^2 of each segment."""
        dx, dy = self.delta[:, 0], self.delta[:, 1]
        return dx * dx + dy * dy

    @cached_property
    def _inverse(self) -> Floats:
        """1 / |d|^2 of each segment (0 for a segment of no length)."""
        squared = self._length2
        return np.divide(1.0, squared, out=np.zeros_like(squared), where=squared > 0)

    def squared(self, x: Floats, y: Floats, seg: NDArray[np.intp] | slice) -> Floats:
        """Squared distance from each position (a column: ``x[:, None]``) to segments `seg`
        (a slice of all of them, or one row of segment indices per position)."""
        ax, ay, dx, dy = (a[seg] for a in (*self.start.T, *self.delta.T))
        rx, ry = x - ax, y - ay
        # (rx - t dx)^2 + (ry - t dy)^2 with t = clip((rx dx + ry dy) / |d|^2, 0, 1), in
        # place: a block's few temporaries stay in the cache
        t = rx * dx
        t += ry * dy
        t *= self._inverse[seg]
        np.clip(t, 0.0, 1.0, out=t)
        step = t * dx
        rx -= step
        np.multiply(t, dy, out=step)
        ry -= step
        rx *= rx
        ry *= ry
        rx += ry
        return rx

    @cached_property
    def _grid(self) -> _Grid:
        return _Grid.of(self)

    def make_grid(self) -> None:
        """Make the grid now, where these segments snap (`few`; else the STRtree does), rather
        than at the first snap of many positions (`nearest`): a router pickled with it (the
        network cache's, `geo._cache`) carries it to every process that loads the network,
        where each made it again (12-25 ms)."""
        if self.few:
            self._grid  # noqa: B018 (made and kept by the cached property)

    def nearest(
        self, x: Floats, y: Floats
    ) -> tuple[NDArray[np.intp], Floats, Floats, Floats, Floats]:
        """Edge, distance along it, off-road distance and x, y of the nearest point on any
        segment (the first segment of the nearest, where several are)."""
        best = np.empty(len(x), dtype=np.intp)
        rest = np.arange(len(x))
        if len(x) >= self.GRID_FROM:
            rest = self._grid.nearest(self, x, y, best)
        every = slice(None)
        for first in range(0, len(rest), self.CHUNK):
            block = rest[first : first + self.CHUNK]
            best[block] = self.squared(x[block, None], y[block, None], every).argmin(axis=1)
        ax, ay = self.start[:, 0], self.start[:, 1]
        dx, dy = self.delta[:, 0], self.delta[:, 1]
        rx, ry = x - ax[best], y - ay[best]
        t = np.clip((rx * dx[best] + ry * dy[best]) * self._inverse[best], 0.0, 1.0)
        foot_x, foot_y = ax[best] + t * dx[best], ay[best] + t * dy[best]
        offroad = np.hypot(x - foot_x, y - foot_y)
        along = self.before_m[best] + t * np.sqrt(self._length2[best])
        return self.edge[best], along, offroad, foot_x, foot_y


@dataclass(frozen=True)
class _Grid:
    """Cells over the segments' extent, each with the segments that can be nearest to a point
    in it: those whose bounding box is no farther from the cell than the bound of the cell
    (the least, over segments, of the largest distance from the cell to the segment; the
    distance to a segment is convex, so over a cell it is largest at a corner). Every segment
    nearest to some point of the cell is among them, in index order, so the first nearest is
    the one the brute force finds.
    """

    CELLS: ClassVar[int] = 32  # per side (64: a little faster to query, 3x slower to build)
    BLOCK: ClassVar[int] = 4096  # positions per block

    origin: Floats  # (2,) lower left corner
    size: Floats  # (2,) cell width and height
    candidates: NDArray[np.intp]  # (cells, k) segment indices, padded with the last one
    count: NDArray[np.intp]  # (cells,) how many of a row are candidates

    @classmethod
    def of(cls, segments: _Segments) -> _Grid:
        ends = np.vstack([segments.start, segments.start + segments.delta])
        low, high = ends.min(axis=0) - 1.0, ends.max(axis=0) + 1.0
        g = cls.CELLS
        size = (high - low) / g
        cx, cy = np.meshgrid(*(low[k] + size[k] * np.arange(g + 1) for k in (0, 1)), indexing="ij")
        every = slice(None)
        corner = np.sqrt(segments.squared(cx.reshape(-1, 1), cy.reshape(-1, 1), every))
        corner = corner.reshape(g + 1, g + 1, -1)
        farthest = np.maximum.reduce(
            [corner[:-1, :-1], corner[1:, :-1], corner[:-1, 1:], corner[1:, 1:]]
        )
        # a little slack for rounding: a segment too many costs time, one too few a wrong road
        bound = farthest.min(axis=2, keepdims=True) * (1 + 1e-9) + 1e-6
        seg_low, seg_high = np.minimum(*np.split(ends, 2)), np.maximum(*np.split(ends, 2))
        cell_low = [low[k] + size[k] * np.arange(g) for k in (0, 1)]
        gap = [
            np.maximum(
                np.maximum(seg_low[:, k] - (cell_low[k] + size[k])[:, None], 0.0),
                cell_low[k][:, None] - seg_high[:, k],
            )
            for k in (0, 1)
        ]  # (g, segments) per axis
        near = np.hypot(gap[0][:, None, :], gap[1][None, :, :]) <= bound
        near = near.reshape(g * g, -1)
        count = near.sum(axis=1)
        order = np.argsort(~near, axis=1, kind="stable")[:, : count.max()]
        last = order[np.arange(len(order)), np.maximum(count - 1, 0)]
        padded = np.where(np.arange(order.shape[1]) < count[:, None], order, last[:, None])
        return cls(low, size, padded, count)

    def nearest(
        self, segments: _Segments, x: Floats, y: Floats, best: NDArray[np.intp]
    ) -> NDArray[np.intp]:
        """Write into `best` the nearest of `segments` (those the grid was made of) to each
        position inside the grid; return the indices of the others."""
        cell = np.floor((np.column_stack([x, y]) - self.origin) / self.size)
        inside = ((cell >= 0) & (cell < self.CELLS)).all(axis=1)
        index = np.where(inside, cell[:, 0] * self.CELLS + cell[:, 1], 0).astype(np.intp)
        count = np.where(inside, self.count[index], 0)
        low = 0
        for k in self._widths():  # positions whose cells have (low, k] candidates: k columns
            tier = np.flatnonzero((count > low) & (count <= k))
            for first in range(0, len(tier), self.BLOCK):
                rows = tier[first : first + self.BLOCK]
                seg = self.candidates[index[rows], :k]
                distance = segments.squared(x[rows, None], y[rows, None], seg)
                best[rows] = seg[np.arange(len(rows)), distance.argmin(axis=1)]
            low = k
        return np.flatnonzero(~inside)

    def _widths(self) -> list[int]:
        """Candidate counts 4, 8, 16, ... up to the largest (the columns a tier reads)."""
        widest = self.candidates.shape[1]
        widths = [4]
        while widths[-1] < widest:
            widths.append(min(2 * widths[-1], widest))
        return widths


class RoadRouter:
    """Fast queries on a road graph: snapping, distance to the nearest gate, routes.

    Parameters
    ----------
    graph
        A graph from `build_road_graph` (or `gdfs_to_graph`).

    Attributes
    ----------
    node_ids
        Graph node id of each node index.
    node_x, node_y
        Node coordinates (metres, `REGION_CRS`) by node index.
    node_gate
        City id of each gate node, "" elsewhere.
    edge_u, edge_v
        Node index at the first and last coordinate of each edge.
    edge_geometries
        Edge LineStrings, oriented from `edge_u` to `edge_v`.
    edge_length_m
        Edge lengths.
    node_waypoint
        The road file's end point id of each node (`build_road_graph`'s ``waypoint``).
    matrix
        Symmetric CSR matrix of the shortest edge length between each pair of adjacent nodes.
    node_degree
        How many other nodes each node's edges reach (parallel edges and loops not counted).
    node_dist, node_pred
        All-pairs shortest road distances (metres) between the nodes, and ``node_pred[a, b]``
        the node before `b` on a shortest path from `a` (-9999 where none), from one
        `scipy.sparse.csgraph.dijkstra` pass when the router is made (the graph has a few dozen
        nodes, a few hundred with the Levitical cities). Every later query reads them: a
        router loaded with a cached network (`geo._cache`) answers without scipy, whose
        import costs more than the whole pass.

    A pickled router leaves `matrix` out (it is made again, from the edges, when asked for).
    """

    def __init__(self, graph: nx.MultiGraph) -> None:
        self.node_ids = np.array(list(graph.nodes))
        position = {node: i for i, node in enumerate(self.node_ids.tolist())}
        self.node_x = np.array([d["x"] for _, d in graph.nodes(data=True)], dtype=np.float64)
        self.node_y = np.array([d["y"] for _, d in graph.nodes(data=True)], dtype=np.float64)
        self.node_gate = np.array([d.get("gate", "") for _, d in graph.nodes(data=True)], dtype=str)
        waypoints = [d.get("waypoint", "") for _, d in graph.nodes(data=True)]
        self.node_waypoint = np.array(waypoints, dtype=str)
        edges = list(_oriented_edges(graph))
        self.edge_u = np.array([position[u] for u, *_ in edges], dtype=np.intp)
        self.edge_v = np.array([position[v] for _, v, *_ in edges], dtype=np.intp)
        self.edge_geometries = np.array([d["geometry"] for *_, d in edges], dtype=object)
        self.edge_length_m = shapely.length(self.edge_geometries)
        self.node_dist, self.node_pred = self._all_pairs()
        self._tree = shapely.STRtree(self.edge_geometries)
        self._segments = _Segments.of(self.edge_geometries)
        self._segments.make_grid()
        self._edge_of_pair = self._shortest_edge_of_pair()
        self._floods: dict[tuple[str, ...], Flood] = {}

    def __getstate__(self) -> dict[str, Any]:
        """The router's attributes without `matrix` (a scipy object: loading it would import
        scipy, which no cached query needs) and without its floods (read off the tables again
        when asked for, their arrays read-only as made)."""
        left = ("matrix", "_floods")
        return {name: value for name, value in self.__dict__.items() if name not in left}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, _floods={})

    def _shortest_edge_of_pair(self) -> dict[tuple[int, int], int]:
        best: dict[tuple[int, int], int] = {}
        for edge in np.argsort(self.edge_length_m)[::-1].tolist():
            u, v = int(self.edge_u[edge]), int(self.edge_v[edge])
            best[(u, v)] = best[(v, u)] = edge
        return best

    @cached_property
    def _adjacent(self) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.float64]]:
        """Each ordered pair of adjacent nodes, both ways (loops left out), and the length of
        the shortest of the edges joining them: the entries of `matrix`."""
        loop = self.edge_u == self.edge_v
        rows = np.concatenate([self.edge_u[~loop], self.edge_v[~loop]])
        cols = np.concatenate([self.edge_v[~loop], self.edge_u[~loop]])
        length = np.tile(self.edge_length_m[~loop], 2)
        # keep the shortest of parallel edges: sort longest first, let later entries win
        order = np.lexsort((-length, cols, rows))
        rows, cols, length = rows[order], cols[order], length[order]
        last = np.r_[(rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1]), True]
        return rows[last], cols[last], length[last]

    @cached_property
    def matrix(self) -> csr_array:
        """Symmetric CSR matrix of the shortest edge length between adjacent nodes."""
        from scipy.sparse import coo_array  # on first use: see the class's docstring

        rows, cols, length = self._adjacent
        n = len(self.node_ids)
        return coo_array((length, (rows, cols)), shape=(n, n)).tocsr()

    @property
    def node_degree(self) -> NDArray[np.intp]:
        """How many other nodes each node's edges reach (parallel edges and loops not counted)."""
        return np.bincount(self._adjacent[0], minlength=len(self.node_ids))

    def _all_pairs(self) -> tuple[NDArray[np.float64], NDArray[np.int32]]:
        from scipy.sparse.csgraph import dijkstra  # once, when the router is made

        dist, pred = dijkstra(self.matrix, directed=False, return_predecessors=True)
        return np.asarray(dist), np.asarray(pred)

    @property
    def cities(self) -> tuple[str, ...]:
        """City ids that have at least one gate, sorted."""
        return tuple(sorted(set(self.node_gate.tolist()) - {""}))

    def snap(self, x: ArrayLike, y: ArrayLike) -> Snap:
        """Snap positions onto their nearest road segment.

        Parameters
        ----------
        x, y
            Positions in `REGION_CRS` (metres), scalars or 1-d arrays of one length.

        Returns
        -------
        Snap
            Arrays of the positions' length.

        Raises
        ------
        QueryError
            If a coordinate is not finite.
        """
        px, py = (np.atleast_1d(np.asarray(a, dtype=np.float64)) for a in np.broadcast_arrays(x, y))
        check_finite(px, "x")
        check_finite(py, "y")
        if self._segments.few:
            edge, along, offroad, foot_x, foot_y = self._segments.nearest(px, py)
            return Snap(edge, self.edge_u[edge], self.edge_v[edge], along, offroad, foot_x, foot_y)
        points = shapely.points(px, py)
        (which, hit), dist = self._tree.query_nearest(
            points, return_distance=True, all_matches=False
        )
        edge, offroad = np.empty(len(px), dtype=np.intp), np.empty(len(px))
        edge[which], offroad[which] = hit, dist
        along = shapely.line_locate_point(self.edge_geometries[edge], points)
        foot = shapely.get_coordinates(
            shapely.line_interpolate_point(self.edge_geometries[edge], along)
        )
        return Snap(edge, self.edge_u[edge], self.edge_v[edge], along, offroad, *foot.T)

    def node_distances(self, sources: ArrayLike) -> NDArray[np.float64]:
        """Road distance (metres) from the nearest of `sources` (node indices) to every node."""
        indices = np.atleast_1d(np.asarray(sources, dtype=np.intp))
        return np.asarray(self.node_dist[indices].min(axis=0))

    def flood(self, cities: Sequence[str] | None = None) -> Flood:
        """Every node's nearest gate among those of `cities` (default all), cached per set.

        Raises
        ------
        ParameterError
            If a city has no gate in the graph, or `cities` is empty.
        """
        key = self.cities if cities is None else tuple(sorted(set(cities)))
        if key not in self._floods:
            unknown = sorted(set(key) - set(self.cities))
            if unknown or not key:
                raise ParameterError(
                    f"no gates for these cities; known: {list(self.cities)}",
                    field="cities",
                    value=unknown or list(key),
                )
            # a multi-source Dijkstra from the gates, read off the all-pairs tables: each node's
            # nearest gate (the first of equals), its distance and its predecessor from there
            gates = np.flatnonzero(np.isin(self.node_gate, key))
            nodes = np.arange(len(self.node_ids))
            nearest = gates[np.argmin(self.node_dist[gates], axis=0)]
            dist, pred = self.node_dist[nearest, nodes], self.node_pred[nearest, nodes]
            city = np.where(np.isfinite(dist), self.node_gate[nearest], "")
            for table in (dist, pred, city):
                table.flags.writeable = False  # cached: every caller reads the same arrays
            self._floods[key] = Flood(dist, pred, city)
        return self._floods[key]

    def _nearest_end(
        self, snap: Snap, flood: Flood
    ) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
        """For each snapped position, the edge end to walk to and the road distance via it."""
        via_u = snap.along_m + flood.dist[snap.u]
        via_v = self.edge_length_m[snap.edge] - snap.along_m + flood.dist[snap.v]
        take_u = via_u <= via_v
        return np.where(take_u, snap.u, snap.v), np.where(take_u, via_u, via_v)

    def way_to_gates(self, x: ArrayLike, y: ArrayLike, cities: Sequence[str] | None = None) -> Way:
        """The off-road leg and the road distance from each position to the nearest gate.

        Same arguments and errors as `distance_to_gates`; the parts are kept apart (they are
        walked at different speeds) together with the snapped points.
        """
        snap, road, city = self._to_gates(x, y, cities)
        return Way(snap.offroad_m, road, city, snap.foot_x, snap.foot_y)

    def _to_gates(
        self, x: ArrayLike, y: ArrayLike, cities: Sequence[str] | None
    ) -> tuple[Snap, NDArray[np.float64], NDArray[np.str_]]:
        flood = self.flood(cities)
        snap = self.snap(x, y)
        end, road = self._nearest_end(snap, flood)
        return snap, road, flood.city[end]

    def distance_to_gates(
        self, x: ArrayLike, y: ArrayLike, cities: Sequence[str] | None = None
    ) -> tuple[NDArray[np.float64], NDArray[np.str_]]:
        """Off-road leg plus road distance from each position to the nearest gate.

        Parameters
        ----------
        x, y
            Positions in `REGION_CRS` (metres), scalars or 1-d arrays of one length.
        cities
            City ids whose gates count; default all. The Dijkstra pass is cached per set.

        Returns
        -------
        dist_m, city
            Distance in metres and the city reached; inf and "" where no gate is reachable.

        Raises
        ------
        ParameterError
            If a city has no gate in the graph, or `cities` is empty.
        QueryError
            If a coordinate is not finite.
        """
        snap, road, city = self._to_gates(x, y, cities)
        return snap.offroad_m + road, city

    def route(self, x: float, y: float, city: str) -> Route:
        """The shortest way from one position to the nearest gate of `city`.

        Raises
        ------
        ParameterError
            If `city` has no gate in the graph.
        QueryError
            If the position is not finite or no gate of `city` can be reached from it.
        """
        flood = self.flood([city])
        snap = self.snap(x, y)
        end_arr, road = self._nearest_end(snap, flood)
        end = int(end_arr[0])
        if not np.isfinite(road[0]):
            raise QueryError(f"no road leads to {city}", field="city", value=city)
        nodes = self._path_to_source(end, flood.pred)
        on_edge = self._edge_part(snap, end)
        coords = np.vstack([[x, y], on_edge, self._path_coords(nodes)])
        offroad = float(snap.offroad_m[0])
        return Route(LineString(coords), offroad + float(road[0]), offroad, city, nodes[-1], nodes)

    @staticmethod
    def _path_to_source(node: int, pred: NDArray[np.int32]) -> tuple[int, ...]:
        path = [node]
        while pred[path[-1]] >= 0:
            path.append(int(pred[path[-1]]))
        return tuple(path)

    def _edge_part(self, snap: Snap, end: int) -> NDArray[np.float64]:
        """Coordinates from the snapped point along its edge to the edge end `end`."""
        line = self.edge_geometries[snap.edge[0]]
        along = float(snap.along_m[0])
        if end == snap.u[0]:
            return shapely.get_coordinates(substring(line, along, 0.0))
        return shapely.get_coordinates(substring(line, along, line.length))

    def _path_coords(self, nodes: tuple[int, ...]) -> NDArray[np.float64]:
        """Coordinates along the road through `nodes` (each leg's first point dropped)."""
        coords = [np.empty((0, 2))]
        for a, b in pairwise(nodes):
            edge = self._edge_of_pair[(a, b)]
            line = shapely.get_coordinates(self.edge_geometries[edge])
            coords.append((line if self.edge_u[edge] == a else line[::-1])[1:])
        return np.vstack(coords)
