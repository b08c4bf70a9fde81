"""The land as a grid of cells: the study area on each side of the Jordan and its square cells."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import geopandas as gpd
import numpy as np
import shapely
from numpy.typing import NDArray
from pyproj import CRS
from shapely.geometry import Point, box
from shapely.geometry.base import BaseGeometry
from shapely.ops import split

from geo._errors import ParameterError
from geo.crs import to_lonlat

if TYPE_CHECKING:
    from geo.network import RefugeNetwork

#: Margin (metres) around the road network's extent that the study area takes in.
DEFAULT_MARGIN_M = 10_000.0


def study_area(network: RefugeNetwork, *, margin_m: float = DEFAULT_MARGIN_M) -> gpd.GeoDataFrame:
    """The land the analyses cover, per side of the Jordan.

    The land polygons of `network.land` span the whole data region, sea and desert included.
    This keeps the part within `margin_m` of the road network's bounding box (the roads run
    from Beersheba to Dan and Tyre, and east to the King's Highway), removes the Mediterranean
    (the side of the coastline that holds no western city) and the lakes (hydrography
    features of type ``lake``).

    Parameters
    ----------
    network
        The loaded network (`geo.load_network`).
    margin_m
        Metres kept beyond the road network's bounding box.

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
    lakes = shapely.union_all(np.asarray(hydro.geometry[hydro["feature_type"] == "lake"]))
    coast = shapely.union_all(np.asarray(hydro.geometry[hydro["feature_type"] == "coastline"]))
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


def _landward(polygon: BaseGeometry, coast: BaseGeometry, inland: Point) -> BaseGeometry:
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
    crs: CRS

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

    Returns
    -------
    LandGrid
        The cells' centres, sides and size, in the network's metric CRS.

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
