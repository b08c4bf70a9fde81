"""The asylum predicate on the shipped network: towns, techum, boughs, activation."""

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from geo import MOSES_THEN_JOSHUA, ParameterError, QueryError, load_network, to_lonlat
from geo.asylum import BOUGH_OPINIONS, Asylum

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


def _compiled_copy(asylum: Asylum) -> Asylum:
    """A fresh copy of `asylum` (GEOS only) that answers by the compiled test."""
    fast = Asylum(asylum.towns, asylum.zones, asylum.needs_intent)
    fast.compile()
    return fast


def test_the_compiled_test_gives_geos_verdicts_on_and_about_the_boundaries(network):
    asylum = network.asylum
    fast = _compiled_copy(asylum)
    rng = np.random.default_rng(5)
    corners = shapely.get_coordinates(asylum.zones)  # vertices: on the boundary
    between = (corners[:-1] + corners[1:]) / 2  # on an edge (or, across rings, anywhere)
    around = np.vstack(
        [rng.uniform(b[:2] - 500, b[2:] + 500, (400, 2)) for b in asylum._zone_bounds]
    )
    xy = np.vstack([corners, between, around, corners + rng.normal(0, 1e-9, corners.shape)])
    intends = rng.random(len(xy)) < 0.5
    expected = asylum.zone_of(xy[:, 0], xy[:, 1], intends_refuge=intends)
    got = fast.zone_of(xy[:, 0], xy[:, 1], intends_refuge=intends)
    np.testing.assert_array_equal(got, expected)
    assert 0 < (expected >= 0).sum() < len(xy)


def test_the_compiled_zone_of_answers_no_positions_and_one_scalar_as_geos(network):
    asylum = network.asylum
    fast = _compiled_copy(asylum)
    none = np.array([], dtype=np.float64)
    assert fast.zone_of(none, none).shape == asylum.zone_of(none, none).shape == (0,)
    site = shapely.get_coordinates(network.cities["site"].to_numpy())[0]
    for intends in (True, False):
        expected = asylum.zone_of(site[0], site[1], intends_refuge=intends)
        got = fast.zone_of(site[0], site[1], intends_refuge=intends)
        assert got.shape == expected.shape == ()
        assert got == expected
    assert asylum.zone_of(site[0], site[1]) >= 0  # the town is in its zone


def test_the_compiled_zone_of_broadcasts_one_intent_over_the_positions_as_geos():
    zones = np.array([shapely.box(5, 5, 6, 6), shapely.box(-1, -1, 1, 1)], dtype=object)
    needs_intent = np.array([False, True])  # the second holds only one who intends refuge
    slow, fast = Asylum(zones, zones, needs_intent), Asylum(zones, zones, needs_intent)
    fast.compile()
    x, y = np.zeros(200), np.linspace(-0.5, 0.5, 200)
    for intends, zone in ((np.array([True]), 1), (np.array([False]), -1)):
        expected = slow.zone_of(x, y, intends_refuge=intends)
        np.testing.assert_array_equal(expected, np.full(200, zone))
        np.testing.assert_array_equal(fast.zone_of(x, y, intends_refuge=intends), expected)


@settings(max_examples=40, deadline=None)
@given(
    x=st.floats(-3, 3),
    y=st.floats(-3, 3),
    hole=st.booleans(),
    intends=st.booleans(),
)
def test_the_compiled_test_agrees_with_geos_on_holes_parts_and_overlaps(x, y, hole, intends):
    ring = shapely.Polygon([(-2, -2), (2, -2), (2, 2), (-2, 2)], [[(-1, -1), (1, -1), (0, 1)]])
    zones = np.array(
        [
            ring if hole else shapely.box(-2, -2, 2, 2),
            shapely.MultiPolygon([shapely.box(-3, -3, -1, -1), shapely.box(1, 1, 3, 3)]),
            shapely.Point(0, 0).buffer(1.5),
        ],
        dtype=object,
    )
    needs_intent = np.array([False, True, True])
    slow, fast = Asylum(zones, zones, needs_intent), Asylum(zones, zones, needs_intent)
    fast.compile()
    px, py = np.array([x, round(x), x]), np.array([y, round(y), 0.0])  # some on an edge
    expected = slow.zone_of(px, py, intends_refuge=intends)
    np.testing.assert_array_equal(fast.zone_of(px, py, intends_refuge=intends), expected)
    # the rule itself: of the zones holding a point (one that needs intent only if he intends),
    # one of the six before a Levitical one, and of those the last
    for point, zone in zip(shapely.points(px, py), expected, strict=True):
        holding = [
            z for z in range(3) if zones[z].contains(point) and (intends or not needs_intent[z])
        ]
        assert zone == max(holding, key=lambda z: (not needs_intent[z], z), default=-1)
    true = shapely.distance(shapely.points(px, py)[:, None], zones[None, :]).min(axis=1)
    clearance = fast.clearance(px, py)
    assert np.all(clearance <= true + 1e-9)
    assert np.all((clearance == 0) | (true > 0))  # inside or on a zone: 0


def test_clearance_where_writes_the_rows_it_picks_as_clearance_and_leaves_the_others(network):
    asylum = network.asylum
    site = shapely.get_coordinates(network.cities["site"].to_numpy())[0]
    box = asylum._zone_bounds[0]
    xy = np.array(
        [[site[0], site[1]], [box[0] + 0.5, box[3] - 0.5], [site[0], box[3] + 250.0], [0.0, 0.0]]
    )
    where = np.array([True, True, False, True])
    out = np.full(len(xy), -7.0)  # a row not picked keeps what it held
    asylum.clearance_where(xy, where, out)
    expected = asylum.clearance(xy[:, 0], xy[:, 1])
    assert out[2] == -7.0
    np.testing.assert_array_equal(out[where], expected[where])
    asylum.clearance_where(xy[:0], where[:0], out[:0])  # no rows: nothing to write


def test_clearance_is_0_inside_the_distance_within_a_box_and_the_box_s_beyond(network):
    asylum = network.asylum
    site = shapely.get_coordinates(network.cities["site"].to_numpy())[0]
    box = asylum._zone_bounds[0]
    # in the town; in the box's corner, beside the zone (a disc or a turned square); beyond
    x = np.array([site[0], box[0] + 0.5, site[0]])
    y = np.array([site[1], box[3] - 0.5, box[3] + 250.0])
    true = shapely.distance(shapely.points(x, y)[:, None], asylum.zones[None, :]).min(axis=1)
    clearance = asylum.clearance(x, y)
    np.testing.assert_allclose(clearance[:2], true[:2], atol=1e-6)
    assert clearance[0] == 0 < clearance[1]
    assert clearance[2] == pytest.approx(250.0) and clearance[2] <= true[2]
