"""Read the gazetteer: the six cities, their candidate identifications and the reference points."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Literal, cast

import numpy as np
import shapely

from geo._errors import DataFileError, ParameterError
from geo._validate import read_layer
from geo.crs import REGION_CRS

if TYPE_CHECKING:
    import geopandas as gpd
    import pandas as pd

#: The six cities of refuge (Numbers 35:13-14; Joshua 20:7-8), in the order of Joshua 20.
CITY_IDS: tuple[str, ...] = ("kedesh", "shechem", "hebron", "bezer", "ramoth_gilead", "golan")

#: Town area (hectares) assumed where nothing is known of a site: a "middling" town, neither a
#: village nor a big city (baraita in Makkot 10a; Rambam, Rotzeach 8:8).
DEFAULT_TOWN_AREA_HA = 5.0

PLACE_FIELDS = ("id", "feature_kind", "name", "source", "license")
CITY_FIELDS = ("city", "rank")  # needed, non-null, on cities and candidates
FEATURE_KINDS = ("city_of_refuge", "candidate_identification", "reference_point")

#: OpenBible's score of an identification (``openbible_score`` in data/places.geojson): the
#: per-candidate ``score`` of modern.jsonl's ``ancient_associations``, an integer from -1000 to
#: 1000 (OpenBible: 1000 very high, 500+ high; negative from "unlikely"/"no" votes). Not a
#: probability; candidates the literature names beyond OpenBible have none.
SCORE_FIELD = "openbible_score"

#: Whole numbers with gaps (a candidate without a score, a point without a precision): read as
#: nullable integers, so files keep them integers.
INTEGER_FIELDS = (SCORE_FIELD, "location_precision_m", "pleiades_offset_m")

#: The flags a site may carry (field ``site_flags``), each with its meaning. A site flagged with
#: one of `EXCLUDING_FLAGS` stays in the data but is never chosen as a city's site.
SITE_FLAGS: dict[str, str] = {
    "negative_score": "OpenBible's score is negative: its sources reject the identification",
    "outside_naphtali": (
        "a Kedesh south of Mount Tabor, in Issachar, against 'Kedesh in Galilee in the hill "
        "country of Naphtali' (Joshua 20:7; Tabor on the border, Joshua 19:22, 34)"
    ),
    "not_in_openbible": "named in the literature, not in OpenBible: no score",
    "position_approximate": "the position is known only roughly (see location_precision_m)",
}
EXCLUDING_FLAGS = ("negative_score",)

Candidates = Literal["best"] | Mapping[str, str]


def read_places(path: Path) -> gpd.GeoDataFrame:
    """Read and validate the gazetteer file, in WGS84.

    Raises
    ------
    DataFileError
        Listing every problem found: missing fields, bad geometries, positions outside the
        region, duplicate ids, unknown kinds, a missing city of refuge.
    """
    import pandas as pd

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
    places["site_flags"] = places.get("site_flags", pd.Series(None, index=places.index)).map(
        as_list
    )
    problems += _flag_problems(places)
    for field in INTEGER_FIELDS:
        if field in places:
            places[field] = pd.to_numeric(places[field], errors="coerce").astype("Int64")
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


def as_list(value: object) -> list[str]:
    """A list field as read (a JSON array, or missing) as a plain list of strings."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in cast(Iterable[object], value)]  # an array or a list


def _flag_problems(places: gpd.GeoDataFrame) -> list[str]:
    """Unknown flags, a negative score without its flag, a city without a score."""
    import pandas as pd

    problems = []
    for site, flags in zip(places["id"], places["site_flags"], strict=True):
        unknown = sorted(set(flags) - set(SITE_FLAGS))
        if unknown:
            problems.append(
                f"field 'site_flags' of {site!r}: unknown {unknown}; valid {list(SITE_FLAGS)}"
            )
    score = places.get(SCORE_FIELD, pd.Series(np.nan, index=places.index)).astype(float)
    unflagged = places.loc[(score < 0) & ~places["site_flags"].map(lambda f: "negative_score" in f)]
    for site in unflagged["id"]:
        problems.append(
            f"field 'site_flags' of {site!r}: negative {SCORE_FIELD} without 'negative_score'"
        )
    cities = places["feature_kind"] == "city_of_refuge"
    for site in places.loc[cities & score.isna(), "id"]:
        problems.append(f"field {SCORE_FIELD!r} of {site!r}: missing on a city of refuge")
    return problems


