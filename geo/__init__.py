"""Geographic core of refuge-map: the six cities (and the 48 Levitical cities), their asylum
zones, the Jordan and the roads.

It knows nothing of law, simulation or HTML.

Its modules import pandas and geopandas where a table is made or read, not at their top: a
network loaded from the cache (its frames pickled apart, `RefugeNetwork`) answers its queries
and a simulation's flights without them, so that a child forked to fly replications never
imports them (0.2 s of its start).
"""

from geo._errors import DataFileError, GeoError, ParameterError, QueryError
from geo.asylum import CITY_KINDS, ZONE_KINDS
from geo.crs import REGION_CRS, WGS84, to_lonlat, to_metric
from geo.designation import (
    ALL_SIX,
    EAST_THREE,
    MOSES_THEN_JOSHUA,
    WEST_THREE,
    AddedCity,
    Designation,
    DesignationTimeline,
    designate_three_more,
)
from geo.levitical import LEVITE_FAMILIES, read_levitical
from geo.network import Location, Reach, RefugeNetwork, default_data_dir, load_network
from geo.places import CITY_IDS
from geo.readings import (
    BOUGH_OPINIONS,
    CUBIT_PRESETS,
    DEFAULT_BOUGH_OPINION,
    DEFAULT_REFUGE_READING,
    REFUGE_READINGS,
    TECHUM_CUBIT_PRESETS,
    TECHUM_MODES,
)
from geo.roads import Route, Way

__all__ = [
    "ALL_SIX",
    "BOUGH_OPINIONS",
    "CITY_IDS",
    "CITY_KINDS",
    "CUBIT_PRESETS",
    "DEFAULT_BOUGH_OPINION",
    "DEFAULT_REFUGE_READING",
    "EAST_THREE",
    "LEVITE_FAMILIES",
    "MOSES_THEN_JOSHUA",
    "REFUGE_READINGS",
    "REGION_CRS",
    "TECHUM_CUBIT_PRESETS",
    "TECHUM_MODES",
    "WEST_THREE",
    "WGS84",
    "ZONE_KINDS",
    "AddedCity",
    "DataFileError",
    "Designation",
    "DesignationTimeline",
    "GeoError",
    "Location",
    "ParameterError",
    "QueryError",
    "Reach",
    "RefugeNetwork",
    "Route",
    "Way",
    "default_data_dir",
    "designate_three_more",
    "load_network",
    "read_levitical",
    "to_lonlat",
    "to_metric",
]
