"""What the prepared roads add: flight along the roads against flight straight across country."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from typing import Any, cast

import numpy as np
import pandas as pd
import shapely
from numpy.typing import NDArray

from geo import RefugeNetwork
from geo.land_grid import LandGrid
from refuge_map.coverage import CoverageField, SpeedDraws, delay_cdf, overtaken_probability
from refuge_map.errors import RefugeError
from refuge_map.simulation.scenario import Avenger, Escorts, Fugitive

#: Why the roads were made, and what the comparison leaves out.
ROADS_SOURCE = (
    "Deut 19:3: prepare the way; Mishnah Makkot 2:5: direct roads from one city to another; "
    "Deut 19:6: lest the avenger overtake him because the way is long"
)

#: How the across-country field is computed.
CROW_METHOD = (
    "straight line (metric distance) to the nearest asylum zone at off-road speed, fugitive and "
    "avenger alike; the coverage field's conditional Monte Carlo with no road leg"
)


def nearest_zone(
    network: RefugeNetwork, x: NDArray[np.float64], y: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.str_]]:
    """Straight-line distance (metres) from each position to the nearest asylum zone, and its city.

    The zones are the towns with their Sabbath boundary (Mishnah Makkot 2:7); a position inside
    one is at 0. Computed as one vectorized `shapely.distance` over positions x zones.

    Returns
    -------
    tuple of numpy.ndarray
        Distances in metres and the city ids, one per position.
    """
    points = cast(  # arrays in, an array of points out (the stubs also allow one Point)
        NDArray[np.object_], shapely.points(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    )
    zones = network.zones.geometry.to_numpy()
    dist = shapely.distance(points[:, None], zones[None, :])
    nearest = np.argmin(dist, axis=1)
    ids = np.asarray(network.city_ids, dtype=str)
    return dist[np.arange(len(points)), nearest], ids[nearest]


def crow_field(
    network: RefugeNetwork,
    grid: LandGrid,
    *,
    fugitive: Fugitive | None = None,
    avenger: Avenger | None = None,
    escorts: Escorts | None = None,
    year: float | None = None,
    draws: int = 256,
    seed: int = 0,
) -> CoverageField:
    """The coverage field as if there were no roads: straight across country to asylum.

    The fugitive walks the straight line to the nearest zone (`nearest_zone`) at his off-road
    speed, and the avenger follows at his; the chance of being overtaken is the coverage field's
    (`refuge_map.coverage.overtaken_probability`) with the road leg at 0. With the same `seed`
    and `draws` as a `refuge_map.coverage.coverage_field` the speeds are the same draws, so the
    two fields differ by the way alone.

    Parameters
    ----------
    network, grid
        The network and the cells (`refuge_map.analysis.land_grid`).
    fugitive, avenger, escorts
        The agents (default: the scenario defaults).
    year
        Where on the designation timeline; before all six are designated nothing protects
        (Mishnah Makkot 2:4): every cell at ``inf`` hours and probability 0.
    draws, seed
        Speed draws per cell and the generator's seed.

    Returns
    -------
    refuge_map.coverage.CoverageField
        ``offroad_m`` the straight line, ``road_m`` 0, ``time_h`` and ``p_asylum``.

    Raises
    ------
    refuge_map.errors.RefugeError
        If `draws` is not a positive integer.
    """
    if draws < 1:
        raise RefugeError("must be a positive number of draws", field="draws", value=draws)
    fugitive, avenger, escorts = fugitive or Fugitive(), avenger or Avenger(), escorts or Escorts()
    straight, city = nearest_zone(network, grid.x, grid.y)
    speeds = SpeedDraws.draw(fugitive, avenger, np.random.default_rng(seed), draws)
    time_h = straight * np.mean(1.0 / speeds.fugitive_offroad) / 3600.0
    overtaken = overtaken_probability(
        straight, np.zeros_like(straight), speeds, lambda h: delay_cdf(avenger.delay_h, h)
    )
    saved = escorts.persuade_p if escorts.enabled else 0.0
    p_asylum = 1.0 - overtaken * (1.0 - saved)
    road = np.zeros_like(straight)
    if not bool(np.all(network.active(year))):
        straight, road = np.full_like(straight, math.inf), np.full_like(road, math.inf)
        time_h, p_asylum = np.full_like(time_h, math.inf), np.zeros_like(p_asylum)
        city = np.full_like(city, "")
    attrs: dict[Hashable, Any] = {"year": year, "draws": draws, "seed": seed, "method": CROW_METHOD}
    return CoverageField(grid, straight, road, city, time_h, p_asylum, attrs)


def compare_fields(fields: Mapping[str, CoverageField]) -> pd.DataFrame:
    """Summarize coverage fields on the same cells: time to asylum and the chance to reach it.

    Every cell weighs its area (uniform demand by area, as in `land_grid`).

    Parameters
    ----------
    fields
        Label -> field, all on the same grid.

    Returns
    -------
    pandas.DataFrame
        One row per label: ``mean_h`` and ``p90_h`` (hours, over the protected land),
        ``mean_p`` (mean chance to reach asylum alive), ``share_p_below_half`` (land where he
        more likely dies than lives) and ``source``.

    Raises
    ------
    ValueError
        If the fields are not on grids of the same number of cells.
    """
    sizes = {len(field.time_h) for field in fields.values()}
    if len(sizes) > 1:
        raise ValueError(f"fields on different grids ({sorted(sizes)} cells); use one grid")
    rows = []
    for label, field in fields.items():
        reached = np.isfinite(field.time_h)
        hours = field.time_h[reached]
        rows.append(
            {
                "field": label,
                "mean_h": float(hours.mean()) if reached.any() else math.nan,
                "p90_h": float(np.quantile(hours, 0.9)) if reached.any() else math.nan,
                "mean_p": float(field.p_asylum.mean()),
                "share_p_below_half": float((field.p_asylum < 0.5).mean()),
                "source": ROADS_SOURCE,
            }
        )
    return pd.DataFrame(rows).set_index("field")


def roads_gain(roads: CoverageField, crow: CoverageField) -> pd.DataFrame:
    """Per cell, what the roads add: hours saved and the gain in the chance to reach asylum.

    Parameters
    ----------
    roads
        The coverage field along the roads (`refuge_map.coverage.coverage_field`).
    crow
        The across-country field on the same grid (`crow_field`).

    Returns
    -------
    pandas.DataFrame
        One row per cell: ``detour`` (road way over straight line, NaN where either is 0),
        ``hours_saved`` (positive where the roads are faster) and ``p_gain``.

    Raises
    ------
    ValueError
        If the two fields are not on grids of the same number of cells.
    """
    if len(roads.time_h) != len(crow.time_h):
        raise ValueError("the two fields are not on the same grid")
    way = roads.offroad_m + roads.road_m
    with np.errstate(invalid="ignore", divide="ignore"):
        detour = np.where(crow.offroad_m > 0, way / crow.offroad_m, np.nan)
    table = pd.DataFrame(
        {
            "detour": detour,
            "hours_saved": crow.time_h - roads.time_h,
            "p_gain": roads.p_asylum - crow.p_asylum,
        }
    )
    table.attrs = {"source": ROADS_SOURCE, "method": CROW_METHOD}
    return table
