"""The asylum predicate on the shipped network: towns, techum, boughs, activation."""

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from geo import MOSES_THEN_JOSHUA, ParameterError, QueryError, load_network, to_lonlat
from geo.asylum import BOUGH_OPINIONS

CITY = st.integers(0, 5)


def point_north_of_town(network, city, beyond_edge_m):
    """A WGS84 point due north (grid) of a town's extent, `beyond_edge_m` past its edge."""
    town = network.cities.geometry.iloc[city]
    site = network.cities["site"].iloc[city]
    top = town.bounds[3]
    lon, lat = to_lonlat(site.x, top + beyond_edge_m)
    return float(lon), float(lat)


@settings(max_examples=60, deadline=None)
@given(city=CITY, u=st.floats(0, 0.999), angle=st.floats(0, 2 * np.pi))
def test_a_point_in_a_town_is_protected_when_the_network_is_active(network, city, u, angle):
    town = network.cities.geometry.iloc[city]
    site = network.cities["site"].iloc[city]
    radius = np.sqrt(town.area / np.pi) * 0.98 * np.sqrt(u)
    lon, lat = to_lonlat(site.x + radius * np.cos(angle), site.y + radius * np.sin(angle))
    found = network.locate(float(lon), float(lat))
    assert found.city == city
    assert found.kind == "city"


def test_techum_protects_and_beyond_it_nothing_does(network):
    breadth = network.zones["breadth_m"].iloc[0]
    lon, lat = point_north_of_town(network, 2, breadth / 2)
    assert network.locate(lon, lat).kind == "techum"
    assert network.in_asylum(lon, lat)
    lon, lat = point_north_of_town(network, 2, breadth + 50)
    assert network.locate(lon, lat).kind == "outside"
    assert not network.in_asylum(lon, lat)


def test_nothing_protects_before_all_six_are_designated():
    staged = load_network(designated=MOSES_THEN_JOSHUA)
    assert (
        staged.options["designated"]
        == "0: bezer, golan, ramoth_gilead; 14: hebron, kedesh, shechem"
    )
    bezer = staged.cities["site"].loc["bezer"]
    lon, lat = to_lonlat(bezer.x, bezer.y)
    assert not staged.in_asylum(float(lon), float(lat), t=3.0)
    assert staged.in_asylum(float(lon), float(lat), t=20.0)
    np.testing.assert_array_equal(
        staged.in_asylum([lon, lon], [lat, lat], t=[13, 14]), [False, True]
    )


@pytest.fixture(scope="module")
def tree_at_hebron(network):
    """Trunk just inside Hebron's boundary, and a bough 60 m further out (and vice versa)."""
    breadth = network.zones["breadth_m"].loc["hebron"]
    inside = point_north_of_town(network, 2, breadth - 30)
    outside = point_north_of_town(network, 2, breadth + 30)
    return inside, outside


def test_the_bough_decides_both_ways(network, tree_at_hebron):
    inside, outside = tree_at_hebron
    # Trunk inside, bough outside: unprotected; trunk outside, bough inside: protected.
    assert not network.in_asylum(*inside, bough_lon=outside[0], bough_lat=outside[1])
    assert network.in_asylum(*outside, bough_lon=inside[0], bough_lat=inside[1])


def test_the_opinions_on_the_bough(network, tree_at_hebron):
    inside, outside = tree_at_hebron
    trunk_in = {"bough_lon": outside[0], "bough_lat": outside[1]}
    # Rav Ashi and Rambam: an inside trunk protects its boughs as well.
    for opinion in ("rav_ashi", "rambam"):
        assert network.in_asylum(*inside, **trunk_in, bough_opinion=opinion)
    # Rava: in outside boughs he may be shot; at the inside trunk he is protected.
    assert not network.in_asylum(*inside, **trunk_in, bough_opinion="rava")
    assert network.in_asylum(*inside, **trunk_in, at_trunk=True, bough_opinion="rava")
    # Mishnah: at the trunk too, it all follows the boughs.
    assert not network.in_asylum(*inside, **trunk_in, at_trunk=True)
    with pytest.raises(ParameterError, match="bough_opinion"):
        network.in_asylum(*inside, **trunk_in, bough_opinion="hillel")


def test_nan_bough_means_not_in_a_tree(network, tree_at_hebron):
    inside, outside = tree_at_hebron
    got = network.in_asylum(
        [inside[0], outside[0]],
        [inside[1], outside[1]],
        bough_lon=[np.nan, np.nan],
        bough_lat=[np.nan, np.nan],
    )
    np.testing.assert_array_equal(got, [True, False])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), opinion=st.sampled_from(sorted(BOUGH_OPINIONS)))
def test_vectorized_and_scalar_answers_agree(network, seed, opinion):
    rng = np.random.default_rng(seed)
    sites = shapely.get_coordinates(network.cities["site"].to_numpy())
    pick = sites[rng.integers(0, 6, 40)]
    trunk = pick + rng.normal(0, 1500, pick.shape)
    bough = trunk + rng.normal(0, 400, pick.shape)
    bough[rng.random(40) < 0.3] = np.nan
    tlon, tlat = to_lonlat(trunk[:, 0], trunk[:, 1])
    blon, blat = to_lonlat(bough[:, 0], bough[:, 1])
    at_trunk = rng.random(40) < 0.5
    bulk = network.locate(
        tlon, tlat, bough_lon=blon, bough_lat=blat, at_trunk=at_trunk, bough_opinion=opinion
    )
    for i in range(40):
        one = network.locate(
            tlon[i],
            tlat[i],
            bough_lon=blon[i],
            bough_lat=blat[i],
            at_trunk=at_trunk[i],
            bough_opinion=opinion,
        )
        assert (one.city, one.kind) == (bulk.city[i], bulk.kind[i])


def test_nan_query_is_refused(network):
    with pytest.raises(QueryError, match="lon"):
        network.locate([35.0, np.nan], [31.5, 31.6])
