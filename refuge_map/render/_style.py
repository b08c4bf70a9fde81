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
EVENT_COLORS = {
    "flight_start": "#1f77b4",
    "avenger_sets_out": "#8c564b",
    "climbs_tree": TREE,
    "arrival": "#2ca02c",
    "reached_unprotected": "#e377c2",
    "capture": "#d62728",
    "deterred": "#ff7f0e",
    "trial": "#9467bd",
    "release": "#17becf",
    "horizon": "#7f7f7f",
}
OTHER = "#444444"


def role_color(role: str) -> str:
    """The colour of an agent's track by its role (grey for a role not listed)."""
    return ROLE_COLORS.get(role, OTHER)


def event_color(kind: str) -> str:
    """The colour of an event marker by its kind (grey for a kind not listed)."""
    return EVENT_COLORS.get(kind, OTHER)


def short_name(name: str) -> str:
    """``"Kedesh (Kedesh in Galilee)"`` -> ``"Kedesh"``."""
    return name.split(" (", 1)[0]
