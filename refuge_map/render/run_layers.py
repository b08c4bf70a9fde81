"""A simulation run on the map: its files read back, tracks on a time slider, events, trees."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import folium
import geopandas as gpd
import numpy as np
import pandas as pd
import shapely

from geo import WGS84
from refuge_map.errors import RefugeError
from refuge_map.render._html import esc, popup_table
from refuge_map.render._slider import TimeSlider, slider_times
from refuge_map.render._style import TREE, event_color, role_color

TRAJECTORY_COLUMNS = (
    "run_id",
    "seed",
    "agent_id",
    "incident",
    "role",
    "t",
    "step",
    "in_asylum",
    "city",
    "captured",
)
#: Above this many events the events layer starts switched off (it stays in the control).
SHOWN_EVENTS = 300
EVENT_COLUMNS = ("t", "incident", "agent_id", "kind", "lon", "lat", "city", "rule", "citation")


@dataclass
class RunFiles:
    """What a simulation run wrote (`refuge_map.simulation.write_run`), as the renderer reads
    it: the renderer never computes results.

    Attributes
    ----------
    trajectories
        One WGS84 point per agent and time step (`TRAJECTORY_COLUMNS`).
    events
        One row per event (`EVENT_COLUMNS`): arrivals, captures, deterrence, trials...
    summary
        The run's ``summary.json`` (empty if the run wrote none); a ``trees`` list, if present,
        gives the trees of the scenario (``trunk`` and ``bough`` as ``[lon, lat]``).
    scenario
        The run's ``scenario.json`` (empty if the run wrote none): its name and description.
    """

    trajectories: gpd.GeoDataFrame
    events: pd.DataFrame
    summary: dict[str, Any] = field(default_factory=dict)
    scenario: dict[str, Any] = field(default_factory=dict)

    @property
    def run_id(self) -> str:
        """The run's id (the first of the table's, if it holds several)."""
        ids = self.trajectories["run_id"]
        return str(self.summary.get("run_id") or (ids.iloc[0] if len(ids) else ""))


def read_run_files(folder: str | os.PathLike[str]) -> RunFiles:
    """Read a run folder: ``trajectories.parquet``, ``events.parquet`` and, if present,
    ``summary.json`` and ``scenario.json``.

    Raises
    ------
    RefugeError
        If the folder or a table is missing, unreadable, or lacks columns (all missing
        columns named at once), or the run has no trajectory rows.
    """
    path = Path(folder)
    if not path.is_dir():
        raise RefugeError("run folder not found", source=str(path))
    trajectories = _read_table(path / "trajectories.parquet", TRAJECTORY_COLUMNS, geo=True)
    if trajectories.empty:
        raise RefugeError("the run has no trajectory rows", source=str(path))
    events = _read_table(path / "events.parquet", EVENT_COLUMNS, geo=False)
    return RunFiles(
        trajectories.to_crs(WGS84),
        pd.DataFrame(events),
        _read_json(path / "summary.json"),
        _read_json(path / "scenario.json"),
    )


def _read_json(path: Path) -> dict[str, Any]:
    """A JSON object file, or an empty dict if the run wrote none."""
    if not path.is_file():
        return {}
    try:
        return dict(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, TypeError) as bad:
        raise RefugeError(f"not a JSON object: {bad}", source=str(path)) from bad


def _read_table(path: Path, columns: tuple[str, ...], *, geo: bool) -> pd.DataFrame:
    if not path.is_file():
        raise RefugeError("run file not found", source=str(path))
    try:
        table = gpd.read_parquet(path) if geo else pd.read_parquet(path)
    except (OSError, ValueError) as bad:
        raise RefugeError(f"cannot read the table: {bad}", source=str(path)) from bad
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise RefugeError("missing columns", source=str(path), value=missing)
    return table


def add_run_layers(fmap: folium.Map, run: RunFiles) -> list[tuple[str, str, str]]:
    """Add the run to `fmap`: tracks on a time slider, an events layer, a trees layer.

    Returns
    -------
    list
        Legend entries (swatch, colour, label) for what was drawn.
    """
    times = run.trajectories["t"]
    TimeSlider(
        list(_track_features(run.trajectories, origin=times.min())),
        times,
        period=_iso_duration(_step_seconds(times)),
        name="Tracks (time slider)",
    ).add_to(fmap)
    _event_layer(run.events).add_to(fmap)
    entries = [
        ("line", role_color(role), f"track of the {role}")
        for role in sorted(run.trajectories["role"].unique())
    ]
    entries += [
        ("dot", event_color(kind), str(kind).replace("_", " "))
        for kind in sorted(run.events["kind"].unique())
    ]
    trees = run.summary.get("trees") or []
    if trees:
        _tree_layer(trees).add_to(fmap)
        entries.append(("dot", TREE, "tree (trunk and boughs)"))
    return entries


def _track_features(
    trajectories: gpd.GeoDataFrame, *, origin: pd.Timestamp
) -> Iterator[dict[str, Any]]:
    """One timestamped LineString per agent, styled by role; its last point marks the agent."""
    for agent_id, track in trajectories.sort_values("t").groupby("agent_id", sort=True):
        first = track.iloc[0]
        color = role_color(str(first["role"]))
        popup = popup_table(
            f"{first['role']} {agent_id}",
            [
                ("incident", first["incident"]),
                ("run", first["run_id"]),
                ("seed", first["seed"]),
                ("start", track["t"].iloc[0]),
                ("end", track["t"].iloc[-1]),
                ("reached", _last_city(track)),
                ("captured", "yes" if track["captured"].any() else "no"),
            ],
        )
        yield {
            "type": "Feature",
            "geometry": {
                "type": "LineString",
                "coordinates": _lonlat(track.geometry),
            },
            "properties": {
                "times": slider_times(track["t"], origin=origin),
                "style": {"color": color, "weight": 3, "opacity": 0.8, "className": "refuge-track"},
                "head": {
                    "radius": 6,
                    "color": "#fff",
                    "weight": 1,
                    "fillColor": color,
                    "fillOpacity": 1,
                    "className": f"refuge-agent refuge-{esc(first['role'])}",
                },
                "popup": popup,
                "tooltip": esc(f"{first['role']} {agent_id}"),
            },
        }


def _lonlat(points: gpd.GeoSeries) -> list[list[float]]:
    """[lon, lat] of each point, to 1e-5 degree (about a metre): enough for the eye."""
    return np.round(shapely.get_coordinates(points.to_numpy()), 5).tolist()


def _last_city(track: pd.DataFrame) -> str:
    cities = track.loc[track["city"].astype(str) != "", "city"]
    return str(cities.iloc[-1]) if len(cities) else ""


def _event_layer(events: pd.DataFrame) -> folium.FeatureGroup:
    """Every event as a marker whose popup says what happened and cites the rule.

    More than `SHOWN_EVENTS` events would hide the map: the layer then starts switched off.
    """
    layer = folium.FeatureGroup(name="Events", control=True, show=len(events) <= SHOWN_EVENTS)
    for event in events.sort_values("t").itertuples(index=False):
        popup = popup_table(
            str(event.kind).replace("_", " "),
            [
                ("time", event.t),
                ("incident", event.incident),
                ("agent", event.agent_id),
                ("city", event.city),
                ("rule", event.rule),
                ("source", event.citation),
            ],
        )
        folium.CircleMarker(
            [event.lat, event.lon],
            radius=5,
            color="#000",
            weight=1,
            fill=True,
            fill_color=event_color(str(event.kind)),
            fill_opacity=0.9,
            class_name="refuge-event",
            popup=folium.Popup(popup, max_width=380),
            tooltip=esc(str(event.kind).replace("_", " ")),
        ).add_to(layer)
    return layer


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
            folium.CircleMarker(
                [lat, lon],
                radius=radius,
                color=TREE,
                fill=True,
                fill_opacity=0.7,
                class_name="refuge-tree",
                popup=folium.Popup(popup, max_width=320),
            ).add_to(layer)
    return layer


def _step_seconds(times: pd.Series) -> int:
    """The run's time step: the smallest gap between distinct times (1 h if only one)."""
    gaps = pd.Series(sorted(times.unique())).diff().dropna()
    return max(1, int(gaps.min().total_seconds())) if len(gaps) else 3600


def _iso_duration(seconds: int) -> str:
    """``5400`` -> ``"PT1H30M"`` (an ISO 8601 duration for the time slider's period)."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{v}{u}" for v, u in ((hours, "H"), (minutes, "M"), (secs, "S")) if v]
    return "PT" + "".join(parts)
