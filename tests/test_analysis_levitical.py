"""Six against 48: the coverage the 42 add, for whom, and what intent does."""

import numpy as np
import pytest

from geo import load_network
from refuge_map.analysis import land_grid
from refuge_map.analysis.levitical import (
    SIX,
    WITH_INTENT,
    WITHOUT_INTENT,
    levitical_surfaces,
    six_vs_48,
    who_gains,
)


@pytest.fixture(scope="module")
def compared(network):
    grid = land_grid(network, cell_m=15_000)
    surfaces = levitical_surfaces(network, load_network(refuges="levitical"), grid)
    return grid, surfaces


def test_refuge_is_closer_with_48_cities_for_one_who_intends_it(compared):
    grid, surfaces = compared
    table = six_vs_48(grid, surfaces)
    for land in ("all", "west", "east"):
        assert table.loc[(land, WITH_INTENT), "mean_km"] < table.loc[(land, SIX), "mean_km"]
        assert (
            table.loc[(land, WITH_INTENT), "within_20_km"] > table.loc[(land, SIX), "within_20_km"]
        )
    assert "Abaye" in table["source"].iloc[0]


def test_without_intent_no_cell_is_nearer_a_levitical_city(compared):
    _, surfaces = compared
    assert set(surfaces[WITHOUT_INTENT]["city"]) <= set(surfaces[SIX]["city"])
    assert set(surfaces[WITH_INTENT]["city"]) - set(surfaces[SIX]["city"])


def test_the_gain_is_largest_far_from_the_six(compared):
    grid, surfaces = compared
    gains = who_gains(grid, surfaces)
    west = gains.loc["west"]
    assert west.loc["40+", "gain_km"] > west.loc["10-20", "gain_km"]
    assert np.isclose(gains["land_share"].sum(), 1.0)
