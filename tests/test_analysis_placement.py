"""p-median and p-center with three and three, against brute force and on the real network."""

from itertools import combinations, product

import numpy as np
import pytest

from geo import ParameterError, to_lonlat
from refuge_map.analysis import (
    candidate_sites,
    compare_placements,
    designate_more,
    evaluate,
    land_grid,
    p_center,
    p_median,
    placements,
    three_more,
)
from refuge_map.analysis._roads import road_distance_matrix

PATH = np.abs(np.arange(6)[:, None] - np.arange(6)[None, :]).astype(float)
PATH_SIDES = np.array(["west"] * 3 + ["east"] * 3)


def test_path_graph_by_hand():
    # Six nodes on a path, 0-2 west and 3-5 east, one city each side: the middles (1 and 4)
    # serve each end at distance 1, total 4; no other pair does as well.
    one_each = {"west": 1, "east": 1}
    assert p_median(PATH, np.ones(6), PATH_SIDES, per_side=one_each).tolist() == [1, 4]
    assert p_center(PATH, PATH_SIDES, per_side=one_each).tolist() == [1, 4]
    assert evaluate(PATH, np.ones(6), [1, 4]) == (pytest.approx(4 / 6), 1.0)


def _brute_force(cost, weight, sides, per_side):
    west, east = (np.flatnonzero(sides == s) for s in ("west", "east"))
    best_mean, best_worst = np.inf, np.inf
    for w, e in product(combinations(west, per_side["west"]), combinations(east, per_side["east"])):
        mean, worst = evaluate(cost, weight, list(w) + list(e))
        best_mean, best_worst = min(best_mean, mean), min(best_worst, worst)
    return best_mean, best_worst


@pytest.mark.parametrize("seed", range(5))
def test_optima_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    demand, sites = rng.uniform(0, 100, (30, 2)), rng.uniform(0, 100, (9, 2))
    cost = np.hypot(*(demand[:, None, :] - sites[None, :, :]).transpose(2, 0, 1))
    weight = rng.uniform(0.5, 2.0, 30)
    sides = np.where(sites[:, 0] < 50, "west", "east")
    per_side = {"west": min(2, (sides == "west").sum()), "east": 1}
    mean, worst = _brute_force(cost, weight, sides, per_side)
    chosen_median = p_median(cost, weight, sides, per_side=per_side)
    chosen_center = p_center(cost, sides, per_side=per_side)
    assert evaluate(cost, weight, chosen_median)[0] == pytest.approx(mean)
    assert evaluate(cost, weight, chosen_center)[1] == pytest.approx(worst)
    for chosen in (chosen_median, chosen_center):
        assert (sides[chosen] == "west").sum() == per_side["west"]


def test_too_few_candidates_on_a_side_is_refused():
    with pytest.raises(ParameterError):
        p_median(PATH, np.ones(6), PATH_SIDES, per_side={"west": 4, "east": 1})
    with pytest.raises(ParameterError):
        p_center(PATH, PATH_SIDES, per_side={"west": 1, "east": 4})


def test_road_distances_agree_with_the_router(network):
    router = network.router
    nodes = np.arange(len(router.node_x))
    x, y = router.node_x[nodes], router.node_y[nodes]
    matrix = road_distance_matrix(router, x, y, x, y)
    for source in (0, 10, 30):
        np.testing.assert_allclose(matrix[source], router.node_distances([source]), atol=1e-6)
    points = np.array([[-30_000.0, 20_000.0], [25_000.0, 60_000.0], [0.0, 150_000.0]])
    between = road_distance_matrix(router, *points.T, *points.T)
    np.testing.assert_allclose(between, between.T, atol=1e-6)
    straight = np.hypot(*(points[:, None, :] - points[None, :, :]).transpose(2, 0, 1))
    assert (between >= straight - 1e-6).all()


def test_candidates_hold_the_six_and_both_sides(network):
    candidates = candidate_sites(network)
    assert set(network.cities["site_id"]) <= set(candidates["id"])
    assert set(candidates["side"]) == {"west", "east"}
    assert len(candidate_sites(network, road_nodes=False)) < len(candidates)
    assert candidates["id"].is_unique


@pytest.fixture(scope="module")
def placed(network):
    return placements(network, land_grid(network, cell_m=15_000))


def test_optima_beat_every_other_placement(placed):
    for label, placement in placed.items():
        assert sorted(placement.sites["side"]) == ["east"] * 3 + ["west"] * 3, label
        assert placed["p-median"].mean_km <= placement.mean_km + 1e-9
        assert placed["p-center"].worst_km <= placement.worst_km + 1e-9
    table = compare_placements(placed)
    assert list(table.index) == ["historical", "equal stretches", "p-median", "p-center"]
    assert table["mean_hours"].to_numpy() == pytest.approx(table["mean_km"].to_numpy() / 5.0)
    assert table["source"].str.len().gt(0).all()


def test_historical_placement_is_the_network_six(network, placed):
    assert sorted(placed["historical"].sites["id"]) == sorted(network.cities["site_id"])
    stretches = placed["equal stretches"].sites
    assert set(stretches[stretches["side"] == "east"]["id"]) == {"bezer", "ramoth_gilead", "golan"}


def test_three_more_cities_serve_the_land_better_than_the_six(network):
    # Deuteronomy 19:8-9: three more beside the six
    grid = land_grid(network, cell_m=15_000)
    six = placements(network, grid)["historical"]
    more = three_more(network, grid)
    assert len(more.sites) == 3
    assert not set(more.sites["id"]) & set(six.sites["id"])
    assert more.mean_km < six.mean_km
    assert (more.cell_km <= six.cell_km + 1e-9).all()
    nine = designate_more(network, more, t=100.0)
    assert len(nine.cities) == 9 and set(nine.cities["kind"]) == {"refuge"}
    assert "100: added_1, added_2, added_3" in nine.options["designated"]
    site = nine.cities.loc["added_1", "site"]
    lon, lat = to_lonlat(site.x, site.y)
    # the added city protects only from its designation (and the six from theirs)
    assert nine.locate(float(lon), float(lat), t=50.0).city == -1
    assert nine.city_ids[nine.locate(float(lon), float(lat), t=150.0).city] == "added_1"
