"""The roads as the court had to keep them: width, bridges, and "miklat" at every crossroads.

Rambam, Rotzeach 8:5-6 (RULES.md §3): the roads to the cities of refuge are at least 32 cubits
wide, straight and level, with bridges over rivers so the fugitive is not held up; signs reading
"miklat" (refuge) stand at the crossroads so he knows where to turn (Makkot 10b, Rabbi Eliezer
ben Yaakov). The signposts are derived, not typed in: at each junction of whatever road network
is loaded, the sign points along a shortest way to the nearest city of refuge.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import shapely
from numpy.typing import NDArray

from geo._errors import ParameterError
from geo.crs import GEOD, to_lonlat
from geo.roads import RoadRouter

if TYPE_CHECKING:
    import geopandas as gpd
    import networkx as nx
    import pandas as pd

#: Rambam, Rotzeach 8:5: the road is at least 32 cubits wide. The Talmudic source usually given
#: is the road-width baraita of Bava Batra 100b (unverified, not read).
ROAD_WIDTH_CUBITS = 32.0
ROAD_WIDTH_SOURCE = "Rambam, Rotzeach 8:5 (at least 32 cubits); Bava Batra 100b (unverified)"

#: Rambam, Rotzeach 8:5: no hill, valley or river is left on the way; bridges are built.
BRIDGE_SOURCE = "Rambam, Rotzeach 8:5: bridges over every river, so the fugitive is not delayed"

#: What the signpost reads: "miklat" (Makkot 10b); Rambam 8:5 writes it twice.
SIGNPOST_TEXT = "miklat"
SIGNPOST_SOURCE = (
    "Makkot 10b (Rabbi Eliezer ben Yaakov): 'miklat' at the crossroads; "
    "Rambam, Rotzeach 8:5: 'miklat, miklat'"
)

#: Hydrography feature types a road crosses by a bridge.
RIVER_TYPES = ("river",)

#: How far along the road (metres) the sign's direction is taken: the way it first leaves.
_BEARING_STEP_M = 100.0

_COMPASS = np.array(["N", "NE", "E", "SE", "S", "SW", "W", "NW"])


def prescribe_roads(graph: nx.MultiGraph, hydrography: gpd.GeoDataFrame, *, cubit_m: float) -> None:
    """Give every road edge its prescribed width and its bridges, in place.

    Sets ``width_cubits`` (`ROAD_WIDTH_CUBITS`), ``width_m`` (with `cubit_m`) and ``bridges``
    (how many times the edge crosses a river of `hydrography`, each crossing a bridge).

    Parameters
    ----------
    graph
        A road graph from `geo.roads.build_road_graph`, in the hydrography's metric CRS.
    hydrography
        Hydrography features with ``feature_type`` (rivers: `RIVER_TYPES`).
    cubit_m
        Metres per cubit.
    """
    edges = [data for _, _, data in graph.edges(data=True)]
    crossings = _crossings([data["geometry"] for data in edges], _rivers(hydrography))
    counts = shapely.get_num_coordinates(crossings).sum(axis=1)
    for data, count in zip(edges, counts.tolist(), strict=True):
        data["width_cubits"] = ROAD_WIDTH_CUBITS
        data["width_m"] = ROAD_WIDTH_CUBITS * cubit_m
        data["bridges"] = count


def _rivers(hydrography: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    return hydrography[hydrography["feature_type"].isin(RIVER_TYPES)]


def _crossings(lines: Sequence[shapely.Geometry], rivers: gpd.GeoDataFrame) -> NDArray[np.object_]:
    """Where each of `lines` meets each river: the intersections, one row per line and one
    column per river of `rivers` (each of their coordinates a crossing). One array call over
    every pair: a call per pair was 111 x 4 of them on the shipped roads."""
    return shapely.intersection(
        np.asarray(lines, dtype=object)[:, np.newaxis], rivers.geometry.to_numpy()[np.newaxis, :]
    )


def bridges(edges: gpd.GeoDataFrame, hydrography: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    """Every bridge: a point where a road edge crosses a river (Rambam, Rotzeach 8:5).

    Parameters
    ----------
    edges
        The road graph's edges (`geo.roads.graph_to_gdfs`; `geo.network.RefugeNetwork.road_frames`).
    hydrography
        The rivers, among other water (only rivers are crossed).

    Returns
    -------
    geopandas.GeoDataFrame
        One row per crossing with the road's ``road_id`` and ``road`` name, the ``river``, the
        ``width_m`` of the road and ``source``; Point geometry in the edges' CRS.
    """
    import geopandas as gpd

    rivers = _rivers(hydrography)
    crossings = _crossings(list(edges.geometry), rivers)
    # an attribute the graph lacks is missing on every edge: "" for a text, NaN for the width
    attributes = edges.reindex(columns=["id", "name", "width_m"])
    road_ids, names = (attributes[column].astype(object).fillna("") for column in ("id", "name"))
    widths = attributes["width_m"]
    rows: list[dict[str, object]] = []
    for road_id, name, width, met in zip(road_ids, names, widths, crossings, strict=True):
        for river, where in zip(rivers["name"], met, strict=True):
            rows.extend(
                {
                    "road_id": road_id,
                    "road": name,
                    "river": str(river),
                    "width_m": width,
                    "source": BRIDGE_SOURCE,
                    "geometry": shapely.Point(point),
                }
                for point in shapely.get_coordinates(where)
            )
    columns = ["road_id", "road", "river", "width_m", "source", "geometry"]
    return gpd.GeoDataFrame(rows, columns=columns, geometry="geometry", crs=edges.crs)


def signposts(
    router: RoadRouter,
    *,
    cities: Sequence[str] | None = None,
    skip: NDArray[np.bool_] | None = None,
) -> pd.DataFrame:
    """A "miklat" sign at every junction on a way to a city, pointing along a shortest way.

    The gates of `cities` flooded (`geo.roads.RoadRouter.flood`: a multi-source Dijkstra
    pass) give every node its road distance to the nearest gate and the next node on a
    shortest way there; the sign at a junction (a node with three or more neighbours) points
    along the road to that next node.

    Parameters
    ----------
    router
        The road router of a network (`geo.RefugeNetwork.router`).
    cities
        The cities the signs lead to (default: every city with a gate).
    skip
        Per node index, True for nodes that need no sign (e.g. inside a zone already).

    Returns
    -------
    pandas.DataFrame
        One row per sign: ``node`` (node index), ``toward`` (the next node), ``city`` (the gate
        reached), ``dist_m`` (road distance to it), ``bearing_deg`` (true bearing of the road as
        it leaves the junction, 0 = north, clockwise), ``compass`` (8-point), ``reads`` and
        ``source``, and ``x``, ``y`` of the junction (metric CRS).

    Raises
    ------
    ParameterError
        If no node is a gate of `cities`.
    """
    import pandas as pd

    targets = router.cities if cities is None else tuple(cities)
    gated = [city for city in targets if city in router.cities]  # a city without gates: none
    if not gated:
        raise ParameterError("no gates for these cities", field="cities", value=list(targets))
    flood = router.flood(gated)
    dist, pred = flood.dist, flood.pred
    junction = (router.node_degree >= 3) & np.isfinite(dist) & (pred >= 0)
    if skip is not None:
        junction &= ~np.asarray(skip, dtype=bool)
    node = np.flatnonzero(junction)
    toward = pred[node].astype(np.intp)
    bearing = _bearings(router, node, toward)
    return pd.DataFrame(
        {
            "node": node,
            "toward": toward,
            "city": flood.city[node],
            "dist_m": dist[node],
            "bearing_deg": bearing,
            "compass": _COMPASS[np.round(bearing / 45.0).astype(int) % 8],
            "reads": SIGNPOST_TEXT,
            "source": SIGNPOST_SOURCE,
            "x": router.node_x[node],
            "y": router.node_y[node],
        }
    )


def _bearings(
    router: RoadRouter, node: NDArray[np.intp], toward: NDArray[np.intp]
) -> NDArray[np.float64]:
    """True bearing (degrees) of the shortest edge from each `node` to its `toward` node, taken
    `_BEARING_STEP_M` along it (or halfway on a shorter edge)."""
    edge = _shortest_edges(router, node, toward)
    length = router.edge_length_m[edge]
    step = np.minimum(_BEARING_STEP_M, length / 2.0)
    from_u = router.edge_u[edge] == node
    along = np.where(from_u, step, length - step)
    ahead = shapely.get_coordinates(
        shapely.line_interpolate_point(router.edge_geometries[edge], along)
    )
    lon0, lat0 = to_lonlat(router.node_x[node], router.node_y[node])
    lon1, lat1 = to_lonlat(ahead[:, 0], ahead[:, 1])
    azimuth, _, _ = GEOD.inv(lon0, lat0, lon1, lat1)
    return np.mod(np.asarray(azimuth, dtype=np.float64), 360.0)


def _shortest_edges(
    router: RoadRouter, node: NDArray[np.intp], toward: NDArray[np.intp]
) -> NDArray[np.intp]:
    """Index of the shortest edge joining each pair (`node`, `toward`)."""
    best: dict[tuple[int, int], int] = {}
    for e in np.argsort(router.edge_length_m)[::-1].tolist():
        u, v = int(router.edge_u[e]), int(router.edge_v[e])
        best[(u, v)] = best[(v, u)] = e
    pairs = zip(node.tolist(), toward.tolist(), strict=True)
    return np.array([best[(a, b)] for a, b in pairs], dtype=np.intp)
