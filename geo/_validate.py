"""Read a vector data file and gather every problem in it into one error message."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import shapely

from geo._errors import DataFileError
from geo.crs import REGION_BOUNDS_LONLAT, WGS84

if TYPE_CHECKING:
    import geopandas as gpd

MAX_LISTED = 3  # problems of one kind listed by row before "and N more"


def read_layer(
    path: str | Path, fields: Sequence[str], *, geom_types: Sequence[str]
) -> gpd.GeoDataFrame:
    """Read a WGS84 vector file and check fields, geometries, CRS and region.

    A GeoJSON file read before with the same bytes is not read again in this process (the
    scenario's place names and the network both read the gazetteer and the roads): its checked
    layer is given again, as a copy.

    Parameters
    ----------
    path
        A file GDAL reads (GeoJSON, GeoPackage, ...).
    fields
        Columns every feature must have, non-null.
    geom_types
        Allowed geometry types.

    Returns
    -------
    GeoDataFrame
        The features, in EPSG:4326.

    Raises
    ------
    DataFileError
        Naming the file and every problem: unreadable file, missing CRS or one that is not
        WGS84, missing fields or values, empty, invalid or wrongly typed geometries, and
        coordinates outside the region (with a hint when longitude and latitude look swapped).
    """
    source, checks = str(path), (tuple(fields), tuple(geom_types))
    digest = _digest(path)
    if digest is None:  # a file of several (a shapefile's), or one unreadable: no cache
        return _checked_layer.__wrapped__(source, *checks, digest)
    return _checked_layer(source, *checks, digest).copy()


def _digest(path: str | Path) -> bytes | None:
    """A digest of a GeoJSON file's bytes; None for another kind of file, or one unreadable."""
    if Path(path).suffix.lower() not in (".geojson", ".json"):
        return None
    try:
        return hashlib.blake2b(Path(path).read_bytes(), digest_size=16).digest()
    except OSError:
        return None


@lru_cache(maxsize=16)
def _checked_layer(
    source: str, fields: tuple[str, ...], geom_types: tuple[str, ...], digest: bytes | None
) -> gpd.GeoDataFrame:
    """`read_layer` of the file `source` whose bytes have `digest` (a key only)."""
    import geopandas as gpd

    try:
        # through Arrow: the same frame as pyogrio's default reader gives, built faster
        layer = gpd.read_file(source, engine="pyogrio", use_arrow=True)
    except Exception as err:  # pyogrio raises several types; all mean "cannot read this file"
        raise DataFileError(
            f"cannot read the file ({str(err).splitlines()[0]})", source=source
        ) from None
    if layer.crs is None:
        raise DataFileError("no CRS; expected WGS84 (EPSG:4326)", source=source, field="crs")
    if not layer.crs.equals(WGS84) and layer.crs.to_epsg() != 4326:
        raise DataFileError(
            "wrong CRS; expected WGS84 (EPSG:4326)",
            source=source,
            field="crs",
            value=layer.crs.to_string(),
        )
    problems = _field_problems(layer, fields) + _geometry_problems(layer, geom_types)
    if problems:
        raise DataFileError(f"{len(problems)} problem(s): " + "; ".join(problems), source=source)
    return layer


def _rows(mask: np.ndarray, layer: gpd.GeoDataFrame) -> str:
    """Name the first offending features (by id where there is one) and count the rest."""
    ids = layer.get("id", layer.index)
    bad = list(ids[mask])
    more = f" and {len(bad) - MAX_LISTED} more" if len(bad) > MAX_LISTED else ""
    return ", ".join(repr(b) for b in bad[:MAX_LISTED]) + more


def _field_problems(layer: gpd.GeoDataFrame, fields: Sequence[str]) -> list[str]:
    import pandas as pd

    problems = []
    for field in fields:
        if field not in layer:
            problems.append(f"field {field!r}: missing")
        else:
            values = layer[field].to_numpy(dtype=object)
            # a blank string is no value either (one pass over the cells, not three over the
            # column: pandas' string methods cost more than a layer's few hundred cells)
            blank = np.array([not str(value).strip() for value in values], dtype=bool)
            empty = pd.isna(values) | blank
            if empty.any():
                problems.append(f"field {field!r}: no value in {_rows(empty, layer)}")
    return problems


def _geometry_problems(layer: gpd.GeoDataFrame, geom_types: Sequence[str]) -> list[str]:
    geoms = layer.geometry.to_numpy()
    missing = shapely.is_missing(geoms) | shapely.is_empty(geoms)
    if missing.any():
        return [f"field 'geometry': empty or missing in {_rows(missing, layer)}"]
    problems = []
    wrong = ~np.isin(shapely.get_type_id(geoms), [_TYPE_IDS[t] for t in geom_types])
    if wrong.any():
        problems.append(f"field 'geometry': not {'/'.join(geom_types)} in {_rows(wrong, layer)}")
    invalid = ~shapely.is_valid(geoms)
    if invalid.any():
        problems.append(f"field 'geometry': invalid in {_rows(invalid, layer)}")
    bounds = shapely.bounds(geoms)
    left, bottom, right, top = REGION_BOUNDS_LONLAT
    outside = (
        (bounds[:, 0] < left)
        | (bounds[:, 2] > right)
        | (bounds[:, 1] < bottom)
        | (bounds[:, 3] > top)
    )
    if outside.any():
        first = bounds[outside][0]
        swapped = bottom <= first[0] <= top and left <= first[1] <= right
        hint = " (longitude and latitude look swapped)" if swapped else ""
        problems.append(
            f"field 'geometry': outside the region lon {left}..{right}, lat {bottom}..{top}"
            f"{hint} in {_rows(outside, layer)}, e.g. ({first[0]:.4f}, {first[1]:.4f})"
        )
    return problems


_TYPE_IDS = {
    "Point": 0,
    "LineString": 1,
    "Polygon": 3,
    "MultiPoint": 4,
    "MultiLineString": 5,
    "MultiPolygon": 6,
}
