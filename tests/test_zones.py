"""The Sabbath boundary: squared and round, sized by the cubit, set to true north."""

import geopandas as gpd
import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from geo import REGION_CRS, ParameterError, to_lonlat, to_metric
from geo.zones import resolve_cubit, resolve_techum_cubits, techum_zones


def towns_at(lonlat, radius_m):
    x, y = to_metric(*np.array(lonlat).T)
    discs = shapely.buffer(shapely.points(x, y), radius_m, quad_segs=16)
    return gpd.GeoSeries(discs, crs=REGION_CRS)


finite_places = st.tuples(st.floats(34.2, 36.8), st.floats(29.7, 33.4))


@settings(max_examples=40, deadline=None)
@given(place=finite_places, radius=st.floats(20, 800), breadth=st.floats(100, 2000))
def test_squared_zone_contains_the_round_one_and_the_town(place, radius, breadth):
    towns = towns_at([place], radius)
    squared = techum_zones(towns, breadth_m=breadth, mode="squared").iloc[0]
    round_ = techum_zones(towns, breadth_m=breadth, mode="round").iloc[0]
    assert squared.buffer(1e-6).contains(round_)
    assert round_.contains(towns.iloc[0])
    assert squared.area > round_.area


@settings(max_examples=30, deadline=None)
@given(
    cubits=st.tuples(st.floats(0.40, 0.70), st.floats(0.40, 0.70)).map(sorted),
    mode=st.sampled_from(["squared", "round"]),
)
def test_asylum_grows_with_the_cubit(cubits, mode):
    towns = towns_at([(35.28, 32.21)], 140)
    small, large = (techum_zones(towns, breadth_m=2000 * c, mode=mode).iloc[0] for c in cubits)
    assert large.buffer(1e-6).contains(small)


def test_the_square_gains_the_corners():
    towns = towns_at([(35.10, 31.53)], 100)
    square = techum_zones(towns, breadth_m=960, mode="squared").iloc[0]
    centre = towns.iloc[0].centroid
    corner_reach = max(shapely.distance(centre, shapely.points(shapely.get_coordinates(square))))
    assert corner_reach == pytest.approx((960 + 100) * np.sqrt(2), rel=1e-3)


def test_the_square_is_set_to_true_north_not_grid_north():
    # Far east of the projection's central meridian the two differ by about half a degree.
    towns = towns_at([(36.6, 33.2)], 100)
    square = techum_zones(towns, breadth_m=960, mode="squared").iloc[0]
    corners = shapely.get_coordinates(square)[:4]
    lon, lat = to_lonlat(corners[:, 0], corners[:, 1])
    west = np.argsort(lon)[:2]
    assert abs(lon[west[0]] - lon[west[1]]) < 1e-5  # along a meridian (grid: ~2e-4)
    assert abs(lat[west[0]] - lat[west[1]]) > 0.01


def test_presets_and_numbers_resolve():
    assert resolve_cubit("naeh") == 0.48
    assert resolve_cubit(0.5) == 0.5
    assert resolve_techum_cubits("levite_belt") == 3000


@pytest.mark.parametrize("bad", [-0.48, 0, np.nan, np.inf, "royal"])
def test_bad_cubits_are_refused(bad):
    with pytest.raises(ParameterError, match="cubit_m"):
        resolve_cubit(bad)


def test_unknown_mode_is_refused():
    with pytest.raises(ParameterError, match="techum"):
        techum_zones(towns_at([(35.28, 32.21)], 100), breadth_m=960, mode="oval")  # type: ignore[arg-type]
