"""The Jordan, the lakes and the coast, and the two sides of the Jordan computed from them."""

from __future__ import annotations

from pathlib import Path

import geopandas as gpd
import numpy as np
import shapely
from shapely.geometry import LineString, Polygon, box
from shapely.ops import split

from geo._errors import DataFileError
from geo._validate import read_layer
from geo.crs import REGION_BOUNDS_LONLAT, REGION_CRS, to_metric

HYDRO_FIELDS = ("id", "name", "feature_type", "source", "license")

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


def jordan_divide(hydro: gpd.GeoDataFrame) -> LineString:
    """The Jordan's course as one line, prolonged due north and south to the region's edges.

    North of the confluence of its streams the line runs up to the cave of Paneas
    (`PANEAS_LONLAT`), then due north; south of the Dead Sea, due south.

    Raises
    ------
    DataFileError
        If the course does not join into a single line.
    """
    parts = hydro.set_index("id").loc[list(JORDAN_COURSE)].geometry
    course = shapely.line_merge(shapely.union_all(parts.to_numpy()))
    if course.geom_type != "LineString":
        raise DataFileError("the Jordan's course does not join into one line", field="geometry")
    coords = np.asarray(course.coords)
    if coords[0, 1] < coords[-1, 1]:
        coords = coords[::-1]  # north to south
    source = np.asarray(to_metric(*PANEAS_LONLAT), dtype=float)
    _, confluence_y = to_metric(PANEAS_LONLAT[0], CONFLUENCE_LAT)
    coords = coords[coords[:, 1] <= confluence_y]
    _, bottom, _, top = _region_box().bounds
    pad = 1_000.0
    north = [source[0], top + pad]
    south = [coords[-1, 0], bottom - pad]
    return LineString(np.vstack([north, source, coords, south]))


def land_sides(hydro: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    """Split the region's land into the land west of the Jordan (Canaan) and the land east of it.

    The Mediterranean (beyond the coastline) is not land; the lakes are left in, as the sides
    of the Jordan run through them.

    Returns
    -------
    GeoDataFrame
        Two rows indexed ``west`` and ``east``, polygons in `REGION_CRS`.
    """
    pieces = sorted(split(_region_box(), jordan_divide(hydro)).geoms, key=lambda p: p.centroid.x)
    west = pieces[0].difference(_sea(hydro))
    east = shapely.union_all(pieces[1:])
    return gpd.GeoDataFrame(
        {
            "side": ["west", "east"],
            "name": ["Canaan (west of the Jordan)", "Beyond the Jordan (east)"],
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


def _sea(hydro: gpd.GeoDataFrame) -> Polygon:
    """The Mediterranean: the coastline closed through the region's north-west corner."""
    coast = hydro.set_index("id").geometry.get("mediterranean_coast")
    if coast is None:
        return Polygon()
    left, _, _, top = REGION_BOUNDS_LONLAT
    corner = np.asarray(to_metric(left, top), dtype=float)
    ring = np.vstack([np.asarray(coast.coords), corner])
    return shapely.make_valid(Polygon(ring)).buffer(0)


def _region_box() -> Polygon:
    corners = gpd.GeoSeries([box(*REGION_BOUNDS_LONLAT)], crs="EPSG:4326")
    return corners.to_crs(REGION_CRS).iloc[0]
