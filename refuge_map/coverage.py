"""The coverage field: from every cell of the land, the time to asylum and the chance to live.

"Lest the avenger of blood pursue the manslayer while his heart is hot, and overtake him,
because the way is long" (Deut 19:6). For every cell of a grid over the land (`land_grid`; the
default 500 m cells give about 118,000 cells), this module computes

* the way to the nearest protecting asylum: the off-road leg from the cell's centre to the
  nearest road, then the roads to the nearest gate, from ONE multi-source Dijkstra pass over the
  road graph (from every gate at once, as ORBIS "floods" its network: `geo.roads.RoadRouter.flood`,
  read off the router's all-pairs tables) and one vectorized snap of all cells;
* the fugitive's expected travel time, off-road leg at his off-road speed, roads at his road
  speed;
* the probability that he reaches asylum before the avenger overtakes him.

The pursuit model (consistent with `refuge_map.simulation`'s capture rule): the avenger sets out
from the place of the killing (the incident's default kin home) after his delay D and goes the
fugitive's own way, off-road leg then roads (what the simulation's avenger who goes for the
gate of the city nearest the scene, `avenger.knows: nearest_city`, does when he overtakes him).
With the time advantage the fugitive holds at distance s along the way,
``tau_f(s) - tau_a(s)``, piecewise linear with a kink where the road begins, he is overtaken
before the gate if and only if

    D < M = max over s of the lead = offroad * (1/f_off - 1/a_off)
                                     + road * max(0, 1/f_road - 1/a_road),

and with the two disciples (Mishnah Makkot 2:5) an overtaken man still lives if they persuade
the avenger. The capture radius (tens of metres) is neglected, and so are what matters over days
rather than hours: the night's rest (`walk_h_per_day`), the news' way to kin who live away from
the scene (`news_speed_kmh`) and a cooling heart (`give_up_per_day`); the field is the
simulation's with the kin at the scene, walking without rest.

Method: conditional Monte Carlo. The four speeds are drawn K times from the scenario's
distributions through one seeded `numpy.random.Generator`, the same draws for every cell
(common random numbers, so the field is smooth and two variants differ only by their
geography); the delay enters only as a threshold, so it is integrated exactly through its
distribution function: ``P(overtaken) = mean_k F_D(M_k)``. This removes the delay's part of the
Monte Carlo error (the standard error per cell is below ``0.5 / sqrt(K)``), with no closed form
needed for the maximum of differences of reciprocal log-normal speeds.

Speed: the probability depends on a cell only through its two distances, so on a large grid it
is computed exactly on the nodes of a table over (offroad, road) and interpolated bilinearly,
the node spacing chosen so that the interpolation error stays below `TABLE_TOLERANCE` (0.001;
see `tabulated_overtaken_probability`; a fixed or uniform delay, whose distribution function
jumps or bends, is computed exactly per cell). The snap onto the roads is a brute force over
the roads' straight segments (exact, without a shapely point per cell) when they are few.

Before all six cities are designated nothing protects (Mishnah Makkot 2:4): every cell is at an
infinite time with probability 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely
from numpy.typing import NDArray
from scipy.special import ndtr

from geo import WGS84, RefugeNetwork
from geo.arrays import Floats
from geo.land_grid import LandGrid, land_grid
from refuge_map._atomic import atomic_file
from refuge_map.errors import RefugeError
from refuge_map.io import gdal_writing, gpkg_settings, output_path
from refuge_map.simulation import scenario_network
from refuge_map.simulation.scenario import Avenger, Escorts, Fugitive, Scenario

#: Default cell edge (metres): 500 m cells give about 118,000 cells over the land.
DEFAULT_CELL_M = 500.0

#: Default number of speed draws per cell.
DEFAULT_DRAWS = 256

#: Output formats QGIS opens, by suffix (cell squares in the network's metric CRS).
FIELD_SUFFIXES = (".gpkg", ".parquet")

#: Why the field matters, and the rules it applies, for outputs and maps.
CITATIONS = (
    "Deut 19:6: lest the avenger overtake him because the way is long",
    "Mishnah Makkot 2:4: no city protects until all six are designated",
    "Mishnah Makkot 2:5: two disciples of the Sages go with him to speak to the avenger",
)

#: Bound on the interpolation error of the tabulated probability (absolute, per cell).
TABLE_TOLERANCE = 1e-3

METHOD = (
    "conditional Monte Carlo: speeds drawn (common random numbers for all cells), "
    "the avenger's delay integrated exactly through its distribution function; "
    f"on large grids tabulated over (offroad, road) and interpolated (error < {TABLE_TOLERANCE:g})"
)

_CHUNK_CELLS = 8192

#: Points of the delay's distribution function sampled to bound its second derivative.
_CDF_SAMPLES = 8193


@dataclass(frozen=True)
class CoverageField:
    """The coverage field over a land grid; arrays are one entry per cell of `grid`.

    Attributes
    ----------
    grid
        The cells (`geo.land_grid.LandGrid`).
    offroad_m, road_m
        The off-road leg and the road distance to the nearest gate (0 inside a zone, inf before
        the cities protect).
    city
        The city whose asylum is nearest ("" when nothing protects).
    time_h
        The fugitive's expected travel time to asylum, hours.
    p_asylum
        Probability that he reaches asylum alive (with the escorts' help, if given).
    attrs
        The year, the number of draws, the seed, the method and the citations.
    """

    grid: LandGrid
    offroad_m: Floats
    road_m: Floats
    city: NDArray[np.str_]
    time_h: Floats
    p_asylum: Floats
    attrs: dict[Hashable, Any] = field(default_factory=dict)

    def to_frame(self) -> gpd.GeoDataFrame:
        """The cells as squares in the network's metric CRS, one column per quantity."""
        cells = self.grid.cells()
        for name in ("offroad_m", "road_m", "time_h", "p_asylum"):
            values = getattr(self, name)
            cells[name] = np.where(np.isfinite(values), values, np.nan)
        cells["city"] = self.city
        cells.attrs = dict(self.attrs)
        return cells


@dataclass(frozen=True)
class SpeedDraws:
    """K draws of the four speeds, metres per second."""

    fugitive_offroad: Floats
    fugitive_road: Floats
    avenger_offroad: Floats
    avenger_road: Floats

    @classmethod
    def draw(
        cls, fugitive: Fugitive, avenger: Avenger, rng: np.random.Generator, k: int
    ) -> SpeedDraws:
        kmh = (
            fugitive.speed_offroad_kmh,
            fugitive.speed_road_kmh,
            avenger.speed_offroad_kmh,
            avenger.speed_road_kmh,
        )
        return cls(*(dist.sample(rng, k) / 3.6 for dist in kmh))


def delay_cdf(delay: Any, hours: Floats) -> Floats:
    """``P(D < hours)`` for a scenario's delay distribution (fixed, uniform or log-normal).

    Log-normal draws are clipped to the quantity's range by `Scenario`'s sampler, so the
    distribution function is the log-normal one inside the range, 0 below and 1 above.
    """
    x = np.asarray(hours, dtype=np.float64)
    if delay.dist == "fixed":
        return (x > delay.value).astype(np.float64)
    if delay.dist == "uniform":
        if delay.high == delay.low:
            return (x > delay.low).astype(np.float64)
        return np.clip((x - delay.low) / (delay.high - delay.low), 0.0, 1.0)
    low, high = delay.bounds
    if delay.sigma == 0.0:
        inner = (x > delay.median).astype(np.float64)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            inner = ndtr((np.log(np.maximum(x, 0.0)) - math.log(delay.median)) / delay.sigma)
    return np.where(x <= max(low, 0.0), 0.0, np.where(x > high, 1.0, inner))


def overtaken_probability(
    offroad_m: Floats, road_m: Floats, speeds: SpeedDraws, cdf: Callable[[Floats], Floats]
) -> Floats:
    """``P(D < M)`` per cell, averaged over the speed draws (see the module's docstring)."""
    out = np.empty(len(offroad_m))
    lead_offroad, gain_road = _gradients(speeds)
    for start in range(0, len(offroad_m), _CHUNK_CELLS):
        cells = slice(start, start + _CHUNK_CELLS)
        lead_h = offroad_m[cells, None] * lead_offroad + road_m[cells, None] * gain_road
        out[cells] = cdf(lead_h).mean(axis=1)
    return out


def _gradients(speeds: SpeedDraws) -> tuple[Floats, Floats]:
    """Per draw, the lead (hours) gained per metre off-road and per metre of road."""
    lead_offroad = (1.0 / speeds.fugitive_offroad - 1.0 / speeds.avenger_offroad) / 3600.0
    gain_road = np.maximum(1.0 / speeds.fugitive_road - 1.0 / speeds.avenger_road, 0.0) / 3600.0
    return lead_offroad, gain_road


def tabulated_overtaken_probability(
    offroad_m: Floats,
    road_m: Floats,
    speeds: SpeedDraws,
    cdf: Callable[[Floats], Floats],
    *,
    tolerance: float = TABLE_TOLERANCE,
) -> Floats | None:
    """`overtaken_probability` interpolated bilinearly from a table over (offroad, road).

    The probability depends on a cell only through its two distances, so it is computed exactly
    (the same K draws) on the nodes of a regular grid over ``[0, max offroad] x [0, max road]``
    and interpolated. The node spacing ``h`` along each axis is chosen from the bound on the
    error of bilinear interpolation, ``h_o**2 / 8 * max|P_oo| + h_r**2 / 8 * max|P_rr|`` with
    ``|P_oo| <= mean_k a_k**2 * max|F''|`` (a_k the lead per metre, F the delay's distribution
    function, its second derivative bounded from finite differences on a fine grid, doubled),
    so that the bound is `tolerance`.

    Returns None (compute exactly) when the table would not be cheaper: few cells, non-finite
    distances, or a delay whose distribution function has a jump or a kink in the range (a
    fixed or uniform delay), which makes the bound useless.
    """
    if len(offroad_m) == 0 or not (np.all(np.isfinite(offroad_m)) and np.all(np.isfinite(road_m))):
        return None
    lead_offroad, gain_road = _gradients(speeds)
    o_max, r_max = float(offroad_m.max()), float(road_m.max())
    # the range of the lead M over the cells and the draws, where F's curvature matters
    m_min = o_max * min(float(lead_offroad.min()), 0.0)
    m_max = o_max * max(float(lead_offroad.max()), 0.0) + r_max * float(gain_road.max())
    curvature = 0.0
    if m_max > m_min:
        hours = np.linspace(m_min, m_max, _CDF_SAMPLES)
        step = hours[1] - hours[0]
        curvature = 2.0 * float(np.abs(np.diff(cdf(hours), 2)).max()) / step**2
    nodes = []
    for extent, gradient in ((o_max, lead_offroad), (r_max, gain_road)):
        bend = float(np.mean(gradient**2)) * curvature
        h = math.sqrt(4.0 * tolerance / bend) if bend > 0.0 else math.inf
        nodes.append(max(2, math.ceil(extent / h) + 1) if extent > 0.0 else 2)
    n_o, n_r = nodes
    if n_o * n_r * 4 > len(offroad_m):
        return None
    grid_o = np.linspace(0.0, max(o_max, 1.0), n_o)
    grid_r = np.linspace(0.0, max(r_max, 1.0), n_r)
    table = np.empty((n_o, n_r))
    for i, o in enumerate(grid_o):
        lead_h = o * lead_offroad + grid_r[:, None] * gain_road
        table[i] = cdf(lead_h).mean(axis=1)
    fo = offroad_m / grid_o[1]
    fr = road_m / grid_r[1]
    io = np.minimum(fo.astype(np.intp), n_o - 2)
    ir = np.minimum(fr.astype(np.intp), n_r - 2)
    fo -= io
    fr -= ir
    low = table[io, ir] + fr * (table[io, ir + 1] - table[io, ir])
    high = table[io + 1, ir] + fr * (table[io + 1, ir + 1] - table[io + 1, ir])
    return low + fo * (high - low)


def way_to_asylum(
    network: RefugeNetwork, x: Floats, y: Floats
) -> tuple[Floats, Floats, NDArray[np.str_]]:
    """Off-road leg, road distance (metres) and city reached, for many metric positions.

    The geographic core's way (`geo.RefugeNetwork.way_to_asylum_xy`) to all six cities as if
    they protected: whether they do in a given year is applied by the field (Mishnah Makkot
    2:4).
    """
    way = network.way_to_asylum_xy(x, y, cities=network.city_ids)
    return way.offroad_m, way.road_m, way.city


def coverage_field(
    network: RefugeNetwork,
    *,
    fugitive: Fugitive | None = None,
    avenger: Avenger | None = None,
    escorts: Escorts | None = None,
    year: float | None = None,
    cell_m: float = DEFAULT_CELL_M,
    draws: int = DEFAULT_DRAWS,
    seed: int = 0,
    grid: LandGrid | None = None,
) -> CoverageField:
    """Compute the coverage field of a network for the agents' speed and delay distributions.

    Parameters
    ----------
    network
        The network, built under the opinions, identification and designation to map.
    fugitive, avenger, escorts
        The scenario's agents (default: the scenario defaults).
    year
        Where on the designation timeline (None: after the whole timeline). Before all six are
        designated nothing protects (Mishnah Makkot 2:4).
    cell_m
        Cell edge in metres (default 500 m: about 118,000 cells); ignored if `grid` is given.
    draws
        Speed draws K per cell; the standard error of a cell's probability is below
        ``0.5 / sqrt(K)``.
    seed
        Seed of the generator behind the draws.
    grid
        Cells to compute (default: `geo.land_grid.land_grid` at `cell_m`).

    Raises
    ------
    RefugeError
        If `draws` is not a positive integer.
    geo.ParameterError
        If `cell_m` is not positive.
    """
    if draws < 1:
        raise RefugeError("must be a positive number of draws", field="draws", value=draws)
    fugitive, avenger, escorts = fugitive or Fugitive(), avenger or Avenger(), escorts or Escorts()
    cells = grid if grid is not None else land_grid(network, cell_m=cell_m)
    offroad, road, city = way_to_asylum(network, cells.x, cells.y)
    speeds = SpeedDraws.draw(fugitive, avenger, np.random.default_rng(seed), draws)
    time_h = (
        offroad * np.mean(1.0 / speeds.fugitive_offroad)
        + road * np.mean(1.0 / speeds.fugitive_road)
    ) / 3600.0
    cdf = partial(delay_cdf, avenger.delay_h)
    overtaken = tabulated_overtaken_probability(offroad, road, speeds, cdf)
    if overtaken is None:
        overtaken = overtaken_probability(offroad, road, speeds, cdf)
    saved = escorts.persuade_p if escorts.enabled else 0.0
    p_asylum = 1.0 - overtaken * (1.0 - saved)
    if not bool(np.all(network.active(year))):
        offroad, road = np.full_like(offroad, math.inf), np.full_like(road, math.inf)
        time_h, p_asylum = np.full_like(time_h, math.inf), np.zeros_like(p_asylum)
        city = np.full_like(city, "")
    attrs: dict[Hashable, Any] = {
        "year": year,
        "cell_m": cells.cell_m,
        "draws": draws,
        "seed": seed,
        "method": METHOD,
        "citations": list(CITATIONS),
        **{f"network_{k}": str(v) for k, v in network.options.items()},
    }
    return CoverageField(cells, offroad, road, city, time_h, p_asylum, attrs)


def scenario_coverage(
    scenario: Scenario, *, cell_m: float = DEFAULT_CELL_M, draws: int = DEFAULT_DRAWS
) -> CoverageField:
    """The coverage field of a scenario: its network options, year, agents, escorts and seed."""
    network = scenario_network(scenario)
    return coverage_field(
        network,
        fugitive=scenario.fugitive,
        avenger=scenario.avenger,
        escorts=scenario.escorts,
        year=scenario.year,
        cell_m=cell_m,
        draws=draws,
        seed=scenario.seed,
    )


def coverage_layer(
    coverage: CoverageField, *, cell_m: float = 2_000.0, column: str = "p_asylum"
) -> gpd.GeoDataFrame:
    """The field coarsened to `cell_m` squares (block means) in WGS84, for the HTML map.

    Parameters
    ----------
    coverage
        A field from `coverage_field`.
    cell_m
        Edge of the map's squares (default 2 km, about 7,500 squares: light enough for a
        browser); at most the field's own resolution is kept.
    column
        ``"p_asylum"`` or ``"time_h"``: the value to map (both are kept; this one is named
        ``value`` for the map's colour scale).
    """
    grid = coverage.grid
    size = max(cell_m, grid.cell_m)
    block = pd.DataFrame(
        {
            "bx": np.floor(grid.x / size).astype(np.int64),
            "by": np.floor(grid.y / size).astype(np.int64),
            "p_asylum": coverage.p_asylum,
            "time_h": np.where(np.isfinite(coverage.time_h), coverage.time_h, np.nan),
        }
    )
    means = block.groupby(["bx", "by"], sort=True).mean().reset_index()
    left, bottom = means["bx"].to_numpy() * size, means["by"].to_numpy() * size
    squares = shapely.box(left, bottom, left + size, bottom + size)
    layer = gpd.GeoDataFrame(means[["p_asylum", "time_h"]], geometry=squares, crs=grid.crs).to_crs(
        WGS84
    )
    layer["value"] = layer[column]
    layer.attrs = {"column": column, "cell_m": size, **coverage.attrs}
    return layer


def check_output(out: str | Path) -> Path:
    """The output path, if its suffix is one of `FIELD_SUFFIXES`.

    Raises
    ------
    RefugeError
        For any other suffix.
    """
    return output_path(out, FIELD_SUFFIXES)


def write_coverage(coverage: CoverageField, out: str | Path) -> list[Path]:
    """Write the field (GeoPackage or GeoParquet of cell squares, in WGS84); its figure is
    drawn by `refuge_map.render.static.coverage_figure`.

    Returns
    -------
    list of Path
        The field file.

    Raises
    ------
    RefugeError
        For an unsupported suffix (use `FIELD_SUFFIXES`). Each file appears whole or not at all.
    """
    target = check_output(out)
    frame = coverage.to_frame().to_crs(WGS84)  # files are WGS84 (EPSG:4326), as every file
    with atomic_file(target) as tmp, gpkg_settings(), gdal_writing(target):
        if target.suffix == ".parquet":
            frame.to_parquet(tmp)
        else:
            frame.to_file(tmp, layer="coverage", engine="pyogrio")
    return [target]
