"""The road distance from each cell of the land grid (`geo.land_grid`) to the nearest asylum."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from geo import RefugeNetwork
from geo.land_grid import LandGrid

#: Mishnah Makkot 2:4: the three beyond the Jordan gave no refuge until the three in Canaan
#: were chosen; `geo.RefugeNetwork.distance_to_asylum` returns ``inf`` before then.
ACTIVATION_SOURCE = "Mishnah Makkot 2:4; Numbers 35:13-14"


def distance_surface(
    network: RefugeNetwork,
    grid: LandGrid,
    *,
    cities: Sequence[str] | None = None,
    t: float | None = None,
    intends_refuge: bool = True,
) -> pd.DataFrame:
    """Road distance (km) from each cell to the nearest asylum, via
    `geo.RefugeNetwork.distance_to_asylum` (off-road leg plus roads, to the zone's gate).

    Parameters
    ----------
    network, grid
        The network and a grid from `land_grid`.
    cities
        Only these cities count (e.g. `geo.EAST_THREE`, to ask what the three beyond the Jordan
        alone would have covered); such a subset is treated as protecting.
    t
        A time on the network's designation timeline. Before all six are designated nothing
        protects (Mishnah Makkot 2:4): every cell is at ``inf``.
    intends_refuge
        Whether the person flees intending refuge; without it the other 42 Levitical cities
        (in a network loaded with ``refuges="levitical"``) do not protect (Makkot 10a, Abaye).

    Returns
    -------
    pandas.DataFrame
        One row per cell: ``km`` (0 inside a zone, ``inf`` where nothing protects), ``city``
        (the asylum reached, "" for none) and ``side``; ``attrs`` holds ``cities``, ``t`` and
        ``source``.
    """
    lon, lat = grid.lonlat
    targets = tuple(sorted(cities)) if cities is not None else None
    reach = network.distance_to_asylum(lon, lat, t=t, cities=targets, intends_refuge=intends_refuge)
    table = pd.DataFrame(
        {"km": np.asarray(reach.dist_m) / 1000.0, "city": reach.city, "side": grid.side}
    )
    table.attrs = {"cities": targets, "t": t, "source": ACTIVATION_SOURCE}
    return table


def coverage_summary(
    grid: LandGrid, surfaces: Mapping[str, ArrayLike], *, within_km: Sequence[float] = (10, 20, 40)
) -> pd.DataFrame:
    """Compare distance surfaces over the land, weighting each cell by its area.

    Parameters
    ----------
    grid
        The grid the surfaces were computed on.
    surfaces
        Label -> distance (km) per cell, e.g. the ``km`` column of `distance_surface`.
    within_km
        Thresholds for the share of the land within reach.

    Returns
    -------
    pandas.DataFrame
        One row per label: ``protected_share`` (land with any asylum at all), ``mean_km`` and
        ``worst_km`` over the protected land (NaN if none), ``within_<d>_km`` shares, and
        ``source``.
    """
    weight = grid.weight_km2
    rows = []
    for label, values in surfaces.items():
        km = np.asarray(values, dtype=float)
        reached = np.isfinite(km)
        row: dict[str, object] = {
            "surface": label,
            "protected_share": float(weight[reached].sum() / weight.sum()),
            "mean_km": float(np.average(km[reached], weights=weight[reached]))
            if reached.any()
            else np.nan,
            "worst_km": float(km[reached].max()) if reached.any() else np.nan,
        }
        for d in within_km:
            row[f"within_{d:g}_km"] = float(weight[km <= d].sum() / weight.sum())
        rows.append(row | {"source": ACTIVATION_SOURCE})
    return pd.DataFrame(rows).set_index("surface")
