"""The four stretches of Makkot 9b, the pairs across the Jordan, equalizing borders, candidates."""

from itertools import pairwise

import numpy as np
import pytest
from pyproj import Geod

from geo import ParameterError, load_network, to_lonlat
from refuge_map.analysis import (
    candidate_sensitivity,
    equalizing_limits,
    limits_on_axis,
    pairings,
    stretches,
)
from refuge_map.analysis.stretches import PAIRS

GEOD = Geod(ellps="WGS84")


def _lonlat(network, place_id):
    row = network.places[network.places["id"] == place_id].geometry.iloc[0]
    lon, lat = to_lonlat(row.x, row.y)
    return float(lon), float(lat)


def test_straight_stretches_are_the_geodesics_between_the_sites(network):
    table = stretches(network, along="straight")
    ids = ["beersheba", "hebron", "shechem", "kedesh", "dan"]
    assert list(table["from"]) == ids[:-1]
    assert list(table["to"]) == ids[1:]
    for km, (a, b) in zip(table["km"], pairwise(ids), strict=True):
        (lon_a, lat_a), (lon_b, lat_b) = _lonlat(network, a), _lonlat(network, b)
        assert km == pytest.approx(GEOD.inv(lon_a, lat_a, lon_b, lat_b)[2] / 1000.0)
    assert table["ratio_to_mean"].mean() == pytest.approx(1.0)
    assert table.attrs["max_min"] == pytest.approx(table["km"].max() / table["km"].min())
    assert table.attrs["cv"] == pytest.approx(table["km"].std(ddof=0) / table["km"].mean())
    assert (table["source"] == "Deut 19:3; Makkot 9b").all()


def test_roads_are_never_shorter_than_the_straight_line(network):
    straight = stretches(network, along="straight")["km"]
    roads = stretches(network, along="roads")["km"]
    # road legs are straight lines between points, so a road way cannot beat the geodesic
    # (0.1%: planar metres against the ellipsoid, geo/crs.py)
    assert (roads >= straight * 0.999).all()
    assert stretches(network, along="roads").attrs["along"] == "roads"


def test_unknown_limit_or_measure_is_refused(network):
    with pytest.raises(ParameterError):
        stretches(network, south="atlantis")
    with pytest.raises(ParameterError):
        stretches(network, along="by_sea")


def test_limits_on_collinear_points_are_the_mean_of_the_inner_stretches():
    # Three points on the 35 E meridian: the axis is the meridian itself.
    lon, lat = np.array([35.0, 35.0, 35.0]), np.array([31.0, 31.1, 31.3])
    a, b = (GEOD.inv(lon[i], lat[i], lon[i + 1], lat[i + 1])[2] / 1000 for i in (0, 1))
    outer, south, north = limits_on_axis(lon, lat, (a, b))
    assert outer == pytest.approx((a + b) / 2)
    assert south[0] == pytest.approx(35.0) and north[0] == pytest.approx(35.0)
    assert south[1] < 31.0 and north[1] > 31.3
    assert GEOD.inv(35.0, 31.0, *south)[2] / 1000 == pytest.approx(outer)
    assert GEOD.inv(35.0, 31.3, *north)[2] / 1000 == pytest.approx(outer)


def test_limits_minimise_the_spread_of_the_four_stretches():
    a, b = 78.0, 102.0
    outer, *_ = limits_on_axis([35.0, 35.0, 35.0], [31.0, 31.7, 32.6], (a, b))
    s, n = np.meshgrid(np.linspace(0, 200, 401), np.linspace(0, 200, 401))
    spread = np.std(np.stack([s, np.full_like(s, a), np.full_like(s, b), n]), axis=0)
    assert np.std([outer, a, b, outer]) <= spread.min() + 1e-9
    assert np.std([outer, a, b, outer]) == pytest.approx(abs(a - b) / (2 * np.sqrt(2)))


def test_equalizing_limits_make_the_outer_stretches_equal(network):
    for along in ("straight", "roads"):
        limits = equalizing_limits(network, along=along)
        assert limits.outer_km == pytest.approx(np.mean(limits.inner_km))
        assert list(limits.nearest["limit"]) == ["south", "north"]
    straight = equalizing_limits(network)
    table = stretches(network, south=straight.south, north=straight.north)
    assert table["km"].iloc[0] == pytest.approx(straight.outer_km, rel=1e-6)
    assert table["km"].iloc[3] == pytest.approx(straight.outer_km, rel=1e-6)
    assert straight.south[1] < _lonlat(network, "hebron")[1]


def test_pairings_are_the_three_rows_of_the_vineyard(network):
    table = pairings(network)
    assert list(zip(table["west"], table["east"], strict=True)) == list(PAIRS)
    assert (table["road_km"] >= table["km"] * 0.999).all()
    # a row leaning north of due east puts the eastern city north of the western one
    assert (np.sign(table["north_offset_km"]) == np.sign(90 - table["bearing_deg"])).all()
    assert (table["source"] == "Makkot 9b").all()


def test_candidate_sensitivity_loads_once_per_candidate(network):
    calls = []

    def loader(**kwargs):
        calls.append(kwargs)
        return load_network(**kwargs)

    table = candidate_sensitivity(loader, cities=["bezer", "kedesh"])
    places = network.places
    n_sites = int(places["city"].isin(["bezer", "kedesh"]).sum())
    assert len(table) == n_sites
    assert len(calls) == 1 + n_sites - 2  # the base, then each non-best candidate
    best = table[table["rank"] == 1]
    assert (best["moved_km"] == 0).all()
    base = stretches(network)
    assert best["cv_straight"].iloc[0] == pytest.approx(base.attrs["cv"])
    # an eastern candidate cannot move the western stretches
    bezer = table[table["city"] == "bezer"]
    assert bezer["cv_straight"].nunique() == 1
    assert table[table["city"] == "kedesh"]["cv_straight"].nunique() > 1
    with pytest.raises(ParameterError):
        candidate_sensitivity(loader, cities=["jericho"])
