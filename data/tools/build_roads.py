"""Write data/waypoints.geojson and data/roads.geojson from the waypoint and route tables below.

The tables are the compilation: each waypoint is a site identification (a fact) with its source;
each route is a sequence of waypoints, and every pair of consecutive waypoints becomes one
straight, schematic road leg. Nothing here is read from the DARMC Roman roads (CC BY-NC): they
are only used afterwards, by ``check_roads_against_darmc.py``, to check the courses.

Run from the repository root: ``.venv/bin/python data/tools/build_roads.py``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parents[1]

OPENBIBLE_LICENSE = "CC BY 4.0 (OpenBible.info coordinates)"
OWN_LICENSE = "own compilation, CC BY 4.0"


@dataclass(frozen=True)
class Waypoint:
    """A site on a road: its id, name, position (degrees) and where the identification is from."""

    id: str
    name: str
    lon: float
    lat: float
    source: str
    kind: str = "waypoint"

    @property
    def openbible(self) -> bool:
        """Whether the coordinates are OpenBible.info's (CC BY 4.0) rather than our estimate."""
        return self.source.startswith("OpenBible")


def _ob(modern_id: str) -> str:
    return f"OpenBible.info modern.jsonl {modern_id}, rank-1 identification"


def _own(identification: str) -> str:
    return f"own estimate of the site's position; identification: {identification}"


