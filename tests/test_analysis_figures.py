"""The notebooks' static maps: the base map, a distance surface, and the empty land."""

import matplotlib
import numpy as np
import pytest

from refuge_map.analysis import land_grid
from refuge_map.analysis.figures import ATTRIBUTION, base_map, surface_map

matplotlib.use("Agg")
import matplotlib.pyplot as plt


@pytest.fixture
def axes():
    fig, ax = plt.subplots()
    yield ax
    plt.close(fig)


def _texts(ax):
    return [t.get_text() for t in ax.texts]


def test_base_map_draws_the_six_and_the_attribution(network, axes):
    base_map(network, axes)
    assert any(ATTRIBUTION in text for text in _texts(axes))
    assert sum("Kedesh" in text for text in _texts(axes)) == 1
    assert len(axes.lines) == len(network.router.edge_geometries)


def test_surface_map_says_when_nothing_protects(network, axes):
    grid = land_grid(network, cell_m=20_000)
    surface_map(network, grid, np.full(len(grid.x), np.inf), axes)
    assert any("No asylum anywhere" in text for text in _texts(axes))
    _, other = plt.subplots()
    surface_map(network, grid, np.arange(len(grid.x), dtype=float), other)
    assert not any("No asylum" in text for text in _texts(other))
    assert len(other.collections) > len(axes.collections)
    plt.close(other.figure)
