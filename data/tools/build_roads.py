"""Write data/waypoints.geojson and data/roads.geojson from the waypoint and route tables below.

The tables are the compilation. Each waypoint is a site identification (a fact) with its source,
most of them OpenBible.info's rank-1 identifications; the fords and bridges carry the river they
cross (``crossing``). Each route is a road the atlases and the sources name (``sources``), with
its class, period and certainty, as a sequence of waypoints with `Via` vertices between them:
our reading of the course between two stations (a pass, a valley floor, a shore). Every pair of
consecutive waypoints becomes one road leg, a polyline through its vertices. A leg is a
``direct_road`` when it lies on the shortest road between two cities of refuge (Deut 19:3).

Nothing here is read from the DARMC Roman roads (CC BY-NC): they are only used afterwards, by
``check_roads_against_darmc.py``, to check the courses.

Run from the repository root: ``.venv/bin/python data/tools/build_roads.py``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import combinations, pairwise
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np

DATA_DIR = Path(__file__).resolve().parents[1]

OPENBIBLE_LICENSE = "CC BY 4.0 (OpenBible.info coordinates)"
OWN_LICENSE = "own compilation, CC BY 4.0"


@dataclass(frozen=True)
class Waypoint:
    """A site on a road: its id, name, position (degrees), where the identification is from,
    and the river it crosses if it is a ford or a bridge."""

    id: str
    name: str
    lon: float
    lat: float
    source: str
    kind: str = "waypoint"
    crossing: str | None = None

    @property
    def openbible(self) -> bool:
        """Whether the coordinates are OpenBible.info's (CC BY 4.0) rather than our estimate."""
        return self.source.startswith("OpenBible")


def _ob(modern_id: str, place: str = "") -> str:
    named = f" ({place})" if place else ""
    return f"OpenBible.info modern.jsonl {modern_id}{named}, rank-1 identification"


def _own(identification: str) -> str:
    return f"own estimate of the site's position; identification: {identification}"


