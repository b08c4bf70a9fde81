"""The Sabbath boundary (techum) around each town: cubit opinions, squared and round zones."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import shapely
from shapely import affinity
from shapely.geometry.base import BaseGeometry

from geo._errors import ParameterError
from geo.crs import meridian_convergence_deg, to_lonlat
from geo.readings import (
    CUBIT_PRESETS,
    TECHUM_CUBIT_PRESETS,
    TECHUM_MODES,
    TechumMode,
)

if TYPE_CHECKING:
    import geopandas as gpd


def resolve_cubit(cubit_m: float | str) -> float:
    """Metres per cubit, from a number or a preset name of `CUBIT_PRESETS`.

    Raises
    ------
    ParameterError
        For an unknown preset or a length that is not a positive finite number.
    """
    return _resolve(cubit_m, CUBIT_PRESETS, "cubit_m")


def resolve_techum_cubits(techum_cubits: float | str) -> float:
    """Breadth of the belt in cubits, from a number or a name of `TECHUM_CUBIT_PRESETS`."""
    return _resolve(techum_cubits, TECHUM_CUBIT_PRESETS, "techum_cubits")


def _resolve(value: float | str, presets: dict[str, float], field: str) -> float:
    if isinstance(value, str):
        if value not in presets:
            raise ParameterError(
                f"unknown preset; valid {sorted(presets)}", field=field, value=value
            )
        return presets[value]
    number = float(value)
    if not math.isfinite(number) or number <= 0:
        raise ParameterError("must be a positive number", field=field, value=value)
    return number


def techum_zones(
    towns: gpd.GeoSeries, *, breadth_m: float, mode: TechumMode = "squared"
) -> gpd.GeoSeries:
    """The whole protecting polygon of each town: the town and its Sabbath boundary.

    Parameters
    ----------
    towns
        Town extents in a metric CRS.
    breadth_m
        How far the boundary reaches beyond the town, in metres (cubits x cubit length).
    mode
        ``"squared"``: the town is first made "like a square tablet, so it gains the corners"
        (Mishnah Eruvin 5:1), the square set to the four directions of the world (Eruvin 56a),
        then grown by `breadth_m` on every side, corners included (a square, Chebyshev buffer).
        ``"round"``: a plain buffer of the town by `breadth_m`.

    Returns
    -------
    GeoSeries
        Polygons in the towns' CRS, indexed like `towns`.

    Raises
    ------
    ParameterError
        For an unknown mode or a breadth that is not positive.
    """
    import geopandas as gpd

    if mode not in TECHUM_MODES:
        raise ParameterError(
            f"unknown techum mode; valid {TECHUM_MODES}", field="techum", value=mode
        )
    if not breadth_m > 0:
        raise ParameterError("must be positive", field="breadth_m", value=breadth_m)
    geoms = towns.to_numpy()
    if mode == "round":
        zones = shapely.buffer(geoms, breadth_m, quad_segs=32)
    else:
        zones = np.array([_squared(town, breadth_m) for town in geoms])
    return gpd.GeoSeries(zones, index=towns.index, crs=towns.crs)


def _squared(town: BaseGeometry, breadth_m: float) -> BaseGeometry:
    """The town's true-north square grown by `breadth_m` on every side."""
    centre = town.centroid
    lon, lat = to_lonlat(centre.x, centre.y)
    angle = meridian_convergence_deg(float(lon), float(lat))
    # True north lies `angle` degrees anticlockwise of grid north: turn the town clockwise so
    # true north points up the grid, square it there, and turn the square back.
    upright = affinity.rotate(town, -angle, origin=centre)
    square = shapely.buffer(upright.envelope, breadth_m, join_style="mitre")
    return affinity.rotate(square, angle, origin=centre)
