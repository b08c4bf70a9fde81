"""Tests of the coverage field: the way to asylum, the chance to live, the files."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import geopandas as gpd
import numpy as np
import pytest

from geo import MOSES_THEN_JOSHUA, RefugeNetwork, load_network, to_metric
from refuge_map.analysis import LandGrid, land_grid
from refuge_map.coverage import (
    TABLE_TOLERANCE,
    CoverageField,
    SpeedDraws,
    coverage_field,
    coverage_layer,
    delay_cdf,
    overtaken_probability,
    tabulated_overtaken_probability,
    way_to_asylum,
    write_coverage,
)
from refuge_map.errors import RefugeError
from refuge_map.simulation import Scenario, simulate
from refuge_map.simulation.scenario import Avenger, Escorts, Fugitive


@pytest.fixture(scope="module")
def coarse(network: RefugeNetwork) -> CoverageField:
    """The field on 2 km cells (about 7,400) with the scenario defaults."""
    return coverage_field(network, cell_m=2_000.0, draws=128)


def fixed(value: float) -> dict[str, object]:
    return {"dist": "fixed", "value": value}


@pytest.mark.parametrize(
    "delay",
    [
        {"dist": "fixed", "value": 2.0},
        {"dist": "uniform", "low": 1.0, "high": 5.0},
        {"dist": "lognormal", "median": 2.0, "sigma": 0.5},
    ],
)
def test_delay_cdf_matches_the_sampler(delay: dict[str, object]) -> None:
    dist = Avenger(delay_h=delay).delay_h
    draws = dist.sample(np.random.default_rng(1), 200_000)
    hours = np.array([0.5, 1.5, 2.0, 2.5, 4.0, 9.0])
    empirical = (draws[:, None] < hours).mean(axis=0)
    np.testing.assert_allclose(delay_cdf(dist, hours), empirical, atol=0.005)


def test_the_way_is_the_routers_distance(network: RefugeNetwork, coarse: CoverageField) -> None:
    lon, lat = coarse.grid.lonlat
    reach = network.distance_to_asylum(lon, lat)
    np.testing.assert_allclose(coarse.offroad_m + coarse.road_m, reach.dist_m, rtol=1e-9)
    assert (coarse.city == np.asarray(reach.city, dtype=str)).mean() > 0.999  # ties may differ


def table_inputs(
    network: RefugeNetwork, delay: dict[str, object], *, draws: int
) -> tuple[np.ndarray, np.ndarray, SpeedDraws, Callable[[np.ndarray], np.ndarray]]:
    """The way to asylum from 1 km cells, speeds drawn with the default fugitive and an avenger
    of this delay, and the delay's distribution function: what the table is built from."""
    grid = land_grid(network, cell_m=1_000.0)
    offroad, road, _ = way_to_asylum(network, grid.x, grid.y)
    avenger = Avenger(delay_h=delay)
    speeds = SpeedDraws.draw(Fugitive(), avenger, np.random.default_rng(19), draws)
    return offroad, road, speeds, partial(delay_cdf, avenger.delay_h)


@pytest.mark.parametrize(
    "delay",
    [
        {"dist": "lognormal", "median": 2.0, "sigma": 0.5},  # the default
        {"dist": "lognormal", "median": 4.0, "sigma": 0.5},
        {"dist": "lognormal", "median": 6.0, "sigma": 1.0},
    ],
)
def test_the_table_is_within_its_tolerance(
    network: RefugeNetwork, delay: dict[str, object]
) -> None:
    offroad, road, speeds, cdf = table_inputs(network, delay, draws=256)
    table = tabulated_overtaken_probability(offroad, road, speeds, cdf)
    assert table is not None  # the default scenario on a large grid is tabulated
    error = np.abs(table - overtaken_probability(offroad, road, speeds, cdf))
    assert error.max() < TABLE_TOLERANCE < 0.002


@pytest.mark.parametrize(
    "delay",
    [
        {"dist": "fixed", "value": 2.0},
        {"dist": "uniform", "low": 1.0, "high": 5.0},
        {"dist": "lognormal", "median": 1.0, "sigma": 0.2},  # too steep: the table is too big
    ],
)
def test_a_steep_delay_is_computed_exactly(
    network: RefugeNetwork, delay: dict[str, object]
) -> None:
    offroad, road, speeds, cdf = table_inputs(network, delay, draws=64)
    assert tabulated_overtaken_probability(offroad, road, speeds, cdf) is None


def test_inside_a_zone_he_is_safe_at_once(network: RefugeNetwork) -> None:
    site = network.cities.loc["hebron", "site"]
    offroad, road, city = way_to_asylum(network, np.array([site.x]), np.array([site.y]))
    assert (offroad[0], road[0], city[0]) == (0.0, 0.0, "hebron")


def test_fixed_speeds_and_delay_give_the_chase_threshold(network: RefugeNetwork) -> None:
    # Fugitive 4 km/h everywhere, avenger 8 km/h: he gains half the fugitive's time.
    # Caught iff delay < T_f / 2; with a 3 h delay the cells beyond 6 h of flight are lost.
    field = coverage_field(
        network,
        fugitive=Fugitive(speed_road_kmh=fixed(4.0), speed_offroad_kmh=fixed(4.0)),
        avenger=Avenger(
            speed_road_kmh=fixed(8.0), speed_offroad_kmh=fixed(8.0), delay_h=fixed(3.0)
        ),
        cell_m=4_000.0,
        draws=1,
    )
    far = field.time_h > 6.0 + 1e-9
    assert far.any() and (~far).any()
    np.testing.assert_array_equal(field.p_asylum, np.where(far, 0.0, 1.0))