def _ford(identification: str) -> str:
    return f"own estimate of the crossing's position, on the river line; {identification}"


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
    # towns and stations on the roads (OpenBible rank-1 identifications)
    Waypoint("bethlehem", "Bethlehem", 35.207639, 31.704306, _ob("m9b8daa")),
    Waypoint("gibeah", "Gibeah (Tell el-Ful)", 35.230718, 31.823113, _ob("m88819c")),
    Waypoint("mizpah", "Mizpah (Tell en-Nasbeh)", 35.216417, 31.885136, _ob("mfe37a0")),
    Waypoint("bethel", "Bethel (Beitin)", 35.241389, 31.922778, _ob("me58522")),
    Waypoint(
        "lebonah",
        "Lebonah (Khan el-Lubban)",
        35.249795,
        32.059064,
        "OpenBible.info modern.jsonl m2ae686 (Khan el Lubban), Lebonah score 497 (Judg 21:19)",
    ),
    Waypoint("shiloh", "Shiloh (Khirbet Seilun)", 35.289536, 32.055703, _ob("m12f296")),
    Waypoint("samaria", "Samaria (Sebastia)", 35.195, 32.276111, _ob("me64af8")),
    Waypoint("dothan", "Dothan (Tell Dothan)", 35.239861, 32.413528, _ob("m8774a2")),
    Waypoint("dibon", "Dibon (Dhiban)", 35.776574, 31.502236, _ob("m122dcf")),
    Waypoint("medeba", "Medeba (Madaba)", 35.79548, 31.716107, _ob("m035ff3")),
    Waypoint("heshbon", "Heshbon (Tell Hesban)", 35.809062, 31.800811, _ob("m12c75e")),
    Waypoint("rabbah", "Rabbah of the Ammonites (Amman citadel)", 35.9343, 31.9547, _ob("m0c1bc5")),
    Waypoint("edrei", "Edrei (Daraa)", 36.106111, 32.625278, _ob("ma09e9a")),
    Waypoint("megiddo", "Megiddo (Tell el-Mutesellim)", 35.184444, 32.585278, _ob("mf52435")),
    Waypoint("taanach", "Taanach (Tell Ta'annek)", 35.219122, 32.521526, _ob("m8e8c6d")),
    Waypoint("hazor", "Hazor (Tell el-Qedah)", 35.569167, 33.018333, _ob("m6429cf")),
    Waypoint("acco", "Acco (Tel Akko)", 35.088333, 32.921111, _ob("mac4103")),
    Waypoint("achzib", "Achzib (Tel Achziv)", 35.102652, 33.048278, _ob("m9f46c4")),
    Waypoint("tyre", "Tyre", 35.196111, 33.270833, _ob("m11c602")),
    Waypoint("jokneam", "Jokneam (Tel Yokneam)", 35.108266, 32.664099, _ob("m5fdc60")),
    Waypoint(
        "dor",
        "Dor (Tel Dor)",
        34.9200,
        32.6174,
        _own(
            "Tel Dor (OpenBible.info m13789b), 300 m landward of that point, which lies 41 m "
            "beyond Natural Earth's 1:10m coast"
        ),
    ),
    Waypoint("caesarea", "Caesarea Maritima", 34.891667, 32.5, _ob("m11da12")),
    Waypoint(
        "socoh_sharon",
        "Socoh in the Sharon (Kh. Shuweikat er-Ras)",
        35.03202,
        32.3421,
        _ob("m6c43bf"),
    ),
    Waypoint("aphek", "Aphek / Antipatris (Tell Ras el-Ain)", 34.930417, 32.105, _ob("m97d53f")),
    Waypoint("joppa", "Joppa (Jaffa)", 34.753039, 32.054481, _ob("mcb49f3")),
    Waypoint("lod", "Lod / Lydda", 34.9, 31.95, _ob("m2b1a3a")),
    Waypoint("jabneel", "Jabneel / Jamnia (Yavne)", 34.7463, 31.866, _ob("mfbdf61")),
    Waypoint("ashdod", "Ashdod (Tel Ashdod)", 34.6578, 31.7572, _ob("mf32c7d")),
    Waypoint("ashkelon", "Ashkelon (Tel Ashkelon)", 34.545833, 31.663889, _ob("m0a9529")),
    Waypoint("gaza", "Gaza (Tell Harube)", 34.4644, 31.504, _ob("mb5cfe4")),
    Waypoint("ziklag", "Ziklag (Tell esh-Sharia)", 34.6816, 31.3912, _ob("m489f67")),
    Waypoint("gezer", "Gezer (Tel Gezer)", 34.919167, 31.859167, _ob("mcd1a5c")),
    Waypoint("ekron", "Ekron (Tel Miqne)", 34.851944, 31.7775, _ob("ma2bedf")),
    Waypoint("gath", "Gath (Tell es-Safi)", 34.84694, 31.69972, _ob("m28d167")),
    Waypoint("lachish", "Lachish (Tell ed-Duweir)", 34.849167, 31.565278, _ob("m31bdd9")),
    Waypoint("mareshah", "Mareshah (Tel Maresha)", 34.898241, 31.592963, _ob("m7bf4f1")),
    Waypoint(
        "lower_beth_horon", "Lower Beth-horon (Beit Ur et-Tahta)", 35.083611, 31.895, _ob("m1de942")
    ),
    Waypoint(
        "upper_beth_horon",
        "Upper Beth-horon (Beit Ur el-Foqa)",
        35.114167,
        31.885833,
        _ob("mdfba66"),
    ),
    Waypoint("gibeon", "Gibeon (el-Jib)", 35.183351, 31.847451, _ob("mf55105")),
    Waypoint("tekoa", "Tekoa (Khirbet Tequ')", 35.21048, 31.63247, _ob("m24a982")),
    Waypoint("en_gedi", "En-gedi (Ein Gedi)", 35.383333, 31.45, _ob("m0ba7d9")),
    Waypoint("jericho", "Jericho (Tell es-Sultan)", 35.444564, 31.871719, _ob("m95349d")),
    Waypoint("beth_nimrah", "Beth-nimrah (Tall Bleibel)", 35.63872, 31.909106, _ob("m7cc2d3")),
    Waypoint("succoth", "Succoth (Tell Deir Alla)", 35.62118, 32.1966, _ob("m1123d9")),
    Waypoint(
        "penuel",
        "Penuel (Tell edh-Dhahab esh-Sharqi), at the ford of the Jabbok",
        35.69211,
        32.187016,
        _ob("m222ca7"),
        crossing="jabbok",  # Gen 32:22-31: the ford of the Jabbok, where Jacob named Penuel
    ),
    Waypoint("zarethan", "Zarethan (Tell es-Sa'idiyeh)", 35.577241, 32.26769, _ob("m99eed8")),
    Waypoint("jezreel", "Jezreel (Tel Jezreel)", 35.327953, 32.557853, _ob("mda3bc1")),
    Waypoint("beth_shean", "Beth-shean (Tel Beth-shean)", 35.503056, 32.503611, _ob("m2af7af")),
    Waypoint("chinnereth", "Chinnereth (Tel Kinrot)", 35.538333, 32.869444, _ob("ma29c5f")),
    Waypoint("tiberias", "Tiberias", 35.544167, 32.773611, _ob("mc8c3f1")),
    Waypoint(
        "aphek_golan",
        "Aphek in the Golan (Fiq)",
        35.7,
        32.766667,
        "OpenBible.info modern.jsonl m22ecef (Fiq), Aphek 3 score 245 (1 Kgs 20:26-30)",
    ),
    # own waypoints: sites on the link roads (positions are estimates)
    Waypoint(
        "beth_zur",
        "Beth-zur (Khirbet et-Tubeiqa)",
        35.0950,
        31.5900,
        _own("Khirbet et-Tubeiqa by Halhul, on the ridge road north of Hebron"),
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
        _own("Tell ed-Damiyeh, east of the Damiya ford (Josh 3:16)"),
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
        "hippos",
        "Hippos (Susita)",
        35.6585,
        32.7795,
        _own("Susita above the eastern shore, Hellenistic-Roman Hippos"),
    ),
    # own waypoints: the fords and bridges, where the roads cross the rivers
    Waypoint(
        "jordan_ford_jericho",
        "Jordan ford east of Jericho (Qasr al-Yahud / al-Maghtas)",
        35.5445,
        31.8410,
        _ford("the traditional crossing of Josh 3, Qasr al-Yahud"),
        crossing="jordan",
    ),
    Waypoint(
        "damiya_ford",
        "Damiya ford of the Jordan (by Adam)",
        35.5393,
        32.0950,
        _ford("the Damiya ford below Tell ed-Damiyeh (Josh 3:16)"),
        crossing="jordan",
    ),
    Waypoint(
        "jordan_ford_beth_shean",
        "Jordan ford east of Beth-shean",
        35.5655,
        32.4809,
        _ford("the crossing of the Scythopolis-Pella road"),
        crossing="jordan",
    ),
    Waypoint(
        "sennabris_bridge",
        "Jordan bridge at the outflow of the Sea of Galilee (Sennabris)",
        35.5758,
        32.7109,
        _ford("the crossing below the outflow by Bet Yerah (Sennabris, Josephus War 3.447)"),
        crossing="jordan",
    ),
    Waypoint(
        "jordan_bridge_north",
        "Jordan crossing north of the Sea of Galilee (Jisr Banat Ya'qub)",
        35.6280,
        33.0070,
        _ford("the ford / bridge of the Daughters of Jacob on the Hazor-Damascus road, west bank"),
        crossing="jordan",
    ),
    Waypoint(
        "jabbok_ford_adam",
        "Jabbok ford above its mouth (Adam - Succoth)",
        35.5606,
        32.1112,
        _ford("the crossing of the valley road above the Jabbok's mouth"),
        crossing="jabbok",
    ),
    Waypoint(
        "jabbok_ford_gerasa",
        "Jabbok crossing of the plateau road (Rabbah - Gerasa)",
        35.8946,
        32.2142,
        _ford("where the plateau road from Rabbah to Gerasa crosses the upper Jabbok"),
        crossing="jabbok",
    ),
    Waypoint(
        "yarmouk_ford_edrei",
        "Crossing of the upper Yarmouk (Wadi ez-Zeidi) at Edrei",
        36.1015,
        32.6189,
        _ford("where the plateau road from Ramoth-gilead reaches Edrei over the upper Yarmouk"),
        crossing="yarmouk",
    ),
]

