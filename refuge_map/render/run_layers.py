"""A simulation run on the map: tracks on a time slider, events, trees (the run's files read
back by `refuge_map.render.run_files`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import folium
import numpy as np
import pandas as pd

from refuge_map._cells import as_float, as_int
from refuge_map.render._controls import Swatch
from refuge_map.render._html import (
    CircleMarker,
    Popup,
    cited,
    esc,
    popup_parts,
    popup_table,
    since_killing,
)
from refuge_map.render._markers import MarkerLayer
from refuge_map.render._slider import TimeSlider, Track, slider_times
from refuge_map.render._style import (
    TREE,
    category_color,
    category_label,
    role_color,
)

if TYPE_CHECKING:
    from refuge_map.render.run_files import RunFiles

#: The page opens on the tracks of this many incidents (the first by number); a picker
#: follows any other, or all.
FOLLOWED_INCIDENTS = 5
#: The time slider shows each agent at most once per this many seconds (display only: the
#: run's files keep every point).
DISPLAY_EVERY_S = 600


def add_run_layers(fmap: folium.Map, run: RunFiles) -> list[tuple[Swatch, str, str]]:
    """Add the run to `fmap`: the flight on a time slider, events by category, trees.

    The slider shows the flight and pursuit (minutes), each agent at most once per
    `DISPLAY_EVERY_S`; the exile's years are not put on it: their events are markers in
    toggleable layers, one per category (`refuge_map.render._style.EVENT_CATEGORIES`).

    Returns
    -------
    list
        Legend entries (swatch, colour, label) for what was drawn.
    """
    shown = _display_rows(run.flight)
    killed_at = run.killings()
    roles = sorted(shown["role"].unique())
    incidents = sorted(shown["incident"].astype(int).unique())
    TimeSlider(
        list(_track_features(shown, escorted=_escorted(run.flight), killed_at=killed_at)),
        styles={role: _role_style(role) for role in roles},
        period=_iso_duration(max(_step_seconds(run.flight), DISPLAY_EVERY_S)),
        name="Flight and pursuit (time slider)",
        followed=[int(i) for i in incidents[:FOLLOWED_INCIDENTS]],
    ).add_to(fmap)
    entries: list[tuple[Swatch, str, str]] = [
        ("line", role_color(role), f"track of the {role}") for role in roles
    ]
    for category, events in run.event_groups():
        _event_layer(category, events).add_to(fmap)
        label = f"{category_label(category)} ({len(events):,})"
        entries.append(("dot", category_color(category), label))
    trees = run.summary.get("trees") or []
    if trees:
        _tree_layer(trees).add_to(fmap)
        entries.append(("dot", TREE, "tree (trunk and boughs)"))
    return entries


def _display_rows(tracks: pd.DataFrame) -> pd.DataFrame:
    """The rows the slider shows: each agent's first row in every `DISPLAY_EVERY_S`, and his
    last. Escorts walk with their manslayer (Mishnah Makkot 2:5): his track is theirs."""
    tracks = tracks[tracks["role"] != "escort"].sort_values(
        ["agent_id", "since_killing_s"], kind="stable"
    )
    window = tracks["since_killing_s"] // DISPLAY_EVERY_S
    first = ~pd.DataFrame({"agent": tracks["agent_id"], "window": window}).duplicated()
    last = ~tracks["agent_id"].duplicated(keep="last")
    return tracks[first | last]


def _escorted(tracks: pd.DataFrame) -> set[int]:
    """The incidents whose manslayer has escorts."""
    return set(tracks.loc[tracks["role"] == "escort", "incident"].astype(int))


def _role_style(role: str) -> dict[str, dict[str, Any]]:
    """The slider's line and head (the circle at the last position) of a role's agents."""
    color = role_color(role)
    return {
        "style": {"color": color, "weight": 3, "opacity": 0.8, "className": "refuge-track"},
        "head": {
            "radius": 6,
            "color": "#fff",
            "weight": 1,
            "fillColor": color,
            "fillOpacity": 1,
            "className": f"refuge-agent refuge-{esc(role)}",
        },
    }


def _track_features(
    tracks: pd.DataFrame, *, escorted: set[int], killed_at: pd.Series
) -> Iterator[Track]:
    """One timestamped line per agent (`tracks` sorted by agent and time), its times counted
    from his incident's killing; its last point marks the agent."""
    codes, agents = pd.factorize(tracks["agent_id"])
    cuts = np.flatnonzero(np.diff(codes)) + 1
    coords = np.split(tracks[["lon", "lat"]].to_numpy(), cuts)
    origin = killed_at.reindex(tracks["incident"]).to_numpy()
    times = np.split(np.asarray(slider_times(tracks["since_killing_s"], origin_s=origin)), cuts)
    agent_rows = _agents(tracks).loc[agents].itertuples()
    for agent, xy, ms in zip(agent_rows, coords, times, strict=True):
        incident = as_int(agent.incident)
        escorts = agent.role == "fugitive" and incident in escorted
        popup = popup_parts(
            f"{agent.role} {agent.Index}",
            [
                ("incident", agent.incident),
                ("sets out", since_killing(as_float(agent.start))),
                ("end of flight", since_killing(as_float(agent.end))),
                ("reached", agent.reached),
                ("captured", "yes" if agent.captured else "no"),
                ("escorts", "two disciples of the Sages walk with him" if escorts else None),
            ],
        )
        yield Track(
            incident=incident,
            role=str(agent.role),
            lonlat=xy,
            times_ms=ms,
            popup=popup,
            tooltip=esc(f"{agent.role} {agent.Index}"),
        )


