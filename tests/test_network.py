"""Loading the shipped network, its layers and queries, and refusing bad data files."""

import json
import math
import pickle
import shutil
from pathlib import Path

import geopandas as gpd
import numpy as np
import pytest
import shapely

from geo import (
    CITY_IDS,
    REGION_CRS,
    DataFileError,
    ParameterError,
    default_data_dir,
    load_network,
    to_lonlat,
    to_metric,
)


def test_three_and_three_from_the_geometry(network):
    # Numbers 35:14: three cities beyond the Jordan and three in the land of Canaan.
    sides = network.cities["side"]
    assert sorted(sides[sides == "west"].index) == ["hebron", "kedesh", "shechem"]
    assert sorted(sides[sides == "east"].index) == ["bezer", "golan", "ramoth_gilead"]


def test_layers_are_metric_and_complete(network):
    assert list(network.cities.index) == list(CITY_IDS)
    for frame in (network.cities, network.zones, network.hydrography, network.land):
        assert frame.crs == REGION_CRS
    assert network.roads.graph["crs"] == REGION_CRS
    assert (network.zones.geometry.contains(network.cities.geometry)).all()
    assert set(network.layers()) >= {
        "cities",
        "zones",
        "roads",
        "hydrography_lines",
        "land",
        "limits",
    }
    assert all(frame.crs.to_epsg() == 4326 for frame in network.layers().values())


def test_choosing_another_identification_moves_the_city():
    moved = load_network(candidates={"ramoth_gilead": "ramoth_gilead__cand2"})
    site = moved.cities["site"].loc["ramoth_gilead"]
    lon, lat = to_lonlat(site.x, site.y)
    assert (float(lon), float(lat)) == pytest.approx((36.006944, 32.559167), abs=1e-6)
    assert moved.cities.loc["ramoth_gilead", "rank"] == 2


@pytest.mark.parametrize(
    ("candidates", "match"),
    [
        ({"ramoth_gilead": "golan"}, "candidates.ramoth_gilead"),
        ({"jericho": "x"}, "jericho"),
        ("worst", "candidates"),
    ],
)
def test_bad_candidate_choices_are_refused(candidates, match):
    with pytest.raises(ParameterError, match=match):
        load_network(candidates=candidates)


def test_negative_cubit_is_refused():
    with pytest.raises(ParameterError, match="cubit_m"):
        load_network(cubit_m=-0.5)


def test_distance_to_asylum_is_zero_inside_and_grows_outside(network):
    site = network.cities["site"].loc["shechem"]
    lon, lat = to_lonlat([site.x, site.x + 30_000], [site.y, site.y])
    reach = network.distance_to_asylum(lon, lat)
    assert reach.dist_m[0] == 0 and reach.city[0] == "shechem"
    assert reach.dist_m[1] > 25_000


def test_route_reaches_the_asylum(network):
    route = network.route(35.0, 31.3, "hebron")  # south-west of Hebron
    end = route.geometry.coords[-1]
    assert network.zones.geometry.loc["hebron"].buffer(1.0).contains(shapely.Point(end))
    assert route.length_m == pytest.approx(route.geometry.length, rel=1e-9)
    assert route.length_m >= math.dist(route.geometry.coords[0], end)


def test_network_survives_pickling(network):
    clone = pickle.loads(pickle.dumps(network))
    lon, lat = np.array([35.10222, 35.5]), np.array([31.525087, 31.0])
    np.testing.assert_array_equal(clone.in_asylum(lon, lat), network.in_asylum(lon, lat))


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    shutil.copytree(
        default_data_dir(),
        tmp_path / "data",
        ignore=shutil.ignore_patterns("cases", "scenarios", "tools"),
    )
    return tmp_path / "data"


def edit_places(folder: Path, change) -> None:
    path = folder / "places.geojson"
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc["features"])
    path.write_text(json.dumps(doc), encoding="utf-8")


