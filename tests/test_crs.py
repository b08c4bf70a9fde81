"""The metric CRS: distances agree with geodesics across the region; bad queries are refused."""

import numpy as np
import pytest
from pyproj import Geod, Transformer

from geo import REGION_CRS, WGS84, QueryError, to_lonlat, to_metric
from geo.crs import FORWARD, INVERSE, REGION_BOUNDS_LONLAT, meridian_convergence_deg


def test_planar_distances_within_a_tenth_of_a_percent_of_geodesics():
    rng = np.random.default_rng(7)
    left, bottom, right, top = REGION_BOUNDS_LONLAT
    lon = rng.uniform(left, right, (2, 5000))
    lat = rng.uniform(bottom, top, (2, 5000))
    _, _, geodesic = Geod(ellps="WGS84").inv(lon[0], lat[0], lon[1], lat[1])
    x0, y0 = to_metric(lon[0], lat[0])
    x1, y1 = to_metric(lon[1], lat[1])
    planar = np.hypot(x1 - x0, y1 - y0)
    keep = geodesic > 1_000
    assert np.max(np.abs(planar[keep] / geodesic[keep] - 1)) < 1e-3


def test_round_trip_returns_the_same_place():
    lon, lat = np.array([34.84, 35.53, 36.01]), np.array([31.24, 33.11, 32.50])
    back_lon, back_lat = to_lonlat(*to_metric(lon, lat))
    np.testing.assert_allclose(back_lon, lon, atol=1e-9)
    np.testing.assert_allclose(back_lat, lat, atol=1e-9)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_coordinates_are_refused(bad):
    with pytest.raises(QueryError, match="lat"):
        to_metric([35.0, 35.1], [31.5, bad])


def test_true_north_leans_west_of_grid_north_east_of_the_central_meridian():
    x, y = to_metric([36.5, 36.5], [33.0, 33.01])
    azimuth = np.degrees(np.arctan2(x[1] - x[0], y[1] - y[0]))
    assert azimuth == pytest.approx(-meridian_convergence_deg(36.5, 33.0), abs=1e-3)
    assert azimuth < 0


def test_the_transforms_are_the_operations_pyproj_chooses_with_the_same_bits():
    """`to_metric` and `to_lonlat` run the pipelines (`FORWARD`, `INVERSE`) that
    ``Transformer.from_crs`` chooses between WGS84 and `REGION_CRS` (longitude first), and give
    its bits, over the region and beyond it."""
    forward = Transformer.from_crs(WGS84, REGION_CRS, always_xy=True)
    inverse = Transformer.from_crs(REGION_CRS, WGS84, always_xy=True)
    assert (forward.definition, inverse.definition) == (FORWARD, INVERSE)
    rng = np.random.default_rng(3)
    left, bottom, right, top = REGION_BOUNDS_LONLAT
    lon, lat = rng.uniform(left - 2, right + 2, 20_000), rng.uniform(bottom - 2, top + 2, 20_000)
    x, y = to_metric(lon, lat)
    for ours, theirs in zip((x, y), forward.transform(lon, lat), strict=True):
        np.testing.assert_array_equal(ours, theirs)
    for ours, theirs in zip(to_lonlat(x, y), inverse.transform(x, y), strict=True):
        np.testing.assert_array_equal(ours, theirs)
