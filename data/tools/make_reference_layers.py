"""Rebuild data/places.geojson and the hydrography layers from the reference folder.

Run from the repository root: ``python data/tools/make_reference_layers.py [REFERENCE_DIR]``. It
keeps the fields the project uses and adds the town-size estimates of TOWN_SIZES (documented in
data/README.md). It is provenance for the shipped files, not part of the package.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

# Town size (hectares) of each identified site, with the basis of the estimate. Sites not listed
# get the default "middling town" of data/README.md (Makkot 10a: neither village nor big city).
TOWN_SIZES: dict[str, tuple[float, str]] = {
    "kedesh": (10.0, "Tel Kedesh, upper and lower tell about 10 ha (excavation reports; estimate)"),
    "shechem": (6.0, "Tell Balatah, the mound about 6 ha (15 acres; excavation reports; estimate)"),
    "hebron": (2.5, "Tel Rumeida, the walled Bronze/Iron Age town about 2.5 ha (estimate)"),
}

KEEP = [
    "id",
    "feature_kind",
    "name",
    "hebrew_name",
    "side",
    "tribe",
    "candidate_of",
    "rank",
    "modern_identification",
    "confidence_score",
    "biblical_refs",
    "talmud_pairing",
    "source",
    "license",
]


def slim(feature: dict) -> dict:
    """Keep the used properties, add the precision in metres and the town-size estimate."""
    props = feature["properties"]
    out = {key: props.get(key) for key in KEEP if key in props}
    out.pop("side", None)  # the side of the Jordan is computed from the geometry, not typed in
    precision = props.get("location_precision")
    out["location_precision_m"] = precision.get("meters") if isinstance(precision, dict) else None
    cross = props.get("pleiades_crosscheck") or {}
    out["pleiades_id"] = cross.get("pleiades_id")
    out["pleiades_offset_m"] = cross.get("distance_from_this_point_m")
    if props["feature_kind"] == "city_of_refuge":
        out["city"] = props["id"]
    elif props["feature_kind"] == "candidate_identification":
        out["city"] = props["candidate_of"]
    size = TOWN_SIZES.get(props["id"])
    out["town_area_ha"] = size[0] if size else None
    out["town_area_source"] = size[1] if size else None
    return {"type": "Feature", "properties": out, "geometry": feature["geometry"]}


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
    places = json.loads((reference / "places.geojson").read_text(encoding="utf-8"))
    write_collection(
        "places",
        [slim(f) for f in places["features"]],
        "Places: OpenBible.info (CC BY 4.0); Pleiades cross-check (CC BY 3.0).",
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
