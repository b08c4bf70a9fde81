"""Write a run's files atomically (events, trajectories, lines, summary) and read them back."""

from __future__ import annotations

import io
import json
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import shapely

from geo import WGS84
from refuge_map._aside import aside
from refuge_map._atomic import atomic_dir, atomic_file, remove_stale
from refuge_map.io import gdal_writing, gpkg_settings
from refuge_map.simulation.run import Run
from refuge_map.simulation.scenario import Scenario

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

#: The files of a run folder.
RUN_FILES = (
    "events.parquet",
    "trajectories.parquet",
    "trajectories.gpkg",
    "summary.json",
    "scenario.json",
)
#: The exile's tables (Simulation II), written when the run has them: one row per manslayer,
#: the rent ledger (Mishnah Makkot 2:8), the priests and the years in the city.
EXILE_FILES = ("manslayers.parquet", "ledger.parquet", "priests.parquet", "residence.parquet")
#: One row per replication (its seed and headline outcomes), written by `replicate`'s runs.
REPLICATIONS_FILE = "replications.parquet"


def write_run(run: Run, out_dir: str | Path, *, split: bool | None = None) -> list[Path]:
    """Write `RUN_FILES` into `out_dir`, replacing it whole, atomically.

    ``events.parquet`` (the events table), ``trajectories.parquet`` (GeoParquet points, one row
    per agent and time), ``trajectories.gpkg`` (layer ``lines``: one LineString per agent, for
    QGIS), ``summary.json`` and ``scenario.json`` (the validated scenario, for `read_run`);
    with an exile, `EXILE_FILES` too; with replications (`replicate`), `REPLICATIONS_FILE`.

    Parameters
    ----------
    run
        The run to write.
    out_dir
        The folder: created, or replaced whole if it is empty or refuge-map wrote it.
    split
        Write ``trajectories.gpkg`` in a forked child (`refuge_map._aside.aside`: about
        half of the writing) while this process writes the others: True wherever a child
        can be forked; False never; None (default) where moreover a core is spare. The
        files are the same bytes either way.

    Returns
    -------
    list of Path
        The files written. On any failure nothing of `out_dir` is changed.

    Raises
    ------
    RefugeError
        If `out_dir` holds files refuge-map did not write (nothing is written then).
    """
    target = Path(out_dir)
    with atomic_dir(target) as tmp:
        write_run_files(run, tmp, target, split=split)
        return finish_run(run, tmp, target)


def write_run_files(run: Run, folder: Path, shown: Path, *, split: bool | None = None) -> None:
    """Write into `folder` (`write_run`'s temporary one) the files of the run itself, which
    its replications do not change: all of `write_run`'s but those `finish_run` writes.
    (`refuge run` writes them while a child still lives the last replications:
    `model.replicate`'s ``beside``.)

    Parameters
    ----------
    run
        The run (its replications' rows need not be in yet).
    folder
        Where to write.
    shown
        The run's folder as the user named it, for the errors.
    split
        As for `write_run`.
    """
    with aside(partial(_write_lines, run, folder, shown), spare=split) as lines:
        # the GeoPackage in a child (`split`), the rest meanwhile here: each takes about half
        # of the writing (GDAL's writer there, Arrow's here)
        write_parquet(run.events, folder / "events.parquet")
        write_parquet(run.tracks, folder / "trajectories.parquet", points=("lon", "lat"))
        (folder / "scenario.json").write_text(scenario_json(run))
        for name in _exile_files(run):
            write_table(getattr(run, name.removesuffix(".parquet")), folder / name)
        lines.result()


def finish_run(run: Run, folder: Path, shown: Path) -> list[Path]:
    """Write into `folder` the files that `write_run_files` leaves to the end: the summary
    (with its replications' block) and, with replications, `REPLICATIONS_FILE`.

    Returns
    -------
    list of Path
        Every file of the run, under `shown` (as `write_run` returns them).
    """
    (folder / "summary.json").write_text(summary_json(run), encoding="utf-8")
    extra = _exile_files(run)
    if run.replications is not None:
        write_table(run.replications, folder / REPLICATIONS_FILE)
        extra += (REPLICATIONS_FILE,)
    return [shown / name for name in (*RUN_FILES, *extra)]


def _exile_files(run: Run) -> tuple[str, ...]:
    """`EXILE_FILES` where the run has an exile, else none."""
    return EXILE_FILES if run.ledger is not None else ()


def summary_json(run: Run) -> str:
    """The text of the run's ``summary.json``."""
    return json.dumps(run.summary, indent=2, sort_keys=True) + "\n"


def scenario_json(run: Run) -> str:
    """The text of the run's ``scenario.json`` (the validated scenario)."""
    return run.scenario.model_dump_json(indent=2) + "\n"