# The works that describe the roads. They name the road; the course between two stations
# (the `Via` vertices) is our reading of the terrain, not traced from a map.
DORSEY = "Dorsey 1991, The Roads and Highways of Ancient Israel"
AHARONI = "Aharoni 1979, The Land of the Bible, ch. 3 (the roads)"
TIR = "Tsafrir, Di Segni & Green 1994, Tabula Imperii Romani: Iudaea-Palaestina"
BARRINGTON = "Talbert (ed.) 2000, Barrington Atlas maps 69-70 (as DARMC)"
ROLL = "Roll 1983, The Roman road system in Judaea"


@dataclass(frozen=True)
class Route:
    """A road: its stops (waypoint ids, and `Via` vertices between them) and its history.

    ``road_class`` is ``main`` or ``secondary``; ``period`` ``iron_age``, ``hellenistic_roman``
    or ``both``; ``certainty`` ``certain`` (the road and its course are attested),
    ``conjectural`` (the road is attested, its course inferred) or ``hypothetical`` (the road
    itself is inferred); ``sources`` the works and verses that attest it.
    """

    name: str
    stops: tuple[str | Via, ...]
    road_class: str
    period: str
    certainty: str
    sources: str


@dataclass(frozen=True)
class Via:
    """A vertex of a leg between two stops: where the road runs (degrees, own estimate)."""

    lon: float
    lat: float
    why: str = ""


