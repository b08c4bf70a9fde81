"""Rebuild data/places.geojson and the hydrography layers from the reference folder.

Run from the repository root: ``python data/tools/make_reference_layers.py [REFERENCE_DIR]``. It
keeps the fields the project uses, adds the identifiers OpenBible cites (modern.jsonl), the flags
of doubtful sites, the candidates the literature names beyond OpenBible (LITERATURE_CANDIDATES)
and the town sizes of TOWN_SIZES (all documented in data/README.md). It is provenance for the
shipped files, not part of the package.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

# Town size (hectares) of each identified site, with its basis: "published" (a dimension stated
# in the cited work) or "estimate" (no published figure found; the estimate and its reasoning).
# Sites not listed get the default "middling town" of data/README.md (Makkot 10a: neither village
# nor big city). The extent is a disc of this area around the site (no outline is shipped).
TOWN_SIZES: dict[str, tuple[float, str, str]] = {
    "kedesh": (
        10.0,
        "published",
        "Tel Qedesh: the upper and lower tell cover c. 100 dunams at the top (c. 200 at the "
        "base), Hadashot Arkheologiyot report 26158 (hadashot-esi.org.il); 20-25 acres, "
        "Herbert and Berlin, Kelsey Museum project page",
    ),
    "shechem": (6.0, "estimate", "Tell Balatah, the mound about 6 ha (15 acres; estimate)"),
    "hebron": (2.5, "estimate", "Tel Rumeida, the walled Bronze/Iron Age town about 2.5 ha"),
    "ramoth_gilead": (
        0.12,
        "published",
        "Tell er-Rumeith: the Iron Age fort about 37 x 32 m (P. W. Lapp; Oxford Encyclopedia "
        "of Archaeology in the Near East, s.v. Rumeith); Finkelstein, Lipschits and Sergi find "
        "a moat and an outer rampart around it, unmeasured here",
    ),
}

#: Mount Tabor (Jebel et-Tur, OpenBible m8e169f): Joshua 19:22 and 19:34 put Tabor on the
#: borders of Issachar and Naphtali; a Kedesh south of it lies in Issachar, not "in Galilee in
#: the hill country of Naphtali" (Joshua 20:7).
TABOR_LAT = 32.68625
OUTSIDE_NAPHTALI_NOTE = (
    "south of Mount Tabor (32.686 N), the border of Issachar and Naphtali (Josh 19:22, 34): "
    "in Issachar, against 'Kedesh in Galilee in the hill country of Naphtali' (Josh 20:7); "
    "OpenBible's sources tie it to Kishion / the Kedesh of Issachar (1 Chr 6:72)"
)
NEGATIVE_SCORE_NOTE = (
    "OpenBible's score is negative: its sources reject this identification; kept in the data, "
    "excluded from selection"
)

#: Candidates the literature names that OpenBible does not hold, with their sources.
LITERATURE_CANDIDATES: list[dict] = [
    {
        "id": "golan__jelebine",
        "candidate_of": "golan",
        "modern_identification": "Khirbet ej-Jelebine (Wadi Dabura)",
        "lonlat": [35.6612, 32.9479],
        "location_precision_m": 5000,
        "location_precision_basis": (
            "assumption: the point is the coordinate of the Wikipedia article 'Golan' (CC BY-SA), "
            "not a surveyed ruin; Vilnay puts the ruin on Wadi Dabura 'near the Lake of Huleh', "
            "not far from the Daughters of Jacob Bridge (about 7 km north of this point)"
        ),
        "site_flags": ["not_in_openbible", "position_approximate"],
        "site_note": (
            "Z. Vilnay (1954) tentatively identified Golan with the Talmud's Goblana (Gaulan), "
            "the ruin ej-Jelebine on Wadi Dabura near the Hula; Schumacher described it as a "
            "desert ruin 'of great antiquity'. Against Sahm el-Jolan (Schumacher 1888): D. Urman "
            "(1985) found no Bronze or Iron Age remains there; others (Encyclopaedia Judaica, "
            "s.v. Golan) look further north, in Maacah, without naming a site (not added)"
        ),
        "source": (
            "Wikipedia, 'Golan' (after Z. Vilnay 1954 and G. Schumacher); Encyclopaedia Judaica "
            "2nd ed., s.v. Golan (Avi-Yonah and Gibson)"
        ),
        "license": "position and text: Wikipedia (CC BY-SA 4.0); literature cited",
    },
]

KEEP = [
    "id",
    "feature_kind",
    "name",
    "hebrew_name",
    "side",
    "tribe",
    "region",
    "candidate_of",
    "rank",
    "modern_identification",
    "biblical_refs",
    "talmud_pairing",
    "source",
    "license",
]


def modern_index(reference: Path) -> dict[str, dict]:
    """OpenBible's modern.jsonl records by id."""
    lines = (reference / "openbible_modern.jsonl").read_text(encoding="utf-8").splitlines()
    return {record["id"]: record for record in map(json.loads, filter(None, lines))}


def wikidata_ids(record: dict) -> list[str]:
    """The Wikidata ids OpenBible cites for a modern site (coordinate source first)."""
    cited = [record.get("coordinates_source") or {}, *record.get("secondary_sources", [])]
    return list(dict.fromkeys(s["id"] for s in cited if s.get("type") == "wikidata"))


def site_flags(props: dict, score: int | None, lat: float) -> tuple[list[str], str | None]:
    """The flags of a site (see geo.places.SITE_FLAGS) and the note that explains them."""
    flags, notes = [], []
    if score is not None and score < 0:
        flags.append("negative_score")
        notes.append(NEGATIVE_SCORE_NOTE)
    if props.get("city") == "kedesh" and lat < TABOR_LAT:
        flags.append("outside_naphtali")
        notes.append(OUTSIDE_NAPHTALI_NOTE)
    return flags, "; ".join(notes) or None


