"""The 48 Levitical cities of Joshua 21 (Numbers 35:6-8): reading and checking their layer."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from geo._errors import DataFileError
from geo._validate import read_layer
from geo.places import CITY_IDS

if TYPE_CHECKING:
    import geopandas as gpd

#: Numbers 35:6-7: the six cities of refuge and 42 more, 48 in all, given to the Levites.
LEVITICAL_SOURCE = "Numbers 35:6-8; Joshua 21:1-42; 1 Chronicles 6:54-81 (Eng.)"

#: The Levite families of Joshua 21:4-7 (the layer's ``family`` field).
LEVITE_FAMILIES: dict[str, str] = {
    "aaronite": "Joshua 21:4, 21:13-19: the Kohathite priests, sons of Aaron",
    "kohathite": "Joshua 21:5, 21:20-26: the other Kohathites",
    "gershonite": "Joshua 21:6, 21:27-33: the Gershonites",
    "merarite": "Joshua 21:7, 21:34-40: the Merarites",
}

LEVITICAL_FIELDS = (
    "id",
    "name",
    "tribe",
    "family",
    "verse",
    "city_of_refuge",
    "modern_identification",
    "openbible_score",
    "choice",
    "source",
    "license",
)

_VERSE = re.compile(r"^Joshua 21:\d{1,2}$")


def read_levitical(path: str | Path) -> gpd.GeoDataFrame:
    """Read and validate the Levitical cities layer, in WGS84.

    Parameters
    ----------
    path
        A point file with the fields of `LEVITICAL_FIELDS` (the shipped one is
        ``data/levitical_cities.geojson``, built by ``data/tools/build_levitical.py``).

    Returns
    -------
    geopandas.GeoDataFrame
        One row per city, indexed by city id; ``city_of_refuge`` as booleans.

    Raises
    ------
    DataFileError
        Listing every problem found: missing fields or values, bad geometries, duplicate ids,
        an unknown family, a verse that is not in Joshua 21, a city of refuge missing or not
        flagged as one, or a city flagged as one that is not among the six.
    """
    layer = read_layer(path, LEVITICAL_FIELDS, geom_types=("Point",))
    problems: list[str] = []
    dup = layer["id"][layer["id"].duplicated()]
    if len(dup):
        problems.append(f"field 'id': duplicate ids {sorted(set(dup))}")
    unknown = sorted(set(layer["family"]) - set(LEVITE_FAMILIES))
    if unknown:
        problems.append(f"field 'family': unknown {unknown}; valid {sorted(LEVITE_FAMILIES)}")
    bad_verse = sorted(v for v in set(layer["verse"]) if not _VERSE.match(str(v)))
    if bad_verse:
        problems.append(f"field 'verse': not a verse of Joshua 21 {bad_verse[:3]}")
    refuge = layer["city_of_refuge"].astype(str).str.lower().isin(["true", "1"])
    flagged = set(layer.loc[refuge, "id"])
    if flagged != set(CITY_IDS):
        missing, extra = sorted(set(CITY_IDS) - flagged), sorted(flagged - set(CITY_IDS))
        problems.append(
            f"field 'city_of_refuge': the six must be flagged (missing {missing}, "
            f"not cities of refuge {extra})"
        )
    if problems:
        raise DataFileError(f"{len(problems)} problem(s): " + "; ".join(problems), source=str(path))
    layer["city_of_refuge"] = refuge
    return layer.set_index("id", drop=False).rename_axis("city")
