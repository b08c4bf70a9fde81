"""Road distances between arbitrary positions: snap both ends, then one Dijkstra pass."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.sparse.csgraph import dijkstra

from geo.roads import RoadRouter


def road_distance_matrix(
    router: RoadRouter, ax: ArrayLike, ay: ArrayLike, bx: ArrayLike, by: ArrayLike
) -> NDArray[np.float64]:
    """Off-road legs plus road distance (metres) from every position a to every position b.

    Each position is snapped onto its nearest road segment (`RoadRouter.snap`); the way from a
    to b walks the off-road leg to a's snap point, along a's segment to one of its ends, over
    the roads to one end of b's segment, along it to b's snap point and off the road to b.
    Two positions snapped onto the same segment may also walk straight along it. One
    multi-source Dijkstra pass runs from the end nodes of the b positions only.

    Parameters
    ----------
    router
        The network's router (`RefugeNetwork.router`).
    ax, ay, bx, by
        Positions in `geo.crs.REGION_CRS` (metres), 1-d arrays.

    Returns
    -------
    numpy.ndarray
        Shape ``(len(ax), len(bx))``; ``inf`` where the roads do not connect.

    Raises
    ------
    geo.QueryError
        If a coordinate is not finite.
    """
    a, b = router.snap(ax, ay), router.snap(bx, by)
    ends_b = np.unique(np.concatenate([b.u, b.v]))
    from_b = np.asarray(dijkstra(router.matrix, directed=False, indices=ends_b))
    length_a, length_b = router.edge_length_m[a.edge], router.edge_length_m[b.edge]
    legs_a = ((a.u, a.along_m), (a.v, length_a - a.along_m))
    legs_b = ((b.u, b.along_m), (b.v, length_b - b.along_m))
    best = np.full((len(a.edge), len(b.edge)), np.inf)
    for end_a, walk_a in legs_a:
        for end_b, walk_b in legs_b:
            via = walk_a[:, None] + from_b[np.searchsorted(ends_b, end_b)][:, end_a].T
            best = np.minimum(best, via + walk_b[None, :])
    same_edge = a.edge[:, None] == b.edge[None, :]
    along = np.abs(a.along_m[:, None] - b.along_m[None, :])
    best = np.where(same_edge, np.minimum(best, along), best)
    return a.offroad_m[:, None] + best + b.offroad_m[None, :]
