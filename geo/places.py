"""Read the gazetteer: the six cities, their candidate identifications and the reference points."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely

from geo._errors import DataFileError, ParameterError
from geo._validate import read_layer
from geo.crs import REGION_CRS

#: The six cities of refuge (Numbers 35:13-14; Joshua 20:7-8), in the order of Joshua 20.
CITY_IDS: tuple[str, ...] = ("kedesh", "shechem", "hebron", "bezer", "ramoth_gilead", "golan")

#: Town area (hectares) assumed where nothing is known of a site: a "middling" town, neither a
#: village nor a big city (baraita in Makkot 10a; Rambam, Rotzeach 8:8).
DEFAULT_TOWN_AREA_HA = 5.0

PLACE_FIELDS = ("id", "feature_kind", "name", "source", "license")
CITY_FIELDS = ("city", "rank", "confidence_score")  # needed, non-null, on cities and candidates
FEATURE_KINDS = ("city_of_refuge", "candidate_identification", "reference_point")

Candidates = Literal["best"] | Mapping[str, str]


def read_places(path: Path) -> gpd.GeoDataFrame:
    """Read and validate the gazetteer file, in WGS84.

    Raises
    ------
    DataFileError
        Listing every problem found: missing fields, bad geometries, positions outside the
        region, duplicate ids, unknown kinds, a missing city of refuge.
    """
    places = read_layer(path, PLACE_FIELDS, geom_types=("Point",))
    problems: list[str] = []
    dup = places["id"][places["id"].duplicated()]
    if len(dup):
        problems.append(f"field 'id': duplicate ids {sorted(set(dup))}")
    unknown_kind = set(places["feature_kind"]) - set(FEATURE_KINDS)
    if unknown_kind:
        problems.append(
            f"field 'feature_kind': unknown {sorted(unknown_kind)}; valid {FEATURE_KINDS}"
        )
    sited = places[places["feature_kind"] != "reference_point"]
    for field in CITY_FIELDS:
        if field not in sited or sited[field].isna().any():
            problems.append(f"field {field!r}: missing on a city or candidate site")
    if problems:
        raise DataFileError("; ".join(problems), source=str(path))
    cities = places[places["feature_kind"] == "city_of_refuge"]
    names = list(cities["id"])
    unknown_city = sorted(set(places["city"].dropna()) - set(CITY_IDS))
    if unknown_city:
        problems.append(f"field 'city': unknown city names {unknown_city}; valid {CITY_IDS}")
    missing = [c for c in CITY_IDS if c not in names]
    if missing:
        problems.append(f"field 'id': cities of refuge missing {missing}")
    if problems:
        raise DataFileError("; ".join(problems), source=str(path))
    return places


def choose_sites(places: gpd.GeoDataFrame, candidates: Candidates = "best") -> gpd.GeoDataFrame:
    """Pick one identified site per city: the best-ranked one or those a mapping names.

    Parameters
    ----------
    places
        The gazetteer from `read_places`.
    candidates
        ``"best"`` for each city's rank-1 identification, or a mapping from city id to the id of
        a candidate site (cities not named keep their best site).

    Returns
    -------
    GeoDataFrame
        One row per city in `CITY_IDS` order, indexed by city id, with the chosen ``site_id``,
        its ``rank``, ``confidence`` (0-1) and the number of alternatives.

    Raises
    ------
    ParameterError
        If the mapping names an unknown city, or a site that is not a candidate of that city.
    """
    sites = places[places["city"].notna()]
    if isinstance(candidates, str):
        if candidates != "best":
            raise ParameterError(
                "must be 'best' or a mapping city -> site id", field="candidates", value=candidates
            )
        candidates = {}
    choice = dict(candidates)
    for city, site in choice.items():
        if city not in CITY_IDS:
            raise ParameterError(f"unknown city; valid {CITY_IDS}", field="candidates", value=city)
        valid = list(sites.loc[sites["city"] == city, "id"])
        if site not in valid:
            raise ParameterError(
                f"not a candidate site of {city}; valid {valid}",
                field=f"candidates.{city}",
                value=site,
            )
    rows = []
    for city in CITY_IDS:
        own = sites[sites["city"] == city].sort_values("rank")
        row = own[own["id"] == choice[city]].iloc[0] if city in choice else own.iloc[0]
        rows.append(row.to_dict() | {"alternatives": len(own) - 1})
    chosen = gpd.GeoDataFrame(rows, geometry="geometry", crs=places.crs)
    chosen = chosen.rename(columns={"id": "site_id"}).set_index(pd.Index(CITY_IDS, name="city"))
    chosen["confidence"] = chosen["confidence_score"].astype(float) / 1000.0
    return chosen


def town_extents(sites: gpd.GeoDataFrame) -> gpd.GeoSeries:
    """The town itself around each chosen site: a disc of the documented or default area.

    Returns
    -------
    GeoSeries
        Polygons in `REGION_CRS`, indexed like `sites`.
    """
    area_ha = sites.get("town_area_ha", pd.Series(np.nan, index=sites.index))
    area_ha = area_ha.astype(float).fillna(DEFAULT_TOWN_AREA_HA)
    radius_m = np.sqrt(area_ha.to_numpy() * 10_000.0 / math.pi)
    points = sites.geometry.to_crs(REGION_CRS)
    discs = shapely.buffer(points.to_numpy(), radius_m, quad_segs=16)
    return gpd.GeoSeries(discs, index=sites.index, crs=REGION_CRS)