ROUTES: dict[str, Route] = {
    "ridge_route": Route(
        "Way of the Patriarchs / Ridge Route",
        (
            "beersheba",
            "hebron",
            "beth_zur",
            Via(35.160, 31.665, "by Solomon's Pools"),
            "bethlehem",
            "jerusalem",
            "gibeah",
            "mizpah",
            "bethel",
            Via(35.235, 31.990, "the watershed north of Bethel"),
            "lebonah",
            Via(35.262, 32.140, "the pass of Lebonah to Shechem"),
            "shechem",
            "samaria",
            "dothan",
        ),
        "main",
        "both",
        "certain",
        f"Judg 21:19 (the highway from Bethel to Shechem); {DORSEY}; {AHARONI}; {TIR}",
    ),
    "shiloh_road": Route(
        "Shiloh, east of the highway",
        ("lebonah", "shiloh"),
        "secondary",
        "iron_age",
        "conjectural",
        f"Judg 21:19 (Shiloh east of the highway, south of Lebonah); {DORSEY}",
    ),
    "kings_highway": Route(
        "King's Highway (Transjordanian plateau road)",
        (
            "dibon",
            "medeba",
            "heshbon",
            "rabbah",
            "jabbok_ford_gerasa",
            "gerasa",
            "ramoth_gilead",
            "yarmouk_ford_edrei",
            "edrei",
        ),
        "main",
        "both",
        "certain",
        f"Num 20:17, 21:22; {AHARONI}; {BARRINGTON} (Via Nova Traiana); {TIR}",
    ),
    "via_maris": Route(
        "Via Maris (international trunk road), Megiddo to Dan",
        (
            "megiddo",
            "daberath",
            "hattin",
            "chinnereth",
            Via(35.552, 32.935, "up from the lake by the Wadi Amud side"),
            "hazor",
            Via(35.578, 33.060, "the western edge of the Hula valley"),
            Via(35.583, 33.110, "west of historic Lake Huleh"),
            Via(35.597, 33.160),
            Via(35.612, 33.205, "north of the marsh, west of the Jordan's streams"),
            "dan",
        ),
        "main",
        "both",
        "certain",
        f"Isa 8:23 (the way of the sea); {AHARONI}; {DORSEY}",
    ),
    "coastal_highway": Route(
        "Coastal highway (the way of the land of the Philistines), Gaza to Megiddo",
        (
            "gaza",
            "ashkelon",
            "ashdod",
            "jabneel",
            "lod",
            "aphek",
            "socoh_sharon",
            Via(35.070, 32.440, "into the Aruna pass (Wadi Ara)"),
            Via(35.120, 32.515, "the pass of Aruna"),
            "megiddo",
        ),
        "main",
        "both",
        "certain",
        f"Exod 13:17; annals of Thutmose III (the Aruna pass); {AHARONI}; {DORSEY}; {TIR}",
    ),
    "joppa_road": Route(
        "Jabneel - Joppa - Lod",
        ("jabneel", "joppa", Via(34.868, 32.027, "by Ono"), "lod"),
        "secondary",
        "both",
        "certain",
        f"Jonah 1:3; Acts 9:38 (Lydda near Joppa); {DORSEY}; {TIR}",
    ),
    "coastal_road_roman": Route(
        "Roman coastal road, Joppa - Caesarea - Dor",
        (
            "joppa",
            Via(34.790, 32.100),
            Via(34.825, 32.200, "Apollonia"),
            Via(34.865, 32.330),
            Via(34.895, 32.430),
            "caesarea",
            Via(34.925, 32.560),
            Via(34.930, 32.600),
            "dor",
        ),
        "main",
        "hellenistic_roman",
        "certain",
        f"Josephus, War 1.408-414 (Caesarea); {TIR}; {BARRINGTON}",
    ),
    "carmel_coast_road": Route(
        "Dor - under the Carmel - Acco",
        (
            "dor",
            Via(34.955, 32.700, "Atlit"),
            Via(34.985, 32.790, "under the Carmel cape"),
            Via(35.045, 32.810, "the Kishon mouth"),
            "acco",
        ),
        "secondary",
        "both",
        "conjectural",
        f"Josh 11:2, 12:23 (Naphoth-dor); {DORSEY}; {TIR}",
    ),
    "dor_jokneam": Route(
        "Dor - across the Carmel - Jokneam",
        ("dor", Via(35.000, 32.640, "the Carmel pass of Wadi Milh"), "jokneam"),
        "secondary",
        "both",
        "conjectural",
        f"1 Kgs 4:11-12 (Naphoth-dor, Jokneam in Solomon's districts); {DORSEY}",
    ),
    "antipatris_caesarea": Route(
        "Antipatris - Caesarea (Roman)",
        ("aphek", Via(34.915, 32.300, "the inner Sharon"), "caesarea"),
        "main",
        "hellenistic_roman",
        "certain",
        f"Acts 23:31-33; {TIR}; {ROLL}",
    ),
    "caesarea_legio": Route(
        "Caesarea - Legio (Megiddo)",
        ("caesarea", Via(35.030, 32.540, "the Menashe hills"), "megiddo"),
        "secondary",
        "hellenistic_roman",
        "certain",
        f"{TIR}; {ROLL}",
    ),
    "acco_megiddo": Route(
        "Megiddo - Jokneam - Acco",
        (
            "megiddo",
            "jokneam",
            Via(35.108, 32.700, "the Kishon gap"),
            Via(35.095, 32.790, "the plain of Acco"),
            "acco",
        ),
        "main",
        "both",
        "certain",
        f"Josh 12:22 (Jokneam of the Carmel); {AHARONI}; {DORSEY}",
    ),
    "ladder_of_tyre": Route(
        "Acco - Achzib - the Ladder of Tyre - Tyre",
        (
            "acco",
            "achzib",
            Via(35.115, 33.085),
            Via(35.125, 33.115, "the Ladder of Tyre (Rosh ha-Niqra)"),
            Via(35.160, 33.145),
            Via(35.185, 33.180, "the coastal strip"),
            Via(35.215, 33.230),
            Via(35.210, 33.262, "the mainland shore (Palaetyrus)"),
            "tyre",
        ),
        "main",
        "both",
        "certain",
        f"Josh 19:29; 1 Macc 11:59 (the Ladder of Tyre); Josephus, War 2.188; {TIR}",
    ),
    "beth_horon_ascent": Route(
        "The ascent of Beth-horon, Lod - Gibeon - Jerusalem",
        (
            "lod",
            "lower_beth_horon",
            "upper_beth_horon",
            "gibeon",
            Via(35.200, 31.815, "by Nebi Samwil"),
            "jerusalem",
        ),
        "main",
        "both",
        "certain",
        f"Josh 10:10-11; 1 Macc 3:16-24; Josephus, War 2.516-555; {DORSEY}; {TIR}",
    ),
    "shephelah_road": Route(
        "Shephelah road, Lachish - Gath - Ekron - Gezer - Lod",
        ("lachish", "gath", "ekron", "gezer", "lod"),
        "secondary",
        "both",
        "conjectural",
        f"1 Sam 6:12-14, 17:52; {DORSEY}; {TIR} (Eleutheropolis - Lydda)",
    ),
    "hebron_lachish": Route(
        "Hebron - Mareshah - Lachish",
        ("hebron", Via(35.030, 31.565, "the Tarqumiya descent"), "mareshah", "lachish"),
        "secondary",
        "both",
        "conjectural",
        f"2 Chr 11:5-10 (Rehoboam's forts); {DORSEY}; {TIR} (Hebron - Eleutheropolis)",
    ),
    "gaza_beersheba": Route(
        "Gaza - Ziklag - Beersheba",
        ("gaza", "ziklag", "beersheba"),
        "secondary",
        "both",
        "conjectural",
        f"{DORSEY}; {TIR}",
    ),
    "en_gedi_ascent": Route(
        "Bethlehem - Tekoa - the ascent of Ziz - En-gedi",
        ("bethlehem", "tekoa", Via(35.300, 31.535, "the wilderness of Tekoa"), "en_gedi"),
        "secondary",
        "both",
        "conjectural",
        f"2 Chr 20:16-20 (the ascent of Ziz, the wilderness of Tekoa); {DORSEY}",
    ),
    "jericho_crossing": Route(
        "Jerusalem - Jericho - Jordan ford - Abel-shittim - Heshbon - Bezer",
        (
            "jerusalem",
            Via(35.262, 31.771, "Bethany"),
            Via(35.335, 31.815, "the ascent of Adummim"),
            "jericho",
            "jordan_ford_jericho",
            "abel_shittim",
            Via(35.735, 31.810, "up the Wadi Hesban"),
            "heshbon",
            "bezer",
        ),
        "main",
        "both",
        "certain",
        f"Josh 2-3, 15:7 (the ascent of Adummim); Luke 10:30; {TIR}; {DORSEY}",
    ),
    "jordan_valley_road": Route(
        "Jordan valley road (west bank), Jericho - Damiya - Beth-shean",
        (
            "jericho",
            Via(35.455, 31.950),
            Via(35.470, 32.030, "Phasaelis"),
            "damiya_ford",
            Via(35.530, 32.100, "west of the river's bends"),
            Via(35.525, 32.115),
            Via(35.515, 32.200),
            Via(35.525, 32.330),
            Via(35.512, 32.430),
            "beth_shean",
        ),
        "secondary",
        "both",
        "conjectural",
        f"{TIR} (Jericho - Scythopolis); {DORSEY}",
    ),
    "gilead_valley_road": Route(
        "Jordan valley road (east bank), Abel-shittim - Adam - Succoth - Zarethan - Pella",
        (
            "abel_shittim",
            "beth_nimrah",
            Via(35.590, 32.010),
            "adam",
            "jabbok_ford_adam",
            "succoth",
            "zarethan",
            Via(35.590, 32.360),
            "pella",
        ),
        "secondary",
        "both",
        "conjectural",
        f"Num 32:36, Josh 13:27 (the towns of the valley); 1 Kgs 7:46; {DORSEY}",
    ),
    "adam_crossing": Route(
        "Shechem - Damiya ford - Adam",
        ("shechem", Via(35.337, 32.190, "down the Wadi Far'a"), "damiya_ford", "adam"),
        "main",
        "both",
        "certain",
        f"Josh 3:16; {DORSEY}; {TIR}",
    ),
    "jabbok_road": Route(
        "Succoth - Penuel - up the Jabbok to Gerasa",
        (
            "succoth",
            Via(35.650, 32.204, "the north bank"),
            Via(35.676, 32.203),
            "penuel",
            Via(35.800, 32.240),
            "gerasa",
        ),
        "secondary",
        "both",
        "conjectural",
        f"Gen 32:22-31 (the ford of the Jabbok, Penuel); Judg 8:8; {DORSEY}",
    ),
    "beth_shean_road": Route(
        "Dothan - Ibleam - Beth-shean - Jordan ford - Pella",
        ("dothan", "ibleam", "beth_shean", "jordan_ford_beth_shean", "pella"),
        "main",
        "both",
        "certain",
        f"2 Kgs 9:27 (the ascent of Gur by Ibleam); {TIR} (Scythopolis - Pella); {DORSEY}",
    ),
    "gilead_ascent": Route(
        "Pella - Beth-arbel - Ramoth-gilead",
        ("pella", Via(35.720, 32.500, "up from the valley"), "beth_arbel", "ramoth_gilead"),
        "secondary",
        "both",
        "conjectural",
        f"1 Kgs 4:13 (Ramoth-gilead); {DORSEY}",
    ),
    "pella_gerasa_road": Route(
        "Pella - Gerasa",
        ("pella", "gerasa"),
        "secondary",
        "hellenistic_roman",
        "certain",
        f"{TIR}; {BARRINGTON}",
    ),
    "jezreel_road": Route(
        "Megiddo - Jezreel - Beth-shean",
        ("megiddo", "jezreel", "beth_shean"),
        "main",
        "both",
        "certain",
        f"1 Kgs 18:45-46; {AHARONI}; {TIR} (Legio - Scythopolis)",
    ),
    "dothan_megiddo": Route(
        "Dothan - Taanach - Megiddo",
        ("dothan", "taanach", "megiddo"),
        "secondary",
        "both",
        "certain",
        f"Gen 37:17, 25 (the caravan road by Dothan); Judg 5:19; {DORSEY}",
    ),
    "golan_approach": Route(
        "Chinnereth - Tiberias - Sennabris bridge - Hippos - Aphek - Golan",
        (
            "chinnereth",
            Via(35.524, 32.866, "the plain of Gennesaret"),
            Via(35.512, 32.845),
            Via(35.512, 32.827, "Magdala"),
            Via(35.525, 32.800),
            "tiberias",
            "sennabris_bridge",
            Via(35.610, 32.718, "the southern shore"),
            "hippos",
            "aphek_golan",
            Via(35.820, 32.775, "the plateau"),
            "golan",
        ),
        "secondary",
        "both",
        "conjectural",
        f"1 Kgs 20:26-30 (Aphek); Josephus, War 3.447 (Sennabris); {TIR}; {DORSEY}",
    ),
    "golan_north_road": Route(
        "Hazor - Jordan crossing north of the lake - Golan",
        (
            "hazor",
            "jordan_bridge_north",
            Via(35.720, 32.950, "the Golan slope"),
            Via(35.840, 32.860),
            "golan",
        ),
        "secondary",
        "both",
        "hypothetical",
        f"{DORSEY} (the Hazor - Damascus road at the Jordan); the way on to Golan is ours",
    ),
    "golan_edrei": Route(
        "Golan - Edrei",
        ("golan", Via(36.020, 32.700, "the Bashan plateau"), "edrei"),
        "secondary",
        "both",
        "hypothetical",
        "own: the plateau way from Golan to Edrei (Deut 1:4; Josh 12:4 Og at Edrei)",
    ),
    "kedesh_road": Route(
        "Kedesh - Hazor",
        ("kedesh", Via(35.545, 33.065, "down the Naphtali ridge"), "hazor"),
        "secondary",
        "both",
        "conjectural",
        f"2 Kgs 15:29 (Tiglath-pileser's march: Ijon, Abel, Kedesh, Hazor); {DORSEY}",
    ),
    "tyre_kedesh": Route(
        "Tyre - Kedesh",
        (
            "tyre",
            Via(35.300, 33.225, "the coastal hills"),
            Via(35.420, 33.170, "the Upper Galilee plateau"),
            "kedesh",
        ),
        "secondary",
        "hellenistic_roman",
        "conjectural",
        "Josephus, War 2.459, Ant. 13.154 (Kedasa of the Tyrians); "
        "Berlin & Herbert, Tel Kedesh excavations (the Persian-Hellenistic centre)",
    ),
}

