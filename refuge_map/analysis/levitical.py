"""How much closer refuge is with the 48 Levitical cities than with the six, and for whom."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from geo import RefugeNetwork
from geo.asylum import CITY_KINDS
from refuge_map.analysis.coverage_grid import LandGrid, coverage_summary, distance_surface

#: The labels of the three surfaces `levitical_surfaces` compares.
SIX, WITH_INTENT, WITHOUT_INTENT = "six", "48, intending refuge", "48, not intending refuge"


def levitical_surfaces(
    six: RefugeNetwork, levitical: RefugeNetwork, grid: LandGrid
) -> dict[str, pd.DataFrame]:
    """Distance surfaces (`distance_surface`) of the six and of the 48, with and without intent.

    Parameters
    ----------
    six
        A network of the six (``refuges="six"``).
    levitical
        The same network loaded with ``refuges="levitical"``.
    grid
        The land grid (`land_grid` of either network).

    Returns
    -------
    dict
        `SIX`, `WITH_INTENT` and `WITHOUT_INTENT` -> the surface table. Without intent only the
        six protect (Makkot 10a, Abaye; Rambam, Rotzeach 8:9-10), but on the 48's road graph:
        it differs from the six's own surface only by the generated spurs to the 42 that no
        road reaches (a cell's off-road leg goes to its nearest road, which may be such a
        dead-end spur), which shows what the spurs alone do to the figures.
    """
    return {
        SIX: distance_surface(six, grid),
        WITH_INTENT: distance_surface(levitical, grid, intends_refuge=True),
        WITHOUT_INTENT: distance_surface(levitical, grid, intends_refuge=False),
    }


def six_vs_48(
    grid: LandGrid,
    surfaces: dict[str, pd.DataFrame],
    *,
    within_km: Sequence[float] = (5, 10, 20),
) -> pd.DataFrame:
    """`coverage_summary` of each surface, for the whole land and each side of the Jordan.

    Parameters
    ----------
    grid
        The land's cells (`land_grid`).
    surfaces
        Distance surface per name (`distance_surface`), on `grid`'s cells.
    within_km
        The distances whose share of land within reach is reported.

    Returns
    -------
    pandas.DataFrame
        Indexed by (``land``: ``"all"``, ``"west"``, ``"east"``; ``surface``), the columns of
        `coverage_summary`, and ``source`` naming the intent rule.
    """
    frames = []
    for land in ("all", "west", "east"):
        keep = np.ones(len(grid.x), dtype=bool) if land == "all" else grid.side == land
        part = LandGrid(grid.x[keep], grid.y[keep], grid.side[keep], grid.cell_m, grid.crs)
        table = coverage_summary(
            part, {k: v["km"].to_numpy()[keep] for k, v in surfaces.items()}, within_km=within_km
        )
        frames.append(table.assign(land=land).reset_index())
    out = pd.concat(frames).set_index(["land", "surface"])
    out["source"] = CITY_KINDS["levitical"]
    return out


def who_gains(grid: LandGrid, surfaces: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """For whom the 42 bring refuge closer: the gain (km) by side and by the six's distance.

    Each cell is put in a band of its distance to the six (0-10, 10-20, 20-40, 40+ km); the
    table gives, per side and band, the land's share, the mean distance to the six and to the
    48 (intending refuge), the mean gain, and the share of cells whose nearest asylum becomes
    one of the 42.

    Parameters
    ----------
    grid
        The land's cells (`land_grid`).
    surfaces
        Distance surfaces (`distance_surface`) of ``six`` and of the 48 intending refuge.

    Returns
    -------
    pandas.DataFrame
        Indexed by (``side``, ``band``).
    """
    six = surfaces[SIX]["km"].to_numpy()
    forty_eight = surfaces[WITH_INTENT]["km"].to_numpy()
    nearest = surfaces[WITH_INTENT]["city"].to_numpy()
    refuge = set(surfaces[SIX]["city"])
    band = pd.cut(
        six, [0, 10, 20, 40, np.inf], right=False, labels=["0-10", "10-20", "20-40", "40+"]
    )
    table = pd.DataFrame(
        {
            "side": grid.side,
            "band": band,
            "six_km": six,
            "levitical_km": forty_eight,
            "gain_km": six - forty_eight,
            "to_the_42": [city not in refuge for city in nearest],
        }
    )
    grouped = table.groupby(["side", "band"], observed=True)
    out = grouped[["six_km", "levitical_km", "gain_km", "to_the_42"]].mean()
    out.insert(0, "land_share", grouped.size() / len(table))
    return out