def _agents(tracks: pd.DataFrame) -> pd.DataFrame:
    """Per agent id: role, incident, first and last time, the last city he was in ("" if
    none), whether he was captured."""
    city = tracks["city"].astype(str)
    return (
        tracks.assign(reached=city.where(city != ""))
        .groupby("agent_id", sort=False)
        .agg(
            role=("role", "first"),
            incident=("incident", "first"),
            start=("since_killing_s", "min"),
            end=("since_killing_s", "max"),
            reached=("reached", "last"),
            captured=("captured", "any"),
        )
        .fillna({"reached": ""})
    )


def _event_layer(category: str, events: pd.DataFrame) -> MarkerLayer:
    """The events of a category as markers, gathered into clusters that give their count,
    whose popups say what happened, when (since the killing), and cite the rule."""
    ordered = events.sort_values("elapsed_s", kind="stable")
    markers = [
        (
            round(as_float(lat), 5),
            round(as_float(lon), 5),
            popup_parts(
                str(kind).replace("_", " "),
                [
                    ("time", _event_time(since, elapsed)),
                    ("incident", incident),
                    ("agent", agent),
                    ("city", city),
                    ("rule", cited(rule)),
                    ("source", cited(citation)),
                ],
            ),
            esc(str(kind).replace("_", " ")),
        )
        for kind, lat, lon, since, elapsed, incident, agent, city, rule, citation in zip(
            *(_cells(ordered[name]) for name in _EVENT_FIELDS), strict=True
        )
    ]
    style = {
        "radius": 5,
        "color": "#000",
        "weight": 1,
        "fillColor": category_color(category),
        "fillOpacity": 0.9,
        "className": f"refuge-event refuge-event-{category}",
    }
    return MarkerLayer(
        markers,
        style=style,
        name=f"Events: {category_label(category)} ({len(events):,})",
        show=True,
        cluster_color=category_color(category),
    )


#: The columns of an event its marker shows, in the order `_event_layer` reads them.
_EVENT_FIELDS = (
    "kind",
    "lat",
    "lon",
    "since_killing_s",
    "elapsed_s",
    "incident",
    "agent_id",
    "city",
    "rule",
    "citation",
)


def _cells(column: pd.Series) -> list[Any]:
    """A column's cells as Python values, the values iterating it gives (a missing text as
    NaN), at once: iterating a text column converts its Arrow values one by one."""
    return column.to_numpy(dtype=object).tolist()


def _event_time(since: Any, elapsed: Any) -> str:
    """When an event happened (`since` its incident's killing, `elapsed` since the run's
    start), counted from its incident's killing (a priest's events, of no incident, from the
    run's start: the killings', when they fall at once)."""
    return since_killing(as_float(elapsed if pd.isna(since) else since))


def _tree_layer(trees: list[dict[str, Any]]) -> folium.FeatureGroup:
    """Each tree of the scenario: its trunk, its boughs, and the line between them."""
    layer = folium.FeatureGroup(name="Trees of the scenario", control=True)
    for tree in trees:
        (trunk_lon, trunk_lat), (bough_lon, bough_lat) = tree["trunk"], tree["bough"]
        popup = popup_table(
            "Tree",
            [
                ("incident", tree.get("incident")),
                ("trunk", f"{trunk_lon:.5f}, {trunk_lat:.5f}"),
                ("boughs", f"{bough_lon:.5f}, {bough_lat:.5f}"),
                ("he stands", "at the trunk" if tree.get("at_trunk") else "in the boughs"),
                ("rule", "Mishnah Makkot 2:7: it all follows the boughs"),
            ],
        )
        folium.PolyLine(
            [[trunk_lat, trunk_lon], [bough_lat, bough_lon]], color=TREE, weight=3
        ).add_to(layer)
        for lat, lon, radius in ((trunk_lat, trunk_lon, 4), (bough_lat, bough_lon, 7)):
            CircleMarker(
                [lat, lon],
                radius=radius,
                color=TREE,
                fill=True,
                fill_opacity=0.7,
                class_name="refuge-tree",
                popup=Popup(popup, max_width=320),
            ).add_to(layer)
    return layer


def _step_seconds(tracks: pd.DataFrame) -> int:
    """The run's time step: the smallest gap between an agent's rows (1 h if none)."""
    ordered = tracks.sort_values(["agent_id", "since_killing_s"], kind="stable")
    gaps = ordered.groupby("agent_id", sort=False)["since_killing_s"].diff()
    gaps = gaps[gaps > 0]
    return max(1, round(float(gaps.min()))) if len(gaps) else 3600


def _iso_duration(seconds: int) -> str:
    """``5400`` -> ``"PT1H30M"`` (an ISO 8601 duration for the time slider's period)."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{v}{u}" for v, u in ((hours, "H"), (minutes, "M"), (secs, "S")) if v]
    return "PT" + "".join(parts)
