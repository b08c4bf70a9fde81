"""Tests of geo.hydrography: the Jordan divide and the sides of the land, on the shipped data."""

from __future__ import annotations

from itertools import pairwise

import geopandas as gpd
import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Point

from geo.crs import REGION_CRS, to_metric
from geo.hydrography import (
    OSM_JORDAN,
    jordan_divide,
    land_sides,
    read_hydrography,
    read_rivers,
    side_of_jordan,
)
from geo.network import default_data_dir, load_network

DATA = default_data_dir()


@pytest.fixture(scope="module")
def hydro() -> gpd.GeoDataFrame:
    return read_hydrography(DATA / "hydrography.geojson")


@pytest.fixture(scope="module")
def rivers() -> gpd.GeoDataFrame:
    return read_rivers(DATA / "hydrography_osm_odbl.geojson")


@pytest.fixture(scope="module")
def sides(hydro, rivers) -> gpd.GeoDataFrame:
    return land_sides(hydro, rivers)


def _point(lon: float, lat: float) -> Point:
    return Point(to_metric(lon, lat))


def _waypoint(name: str) -> Point:
    waypoints = gpd.read_file(DATA / "waypoints.geojson").to_crs(REGION_CRS).set_index("id")
    return waypoints.geometry[name]


def _side_of_river(point: Point, river: LineString) -> str:
    """West or east of the river by the cross product with its nearest segment (north to
    south), independent of the polygons `land_sides` builds."""
    coords = np.asarray(river.coords)
    if coords[0, 1] < coords[-1, 1]:
        coords = coords[::-1]
    segments = [LineString(pair) for pair in pairwise(coords)]
    a, b = np.asarray(segments[int(np.argmin([s.distance(point) for s in segments]))].coords)
    cross = (b[0] - a[0]) * (point.y - a[1]) - (b[1] - a[1]) * (point.x - a[0])
    return "east" if cross > 0 else "west"  # heading south, east is on the left


def test_jisr_banat_yaqub_lies_at_the_divide_on_its_side_of_the_river(hydro, rivers, sides):
    bridge = _waypoint("jordan_bridge_north")
    river = rivers.set_index("id").geometry[OSM_JORDAN]
    assert bridge.distance(jordan_divide(hydro, rivers)) < 500.0
    side = side_of_jordan(gpd.GeoSeries([bridge], crs=REGION_CRS), sides)[0]
    assert side == _side_of_river(bridge, river) == "west"


def test_hazor_lies_at_least_4_km_west_of_the_divide(hydro, rivers, sides):
    hazor = _waypoint("hazor")
    assert hazor.distance(jordan_divide(hydro, rivers)) >= 4000.0
    assert side_of_jordan(gpd.GeoSeries([hazor], crs=REGION_CRS), sides)[0] == "west"


def test_the_divide_follows_the_river_through_the_hula_valley(hydro, rivers):
    """Between 32.92 and 33.05 N the Natural Earth line lay 3-4 km off the river."""
    river = rivers.set_index("id").geometry[OSM_JORDAN]
    divide = jordan_divide(hydro, rivers)
    _, south = to_metric(35.6, 32.92)
    _, north = to_metric(35.6, 33.05)
    stretch = [p for p in shapely.get_coordinates(divide) if south <= p[1] <= north]
    assert len(stretch) > 10
    assert max(Point(p).distance(river) for p in stretch) < 1.0
    old = jordan_divide(hydro)
    old_stretch = shapely.line_interpolate_point(old, np.linspace(0, old.length, 4000))
    in_valley = [p for p in old_stretch if south <= p.y <= north]
    assert max(p.distance(river) for p in in_valley) > 3000.0  # the defect the fix removes


def test_each_city_keeps_its_side(hydro, rivers):
    places = gpd.read_file(DATA / "places.geojson").to_crs(REGION_CRS)
    cities = places[places["feature_kind"] == "city_of_refuge"].set_index("id").geometry
    before = side_of_jordan(cities, land_sides(hydro))
    after = side_of_jordan(cities, land_sides(hydro, rivers))
    assert list(after) == list(before)
    assert dict(zip(cities.index, after, strict=True)) == {
        "kedesh": "west",
        "shechem": "west",
        "hebron": "west",
        "bezer": "east",
        "ramoth_gilead": "east",
        "golan": "east",
    }


@pytest.mark.parametrize(
    ("lon", "lat", "side"),
    [
        (35.652, 33.249, "west"),  # Dan, the northern limit of the land
        (35.600, 33.070, "west"),  # the western shore of historic Lake Huleh
        (35.640, 33.070, "east"),  # its eastern shore
        (35.540, 32.800, "west"),  # the western shore of the Sea of Galilee
        (35.640, 32.800, "east"),  # its eastern shore
        (35.420, 31.500, "west"),  # En-gedi's side of the Dead Sea
        (35.560, 31.500, "east"),  # the Moabite shore
    ],
)
def test_the_lakes_divide_as_the_river_joins_them(sides, lon, lat, side):
    point = gpd.GeoSeries([_point(lon, lat)], crs=REGION_CRS)
    assert side_of_jordan(point, sides)[0] == side


def test_sides_cover_the_land_without_overlap(sides):
    west, east = sides.loc["west"].geometry, sides.loc["east"].geometry
    assert west.intersection(east).area < 1.0
    assert west.is_valid and east.is_valid


def test_the_land_cut_along_the_osm_river_is_attributed_to_osm():
    network = load_network()
    land = network.layers()["land"]
    assert network.options["jordan_line"] == "openstreetmap"
    assert land["license"].str.contains("OpenStreetMap contributors").all()
    assert land["license"].str.contains("ODbL").all()
