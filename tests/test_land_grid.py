"""The land grid over the study area (geo.land_grid)."""

import numpy as np
import pytest
import shapely

from geo import ParameterError
from geo.land_grid import land_grid, study_area


@pytest.fixture(scope="module")
def grid(network):
    return land_grid(network, cell_m=10_000)


def test_cells_lie_on_land_on_their_side(network, grid):
    area = study_area(network)
    points = shapely.points(grid.x, grid.y)
    for side in ("west", "east"):
        on_side = grid.side == side
        assert on_side.any()
        assert shapely.contains(area.geometry[side], points[on_side]).all()
        assert shapely.contains(network.land.geometry[side], points[on_side]).all()
    hydro = network.hydrography
    lakes = shapely.union_all(hydro.geometry[hydro["feature_type"] == "lake"].to_numpy())
    assert not shapely.intersects(lakes, points).any()
    # the Mediterranean is not land: nothing west of Acre's longitude at Acre's latitude
    acco_row = np.abs(grid.y - 157_000) < 5_000
    assert grid.x[acco_row].min() > -50_000


def test_halving_the_cell_quadruples_the_cells(network, grid):
    fine = land_grid(network, cell_m=5_000)
    assert len(fine.x) / len(grid.x) == pytest.approx(4.0, rel=0.15)
    assert fine.weight_km2.sum() == pytest.approx(grid.weight_km2.sum(), rel=0.1)
    with pytest.raises(ParameterError):
        land_grid(network, cell_m=0)