#: The cities of refuge, between which the "direct roads" run (Deut 19:3).
CITIES = ("kedesh", "shechem", "hebron", "bezer", "ramoth_gilead", "golan")


@dataclass(frozen=True)
class Leg:
    """One road leg: the stretch of a route between two consecutive waypoints."""

    route: str
    start: Waypoint
    end: Waypoint
    vias: tuple[Via, ...]

    @property
    def id(self) -> str:
        """``<route>__<from>__<to>``."""
        return f"{self.route}__{self.start.id}__{self.end.id}"

    @property
    def coords(self) -> list[list[float]]:
        """The polyline: the first site, the vertices of the course, the last site."""
        inner = [[v.lon, v.lat] for v in self.vias]
        return [[self.start.lon, self.start.lat], *inner, [self.end.lon, self.end.lat]]


def legs_of(route_id: str, route: Route, by_id: dict[str, Waypoint]) -> list[Leg]:
    """Cut a route into legs at its waypoints; `Via` vertices stay inside their leg."""
    legs, start, vias = [], None, []
    for stop in route.stops:
        if isinstance(stop, Via):
            vias.append(stop)
            continue
        if start is not None:
            legs.append(Leg(route_id, by_id[start], by_id[stop], tuple(vias)))
        start, vias = stop, []
    return legs


