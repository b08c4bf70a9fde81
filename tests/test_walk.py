"""The road-walk kernel: interpolation along the edge geometries."""

from __future__ import annotations

import dataclasses

import numpy as np
import shapely

from geo import RefugeNetwork
from refuge_map.simulation._walk import RoadGraph


def test_xy_is_the_point_along_the_edge_on_either_path(network: RefugeNetwork) -> None:
    """The one-segment shortcut and the searched path agree exactly, and both lie on the edge
    at distance `s` (clipped to the edge) from its first node."""
    router = network.router
    graph = RoadGraph.from_router(router)
    rng = np.random.default_rng(0)
    edge = rng.integers(0, len(graph.length), 2000)
    s = rng.uniform(-0.1, 1.1, edge.size) * graph.length[edge]  # some beyond either end
    searched = dataclasses.replace(graph, _straight=False)
    x, y = graph.xy(edge, s)
    sx, sy = searched.xy(edge, s)
    np.testing.assert_array_equal(x, sx)
    np.testing.assert_array_equal(y, sy)
    points = shapely.line_interpolate_point(
        router.edge_geometries[edge], np.clip(s, 0.0, graph.length[edge])
    )
    np.testing.assert_allclose(np.column_stack([x, y]), shapely.get_coordinates(points), atol=1e-3)
