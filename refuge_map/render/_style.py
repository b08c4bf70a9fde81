"""Colours, labels and the attribution line that the HTML and the PNG maps share."""

from __future__ import annotations

from typing import Any

from refuge_data import ATTRIBUTION as ATTRIBUTION  # the maps' attribution line: the data's

#: The palette: one meaning per colour, every colour distinguishable with the common colour
#: vision deficiencies. Cities, roles and boundaries take Okabe & Ito's colours ("Color
#: Universal Design", 2008); event categories take Paul Tol's "muted" scheme (SRON technical
#: note, 2021); the coverage classes take viridis (`P_CLASSES`). A test checks
#: that no colour means two things (`colour_meanings`).
SIDE_COLORS = {"west": "#0072B2", "east": "#E69F00"}
LAND_COLORS = {"west": "#f3eee2", "east": "#ebeede"}
#: The land beyond the data's region: the map's background, so that the land reaches the edge
#: of the view instead of ending in a rectangle.
LAND_BEYOND = "#efece3"
WATER = "#5b8db8"
LAKE_FILL = "#b9d3e8"
TOWN = "#6e2c00"
ROAD = "#8c6d46"
LIMIT = "#4d4d4d"
CANDIDATE = "#7f7f7f"
TREE = "#A6761D"
LEVITICAL = "#7d3c98"  # the 42 Levitical cities
SIGNPOST = "#b9770e"  # the "miklat" signposts at the crossroads
BRIDGE = "#117a65"  # bridges over rivers

#: Classes of P(reach asylum alive): (lower bound, colour), viridis from dark (rarely) to
#: yellow (surely): ordered in lightness, colour-blind safe, and no red (red means nothing here).
P_CLASSES: tuple[tuple[float, str], ...] = (
    (0.0, "#440154"),
    (0.5, "#414487"),
    (0.7, "#2a788e"),
    (0.8, "#22a884"),
    (0.9, "#7ad151"),
    (0.95, "#fde725"),
)
#: A cell with no value (no way to asylum).
NO_VALUE = "#bdbdbd"
#: The chosen boundary shape is filled; the other is drawn as a dashed outline.
ZONE_STYLES: dict[str, dict[str, Any]] = {
    "squared": {"color": "#CC79A7", "weight": 2, "fillColor": "#CC79A7"},
    "round": {"color": "#000000", "weight": 2, "fillColor": "#000000"},
}

ROLE_COLORS = {"fugitive": "#56B4E9", "avenger": "#D55E00", "escort": "#009E73"}
OTHER = "#444444"

#: What an event tells, in a few categories both maps colour alike: (label, colour), in
#: legend order. Every event kind belongs to one (`KIND_CATEGORIES`).
EVENT_CATEGORIES: dict[str, tuple[str, str]] = {
    "flight": ("flight and pursuit begin", "#88CCEE"),
    "refuge": ("refuge reached (or regained)", "#44AA99"),
    "killed": ("killed by the avenger", "#882255"),
    "deterred": ("avenger deterred by the escorts, or gave up", "#DDCC77"),
    "trial": ("trial and verdict", "#332288"),
    "exile": ("years in the city (going out, moves, rent)", "#999933"),
    "released": ("released at the high priest's death", "#117733"),
    "died": ("died in exile", "#AA4499"),
    "unfinished": ("no refuge yet (unprotected, turned away, horizon)", "#CC6677"),
    "other": ("other events", "#DDDDDD"),
}
#: The category of every event kind of the flight (`refuge_map.simulation.EVENT_KINDS`) and of
#: the exile (`refuge_map.simulation.EXILE_KINDS`).
KIND_CATEGORIES: dict[str, str] = {
    "flight_start": "flight",
    "avenger_sets_out": "flight",
    "sees_avenger": "flight",
    "leaves_road": "flight",
    "climbs_tree": "refuge",
    "arrival": "refuge",
    "returned_to_city": "refuge",
    "returned_inside": "refuge",
    "capture": "killed",
    "killed_on_trial_road": "killed",
    "killed_outside_boundary": "killed",
    "deterred": "deterred",
    "avenger_gives_up": "deterred",
    "trial_start": "trial",
    "verdict": "trial",
    "executed": "trial",
    "sent_home": "trial",
    "left_boundary": "exile",
    "in_boundary_tree": "exile",
    "killed_again": "exile",
    "moved_neighbourhood": "exile",
    "moved_city": "exile",
    "rent_paid": "exile",
    "teacher_exiled": "exile",
    "high_priest_died": "exile",
    "released": "released",
    "died_in_exile": "died",
    "reached_unprotected": "unfinished",
    "turned_away": "unfinished",
    "horizon": "unfinished",
    "exile_horizon": "unfinished",
}


def role_color(role: str) -> str:
    """The colour of an agent's track by its role (grey for a role not listed)."""
    return ROLE_COLORS.get(role, OTHER)


def event_category(kind: str) -> str:
    """The category of an event kind (``"other"`` for a kind not listed)."""
    return KIND_CATEGORIES.get(kind, "other")


def category_color(category: str) -> str:
    """The colour of an event category's markers."""
    return EVENT_CATEGORIES[category][1]


def category_label(category: str) -> str:
    """The legend label of an event category."""
    return EVENT_CATEGORIES[category][0]


def short_name(name: str) -> str:
    """``"Kedesh (Kedesh in Galilee)"`` -> ``"Kedesh"``."""
    return name.split(" (", 1)[0]


def colour_meanings() -> dict[str, str]:
    """Every meaning a map gives a colour -> its colour (cities by side, boundaries, roles,
    event categories, furniture): a test checks that no colour means two things."""
    meanings = {
        **{f"city, {side}": color for side, color in SIDE_COLORS.items()},
        **{f"boundary, {mode}": s["color"] for mode, s in ZONE_STYLES.items()},
        **{f"role, {role}": color for role, color in ROLE_COLORS.items()},
        **{f"event, {name}": color for name, (_, color) in EVENT_CATEGORIES.items()},
        "town": TOWN,
        "road": ROAD,
        "water": WATER,
        "tree": TREE,
        "Levitical city": LEVITICAL,
        "signpost": SIGNPOST,
        "bridge": BRIDGE,
        "limit": LIMIT,
        "candidate": CANDIDATE,
        "other": OTHER,
    }
    return {meaning: color.lower() for meaning, color in meanings.items()}