def direct_roads(legs: list[Leg]) -> set[str]:
    """The legs on a shortest road between two cities of refuge with no third city on the way
    ("prepare the way", Deut 19:3; roads from one city to another, Mishnah Makkot 2:5)."""
    graph = nx.Graph()
    for leg in legs:
        length = _length_km(leg.coords)
        if (
            not graph.has_edge(leg.start.id, leg.end.id)
            or graph[leg.start.id][leg.end.id]["km"] > length
        ):
            graph.add_edge(leg.start.id, leg.end.id, km=length, leg=leg.id)
    direct = set()
    for a, b in combinations(CITIES, 2):
        path = nx.shortest_path(graph, a, b, weight="km")
        if not set(path[1:-1]) & set(CITIES):
            direct |= {graph[u][v]["leg"] for u, v in pairwise(path)}
    return direct


def _length_km(coords: list[list[float]]) -> float:
    """Length on the sphere (km), enough to rank roads."""
    lon, lat = np.radians(np.asarray(coords)).T
    dlat, dlon = np.diff(lat), np.diff(lon)
    h = np.sin(dlat / 2) ** 2 + np.cos(lat[:-1]) * np.cos(lat[1:]) * np.sin(dlon / 2) ** 2
    return float(np.sum(2 * 6371.0 * np.arcsin(np.sqrt(h))))