def slim(feature: dict, modern: dict[str, dict], ancient_of: dict[str, str]) -> dict:
    """Keep the used properties; add the identifiers, the precision and the town size."""
    props = feature["properties"]
    out = {key: props.get(key) for key in KEEP if key in props}
    out.pop("side", None)  # the side of the Jordan is computed from the geometry, not typed in
    if props["feature_kind"] == "city_of_refuge":
        out["city"] = props["id"]
    elif props["feature_kind"] == "candidate_identification":
        out["city"] = props["candidate_of"]
    record = modern[props["openbible_modern_id"]]
    ancient = props.get("openbible_ancient_id") or ancient_of[out["city"]]
    out["openbible_score"] = props["confidence_score"]
    out["site_flags"], out["site_note"] = site_flags(
        out, props["confidence_score"], feature["geometry"]["coordinates"][1]
    )
    precision = props.get("location_precision") or {}
    out["location_precision_m"] = precision.get("meters")
    out["location_precision_basis"] = f"OpenBible: {precision['description']}"
    out["openbible_modern_id"] = props["openbible_modern_id"]
    out["openbible_ancient_id"] = ancient
    out["wikidata_ids"] = wikidata_ids(record)
    cross = props.get("pleiades_crosscheck") or {}
    out["pleiades_id"] = cross.get("pleiades_id")
    out["pleiades_offset_m"] = cross.get("distance_from_this_point_m")
    return {
        "type": "Feature",
        "properties": out | town_size(props["id"]),
        "geometry": feature["geometry"],
    }


def town_size(site_id: str) -> dict:
    """The town-size fields of a site (all None for the default disc)."""
    area, basis, source = TOWN_SIZES.get(site_id, (None, None, None))
    return {"town_area_ha": area, "town_area_basis": basis, "town_area_source": source}


def literature_feature(entry: dict, city: dict, rank: int) -> dict:
    """A candidate from `LITERATURE_CANDIDATES`, with the names and verses of its city."""
    props = {key: city.get(key) for key in ("name", "hebrew_name", "tribe", "region")}
    props |= {
        "id": entry["id"],
        "feature_kind": "candidate_identification",
        "candidate_of": entry["candidate_of"],
        "rank": rank,
        "modern_identification": entry["modern_identification"],
        "source": entry["source"],
        "license": entry["license"],
        "city": entry["candidate_of"],
        "openbible_score": None,
        "site_flags": entry["site_flags"],
        "site_note": entry["site_note"],
        "location_precision_m": entry["location_precision_m"],
        "location_precision_basis": entry["location_precision_basis"],
        "openbible_modern_id": None,
        "openbible_ancient_id": city["openbible_ancient_id"],
        "wikidata_ids": [],
        "pleiades_id": None,
        "pleiades_offset_m": None,
    }
    geometry = {"type": "Point", "coordinates": entry["lonlat"]}
    return {"type": "Feature", "properties": props | town_size(entry["id"]), "geometry": geometry}


def place_features(reference: Path) -> list[dict]:
    """Every gazetteer feature: OpenBible's, then the literature's candidates after their city's."""
    features = json.loads((reference / "places.geojson").read_text(encoding="utf-8"))["features"]
    ancient_of = {
        f["properties"]["id"]: f["properties"]["openbible_ancient_id"]
        for f in features
        if f["properties"]["feature_kind"] == "city_of_refuge"
    }
    out = [slim(f, modern_index(reference), ancient_of) for f in features]
    for entry in LITERATURE_CANDIDATES:
        own = [i for i, f in enumerate(out) if f["properties"].get("city") == entry["candidate_of"]]
        city = out[own[0]]["properties"]
        out.insert(own[-1] + 1, literature_feature(entry, city, rank=len(own) + 1))
    return out


HYDRO_KEEP = ["id", "name", "hebrew_name", "feature_type", "description", "source", "license"]


def write_collection(name: str, features: list[dict], attribution: str) -> None:
    """Write data/`name`.geojson as a GeoJSON FeatureCollection."""
    out = {
        "type": "FeatureCollection",
        "name": name,
        "attribution": attribution,
        "features": features,
    }
    text = json.dumps(out, ensure_ascii=False, indent=1)
    Path(f"data/{name}.geojson").write_text(text + "\n", encoding="utf-8")


def main(reference: Path) -> None:
    """Write data/places.geojson and the two hydrography files from `reference`."""
    write_collection(
        "places",
        place_features(reference),
        "Places: OpenBible.info (CC BY 4.0); Pleiades cross-check (CC BY 3.0); "
        "literature candidates as cited per feature (Wikipedia positions: CC BY-SA 4.0).",
    )
    for name, attribution in [
        (
            "hydrography",
            "Made with Natural Earth (public domain); Lake Huleh and Salt Sea "
            "outlines: OpenBible.info (CC BY 4.0).",
        ),
        ("hydrography_osm_odbl", "(c) OpenStreetMap contributors, ODbL 1.0, via OpenBible.info."),
    ]:
        hydro = json.loads((reference / f"{name}.geojson").read_text(encoding="utf-8"))
        features = [
            {
                "type": "Feature",
                "geometry": f["geometry"],
                "properties": {k: f["properties"].get(k) for k in HYDRO_KEEP},
            }
            for f in hydro["features"]
        ]
        write_collection(name, features, attribution)


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/reference"))
