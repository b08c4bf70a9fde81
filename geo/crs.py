"""The coordinate reference systems of the project and the transforms between them.

Geometry is stored and measured in one metric CRS, a transverse Mercator centred on the land
(35.5 E, 31.5 N) on the WGS84 ellipsoid; files and maps use WGS84 longitude/latitude
(EPSG:4326). Across the whole region (lon 34-37, lat 29.5-33.6) the scale error of this
projection stays below 0.03%, so planar distances agree with geodesics to better than 0.1%
(tested against ``pyproj.Geod``).
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numpy.typing import ArrayLike, NDArray
from pyproj import CRS, Geod, Proj, Transformer
from pyproj.crs import ProjectedCRS
from pyproj.crs.coordinate_operation import TransverseMercatorConversion

from geo._errors import QueryError

WGS84 = CRS.from_epsg(4326)
#: Geodesics on the WGS84 ellipsoid (lengths, azimuths and points between lon/lat positions).
GEOD = Geod(ellps="WGS84")

#: The natural origin of the metric CRS (degrees).
ORIGIN_LON, ORIGIN_LAT = 35.5, 31.5
#: The metric CRS every distance in the project is measured in.
REGION_CRS = ProjectedCRS(
    name=f"Refuge TM (WGS84 / transverse Mercator {ORIGIN_LON}E {ORIGIN_LAT}N)",
    conversion=TransverseMercatorConversion(
        latitude_natural_origin=ORIGIN_LAT,
        longitude_natural_origin=ORIGIN_LON,
        false_easting=0.0,
        false_northing=0.0,
        scale_factor_natural_origin=1.0,
    ),
    geodetic_crs=WGS84,
)

#: The region the data must lie in, as (left, bottom, right, top) in degrees.
REGION_BOUNDS_LONLAT = (34.0, 29.5, 37.0, 33.6)


_TMERC = f"proj=tmerc lat_0={ORIGIN_LAT} lon_0={ORIGIN_LON} k=1 x_0=0 y_0=0 ellps=WGS84"
#: The operations PROJ chooses between WGS84 and `REGION_CRS`, longitude first (what
#: ``Transformer.from_crs(WGS84, REGION_CRS, always_xy=True)`` and its inverse run, tested):
#: made from their pipelines, the transformers skip PROJ's search of its database for them,
#: 7-8 ms each of every command that projects a position, and give the same bits.
FORWARD = f"proj=pipeline step proj=unitconvert xy_in=deg xy_out=rad step {_TMERC}"
INVERSE = f"proj=pipeline step inv {_TMERC} step proj=unitconvert xy_in=rad xy_out=deg"


@cache
def _forward() -> Transformer:
    return Transformer.from_pipeline(FORWARD)


@cache
def _inverse() -> Transformer:
    return Transformer.from_pipeline(INVERSE)


def to_metric(lon: ArrayLike, lat: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Project WGS84 longitudes and latitudes to the region's metric CRS.

    Parameters
    ----------
    lon, lat
        Degrees, scalars or arrays of one shape.

    Returns
    -------
    x, y
        Metres in `REGION_CRS`, as float arrays of the inputs' broadcast shape.

    Raises
    ------
    QueryError
        If any coordinate is NaN or infinite.
    """
    lon_a, lat_a = np.broadcast_arrays(
        np.asarray(lon, dtype=np.float64), np.asarray(lat, dtype=np.float64)
    )
    check_finite(lon_a, "lon")
    check_finite(lat_a, "lat")
    x, y = _forward().transform(lon_a, lat_a)
    return np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)


def to_lonlat(x: ArrayLike, y: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Unproject metric coordinates back to WGS84 longitude and latitude (degrees).

    Parameters
    ----------
    x, y
        Positions in `REGION_CRS` (metres), scalars or arrays of one shape.

    Returns
    -------
    lon, lat
        Degrees, arrays of the inputs' shape.
    """
    lon, lat = _inverse().transform(
        np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    )
    return np.asarray(lon, dtype=np.float64), np.asarray(lat, dtype=np.float64)


def check_finite(values: NDArray[np.float64], field: str) -> None:
    """Raise `QueryError` naming `field` and the first bad value if any value is not finite."""
    bad = ~np.isfinite(values)
    if bad.any():
        raise QueryError(
            "coordinates must be finite numbers", field=field, value=float(values[bad][0])
        )


@cache
def _proj() -> Proj:
    return Proj(REGION_CRS)


def meridian_convergence_deg(lon: float, lat: float) -> float:
    """Angle (degrees) between grid north of `REGION_CRS` and true north at a place.

    Used to set a town's "square" to the four directions of the world (Eruvin 56a) rather
    than to the projection's grid.
    """
    return float(_proj().get_factors(lon, lat).meridian_convergence)
