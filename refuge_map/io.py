"""Write the network's layers and tables to files, atomically."""

from __future__ import annotations

import errno
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from refuge_map._atomic import atomic_dir, atomic_file, check_file_target, check_folder_target
from refuge_map.errors import RefugeError

if TYPE_CHECKING:
    import geopandas as gpd

LAYER_SUFFIXES = (".gpkg", ".geojson")
#: The name ending of a Linked Places Format file (`write_lpf`).
LPF_SUFFIX = ".lpf.json"

#: GeoPackages record a "last change" time; it is pinned so that the same inputs give
#: byte-identical files.
_GPKG_DATE = "2000-01-01T00:00:00.000Z"
#: GDAL's settings while a GeoPackage is written: the pinned date, and SQLite without its
#: fsync at every commit (a GeoPackage of a dozen layers commits dozens of times: 0.6-1.2 s of
#: waiting on the disk in `refuge demo`, for the same bytes). A reader still never sees a
#: half-written file: every GeoPackage is written to a temporary name and renamed whole
#: (`refuge_map._atomic`), as the package's other files are (none of them fsynced but a
#: sweep's manifest, whose appended lines are what a resumed sweep trusts).
_GPKG_CONFIG = {"OGR_CURRENT_DATE": _GPKG_DATE, "OGR_SQLITE_SYNCHRONOUS": "OFF"}


@contextmanager
def gpkg_settings() -> Iterator[None]:
    """Within the block, GeoPackages are written with the fixed date `_GPKG_DATE` (and without
    SQLite's fsyncs: `_GPKG_CONFIG`)."""
    import pyogrio  # GDAL: loaded by the writers only (30-40 ms of a command's start)

    before = {name: pyogrio.get_gdal_config_option(name) for name in _GPKG_CONFIG}
    pyogrio.set_gdal_config_options(_GPKG_CONFIG)
    try:
        yield
    finally:
        pyogrio.set_gdal_config_options(before)


#: Free space below which a failed GDAL write is taken for a full disk (its SQLite then reports
#: a failed statement, not the system's "no space" error).
_FULL_DISK_BYTES = 1 << 20


@contextmanager
def gdal_writing(target: Path) -> Iterator[None]:
    """Within the block, a write GDAL fails (pyogrio's `DataSourceError` or `DataLayerError`) is
    an `OSError` naming `target`: "No space left on device" where its disk is full, else GDAL's
    first line, so that the command says it in one line (exit 2) as it does any refused write.
    """
    from pyogrio.errors import DataLayerError, DataSourceError

    try:
        yield
    except (DataSourceError, DataLayerError) as failed:
        raise _refused(target, failed) from failed


def _refused(target: Path, failed: Exception) -> OSError:
    """The `OSError` of a failed GDAL write of `target` (see `gdal_writing`)."""
    try:
        full = shutil.disk_usage(target.parent).free < _FULL_DISK_BYTES
    except OSError:
        full = False
    if full:
        return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(target))
    said = str(failed).splitlines()[0] if str(failed) else type(failed).__name__
    return OSError(errno.EIO, f"GDAL could not write it ({said})", str(target))


def output_path(out: str | Path, suffixes: tuple[str, ...]) -> Path:
    """`out` as a Path, if its suffix is one of `suffixes`.

    Raises
    ------
    RefugeError
        Naming ``--out``, the value and the valid suffixes, for any other suffix.
    """
    target = Path(out)
    if target.suffix not in suffixes:
        raise RefugeError(
            f"unsupported output format; use one of {suffixes}", source="--out", value=str(out)
        )
    return target


def check_layers_output(out: str | Path) -> Path:
    """`out` as a Path, if the layers may be written there (see `write_layers`).

    Raises
    ------
    RefugeError
        For an unsupported suffix, a ``.gpkg`` that is an existing folder, or a ``.geojson``
        whose folder holds files refuge-map did not write.
    """
    target = output_path(out, LAYER_SUFFIXES)
    if target.suffix == ".gpkg":
        return check_file_target(target)
    check_folder_target(target.with_suffix(""))
    return target


def write_layers(layers: dict[str, gpd.GeoDataFrame], out: str | Path) -> list[Path]:
    """Write every layer: one GeoPackage with a layer each, or one GeoJSON file per layer.

    Parameters
    ----------
    layers
        WGS84 GeoDataFrames by layer name.
    out
        ``NAME.gpkg``, or ``NAME.geojson``: then a folder ``NAME/`` beside it receives one
        ``LAYER.geojson`` per layer.

    Returns
    -------
    list of Path
        The files written.

    Raises
    ------
    RefugeError
        For an unsupported suffix, or a target it may not replace (see `check_layers_output`).
        Nothing is written unless every layer is.

    Notes
    -----
    Every layer is WGS84 (EPSG:4326). Lists are JSON text in both formats (GeoJSON strings are
    not turned into JSON arrays). The GeoPackage holds each layer's QGIS style in its
    ``layer_styles`` table; the GeoJSON folder has a ``LAYER.qml`` beside each layer, which QGIS
    loads with it. GeoJSON has no field types, so a number field no feature fills would read
    back as text: such fields are left out of the GeoJSON files.
    """
    # imported here: the render package (folium) stays out of the run's import chain, which
    # imports this module (refuge_map.simulation.io -> gpkg_settings)
    import pyogrio

    from refuge_map.render.qgis import layer_qml, layer_styles

    target = check_layers_output(out)
    qml = layer_qml()
    if target.suffix == ".gpkg":
        with atomic_file(target) as tmp, gpkg_settings(), gdal_writing(target):
            for name, frame in layers.items():
                frame.to_file(tmp, layer=name, driver="GPKG", engine="pyogrio")
            styles = layer_styles(layers, updated=_GPKG_DATE)
            pyogrio.write_dataframe(
                styles,
                tmp,
                layer="layer_styles",
                driver="GPKG",
                append=True,
                layer_options={"FID": "id"},
            )
        return [target]
    folder = target.with_suffix("")
    with atomic_dir(folder) as tmp, gdal_writing(folder):
        for name, frame in layers.items():
            _typed_columns(frame).to_file(
                tmp / f"{name}.geojson",
                driver="GeoJSON",
                engine="pyogrio",
                layer_options={"AUTODETECT_JSON_STRINGS": "NO"},
            )
            if name in qml:
                (tmp / f"{name}.qml").write_text(qml[name], encoding="utf-8")
    return sorted(folder.glob("*.geojson"))


def _typed_columns(frame: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    """`frame` without the non-text fields that hold no value at all (GeoJSON cannot type them)."""
    import pandas as pd

    empty = [
        column
        for column in frame.columns
        if column != frame.geometry.name
        and not pd.api.types.is_string_dtype(frame[column])
        and frame[column].isna().all()
    ]
    return frame.drop(columns=empty)


def write_lpf(collection: dict[str, Any], out: str | Path) -> list[Path]:
    """Write a Linked Places Format collection (`geo.lpf.places_lpf`) as UTF-8 JSON.

    Returns
    -------
    list of Path
        The file written (whole, or not at all).
    """
    target = Path(out)
    text = json.dumps(collection, ensure_ascii=False, indent=1) + "\n"
    with atomic_file(target) as tmp:
        Path(tmp).write_text(text, encoding="utf-8")
    return [target]
