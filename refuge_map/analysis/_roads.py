"""Road distances between arbitrary positions, as a matrix (the simulation's road distance)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray

from geo.roads import RoadRouter
from refuge_map.simulation._walk import RoadGraph


@lru_cache(maxsize=4)
def _graph(router: RoadRouter) -> RoadGraph:
    """The flat road graph of a router (cached: the all-pairs pass runs once per network)."""
    return RoadGraph.from_router(router)


def road_distance_matrix(
    router: RoadRouter, ax: ArrayLike, ay: ArrayLike, bx: ArrayLike, by: ArrayLike
) -> NDArray[np.float64]:
    """Off-road legs plus road distance (metres) from every position a to every position b.

    Each position is snapped onto its nearest road segment (`RoadRouter.snap`); the distance
    is the simulation's own (`refuge_map.simulation._walk.RoadGraph.between`), broadcast over
    every pair: the off-road leg to a's snap point, the shortest road distance to b's snap
    point (straight along the segment when both lie on the same one), the off-road leg to b.

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
    return _graph(router).between(
        (a.edge[:, None], a.along_m[:, None], a.offroad_m[:, None]),
        (b.edge[None, :], b.along_m[None, :], b.offroad_m[None, :]),
    )
