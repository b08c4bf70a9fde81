"""Typed reads of one cell of a table: pandas-stubs types a cell (`.at`, `.iloc`, an attribute
of an `itertuples` row) as any scalar, so the reader names what its column holds."""

from __future__ import annotations

from typing import SupportsFloat, SupportsIndex, cast

from shapely import Point
from shapely.geometry.base import BaseGeometry


def as_float(cell: object) -> float:
    """The cell of a number column as a float (ValueError/TypeError if it holds none)."""
    return float(cast(SupportsFloat, cell))


def as_int(cell: object) -> int:
    """The cell of an integer column as an int (TypeError if it holds none)."""
    return int(cast(SupportsIndex, cell))


def as_point(cell: object) -> Point:
    """The cell of a point-geometry column (TypeError if it holds another thing)."""
    if not isinstance(cell, Point):
        raise TypeError(f"not a point: {cell!r}")
    return cell


def as_geometry(cell: object) -> BaseGeometry:
    """The cell of a geometry column (TypeError if it holds another thing)."""
    if not isinstance(cell, BaseGeometry):
        raise TypeError(f"not a geometry: {cell!r}")
    return cell
