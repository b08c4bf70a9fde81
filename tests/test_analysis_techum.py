"""The land the asylum covers under each cubit and each shape of the boundary."""

import pytest

from geo import load_network
from refuge_map.analysis.techum import asylum_extent


@pytest.fixture(scope="module")
def extent(network):
    variants = {
        "naeh, squared": network,
        "naeh, round": load_network(techum="round"),
        "chazon_ish, squared": load_network(cubit_m="chazon_ish"),
    }
    return asylum_extent(variants)


def test_the_belt_is_the_cubit_times_2000(extent):
    assert extent.loc["naeh, squared", "belt_m"] == pytest.approx(0.48 * 2000)
    assert extent.loc["chazon_ish, squared", "belt_m"] == pytest.approx(0.576 * 2000)


def test_the_squared_town_gains_the_corners(extent):
    # Mishnah Eruvin 5:1: the square holds the round boundary and more
    assert extent.loc["naeh, squared", "zone_km2"] > extent.loc["naeh, round", "zone_km2"]


def test_the_larger_cubit_protects_more_land(extent):
    assert extent.loc["chazon_ish, squared", "zone_km2"] > extent.loc["naeh, squared", "zone_km2"]
    assert (
        extent.loc["chazon_ish, squared", "share_of_land"]
        > extent.loc["naeh, squared", "share_of_land"]
    )


def test_shares_and_means_are_consistent(extent):
    assert extent["share_of_land"].between(0, 1).all()
    assert list(extent["mean_zone_km2"] * 6) == pytest.approx(list(extent["zone_km2"]))
    assert "Eruvin 5:1" in extent["source"].iloc[0]