def test_a_slower_avenger_never_overtakes(network: RefugeNetwork) -> None:
    field = coverage_field(
        network,
        avenger=Avenger(speed_road_kmh=fixed(1.0), speed_offroad_kmh=fixed(1.0)),
        cell_m=4_000.0,
        draws=16,
    )
    assert np.all(field.p_asylum == 1.0)


def test_escorts_and_nearness_help(coarse: CoverageField, network: RefugeNetwork) -> None:
    escorted = coverage_field(
        network, escorts=Escorts(enabled=True, persuade_p=0.5), cell_m=2_000.0, draws=128
    )
    # Mishnah Makkot 2:5: an overtaken man lives if the disciples persuade the avenger.
    np.testing.assert_allclose(1 - escorted.p_asylum, 0.5 * (1 - coarse.p_asylum), atol=1e-12)
    near, far = coarse.time_h < 2.0, coarse.time_h > 15.0
    assert coarse.p_asylum[near].mean() > coarse.p_asylum[far].mean()  # Deut 19:6


def test_before_activation_nothing_protects() -> None:
    network = load_network(designated=MOSES_THEN_JOSHUA)
    before = coverage_field(network, year=5.0, cell_m=5_000.0, draws=8)
    after = coverage_field(network, year=20.0, cell_m=5_000.0, draws=8)
    # Mishnah Makkot 2:4: the three beyond the Jordan gave no refuge until the three in Canaan.
    assert np.all(np.isinf(before.time_h)) and np.all(before.p_asylum == 0.0)
    assert np.all(np.isfinite(after.time_h)) and after.p_asylum.min() > 0.0


def test_the_default_grid_has_over_100000_cells(network: RefugeNetwork) -> None:
    assert len(land_grid(network, cell_m=500.0).x) >= 100_000


def test_same_seed_same_field(network: RefugeNetwork, coarse: CoverageField) -> None:
    again = coverage_field(network, cell_m=2_000.0, draws=128)
    np.testing.assert_array_equal(again.p_asylum, coarse.p_asylum)


def test_files_and_map_layer(coarse: CoverageField, tmp_path: object) -> None:
    out = tmp_path / "coverage.gpkg"  # type: ignore[operator]
    written = write_coverage(coarse, out)
    assert [p.name for p in written] == ["coverage.gpkg"]
    cells = gpd.read_file(out, layer="coverage")
    assert len(cells) == len(coarse.p_asylum)
    assert {"time_h", "p_asylum", "city", "offroad_m", "road_m"} <= set(cells.columns)
    layer = coverage_layer(coarse, cell_m=5_000.0)
    assert layer.crs.to_epsg() == 4326
    assert layer["value"].between(0, 1).all()
    assert len(layer) < len(coarse.p_asylum)


def test_unsupported_suffix_is_refused(coarse: CoverageField, tmp_path: object) -> None:
    with pytest.raises(RefugeError, match="unsupported output format"):
        write_coverage(coarse, tmp_path / "coverage.tif")  # type: ignore[operator]


@pytest.mark.slow
def test_the_field_agrees_with_the_simulation(network: RefugeNetwork) -> None:
    # Incidents placed at three points (Jerusalem, the coastal plain, Gilead): the engine's
    # capture rate matches 1 - p_asylum within Monte Carlo error (plus 0.02 for the engine's
    # one-step time resolution and its capture radius, which the field neglects).
    points = [(35.2137, 31.7683), (34.80, 31.25), (35.50, 32.60)]
    n = 200
    # The field's assumptions: the kin at the scene (an explicit incident's default), walking
    # without rest, a heart that does not cool within the flight.
    agents = {
        "fugitive": {"walk_h_per_day": 24},
        "avenger": {
            "delay_h": {"dist": "lognormal", "median": 2.0, "sigma": 0.5},
            "walk_h_per_day": 24,
            "give_up_per_day": 0,
        },
    }
    scenario = Scenario.model_validate(
        {
            "name": "agree",
            "horizon_h": 48,
            "seed": 3,
            "incidents": [{"place": list(p)} for p in points for _ in range(n)],
            **agents,
        }
    )
    captured = simulate(scenario).events.query("kind == 'capture'")["incident"].to_numpy()
    rate = np.isin(np.arange(len(points) * n), captured).reshape(len(points), n).mean(axis=1)
    x, y = to_metric(*np.array(points).T)
    grid = LandGrid(x, y, np.full(len(points), "west"), 500.0, network.crs)
    field = coverage_field(
        network,
        grid=grid,
        draws=4096,
        seed=1,
        fugitive=scenario.fugitive,
        avenger=scenario.avenger,
    )
    expected = 1.0 - field.p_asylum
    assert expected.min() > 0.1 and expected.max() < 0.6  # informative points
    tolerance = 4.0 * np.sqrt(expected * (1 - expected) / n) + 0.02
    assert np.all(np.abs(rate - expected) < tolerance), (rate, expected)


def test_coverage_command(tmp_path: Path, run_cli: Callable[..., Any]) -> None:
    tiny = Path(__file__).resolve().parents[1] / "data" / "scenarios" / "tiny.yaml"
    out = tmp_path / "field.parquet"
    result = run_cli("coverage", tiny, "--out", out, "--cell-m", "5000", "--draws", "16")
    assert result.code == 0, result.err
    assert len(gpd.read_parquet(out)) > 1000 and out.with_suffix(".png").exists()
    bad = run_cli("coverage", "--out", tmp_path / "field.tif", "--cell-m", "5000")
    assert bad.code == 2 and bad.err.count("\n") == 1
