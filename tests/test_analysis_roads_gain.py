"""Flight straight across country against the roads: the crow field and its comparison."""

import numpy as np
import pytest
import shapely

from geo import MOSES_THEN_JOSHUA, load_network
from refuge_map.analysis import land_grid
from refuge_map.analysis.roads_gain import compare_fields, crow_field, nearest_zone, roads_gain
from refuge_map.coverage import coverage_field
from refuge_map.errors import RefugeError
from refuge_map.simulation.scenario import Escorts


@pytest.fixture(scope="module")
def grid(network):
    return land_grid(network, cell_m=15_000)


@pytest.fixture(scope="module")
def fields(network, grid):
    return {
        "roads": coverage_field(network, grid=grid, draws=64),
        "crow": crow_field(network, grid, draws=64),
    }


def test_nearest_zone_is_the_least_distance_to_any_zone(network, grid):
    dist, city = nearest_zone(network, grid.x, grid.y)
    points = shapely.points(grid.x, grid.y)
    for i in range(0, len(points), 17):
        each = shapely.distance(points[i], network.zones.geometry.to_numpy())
        assert dist[i] == pytest.approx(each.min())
        assert city[i] == network.city_ids[int(np.argmin(each))]


def test_inside_a_zone_the_way_is_zero(network):
    site = network.cities["site"]
    dist, city = nearest_zone(network, site.x.to_numpy(), site.y.to_numpy())
    assert (dist == 0).all()
    assert list(city) == list(network.city_ids)


def test_the_straight_line_is_never_longer_than_the_road_way(fields):
    roads, crow = fields["roads"], fields["crow"]
    assert (crow.offroad_m <= roads.offroad_m + roads.road_m + 1e-6).all()
    assert (crow.road_m == 0).all()
    assert ((crow.p_asylum >= 0) & (crow.p_asylum <= 1)).all()


def test_escorts_only_raise_the_chance(network, grid, fields):
    escorted = crow_field(network, grid, draws=64, escorts=Escorts(enabled=True, persuade_p=0.5))
    alone = crow_field(network, grid, draws=64, escorts=Escorts(enabled=False))
    assert (escorted.p_asylum >= alone.p_asylum).all()
    assert (escorted.time_h == alone.time_h).all()


def test_before_activation_nothing_protects(grid):
    before = load_network(designated=MOSES_THEN_JOSHUA)
    crow = crow_field(before, grid, year=7.0, draws=8)
    assert np.isinf(crow.time_h).all() and (crow.p_asylum == 0).all()
    assert (crow.city == "").all()


def test_compare_fields_one_row_per_field(fields):
    table = compare_fields(fields)
    assert list(table.index) == ["roads", "crow"]
    assert (table["mean_h"] > 0).all() and table["mean_p"].between(0, 1).all()
    assert "Deut 19:6" in table["source"].iloc[0]


def test_roads_gain_is_the_difference_of_the_fields(fields):
    gain = roads_gain(fields["roads"], fields["crow"])
    assert np.allclose(gain["p_gain"], fields["roads"].p_asylum - fields["crow"].p_asylum)
    assert (gain["detour"].dropna() >= 1 - 1e-9).all()


def test_fields_on_different_grids_are_refused(network, fields):
    other = crow_field(network, land_grid(network, cell_m=30_000), draws=8)
    with pytest.raises(ValueError, match="grid"):
        roads_gain(fields["roads"], other)
    with pytest.raises(ValueError, match="grid"):
        compare_fields({"a": fields["roads"], "b": other})


def test_draws_must_be_positive(network, grid):
    with pytest.raises(RefugeError, match="draws"):
        crow_field(network, grid, draws=0)
