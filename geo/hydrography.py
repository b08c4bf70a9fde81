"""The Jordan, the lakes and the coast, and the two sides of the Jordan computed from them.

Two files hold the water. ``hydrography.geojson`` is Natural Earth's (public domain) with the
lakes and the coast; ``hydrography_osm_odbl.geojson`` holds the OpenStreetMap river lines
(ODbL 1.0, (c) OpenStreetMap contributors), kept in their own file as the licence asks. When
the OpenStreetMap Jordan is given, the divide between the two sides follows it: Natural Earth's
line, at 1:10 million, cuts straight through the Hula valley and lies 3-4 km west of the river
there.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon, box
from shapely.ops import split

from geo._errors import DataFileError
from geo._validate import read_layer
from geo.crs import REGION_BOUNDS_LONLAT, REGION_CRS, to_metric

if TYPE_CHECKING:
    import geopandas as gpd

HYDRO_FIELDS = ("id", "name", "feature_type", "source", "license")

#: The OpenStreetMap Jordan in ``hydrography_osm_odbl.geojson``: the river from the
#: confluence of its streams to the Dead Sea, through historic Lake Huleh (along the canal) and
#: across the Sea of Galilee (a straight chord from inflow to outflow).
OSM_JORDAN = "jordan_osm"

#: The features whose lines, joined, run the Jordan's whole course from its sources to the
#: Dead Sea: the river itself and Natural Earth's centre lines through the two lakes.
JORDAN_COURSE = (
    "jordan_upper",
    "jordan_centerline_sea_of_galilee",
    "jordan_lower",
    "jordan_centerline_dead_sea",
)


def read_hydrography(path: Path) -> gpd.GeoDataFrame:
    """Read and validate the hydrography file, returned in `REGION_CRS`.

    Raises
    ------
    DataFileError
        If a field or geometry is bad, or a feature of the Jordan's course is missing.
    """
    hydro = read_layer(
        path, HYDRO_FIELDS, geom_types=("LineString", "MultiLineString", "Polygon", "MultiPolygon")
    )
    missing = [fid for fid in JORDAN_COURSE if fid not in set(hydro["id"])]
    if missing:
        raise DataFileError(
            f"the Jordan's course is incomplete: missing {missing}", source=str(path), field="id"
        )
    return hydro.to_crs(REGION_CRS)


#: Where the Jordan's streams meet and the river proper begins (latitude, degrees; estimate).
CONFLUENCE_LAT = 33.18

#: The source the tradition names: "the Jordan issues from the cave of Paneas" (Bekhorot 55a;
#: Josephus, War 1.404; unverified), the Banias spring (lon, lat; position an estimate).
#: Natural Earth's line follows the Hasbani, the western stream, which would leave Dan, the
#: northern limit of the land, beyond the Jordan.
PANEAS_LONLAT = (35.6947, 33.2486)


def read_rivers(path: Path) -> gpd.GeoDataFrame:
    """Read and validate the OpenStreetMap river file, returned in `REGION_CRS`.

    Raises
    ------
    DataFileError
        If a field or geometry is bad, or the file holds no `OSM_JORDAN` line.
    """
    rivers = read_layer(path, HYDRO_FIELDS, geom_types=("LineString", "MultiLineString"))
    if OSM_JORDAN not in set(rivers["id"]):
        raise DataFileError(f"no {OSM_JORDAN!r} line", source=str(path), field="id")
    return rivers.to_crs(REGION_CRS)


def jordan_divide(hydro: gpd.GeoDataFrame, rivers: gpd.GeoDataFrame | None = None) -> LineString:
    """The Jordan's course as one line, prolonged due north and south to the region's edges.

    North of the confluence of its streams the line runs straight up to the cave of Paneas
    (`PANEAS_LONLAT`), then due north; south of the Dead Sea, due south.

    Parameters
    ----------
    hydro
        The Natural Earth hydrography (`read_hydrography`).
    rivers
        The OpenStreetMap river lines (`read_rivers`). When given, the river from the
        confluence to the Dead Sea is `OSM_JORDAN`, joined to Natural Earth's centre line
        through the Dead Sea where it enters the lake; otherwise Natural Earth's course.

    Raises
    ------
    DataFileError
        If the course does not join into a single line.
    """
    course = _north_to_south(_joined(hydro, JORDAN_COURSE))
    _, confluence_y = to_metric(PANEAS_LONLAT[0], CONFLUENCE_LAT)
    if rivers is None:
        coords = course[course[:, 1] <= confluence_y]
    else:
        river = _north_to_south(_joined(rivers, (OSM_JORDAN,)))
        mouth_y = river[-1, 1]
        coords = np.vstack([river, course[course[:, 1] < mouth_y]])
    source = np.asarray(to_metric(*PANEAS_LONLAT), dtype=float)
    _, bottom, _, top = _region_box().bounds
    pad = 1_000.0
    north = [source[0], top + pad]
    south = [coords[-1, 0], bottom - pad]
    return LineString(np.vstack([north, source, coords, south]))


def _joined(layer: gpd.GeoDataFrame, ids: tuple[str, ...]) -> LineString:
    parts = layer.set_index("id").loc[list(ids)].geometry
    line = shapely.line_merge(shapely.union_all(parts.to_numpy()))
    if line.geom_type != "LineString":
        raise DataFileError(
            f"the Jordan's course ({', '.join(ids)}) does not join into one line",
            field="geometry",
        )
    return line


def _north_to_south(line: LineString) -> np.ndarray:
    coords = np.asarray(line.coords)
    return coords[::-1] if coords[0, 1] < coords[-1, 1] else coords


#: What every land layer is cut from, besides the Jordan's own line.
LAND_SOURCE_NE = "Natural Earth 1:10m (the coast, the lakes, the Dead Sea)"


def land_sides(hydro: gpd.GeoDataFrame, rivers: gpd.GeoDataFrame | None = None) -> gpd.GeoDataFrame:
    """Split the region's land into the land west of the Jordan (Canaan) and the land east of it.

    The divide is `jordan_divide` (on the OpenStreetMap river when `rivers` is given). The
    Mediterranean (beyond the coastline) is not land; the lakes are left in, as the sides
    of the Jordan run through them.

    Returns
    -------
    GeoDataFrame
        Two rows indexed ``west`` and ``east``, polygons in `REGION_CRS`, each with the
        ``source`` and ``license`` of the lines it was cut along (the OpenStreetMap river is
        ODbL: a layer derived from it is attributed to OpenStreetMap's contributors).
    """
    import geopandas as gpd

    pieces = sorted(
        split(_region_box(), jordan_divide(hydro, rivers)).geoms, key=lambda p: p.centroid.x
    )
    west = pieces[0].difference(mediterranean(hydro))
    east = shapely.union_all(pieces[1:])
    source, license = LAND_SOURCE_NE, "public domain (Natural Earth)"
    if rivers is not None:
        source = f"{LAND_SOURCE_NE}; the Jordan from OpenStreetMap"
        license = "ODbL 1.0, © OpenStreetMap contributors (derived from the Jordan's line)"
    return gpd.GeoDataFrame(
        {
            "side": ["west", "east"],
            "name": ["Canaan (west of the Jordan)", "Beyond the Jordan (east)"],
            "source": [source, source],
            "license": [license, license],
        },
        geometry=[west, east],
        crs=REGION_CRS,
    ).set_index("side")


def side_of_jordan(points: gpd.GeoSeries, sides: gpd.GeoDataFrame) -> np.ndarray:
    """``"west"``, ``"east"`` or ``""`` (at sea) for each point (in `REGION_CRS`), from the
    geometry alone."""
    geoms = points.to_numpy()
    west = shapely.contains(sides.loc["west"].geometry, geoms)
    east = shapely.contains(sides.loc["east"].geometry, geoms)
    return np.where(west, "west", np.where(east, "east", ""))


def mediterranean(hydro: gpd.GeoDataFrame) -> Polygon:
    """The Mediterranean: the coastline closed through the region's north-west corner (empty
    if the hydrography has no ``mediterranean_coast``), in `REGION_CRS`."""
    coast = hydro.set_index("id").geometry.get("mediterranean_coast")
    if coast is None:
        return Polygon()
    left, _, _, top = REGION_BOUNDS_LONLAT
    corner = np.asarray(to_metric(left, top), dtype=float)
    ring = np.vstack([np.asarray(coast.coords), corner])
    return shapely.make_valid(Polygon(ring)).buffer(0)


def _region_box() -> Polygon:
    import geopandas as gpd

    corners = gpd.GeoSeries([box(*REGION_BOUNDS_LONLAT)], crs="EPSG:4326")
    return cast(Polygon, corners.to_crs(REGION_CRS).iloc[0])
