"""The land as a grid of cells, and the road distance from each cell to the nearest asylum."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely
from numpy.typing import ArrayLike, NDArray
from shapely.geometry import Point, box
from shapely.ops import split

from geo import ParameterError, RefugeNetwork, to_lonlat

#: Margin (metres) around the road network's extent that the study area takes in.
DEFAULT_MARGIN_M = 10_000.0

#: Mishnah Makkot 2:4: the three beyond the Jordan gave no refuge until the three in Canaan
#: were chosen; `geo.RefugeNetwork.distance_to_asylum` returns ``inf`` before then.
ACTIVATION_SOURCE = "Mishnah Makkot 2:4; Numbers 35:13-14"


def study_area(network: RefugeNetwork, *, margin_m: float = DEFAULT_MARGIN_M) -> gpd.GeoDataFrame:
    """The land the analyses cover, per side of the Jordan.

    The land polygons of `network.land` span the whole data region, sea and desert included.
    This keeps the part within `margin_m` of the road network's bounding box (the roads run
    from Beersheba to Dan and Tyre, and east to the King's Highway), removes the Mediterranean
    (the side of the coastline that holds no western city) and the lakes (hydrography
    features of type ``lake``).

    Returns
    -------
    geopandas.GeoDataFrame
        Rows ``west`` and ``east`` (indexed by side) in the network's metric CRS.
    """
    router = network.router
    extent = box(
        router.node_x.min() - margin_m,
        router.node_y.min() - margin_m,
        router.node_x.max() + margin_m,
        router.node_y.max() + margin_m,
    )
    hydro = network.hydrography
    lakes = shapely.union_all(hydro.geometry[hydro["feature_type"] == "lake"].to_numpy())
    coast = shapely.union_all(hydro.geometry[hydro["feature_type"] == "coastline"].to_numpy())
    west_sites = network.cities.loc[network.cities["side"] == "west", "site"]
    pieces = []
    for side, polygon in network.land.geometry.items():
        land = shapely.intersection(polygon, extent)
        if not coast.is_empty:
            land = _landward(land, coast, Point(west_sites.iloc[0]))
        pieces.append((side, shapely.difference(land, lakes)))
    sides, geoms = zip(*pieces, strict=True)
    return gpd.GeoDataFrame({"side": list(sides)}, geometry=list(geoms), crs=network.crs).set_index(
        "side"
    )


def _landward(
    polygon: shapely.Geometry, coast: shapely.Geometry, inland: Point
) -> shapely.Geometry:
    """The pieces of `polygon` on the landward side of the coast (`inland`'s side).

    Pieces the coastline cuts off from the piece holding `inland` are sea; a polygon the coast
    does not cross is kept whole.
    """
    parts = list(split(polygon, coast).geoms)
    if len(parts) == 1:
        return polygon
    sea = [p for p in parts if not p.intersects(inland.buffer(1.0))]
    return shapely.difference(polygon, shapely.union_all(sea)) if len(sea) < len(parts) else polygon


@dataclass(frozen=True)
class LandGrid:
    """Square cells over the study area: one demand point per cell, at its centre.

    A cell belongs to the grid when its centre lies on land; each carries the same weight,
    its area (``cell_m``² in km²), so demand is uniform by area.

    Attributes
    ----------
    x, y
        Cell centres, metres in the network's CRS.
    side
        ``"west"`` or ``"east"`` of the Jordan for each cell.
    cell_m
        Cell edge in metres (the grid's resolution).
    crs
        The network's metric CRS.
    """

    x: NDArray[np.float64]
    y: NDArray[np.float64]
    side: NDArray[np.str_]
    cell_m: float
    crs: object

    @property
    def weight_km2(self) -> NDArray[np.float64]:
        """Each cell's area (km²): the demand weight, uniform by area."""
        return np.full(len(self.x), self.cell_m**2 / 1e6)

    @property
    def lonlat(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Cell centres as WGS84 longitude and latitude."""
        return to_lonlat(self.x, self.y)

    def cells(self) -> gpd.GeoDataFrame:
        """The cells as squares (for maps), with their side, in the metric CRS."""
        half = self.cell_m / 2.0
        squares = shapely.box(self.x - half, self.y - half, self.x + half, self.y + half)
        return gpd.GeoDataFrame({"side": self.side}, geometry=squares, crs=self.crs)


def land_grid(
    network: RefugeNetwork, *, cell_m: float = 5_000.0, margin_m: float = DEFAULT_MARGIN_M
) -> LandGrid:
    """A square grid of cells over the land of `study_area`.

    Parameters
    ----------
    network
        The loaded network.
    cell_m
        Cell edge in metres: 5 km (the default) gives about 1,200 cells, 2 km about 7,000,
        10 km about 300. Distances are measured from each cell's centre.
    margin_m
        Passed to `study_area`.

    Raises
    ------
    geo.ParameterError
        If `cell_m` is not a positive number.
    """
    if not cell_m > 0:
        raise ParameterError("must be a positive number of metres", field="cell_m", value=cell_m)
    area = study_area(network, margin_m=margin_m)
    left, bottom, right, top = area.total_bounds
    xs = np.arange(np.floor(left / cell_m), np.ceil(right / cell_m) + 1) * cell_m
    ys = np.arange(np.floor(bottom / cell_m), np.ceil(top / cell_m) + 1) * cell_m
    gx, gy = (a.ravel() for a in np.meshgrid(xs, ys))
    side = np.full(gx.shape, "", dtype="<U4")
    for name, polygon in area.geometry.items():
        side[shapely.contains_xy(polygon, gx, gy)] = name
    keep = side != ""
    return LandGrid(gx[keep], gy[keep], side[keep], float(cell_m), network.crs)


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
