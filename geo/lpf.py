"""The gazetteer as Linked Places Format (LPF), the GeoJSON-LD of the World Historical Gazetteer.

One Feature per place of data/places.geojson (the cities of refuge, their candidate sites and
the reference points), after the LPF v1.2 specification (github.com/LinkedPasts/
linked-places-format, README): ``@id``, ``properties.title``, ``when``, ``names`` (English and
Hebrew; the first with citations), a ``GeometryCollection`` of the point, and ``links``
(Pleiades, Wikidata, OpenBible) as ``closeMatch``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import geopandas as gpd
import pandas as pd
from shapely.geometry import Point

from geo.crs import WGS84
from geo.places import as_list

#: The JSON-LD context of LPF v1.2 (the specification's own reference).
LPF_CONTEXT = (
    "https://raw.githubusercontent.com/LinkedPasts/linked-places/master/"
    "linkedplaces-context-v1.1.jsonld"
)

#: The ``@id`` of a place: a URN, since the project publishes no landing pages.
ID_PREFIX = "urn:refuge-map:place:"

#: Assumption (range given): the places are the Iron Age towns of Numbers-Joshua and the
#: monarchy, c. 1200-586 BCE; ISO 8601 astronomical years (1200 BCE = -1199).
WHEN = {
    "timespans": [{"start": {"earliest": "-1199"}, "end": {"latest": "-0585"}}],
    "label": "Iron Age, c. 1200-586 BCE (assumption: the setting of Num 35, Deut 4 and 19, "
    "Josh 20-21)",
}

_OPENBIBLE = "https://www.openbible.info/geo/"
_DECIMALS = 7  # about a centimetre: the stored lon/lat survive the round trip to metres


def _text(value: Any) -> str | None:
    """A cell as text, None when missing."""
    if value is None or pd.isna(value):
        return None
    return str(value)


def _integer(value: Any) -> int | None:
    """A nullable whole number as an int, None when missing."""
    return None if value is None or pd.isna(value) else int(value)


def _links(place: pd.Series) -> list[dict[str, str]]:
    """closeMatch links to Pleiades, Wikidata and OpenBible's record of the same place; a
    candidate site links the ancient place it is proposed for as seeAlso."""
    close = []
    if _text(place.get("pleiades_id")):
        close.append(f"https://pleiades.stoa.org/places/{place['pleiades_id']}")
    close += [f"http://www.wikidata.org/entity/{q}" for q in as_list(place.get("wikidata_ids"))]
    if _text(place.get("openbible_modern_id")):
        close.append(f"{_OPENBIBLE}modern/{place['openbible_modern_id']}/")
    links = [{"type": "closeMatch", "identifier": uri} for uri in close]
    if _text(place.get("openbible_ancient_id")):
        candidate = place["feature_kind"] == "candidate_identification"
        uri = f"{_OPENBIBLE}ancient/{place['openbible_ancient_id']}/"
        links.append({"type": "seeAlso" if candidate else "closeMatch", "identifier": uri})
    return links


def _citations(place: pd.Series) -> list[dict[str, str]]:
    """The works the record rests on: its source, and the verses that name the city."""
    cited = [{"label": str(place["source"])}]
    if _text(place.get("openbible_modern_id")):  # a record of OpenBible's
        cited[0]["@id"] = f"{_OPENBIBLE}modern/{place['openbible_modern_id']}/"
    cited += [{"label": ref} for ref in as_list(place.get("biblical_refs"))]
    return cited


def _names(place: pd.Series) -> list[dict[str, Any]]:
    """The ancient name (English, cited), the Hebrew name and the modern site's name."""
    names: list[dict[str, Any]] = [
        {"toponym": str(place["name"]), "lang": "en", "citations": _citations(place)}
    ]
    if _text(place.get("hebrew_name")):
        names.append({"toponym": str(place["hebrew_name"]), "lang": "he"})
    modern = _text(place.get("modern_identification"))
    if modern and modern != place["name"]:
        names.append({"toponym": modern, "lang": "en"})
    return names


def _title(place: pd.Series) -> str:
    if place["feature_kind"] == "candidate_identification":
        return f"{place['modern_identification']} (proposed for {place['name']})"
    return str(place["name"])


def _feature(place: pd.Series, lon: float, lat: float) -> dict[str, Any]:
    """One LPF Feature of the gazetteer row `place`."""
    point: dict[str, Any] = {
        "type": "Point",
        "coordinates": [round(lon, _DECIMALS), round(lat, _DECIMALS)],
        "citations": [{"label": str(place["source"])}],
    }
    flags = as_list(place.get("site_flags"))
    if "position_approximate" in flags:
        point["certainty"] = "uncertain"
    properties = {
        "title": _title(place),
        "feature_kind": str(place["feature_kind"]),
        "city": _text(place.get("city")),
        "openbible_score": _integer(place.get("openbible_score")),
        "site_flags": flags,
        "location_precision_m": _integer(place.get("location_precision_m")),
        "license": str(place["license"]),
    }
    feature: dict[str, Any] = {
        "@id": f"{ID_PREFIX}{place['id']}",
        "type": "Feature",
        "properties": properties,
        "when": WHEN,
        "names": _names(place),
        "geometry": {"type": "GeometryCollection", "geometries": [point]},
        "links": _links(place),
    }
    descriptions = [_text(place.get(k)) for k in ("region", "site_note")]
    if any(descriptions):
        feature["descriptions"] = [{"value": d, "lang": "en"} for d in descriptions if d]
    return feature


def places_lpf(places: gpd.GeoDataFrame) -> dict[str, Any]:
    """The gazetteer (`geo.places.read_places`, or `RefugeNetwork.places`) as an LPF
    FeatureCollection, one Feature per place in the file's order.

    Parameters
    ----------
    places
        The gazetteer in any CRS; the points are written in WGS84 longitude/latitude.

    Returns
    -------
    dict
        A JSON-ready LPF FeatureCollection with ``@context``.
    """
    lonlat = cast("Sequence[Point]", places.geometry.to_crs(WGS84))
    features = [
        _feature(place, point.x, point.y)
        for (_, place), point in zip(places.iterrows(), lonlat, strict=True)
    ]
    return {"type": "FeatureCollection", "@context": LPF_CONTEXT, "features": features}
