"""Build data/levitical_cities.geojson: the 48 Levitical cities of Joshua 21, sited from OpenBible.

Run from the repository root: ``python data/tools/build_levitical.py [MODERN_JSONL]`` (default
``../shared/reference/openbible_modern.jsonl``, OpenBible.info Bible Geocoding Data, CC BY 4.0).
The table `JOSHUA_21` is typed in from Joshua 21:9-40 (each city's tribe, the Levite family it
went to and its verse). OpenBible's file holds no verse references, and several places share a
name (``Kedesh 1`` ... ``Kedesh 5``), so each city is sited by a rule that the output records in
its ``choice`` field: among every OpenBible association of the city's name (all its numbered
namesakes pooled), the site with the highest score inside the region of the tribe the verse
gives it to (`TRIBE_REGIONS`, coarse boxes: an assumption, see data/README.md). It is provenance
for the shipped file, not part of the package.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

SOURCE = (
    "OpenBible.info Bible Geocoding Data, data/modern.jsonl "
    "(github.com/openbibleinfo/Bible-Geocoding-Data), https://www.openbible.info/geo/; "
    "city list from Joshua 21:9-40"
)
LICENSE = "CC BY 4.0 (OpenBible.info)"

#: The Levite families of Joshua 21:4-7, in the order the chapter gives them.
FAMILIES = {
    "aaronite": "Kohathite priests (sons of Aaron)",  # Joshua 21:4, 21:13-19
    "kohathite": "the other Kohathites",  # Joshua 21:5, 21:20-26
    "gershonite": "Gershonites",  # Joshua 21:6, 21:27-33
    "merarite": "Merarites",  # Joshua 21:7, 21:34-40
}

#: Coarse boxes (lon_min, lat_min, lon_max, lat_max) for the territory of each tribe (or tribe
#: group) of Joshua 21, only to tell namesakes apart: an assumption drawn from the usual maps of
#: Joshua 13-19, not a border.
TRIBE_REGIONS: dict[str, tuple[float, float, float, float]] = {
    "Judah and Simeon": (34.6, 31.0, 35.4, 31.9),
    "Benjamin": (35.1, 31.75, 35.5, 31.95),
    "Ephraim": (34.85, 31.8, 35.55, 32.25),
    "Dan": (34.7, 31.7, 35.1, 32.15),
    "Manasseh (west)": (34.8, 32.1, 35.6, 32.6),
    "Issachar": (35.2, 32.4, 35.6, 32.75),
    "Asher": (35.0, 32.65, 35.4, 33.3),
    "Naphtali": (35.3, 32.7, 35.7, 33.3),
    "Zebulun": (35.05, 32.6, 35.45, 32.85),
    "Reuben": (35.6, 31.4, 36.0, 31.9),
    "Gad": (35.55, 31.75, 36.1, 32.6),
    "Manasseh (east)": (35.6, 32.55, 36.5, 33.3),
}

#: (id, name, tribe, family, verse, OpenBible name if not the same, why). The six cities of
#: refuge keep the ids of data/places.geojson; Joshua 21:13, 21, 27, 32, 36 and 38 name them.
JOSHUA_21: list[tuple[str, str, str, str, str, str, str]] = [
    ("hebron", "Hebron", "Judah and Simeon", "aaronite", "Joshua 21:13", "", ""),
    ("libnah", "Libnah", "Judah and Simeon", "aaronite", "Joshua 21:13", "", ""),
    ("jattir", "Jattir", "Judah and Simeon", "aaronite", "Joshua 21:14", "", ""),
    ("eshtemoa", "Eshtemoa", "Judah and Simeon", "aaronite", "Joshua 21:14", "", ""),
    ("holon", "Holon", "Judah and Simeon", "aaronite", "Joshua 21:15", "", ""),
    ("debir", "Debir", "Judah and Simeon", "aaronite", "Joshua 21:15", "", ""),
    ("ain", "Ain", "Judah and Simeon", "aaronite", "Joshua 21:16", "", ""),
    ("juttah", "Juttah", "Judah and Simeon", "aaronite", "Joshua 21:16", "", ""),
    ("beth_shemesh", "Beth-shemesh", "Judah and Simeon", "aaronite", "Joshua 21:16", "", ""),
    ("gibeon", "Gibeon", "Benjamin", "aaronite", "Joshua 21:17", "", ""),
    ("geba", "Geba", "Benjamin", "aaronite", "Joshua 21:17", "", ""),
    ("anathoth", "Anathoth", "Benjamin", "aaronite", "Joshua 21:18", "", ""),
    ("almon", "Almon", "Benjamin", "aaronite", "Joshua 21:18", "", ""),
    ("shechem", "Shechem", "Ephraim", "kohathite", "Joshua 21:21", "", ""),
    ("gezer", "Gezer", "Ephraim", "kohathite", "Joshua 21:21", "", ""),
    ("kibzaim", "Kibzaim", "Ephraim", "kohathite", "Joshua 21:22", "", ""),
    ("beth_horon", "Beth-horon", "Ephraim", "kohathite", "Joshua 21:22", "", ""),
    ("eltekeh", "Eltekeh", "Dan", "kohathite", "Joshua 21:23", "", ""),
    ("gibbethon", "Gibbethon", "Dan", "kohathite", "Joshua 21:23", "", ""),
    ("aijalon", "Aijalon", "Dan", "kohathite", "Joshua 21:24", "", ""),
    ("gath_rimmon_dan", "Gath-rimmon", "Dan", "kohathite", "Joshua 21:24", "", ""),
    ("taanach", "Taanach", "Manasseh (west)", "kohathite", "Joshua 21:25", "", ""),
    (
        "gath_rimmon_manasseh",
        "Gath-rimmon",
        "Manasseh (west)",
        "kohathite",
        "Joshua 21:25",
        "",
        "1 Chronicles 6:70 (Eng.) has Bileam here",
    ),
    ("golan", "Golan in Bashan", "Manasseh (east)", "gershonite", "Joshua 21:27", "Golan", ""),
    (
        "be_eshterah",
        "Be-eshterah",
        "Manasseh (east)",
        "gershonite",
        "Joshua 21:27",
        "Ashtaroth",
        "OpenBible has no Be-eshterah; 1 Chronicles 6:71 (Eng.) has Ashtaroth in its place",
    ),
    ("kishion", "Kishion", "Issachar", "gershonite", "Joshua 21:28", "", ""),
    ("daberath", "Daberath", "Issachar", "gershonite", "Joshua 21:28", "", ""),
    ("jarmuth", "Jarmuth", "Issachar", "gershonite", "Joshua 21:29", "", ""),
    ("en_gannim", "En-gannim", "Issachar", "gershonite", "Joshua 21:29", "", ""),
    ("mishal", "Mishal", "Asher", "gershonite", "Joshua 21:30", "", ""),
    ("abdon", "Abdon", "Asher", "gershonite", "Joshua 21:30", "", ""),
    ("helkath", "Helkath", "Asher", "gershonite", "Joshua 21:31", "", ""),
    ("rehob", "Rehob", "Asher", "gershonite", "Joshua 21:31", "", ""),
    ("kedesh", "Kedesh in Galilee", "Naphtali", "gershonite", "Joshua 21:32", "Kedesh", ""),
    ("hammoth_dor", "Hammoth-dor", "Naphtali", "gershonite", "Joshua 21:32", "", ""),
    ("kartan", "Kartan", "Naphtali", "gershonite", "Joshua 21:32", "", ""),
    ("jokneam", "Jokneam", "Zebulun", "merarite", "Joshua 21:34", "", ""),
    ("kartah", "Kartah", "Zebulun", "merarite", "Joshua 21:34", "", ""),
    ("dimnah", "Dimnah", "Zebulun", "merarite", "Joshua 21:35", "", ""),
    ("nahalal", "Nahalal", "Zebulun", "merarite", "Joshua 21:35", "", ""),
    ("bezer", "Bezer", "Reuben", "merarite", "Joshua 21:36", "", ""),
    ("jahaz", "Jahaz", "Reuben", "merarite", "Joshua 21:36", "", ""),
    ("kedemoth", "Kedemoth", "Reuben", "merarite", "Joshua 21:37", "", ""),
    ("mephaath", "Mephaath", "Reuben", "merarite", "Joshua 21:37", "", ""),
    ("ramoth_gilead", "Ramoth in Gilead", "Gad", "merarite", "Joshua 21:38", "Ramoth-gilead", ""),
    ("mahanaim", "Mahanaim", "Gad", "merarite", "Joshua 21:38", "", ""),
    ("heshbon", "Heshbon", "Gad", "merarite", "Joshua 21:39", "", ""),
    ("jazer", "Jazer", "Gad", "merarite", "Joshua 21:39", "", ""),
]

#: The six cities of refuge among them (Joshua 20:7-8, named again in Joshua 21).
REFUGE_IDS = ("kedesh", "shechem", "hebron", "bezer", "ramoth_gilead", "golan")


def associations(rows: list[dict]) -> dict[str, list[dict]]:
    """Every (site, score) OpenBible gives each ancient name, numbered namesakes pooled."""
    pooled: dict[str, list[dict]] = {}
    for row in rows:
        lon, lat = (float(v) for v in row["lonlat"].split(","))
        for assoc in row.get("ancient_associations", {}).values():
            base = re.sub(r" \d+$", "", assoc["name"])
            pooled.setdefault(base, []).append(
                {
                    "association": assoc["name"],
                    "score": int(assoc["score"]),
                    "site": row["friendly_id"],
                    "site_id": row["id"],
                    "lon": lon,
                    "lat": lat,
                    "precision": (row.get("precision") or {}).get("description", ""),
                }
            )
    return pooled


def inside(candidate: dict, region: tuple[float, float, float, float]) -> bool:
    left, bottom, right, top = region
    return left <= candidate["lon"] <= right and bottom <= candidate["lat"] <= top


def site_city(entry: tuple[str, ...], pooled: dict[str, list[dict]]) -> dict:
    """One GeoJSON feature: the city, its chosen site and how it was chosen."""
    city_id, name, tribe, family, verse, lookup, note = entry
    lookup = lookup or name
    region = TRIBE_REGIONS[tribe]
    every = pooled.get(lookup, [])
    best_by_site: dict[str, dict] = {}
    for cand in sorted(every, key=lambda c: (-c["score"], c["association"])):
        best_by_site.setdefault(cand["site_id"], cand)
    within = [c for c in best_by_site.values() if inside(c, region)]
    if not within:
        raise SystemExit(f"{city_id}: no OpenBible site for {lookup!r} inside {tribe}")
    chosen = within[0]
    namesakes = sorted({c["association"] for c in every})
    outside = len(best_by_site) - len(within)
    choice = (
        f"highest OpenBible score of the {len(within)} site(s) of {' / '.join(namesakes)} inside "
        f"the region of {tribe} ({verse}); {outside} site(s) outside it set aside"
    )
    if note:
        choice = f"{note}; {choice}"
    return {
        "type": "Feature",
        "properties": {
            "id": city_id,
            "name": name,
            "tribe": tribe,
            "family": family,
            "family_name": FAMILIES[family],
            "verse": verse,
            "city_of_refuge": city_id in REFUGE_IDS,
            "openbible_name": chosen["association"],
            "modern_identification": chosen["site"],
            "openbible_site_id": chosen["site_id"],
            "openbible_score": chosen["score"],
            "identifications": "; ".join(f"{c['site']} ({c['score']})" for c in within),
            "choice": choice,
            "location_precision": chosen["precision"],
            "source": SOURCE,
            "license": LICENSE,
        },
        "geometry": {"type": "Point", "coordinates": [chosen["lon"], chosen["lat"]]},
    }


def main(modern: Path) -> None:
    """Write data/levitical_cities.geojson from OpenBible's modern.jsonl at `modern`."""
    rows = [json.loads(line) for line in modern.read_text(encoding="utf-8").splitlines() if line]
    pooled = associations(rows)
    collection = {
        "type": "FeatureCollection",
        "name": "levitical_cities",
        "attribution": "Places: OpenBible.info (CC BY 4.0). Cities: Joshua 21.",
        "features": [site_city(entry, pooled) for entry in JOSHUA_21],
    }
    text = json.dumps(collection, ensure_ascii=False, indent=1)
    Path("data/levitical_cities.geojson").write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    default = Path("../shared/reference/openbible_modern.jsonl")
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else default)