def _write_lines(run: Run, folder: Path, shown: Path) -> None:
    """Write the run's ``trajectories.gpkg`` (layer ``lines``, `Run.lines`) into `folder`, by
    a temporary file (`write_run`'s child's share: where a child was killed, its work is done
    again here, and what it left is removed first); a failed write names the file in `shown`,
    the run's folder."""
    remove_stale(folder, ".trajectories.*")
    name = "trajectories.gpkg"
    with gpkg_settings(), atomic_file(folder / name) as part, gdal_writing(shown / name):
        # through Arrow: the same file, without a Python call per value
        run.lines().to_file(part, layer="lines", driver="GPKG", engine="pyogrio", use_arrow=True)


def write_table(frame: pd.DataFrame, path: Path) -> None:
    """Write `frame` as ``frame.to_parquet(path, index=False)`` does (a frame without
    ``attrs``), the same file, its columns converted in this thread: pandas lets pyarrow start
    a pool of threads for each table, which costs a run's small tables more than it saves."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, preserve_index=False, nthreads=1)
    pq.write_table(table, path, compression="snappy")


def write_parquet(
    frame: pd.DataFrame, path: Path, *, points: tuple[str, str] | None = None
) -> None:
    """Write `frame` as ``frame.to_parquet(path, index=False)`` would with its categorical
    columns as text, the same file byte for byte, built column by column: no text or geometry
    object per row.

    With `points` (the names of its WGS84 longitude and latitude columns), the file is the
    GeoParquet that geopandas writes for the frame without them and their Points in a
    ``geometry`` column (WKB, EPSG:4326) in the place of the longitude column.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = frame.drop(columns=list(points or ()))
    text = _categorical(columns)
    at = len(columns.columns) if points is None else _place(frame, points)
    schema = _schema(columns, text, None if points is None else frame[list(points)], at)
    # a row group at a time (the groups `pyarrow.parquet.write_table` makes): the texts of one
    # group only are ever spelled out row by row
    # the system allocator returns a row group's buffers once written (pyarrow's default pool
    # keeps them): the peak of a large run is one group's texts, not the file's
    pool = pa.system_memory_pool()
    with pq.ParquetWriter(path, schema, compression="snappy", memory_pool=pool) as writer:
        for start in range(0, len(frame), ROW_GROUP) or [0]:
            rows = slice(start, start + ROW_GROUP)
            table = _table(frame.iloc[rows], columns.iloc[rows], text, schema, points, at, pool)
            writer.write_table(table)
            del table


#: Rows per row group: pyarrow's default (`pyarrow.parquet.write_table`'s groups).
ROW_GROUP = 1024 * 1024


def _table(
    frame: pd.DataFrame,
    columns: pd.DataFrame,
    text: list[str],
    schema: pa.Schema,
    points: tuple[str, str] | None,
    at: int,
    pool: pa.MemoryPool,
) -> pa.Table:
    """The Arrow table `write_parquet` writes of `frame` (`columns`: its columns but the
    `points`, whose geometry goes in at column `at`; `text`: the categorical ones), with
    `schema`, its texts and points in `pool`."""
    import pyarrow as pa

    arrays = [text_array(columns[name], pool) if name in text else None for name in columns.columns]
    plain = pa.Table.from_pandas(columns.drop(columns=text), preserve_index=False, nthreads=1)
    arrays = [
        _one_chunk(plain.column(name)) if array is None else array
        for name, array in zip(columns.columns, arrays, strict=True)
    ]
    if points is not None:
        arrays.insert(at, _wkb_points(frame[points[0]].to_numpy(), frame[points[1]].to_numpy()))
    return pa.Table.from_arrays(arrays, schema=schema)


def _one_chunk(column: pa.ChunkedArray) -> pa.Array:
    """A column as one array: its only chunk as it is (numbers from numpy are not copied)."""
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


def _categorical(frame: pd.DataFrame) -> list[str]:
    import pandas as pd

    return [name for name in frame.columns if isinstance(frame[name].dtype, pd.CategoricalDtype)]


def _place(frame: pd.DataFrame, points: tuple[str, str]) -> int:
    """Where the ``geometry`` column goes among the columns of `frame` without `points`: in
    the place of the longitude column."""
    before = list(frame.columns[: frame.columns.get_loc(points[0])])
    return len([name for name in before if name not in points])