WAYPOINTS = [
    # the six cities of refuge and the reference points (OpenBible rank-1, places.geojson)
    Waypoint(
        "kedesh",
        "Kedesh in Galilee (Tel Kedesh)",
        35.529517,
        33.111638,
        _ob("m48684e"),
        "city_of_refuge",
    ),
    Waypoint(
        "shechem", "Shechem (Tell Balata)", 35.281944, 32.213611, _ob("m657590"), "city_of_refuge"
    ),
    Waypoint(
        "hebron", "Hebron (Tel Rumeida)", 35.10222, 31.525087, _ob("m86f941"), "city_of_refuge"
    ),
    Waypoint(
        "bezer",
        "Bezer in the wilderness (Umm el-Amad)",
        35.90168,
        31.78603,
        _ob("m7e1954"),
        "city_of_refuge",
    ),
    Waypoint(
        "ramoth_gilead",
        "Ramoth-gilead (Tall er-Rumeith)",
        36.014988,
        32.499852,
        _ob("mba2ff1"),
        "city_of_refuge",
    ),
    Waypoint(
        "golan",
        "Golan in Bashan (Saham al-Jawlan)",
        35.934722,
        32.781111,
        _ob("m641784"),
        "city_of_refuge",
    ),
    Waypoint("dan", "Dan (Tel Dan / Tell el-Qadi)", 35.652, 33.249, _ob("mb61c67"), "reference"),
    Waypoint(
        "beersheba", "Beersheba (Tel Beer Sheva)", 34.840833, 31.244722, _ob("m392188"), "reference"
    ),
    Waypoint(
        "jerusalem", "Jerusalem (Old City)", 35.234167, 31.776667, _ob("m66c5b8"), "reference"
    ),
    # waypoints of the schematic routes in reference/roads.geojson (OpenBible rank-1)
    Waypoint("bethlehem", "Bethlehem", 35.207639, 31.704306, _ob("m9b8daa")),
    Waypoint("gibeah", "Gibeah (Tell el-Ful)", 35.230718, 31.823113, _ob("m88819c")),
    Waypoint("bethel", "Bethel (Beitin)", 35.241389, 31.922778, _ob("me58522")),
    Waypoint("shiloh", "Shiloh (Khirbet Seilun)", 35.289536, 32.055703, _ob("m12f296")),
    Waypoint("dothan", "Dothan (Tell Dothan)", 35.239861, 32.413528, _ob("m8774a2")),
    Waypoint("dibon", "Dibon (Dhiban)", 35.776574, 31.502236, _ob("m122dcf")),
    Waypoint("medeba", "Medeba (Madaba)", 35.79548, 31.716107, _ob("m035ff3")),
    Waypoint("heshbon", "Heshbon (Tell Hesban)", 35.809062, 31.800811, _ob("m12c75e")),
    Waypoint("rabbah", "Rabbah of the Ammonites (Amman citadel)", 35.9343, 31.9547, _ob("m0c1bc5")),
    Waypoint("edrei", "Edrei (Daraa)", 36.106111, 32.625278, _ob("ma09e9a")),
    Waypoint("megiddo", "Megiddo (Tell el-Mutesellim)", 35.184444, 32.585278, _ob("mf52435")),
    Waypoint("hazor", "Hazor (Tell el-Qedah)", 35.569167, 33.018333, _ob("m6429cf")),
    Waypoint("acco", "Acco (Tel Akko)", 35.088333, 32.921111, _ob("mac4103")),
    Waypoint("tyre", "Tyre", 35.196111, 33.270833, _ob("m11c602")),
    # own waypoints: fords, crossings and sites on the link roads (positions are estimates)
    Waypoint(
        "beth_zur",
        "Beth-zur (Khirbet et-Tubeiqa)",
        35.0950,
        31.5900,
        _own("Khirbet et-Tubeiqa by Halhul, on the ridge road north of Hebron"),
    ),
    Waypoint(
        "samaria",
        "Samaria (Sebastia)",
        35.1900,
        32.2765,
        _own("the acropolis of Samaria / Sebaste at Sebastia"),
    ),
    Waypoint(
        "jericho",
        "Jericho (Tell es-Sultan)",
        35.4440,
        31.8710,
        _own("Tell es-Sultan, the consensus identification"),
    ),
    Waypoint(
        "jordan_ford_jericho",
        "Jordan ford east of Jericho (Qasr al-Yahud / al-Maghtas)",
        35.5400,
        31.8380,
        _own("the traditional crossing of Josh 3, Qasr al-Yahud"),
    ),
    Waypoint(
        "abel_shittim",
        "Abel-shittim (Tall el-Hammam)",
        35.6734,
        31.8407,
        _own("Tall el-Hammam (Glueck; Tell Kefrein is the alternative)"),
    ),
    Waypoint(
        "adam",
        "Adam (Tell ed-Damiyeh)",
        35.5530,
        32.1000,
        _own("Tell ed-Damiyeh at the Damiya ford (Josh 3:16)"),
    ),
    Waypoint(
        "succoth",
        "Succoth (Tell Deir Alla)",
        35.6228,
        32.1964,
        _own("Tell Deir Alla (Glueck; Franken)"),
    ),
    Waypoint(
        "penuel",
        "Penuel (Tulul edh-Dhahab esh-Sharqi)",
        35.6820,
        32.1835,
        _own("eastern Tulul edh-Dhahab on the Jabbok"),
    ),
    Waypoint(
        "gerasa",
        "Gerasa (Jerash)",
        35.8910,
        32.2770,
        _own("Jerash, Roman Gerasa; a waypoint of the plateau road, not a biblical site"),
    ),
    Waypoint(
        "ibleam",
        "Ibleam (Khirbet Bal'ama)",
        35.2900,
        32.4450,
        _own("Khirbet Bal'ama south of Jenin"),
    ),
    Waypoint("jezreel", "Jezreel (Tel Jezreel)", 35.3290, 32.5570, _own("Tel Jezreel (Zer'in)")),
    Waypoint(
        "beth_shean",
        "Beth-shean (Tel Beth-shean)",
        35.5030,
        32.5045,
        _own("Tell el-Husn at Beisan"),
    ),
    Waypoint("pella", "Pella (Tabaqat Fahl)", 35.6160, 32.4500, _own("Tabaqat Fahl")),
    Waypoint(
        "beth_arbel",
        "Beth-arbel (Irbid)",
        35.8500,
        32.5560,
        _own("Tell Irbid, Beth-arbel of Hos 10:14 (Eusebius' Arbela)"),
    ),
    Waypoint(
        "daberath",
        "Daberath (Daburiyya)",
        35.3720,
        32.6930,
        _own("Daburiyya at the foot of Mount Tabor"),
    ),
    Waypoint(
        "hattin",
        "Horns of Hattin (Qarn Hattin)",
        35.4440,
        32.8010,
        _own("the pass of Qarn Hattin between Tabor and the lake"),
    ),
    Waypoint(
        "chinnereth",
        "Chinnereth (Tel Kinrot)",
        35.5400,
        32.8690,
        _own("Tel Kinrot (Tell el-Oreimeh)"),
    ),
    Waypoint(
        "jordan_bridge_north",
        "Jordan crossing north of the Sea of Galilee (Jisr Banat Ya'qub)",
        35.6280,
        33.0070,
        _own("the ford / bridge of the Daughters of Jacob on the Hazor-Damascus road"),
    ),
]

