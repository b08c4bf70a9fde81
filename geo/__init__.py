"""Geographic core of refuge-map: the six cities, their asylum zones, the Jordan and the roads.

It knows nothing of law, simulation or HTML.
"""

from geo._errors import DataFileError, GeoError, ParameterError, QueryError
from geo.crs import REGION_CRS, WGS84, to_lonlat, to_metric

__all__ = [
    "REGION_CRS",
    "WGS84",
    "DataFileError",
    "GeoError",
    "ParameterError",
    "QueryError",
    "to_lonlat",
    "to_metric",
]