def _schema(
    columns: pd.DataFrame, text: list[str], lonlat: pd.DataFrame | None, at: int
) -> pa.Schema:
    """The schema (and its pandas and geo metadata) pandas, or geopandas with `lonlat`, gives
    the file of `columns`: read from the file they write for a stub of two rows (the corners of
    the points' bounds, for the GeoParquet ``bbox``) with the `text` columns as strings and the
    ``geometry`` column at place `at`."""
    import geopandas as gpd
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [0, 0] if len(columns) else []
    stub = pd.DataFrame(
        {
            name: pd.Series([str(columns[name].iloc[k]) for k in rows], dtype="str")
            if name in text
            else columns[name].iloc[rows].reset_index(drop=True)
            for name in columns.columns
        }
    )
    buffer = io.BytesIO()
    if lonlat is None:
        stub.to_parquet(buffer, index=False)
    else:
        lon, lat = (lonlat.iloc[:, k].to_numpy() for k in (0, 1))
        corners = ([lon.min(), lon.max()], [lat.min(), lat.max()]) if len(lon) else ([], [])
        stub = gpd.GeoDataFrame(stub, geometry=shapely.points(*corners), crs=WGS84)
        order = [*columns.columns[:at], "geometry", *columns.columns[at:]]
        stub[order].to_parquet(buffer, index=False)
    return pq.read_schema(pa.BufferReader(buffer.getvalue()))


def text_array(column: pd.Series, pool: pa.MemoryPool) -> pa.Array:
    """A categorical column as the text pandas writes for its strings (``large_string``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    categories = pa.Array.from_pandas(column.cat.categories).cast(pa.large_string())
    return pc.take(categories, pa.array(column.cat.codes.to_numpy()), memory_pool=pool)


#: A 2D Point in ISO WKB: byte order (1: little endian), geometry type (1: Point), x, y.
_WKB_POINT = np.dtype([("order", "u1"), ("type", "<u4"), ("x", "<f8"), ("y", "<f8")])


def _wkb_points(x: np.ndarray, y: np.ndarray) -> pa.Array:
    """Points as the WKB array geopandas writes (``shapely.to_wkb``), built by numpy."""
    import pyarrow as pa

    records = np.empty(len(x), dtype=_WKB_POINT)
    records["order"], records["type"], records["x"], records["y"] = 1, 1, x, y
    offsets = np.arange(len(x) + 1, dtype=np.int32) * _WKB_POINT.itemsize
    return pa.Array.from_buffers(
        pa.binary(), len(x), [None, pa.py_buffer(offsets), pa.py_buffer(records.tobytes())]
    )


def read_run(out_dir: str | Path) -> Run:
    """Read a run folder written by `write_run`.

    Parameters
    ----------
    out_dir
        The folder `write_run` wrote.

    Returns
    -------
    Run
        The run as written (its scenario validated again).

    Raises
    ------
    FileNotFoundError
        If a file of `RUN_FILES` is missing.
    """
    import pandas as pd

    folder = Path(out_dir)
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    scenario = Scenario.model_validate_json((folder / "scenario.json").read_text())
    return Run(
        scenario=scenario,
        seed=int(summary["seed"]),
        run_id=str(summary["run_id"]),
        events=pd.read_parquet(folder / "events.parquet"),
        tracks=read_tracks(folder / "trajectories.parquet"),
        summary=summary,
        opinions=summary["opinions"],
        **{
            name.removesuffix(".parquet"): pd.read_parquet(folder / name)
            for name in (*EXILE_FILES, REPLICATIONS_FILE)
            if (folder / name).exists()
        },
    )


def _lon_lat(wkb: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """The x and y of a WKB array of points: read by numpy where every value is a 2D point in
    little-endian ISO WKB (as `_wkb_points` and geopandas write them), else by shapely (another
    tool may write big-endian WKB, nulls or other geometries: NaN where a value is no point)."""
    n = len(wkb)
    offsets = np.frombuffer(wkb.buffers()[1], dtype=np.int32, count=n + 1, offset=4 * wkb.offset)
    if wkb.null_count == 0 and np.all(np.diff(offsets) == _WKB_POINT.itemsize):
        start = int(offsets[0]) if n else 0
        records = np.frombuffer(wkb.buffers()[2], _WKB_POINT, count=n, offset=start)
        if np.all(records["order"] == 1) and np.all(records["type"] == 1):
            return records["x"].copy(), records["y"].copy()
    points = shapely.from_wkb(wkb.to_numpy(zero_copy_only=False))
    return shapely.get_x(points), shapely.get_y(points)


def read_tracks(path: Path) -> pd.DataFrame:
    """The rows of a ``trajectories.parquet`` as `Run.tracks` holds them: its columns, then the
    points' ``lon`` and ``lat`` (read from the WKB without a geometry object per row)."""
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    frame = table.drop_columns(["geometry"]).to_pandas()
    lon, lat = _lon_lat(table.column("geometry").combine_chunks())
    return frame.assign(lon=lon, lat=lat)
