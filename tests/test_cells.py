"""Typed reads of a table's cells: what a column holds comes back as that type, or fails."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from shapely import LineString, Point

from refuge_map._cells import as_float, as_geometry, as_int, as_point


def test_a_rows_numbers_and_geometry_come_back_typed():
    frame = pd.DataFrame({"km": [1.5], "n": [np.int64(3)], "site": [Point(35.2, 32.2)]})
    row = next(frame.itertuples(index=False))
    assert (as_float(row.km), as_int(row.n)) == (1.5, 3)
    assert type(as_float(row.km)) is float and type(as_int(row.n)) is int
    assert as_point(row.site).x == 35.2
    assert as_geometry(LineString([(0, 0), (1, 1)])).length == pytest.approx(2**0.5)


@pytest.mark.parametrize("cell", ["hebron", LineString([(0, 0), (1, 1)]), None])
def test_a_cell_that_is_no_point_is_refused(cell):
    with pytest.raises(TypeError, match="not a point"):
        as_point(cell)


def test_a_cell_that_is_no_geometry_is_refused():
    with pytest.raises(TypeError, match="not a geometry"):
        as_geometry("hebron")
