"""A simulation run's files read back for drawing (`read_run_files`), or made as they would
read from the run in memory (`run_files_of`), for the HTML map and the PNG alike: nothing here
draws, so that a picture loads no map library, and the simulation is imported only when a run
is read."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from pyproj import CRS, Transformer
from pyproj.exceptions import CRSError

from geo import WGS84
from refuge_map.errors import RefugeError
from refuge_map.render._style import EVENT_CATEGORIES, event_category

if TYPE_CHECKING:
    from refuge_map.simulation.run import Run

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
    from refuge_map.simulation.run import EVENT_COLUMNS, TRACK_COLUMNS  # a run's, read now

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


def run_files_of(run: Run) -> RunFiles:
    """What `read_run_files` reads back of the folder that `write_run` writes of `run`, made
    from the run in memory: its tables with their categorical columns as the text the reader
    gives, the summary and the scenario as their files' JSON (a test holds the two equal).
    `refuge demo` hands its drawing children the run so, to draw while it writes the files."""
    from refuge_map.simulation.io import scenario_json, summary_json

    return RunFiles(
        _as_read(run.tracks),
        _as_read(run.events),
        json.loads(summary_json(run)),
        json.loads(scenario_json(run)),
    )


def _as_read(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with its categorical columns as the text a Parquet file of it reads back."""
    from refuge_map.simulation.io import text_array

    pool = pa.default_memory_pool()
    text = {
        str(name): pd.Series(pd.array(text_array(column, pool), dtype="str"), index=frame.index)
        for name, column in frame.items()
        if isinstance(column.dtype, pd.CategoricalDtype)
    }
    return frame.assign(**text)


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
    from refuge_map.simulation.io import read_tracks

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
