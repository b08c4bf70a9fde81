"""A simulation run on the map: its files read back, tracks on a time slider, events, trees."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import folium
import numpy as np
import pandas as pd
import pyarrow.parquet as pq
from pyproj import CRS, Transformer
from pyproj.exceptions import CRSError

from geo import WGS84
from refuge_map._cells import as_float, as_int
from refuge_map.errors import RefugeError
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
    EVENT_CATEGORIES,
    TREE,
    category_color,
    category_label,
    event_category,
    role_color,
)
from refuge_map.simulation.io import read_tracks
from refuge_map.simulation.run import EVENT_COLUMNS, TRACK_COLUMNS

#: The page opens on the tracks of this many incidents (the first by number); a picker
#: follows any other, or all.
FOLLOWED_INCIDENTS = 5
#: The time slider shows each agent at most once per this many seconds (display only: the
#: run's files keep every point).
DISPLAY_EVERY_S = 600

#: A run's table as its reader gives it.
Table = TypeVar("Table", bound=pd.DataFrame)


@dataclass
class RunFiles:
    """What a simulation run wrote (`refuge_map.simulation.write_run`), as the renderer reads
    it: the renderer never computes results.

    Attributes
    ----------
    trajectories
        One row per agent and time step (`TRACK_COLUMNS`), his WGS84 point in ``lon`` and
        ``lat`` (as `refuge_map.simulation.Run` holds it: no geometry object per row).
    events
        One row per event (`EVENT_COLUMNS`): arrivals, captures, deterrence, trials...
    summary
        The run's ``summary.json`` (empty if the run wrote none); a ``trees`` list, if present,
        gives the trees of the scenario (``trunk`` and ``bough`` as ``[lon, lat]``).
    scenario
        The run's ``scenario.json`` (empty if the run wrote none): its name and description.
    """

    trajectories: pd.DataFrame
    events: pd.DataFrame
    summary: dict[str, Any] = field(default_factory=dict)
    scenario: dict[str, Any] = field(default_factory=dict)

    @property
    def flight(self) -> pd.DataFrame:
        """The trajectory rows of the flight and pursuit: up to the scenario's horizon.

        The exile's rows follow (one at each of his events, over years, so that joining them
        draws straight lines across the land); without ``horizon_h`` and ``dt_s`` in the
        scenario every row counts as the flight's.
        """
        horizon_h, dt_s = self.scenario.get("horizon_h"), self.scenario.get("dt_s")
        if horizon_h is None or dt_s is None:
            return self.trajectories
        last_step = math.ceil(float(horizon_h) * 3600.0 / float(dt_s) - 1e-9)
        return self.trajectories[self.trajectories["step"] <= last_step]

    def event_groups(self) -> list[tuple[str, pd.DataFrame]]:
        """The events by category (`EVENT_CATEGORIES`), in legend order, empty ones left out."""
        category = self.events["kind"].astype(str).map(event_category)
        return [
            (name, self.events[category == name])
            for name in EVENT_CATEGORIES
            if (category == name).any()
        ]

    def killings(self) -> pd.Series:
        """Per incident, when its first row of the flight is, in seconds since the killing
        (0, or less than a step when the killing fell between steps): the slider's zero."""
        return self.flight.groupby("incident")["since_killing_s"].min()

    @property
    def run_id(self) -> str:
        """The run's id (the first of the table's, if it holds several)."""
        ids = self.trajectories["run_id"]
        return str(self.summary.get("run_id") or (ids.iloc[0] if len(ids) else ""))


def read_run_files(folder: str | os.PathLike[str]) -> RunFiles:
    """Read a run folder: ``trajectories.parquet``, ``events.parquet`` and, if present,
    ``summary.json`` and ``scenario.json``.

    Parameters
    ----------
    folder
        A folder that `refuge run` wrote.

    Returns
    -------
    RunFiles
        The tables and, where present, the summary and scenario.

    Raises
    ------
    RefugeError
        If the folder or a table is missing, unreadable, or lacks columns (all missing
        columns named at once), or the run has no trajectory rows.
    """
    path = Path(folder)
    if not path.is_dir():
        raise RefugeError("run folder not found", source=str(path))
    trajectories = _read_table(path / "trajectories.parquet", TRACK_COLUMNS, _read_tracks)
    if trajectories.empty:
        raise RefugeError("the run has no trajectory rows", source=str(path))
    events = _read_table(path / "events.parquet", EVENT_COLUMNS, pd.read_parquet)
    summary = _read_json(path / "summary.json")
    _check_trees(summary.get("trees") or [], source=str(path / "summary.json"))
    return RunFiles(
        trajectories,
        pd.DataFrame(events),
        summary,
        _read_json(path / "scenario.json"),
    )


def _check_trees(trees: Any, *, source: str) -> None:
    """Refuse a ``trees`` entry whose trunk or bough is not ``[lon, lat]`` of finite numbers."""
    if not isinstance(trees, list):
        raise RefugeError("not a list of trees", source=source, field="trees")
    for i, tree in enumerate(trees):
        for part in ("trunk", "bough"):
            place = tree.get(part) if isinstance(tree, dict) else None
            ok = (
                isinstance(place, list)
                and len(place) == 2
                and all(isinstance(v, int | float) and math.isfinite(v) for v in place)
            )
            if not ok:
                raise RefugeError(
                    "expected [lon, lat] of finite numbers",
                    source=source,
                    field=f"trees[{i}].{part}",
                    value=place,
                )


def _read_json(path: Path) -> dict[str, Any]:
    """A JSON object file, or an empty dict if the run wrote none."""
    if not path.is_file():
        return {}
    try:
        return dict(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, TypeError) as bad:
        raise RefugeError(f"not a JSON object: {bad}", source=str(path)) from bad


def _read_tracks(path: Path) -> pd.DataFrame:
    """The rows of a ``trajectories.parquet`` (`read_tracks`), their points in WGS84
    (reprojected from the file's CRS, if another tool wrote it in another).

    Raises
    ------
    ValueError
        If the file is no GeoParquet (no ``geo`` metadata), has no ``geometry`` column, or
        names a CRS pyproj does not know.
    """
    schema = pq.read_schema(path)
    geo = json.loads((schema.metadata or {}).get(b"geo", b"null"))
    if not isinstance(geo, dict):
        raise ValueError("no GeoParquet metadata ('geo')")
    if "geometry" not in schema.names:
        raise ValueError("no 'geometry' column")
    tracks = read_tracks(path)
    crs = geo.get("columns", {}).get("geometry", {}).get("crs")
    try:
        written_in = WGS84 if crs is None else CRS.from_user_input(crs)
    except CRSError as unknown:
        raise ValueError(f"unknown CRS of the geometry: {unknown}") from unknown
    if written_in == WGS84:
        return tracks
    to_wgs84 = Transformer.from_crs(written_in, WGS84, always_xy=True)
    lon, lat = to_wgs84.transform(tracks["lon"].to_numpy(), tracks["lat"].to_numpy())
    return tracks.assign(lon=lon, lat=lat)


def _read_table(path: Path, columns: tuple[str, ...], read: Callable[[Path], Table]) -> Table:
    if not path.is_file():
        raise RefugeError("run file not found", source=str(path))
    try:
        table = read(path)
    except (OSError, ValueError) as bad:
        raise RefugeError(f"cannot read the table: {bad}", source=str(path)) from bad
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise RefugeError("missing columns", source=str(path), value=missing)
    return table


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