def selectable_sites(places: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    """The cities' sites that may be chosen: every identification not flagged with one of
    `EXCLUDING_FLAGS` (a negative OpenBible score)."""
    sited = places[places["city"].notna()]
    excluded = sited["site_flags"].map(lambda flags: bool(set(flags) & set(EXCLUDING_FLAGS)))
    return sited[~excluded]


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
        its ``rank``, ``openbible_score`` (`SCORE_FIELD`) and the number of selectable
        alternatives.

    Raises
    ------
    ParameterError
        If the mapping names an unknown city, or a site that is not a selectable candidate of
        that city (`selectable_sites`).
    """
    import geopandas as gpd
    import pandas as pd

    sites = selectable_sites(places)
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
        if site in set(places.loc[places["city"] == city, "id"]) - set(valid):
            raise ParameterError(
                f"excluded from selection ({SITE_FLAGS['negative_score']}); valid {valid}",
                field=f"candidates.{city}",
                value=site,
            )
        if site not in valid:
            raise ParameterError(
                f"not a candidate site of {city}; valid {valid}",
                field=f"candidates.{city}",
                value=site,
            )
    # each city's best-ranked site, found in one pass over the sites (a sort per city was
    # most of the network's site choice)
    best = sites.sort_values("rank", kind="stable").drop_duplicates("city").set_index("city")
    alternatives = sites["city"].value_counts() - 1
    position = pd.Index(sites["id"])  # ids are unique (`read_places`)
    rows = [
        sites.iloc[position.get_loc(choice.get(city, best.at[city, "id"]))].to_dict()
        | {"alternatives": int(alternatives[city])}
        for city in CITY_IDS
    ]
    chosen = gpd.GeoDataFrame(rows, geometry="geometry", crs=places.crs)
    chosen = chosen.rename(columns={"id": "site_id"}).set_index(pd.Index(CITY_IDS, name="city"))
    for field in INTEGER_FIELDS:
        if field in chosen:
            chosen[field] = chosen[field].astype("Int64")
    return chosen


def town_areas(sites: gpd.GeoDataFrame) -> pd.DataFrame:
    """The town area (hectares) of each site and its basis: ``published`` or ``estimate`` from
    the data, ``default`` (`DEFAULT_TOWN_AREA_HA`) where the data give none."""
    import pandas as pd

    area_ha = sites.get("town_area_ha", pd.Series(np.nan, index=sites.index)).astype(float)
    basis = sites.get("town_area_basis", pd.Series(None, index=sites.index, dtype=object))
    return pd.DataFrame(
        {
            "town_area_ha": area_ha.fillna(DEFAULT_TOWN_AREA_HA),
            "town_area_basis": basis.where(area_ha.notna(), "default"),
        },
        index=sites.index,
    )


def town_extents(sites: gpd.GeoDataFrame) -> gpd.GeoSeries:
    """The town itself around each chosen site: a disc of the documented or default area.

    The area is the site's ``town_area_ha`` (published dimensions, or an estimate; the basis in
    ``town_area_basis`` and ``town_area_source``), else `DEFAULT_TOWN_AREA_HA`. No outline of a
    town is shipped, so the extent is always a disc of that area centred on the site.

    Returns
    -------
    GeoSeries
        Polygons in `REGION_CRS`, indexed like `sites`.
    """
    import geopandas as gpd

    radius_m = np.sqrt(town_areas(sites)["town_area_ha"].to_numpy() * 10_000.0 / math.pi)
    points = sites.geometry.to_crs(REGION_CRS)
    discs = shapely.buffer(points.to_numpy(), radius_m, quad_segs=16)
    return gpd.GeoSeries(discs, index=sites.index, crs=REGION_CRS)
