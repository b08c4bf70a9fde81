"""Colours, labels and the attribution line that the HTML and the PNG maps share."""

from __future__ import annotations

from typing import Any

#: The attribution of the shipped data (data/README.md). DARMC's Roman roads are not shipped
#: or drawn, so they are not credited here.
ATTRIBUTION = (
    "Places: OpenBible.info (CC BY 4.0); Pleiades (CC BY). Hydrography: Natural Earth; "
    "© OpenStreetMap contributors (ODbL). Roads: own compilation (CC BY 4.0) on OpenBible.info "
    "coordinates."
)

SIDE_COLORS = {"west": "#a93226", "east": "#1f618d"}
LAND_COLORS = {"west": "#f4ecd8", "east": "#e6eedb"}
WATER = "#3b7fb6"
LAKE_FILL = "#a9cfe8"
TOWN = "#6e2c00"
ROAD = "#8c6d46"
LIMIT = "#4d4d4d"
CANDIDATE = "#7f7f7f"
TREE = "#2e7d32"

#: The chosen boundary shape is filled; the other is drawn as a dashed outline.
ZONE_STYLES: dict[str, dict[str, Any]] = {
    "squared": {"color": "#c0392b", "weight": 2, "fillColor": "#e74c3c"},
    "round": {"color": "#7d3c98", "weight": 2, "fillColor": "#af7ac5"},
}

ROLE_COLORS = {"fugitive": "#1f77b4", "avenger": "#d62728", "escort": "#2ca02c"}
OTHER = "#444444"

#: What an event tells, in a few categories both maps colour alike: (label, colour), in
#: legend order. Every event kind belongs to one (`KIND_CATEGORIES`).
EVENT_CATEGORIES: dict[str, tuple[str, str]] = {
    "flight": ("flight and pursuit begin", "#6baed6"),
    "refuge": ("refuge reached (or regained)", "#2ca02c"),
    "killed": ("killed by the avenger", "#d62728"),
    "deterred": ("avenger deterred by the escorts, or gave up", "#ff7f0e"),
    "trial": ("trial and verdict", "#9467bd"),
    "exile": ("years in the city (going out, moves, rent)", "#8c564b"),
    "released": ("released at the high priest's death", "#17becf"),
    "died": ("died in exile", "#000000"),
    "unfinished": ("no refuge yet (unprotected, horizon)", "#bcbd22"),
    "other": ("other events", OTHER),
}
#: The category of every event kind of the flight (`refuge_map.simulation.EVENT_KINDS`) and of
#: the exile (`refuge_map.simulation.EXILE_KINDS`).
KIND_CATEGORIES: dict[str, str] = {
    "flight_start": "flight",
    "avenger_sets_out": "flight",
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
    "high_priest_died": "exile",
    "released": "released",
    "died_in_exile": "died",
    "reached_unprotected": "unfinished",
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
