"""The road-distance surfaces of activation over the land grid."""

import numpy as np
import pytest

from geo import EAST_THREE, MOSES_THEN_JOSHUA, load_network
from geo.land_grid import LandGrid, land_grid
from refuge_map.analysis import coverage_summary, distance_surface


@pytest.fixture(scope="module")
def grid(network):
    return land_grid(network, cell_m=10_000)


def test_before_activation_nothing_protects_after_it_all_does(grid):
    # Mishnah Makkot 2:4: the eastern three received no one until Joshua chose the western.
    network = load_network(designated=MOSES_THEN_JOSHUA)
    before = distance_surface(network, grid, t=7.0)
    after = distance_surface(network, grid, t=14.0)
    assert np.isinf(before["km"]).all()
    assert (before["city"] == "").all()
    assert np.isfinite(after["km"]).all()
    east_alone = distance_surface(network, grid, t=7.0, cities=EAST_THREE)
    assert np.isfinite(east_alone["km"]).all()
    assert set(east_alone["city"]) <= set(EAST_THREE)
    assert (east_alone["km"] >= after["km"] - 1e-9).all()
    assert (east_alone["km"] > after["km"]).any()


def test_surface_wraps_distance_to_asylum(network, grid):
    surface = distance_surface(network, grid)
    lon, lat = grid.lonlat
    reach = network.distance_to_asylum(lon[:20], lat[:20])
    np.testing.assert_allclose(surface["km"][:20], reach.dist_m / 1000.0)
    assert surface.attrs["source"].startswith("Mishnah Makkot 2:4")


def test_summary_by_hand():
    grid = LandGrid(np.zeros(4), np.zeros(4), np.array(["west"] * 4), 1000.0, None)
    table = coverage_summary(grid, {"s": [0.0, 5.0, 15.0, np.inf]}, within_km=(10,))
    row = table.loc["s"]
    assert row["protected_share"] == pytest.approx(0.75)
    assert row["mean_km"] == pytest.approx(20 / 3)
    assert row["worst_km"] == pytest.approx(15.0)
    assert row["within_10_km"] == pytest.approx(0.5)
    nothing = coverage_summary(grid, {"none": [np.inf] * 4}).loc["none"]
    assert nothing["protected_share"] == 0 and np.isnan(nothing["mean_km"])
