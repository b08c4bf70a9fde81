"""The metric CRS: distances agree with geodesics across the region; bad queries are refused."""

import numpy as np
import pytest
from pyproj import Geod

from geo import QueryError, to_lonlat, to_metric
from geo.crs import REGION_BOUNDS_LONLAT, meridian_convergence_deg


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