def _point(waypoint: Waypoint) -> dict[str, Any]:
    return {
        "type": "Feature",
        "properties": {
            "id": waypoint.id,
            "name": waypoint.name,
            "feature_kind": "waypoint",
            "site_kind": waypoint.kind,
            "crossing": waypoint.crossing,
            "source": waypoint.source,
            "position_estimated": not waypoint.openbible,
            "license": OPENBIBLE_LICENSE if waypoint.openbible else OWN_LICENSE,
        },
        "geometry": {"type": "Point", "coordinates": [waypoint.lon, waypoint.lat]},
    }


def _feature(leg: Leg, route: Route, direct: bool) -> dict[str, Any]:
    a, b = leg.start, leg.end
    reasons = "; ".join(v.why for v in leg.vias if v.why)
    course = f"course through {len(leg.vias)} own vertices" if leg.vias else "straight leg"
    course += f" ({reasons})" if reasons else ""
    return {
        "type": "Feature",
        "properties": {
            "id": leg.id,
            "name": route.name,
            "from": a.id,
            "to": b.id,
            "route": leg.route,
            "class": route.road_class,
            "period": route.period,
            "certainty": route.certainty,
            "sources": route.sources,
            "direct_road": direct,
            "source": f"{a.name}: {a.source}; {b.name}: {b.source}; {course}",
            "license": OPENBIBLE_LICENSE if a.openbible and b.openbible else OWN_LICENSE,
            "schematic": not leg.vias,
        },
        "geometry": {"type": "LineString", "coordinates": leg.coords},
    }


def _collection(name: str, features: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "FeatureCollection", "name": name, "features": features}


def main() -> None:
    """Write the two files next to this folder."""
    by_id = {w.id: w for w in WAYPOINTS}
    legs = [leg for route_id, route in ROUTES.items() for leg in legs_of(route_id, route, by_id)]
    direct = direct_roads(legs)
    features = [_feature(leg, ROUTES[leg.route], leg.id in direct) for leg in legs]
    used = {leg.start.id for leg in legs} | {leg.end.id for leg in legs}
    points = [_point(w) for w in WAYPOINTS if w.id in used]
    for name, collection in (("waypoints", points), ("roads", features)):
        text = json.dumps(_collection(name, collection), indent=1, ensure_ascii=False)
        (DATA_DIR / f"{name}.geojson").write_text(text + "\n", encoding="utf-8")
    print(f"{len(points)} waypoints, {len(legs)} road legs ({len(direct)} direct) to {DATA_DIR}")


if __name__ == "__main__":
    main()