def first_city(features):
    return next(f for f in features if f["properties"]["feature_kind"] == "city_of_refuge")


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda fs: first_city(fs)["properties"].pop("name"), "field 'name'"),
        (lambda fs: first_city(fs)["geometry"].update(coordinates=[33.11, 35.53]), "swapped"),
        (lambda fs: first_city(fs).update(geometry=None), "empty or missing"),
        (lambda fs: first_city(fs)["properties"].update(id="hebron"), "duplicate"),
        (
            lambda fs: first_city(fs)["properties"].update(id="jericho", city="jericho"),
            "unknown city names",
        ),
    ],
    ids=["missing-field", "swapped-lonlat", "empty-geometry", "duplicate-city", "unknown-city"],
)
def test_bad_places_files_are_refused_naming_file_and_field(data_copy, change, match):
    edit_places(data_copy, change)
    with pytest.raises(DataFileError, match=match) as err:
        load_network(data_copy)
    assert "places.geojson" in str(err.value)
    assert "\n" not in str(err.value)


def test_wrong_crs_is_refused(data_copy):
    path = data_copy / "hydrography.geojson"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["crs"] = {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::2039"}}
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(DataFileError, match="crs"):
        load_network(data_copy)


def test_missing_file_is_refused(data_copy):
    (data_copy / "roads.geojson").unlink()
    with pytest.raises(DataFileError, match=r"roads\.geojson"):
        load_network(data_copy)


def test_from_dan_to_beersheba_is_west_of_the_jordan_and_the_sea_is_no_side(network):
    from geo.hydrography import side_of_jordan

    limits = network.places.set_index("id").geometry.loc[["dan", "beersheba"]]
    assert list(side_of_jordan(limits, network.land)) == ["west", "west"]
    x, y = to_metric(34.3, 32.5)  # off the coast at Caesarea
    at_sea = gpd.GeoSeries(gpd.points_from_xy([x], [y]), crs=network.crs)
    assert list(side_of_jordan(at_sea, network.land)) == [""]


def test_invalid_geometry_is_refused(data_copy):
    path = data_copy / "hydrography.geojson"
    doc = json.loads(path.read_text(encoding="utf-8"))
    lake = next(f for f in doc["features"] if f["properties"]["id"] == "sea_of_galilee")
    bow_tie = [[35.5, 32.7], [35.7, 32.9], [35.7, 32.7], [35.5, 32.9], [35.5, 32.7]]
    lake["geometry"] = {"type": "Polygon", "coordinates": [bow_tie]}
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(DataFileError, match=r"hydrography\.geojson.*invalid in 'sea_of_galilee'"):
        load_network(data_copy)


def test_the_way_ends_where_the_off_road_leg_enters_a_zone(network):
    rng = np.random.default_rng(11)
    sites = shapely.get_coordinates(network.cities["site"].to_numpy())
    xy = sites[rng.integers(0, 6, 4000)] + rng.normal(0, 2500, (4000, 2))
    way = network.way_to_asylum_xy(xy[:, 0], xy[:, 1])
    dist = way.offroad_m + way.road_m
    naive, _ = network.router.distance_to_gates(xy[:, 0], xy[:, 1])
    straight = shapely.distance(
        shapely.points(xy)[:, None], network.zones.geometry.to_numpy()[None, :]
    ).min(axis=1)
    assert (dist <= naive + 1e-6).all()
    assert (dist >= straight - 1e-6).all()
    entered = (way.road_m == 0) & (way.offroad_m > 0)
    assert entered.any()  # some legs cross into a zone before reaching their road
    assert (dist[entered] < naive[entered]).all()


def test_file_layers_are_made_once_and_given_as_copies(network):
    first = network.layers()
    first["cities"].loc[first["cities"].index[0], "name"] = "changed by a caller"
    first["roads"]["length_m"] = 0.0
    again = network.layers()
    assert "changed by a caller" not in set(again["cities"]["name"])
    assert (again["roads"]["length_m"] > 0).all()
    assert again["cities"] is not first["cities"]