#: route id -> (route name, waypoint ids in order). Consecutive waypoints make one road leg.
ROUTES: dict[str, tuple[str, list[str]]] = {
    "ridge_route": (
        "Way of the Patriarchs / Ridge Route",
        [
            "beersheba",
            "hebron",
            "beth_zur",
            "bethlehem",
            "jerusalem",
            "gibeah",
            "bethel",
            "shiloh",
            "shechem",
            "samaria",
            "dothan",
        ],
    ),
    "kings_highway": (
        "King's Highway (Transjordanian plateau road)",
        ["dibon", "medeba", "heshbon", "rabbah", "gerasa", "ramoth_gilead", "edrei"],
    ),
    "via_maris": (
        "Via Maris (international trunk road), Megiddo to Dan",
        ["megiddo", "daberath", "hattin", "chinnereth", "hazor", "dan"],
    ),
    "via_maris_coastal_branch": (
        "Coastal branch Megiddo - Acco - Tyre",
        ["megiddo", "acco", "tyre"],
    ),
    "jericho_crossing": (
        "Jerusalem - Jericho - Jordan ford - Abel-shittim - Heshbon - Bezer",
        ["jerusalem", "jericho", "jordan_ford_jericho", "abel_shittim", "heshbon", "bezer"],
    ),
    "adam_crossing": (
        "Shechem - Adam ford - Succoth - up the Jabbok to Gerasa",
        ["shechem", "adam", "succoth", "penuel", "gerasa"],
    ),
    "beth_shean_road": (
        "Dothan - Ibleam - Beth-shean - Pella - Beth-arbel - Ramoth-gilead",
        ["dothan", "ibleam", "beth_shean", "pella", "beth_arbel", "ramoth_gilead"],
    ),
    "pella_gerasa_road": ("Pella - Gerasa", ["pella", "gerasa"]),
    "jezreel_road": ("Megiddo - Jezreel - Beth-shean", ["megiddo", "jezreel", "beth_shean"]),
    "dothan_megiddo": ("Dothan - Megiddo", ["dothan", "megiddo"]),
    "golan_road": (
        "Hazor - Jordan crossing north of the lake - Golan - Edrei",
        ["hazor", "jordan_bridge_north", "golan", "edrei"],
    ),
    "kedesh_road": ("Kedesh - Hazor", ["kedesh", "hazor"]),
}


def _point(waypoint: Waypoint) -> dict[str, Any]:
    return {
        "type": "Feature",
        "properties": {
            "id": waypoint.id,
            "name": waypoint.name,
            "feature_kind": "waypoint",
            "site_kind": waypoint.kind,
            "source": waypoint.source,
            "position_estimated": not waypoint.openbible,
            "license": OPENBIBLE_LICENSE if waypoint.openbible else OWN_LICENSE,
        },
        "geometry": {"type": "Point", "coordinates": [waypoint.lon, waypoint.lat]},
    }


def _leg(route: str, name: str, a: Waypoint, b: Waypoint) -> dict[str, Any]:
    both_openbible = a.openbible and b.openbible
    return {
        "type": "Feature",
        "properties": {
            "id": f"{route}__{a.id}__{b.id}",
            "name": name,
            "from": a.id,
            "to": b.id,
            "route": route,
            "source": f"{a.name}: {a.source}; {b.name}: {b.source}; "
            "straight leg between the two sites (schematic)",
            "license": OPENBIBLE_LICENSE if both_openbible else OWN_LICENSE,
            "schematic": True,
        },
        "geometry": {"type": "LineString", "coordinates": [[a.lon, a.lat], [b.lon, b.lat]]},
    }


def _collection(name: str, features: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "FeatureCollection", "name": name, "features": features}


def main() -> None:
    """Write the two files next to this folder."""
    by_id = {w.id: w for w in WAYPOINTS}
    legs = [
        _leg(route, name, by_id[a], by_id[b])
        for route, (name, stops) in ROUTES.items()
        for a, b in pairwise(stops)
    ]
    used = {stop for _, stops in ROUTES.values() for stop in stops}
    points = [_point(w) for w in WAYPOINTS if w.id in used]
    for name, features in (("waypoints", points), ("roads", legs)):
        text = json.dumps(_collection(name, features), indent=1, ensure_ascii=False)
        (DATA_DIR / f"{name}.geojson").write_text(text + "\n", encoding="utf-8")
    print(f"{len(points)} waypoints, {len(legs)} road legs written to {DATA_DIR}")


if __name__ == "__main__":
    main()
