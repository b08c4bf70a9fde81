"""The coverage field on the map: a toggleable choropleth of P(reach asylum alive)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import geopandas as gpd
import numpy as np
import shapely
from jinja2 import Template
from numpy.typing import NDArray

from geo import WGS84
from refuge_map.errors import RefugeError
from refuge_map.render._controls import Swatch
from refuge_map.render._html import PackedLayer, packed_json, script_json
from refuge_map.render._style import NO_VALUE, P_CLASSES

COVERAGE_COLUMNS = ("p_asylum", "time_h")


class CoverageLayer(PackedLayer):
    """Cells coloured by their class of P(reach asylum alive); the tooltip tells the chance and
    the expected time to asylum. Written compactly: corners, class and the two numbers.

    Parameters
    ----------
    cells
        Polygons in WGS84 with ``p_asylum`` and ``time_h`` (`refuge_map.coverage.coverage_layer`).
    name
        The layer's name in the layer control.
    show
        Whether the layer is switched on when the page opens.
    """

    _template = Template(
        """
        {% macro script(this, kwargs) %}
        var {{ this.get_name() }} = (function (colors, data) {
            var group = L.featureGroup();
            refugeUnpack(data).then(function (cells) {
                cells.forEach(function (c) {
                    var p = c[2] === null ? "no value" : c[2].toFixed(2);
                    var h = c[3] === null ? "no way to asylum" : c[3].toFixed(1) + " h to asylum";
                    group.addLayer(L.polygon(c[0], {
                        stroke: false, fillColor: colors[c[1]], fillOpacity: 0.55,
                        className: "refuge-coverage"
                    }).bindTooltip("P(reach asylum alive) " + p + "; " + h));
                });
            });
            return group;
        })({{ this.colors }}, {{ this.cells }});
        {% endmacro %}
        """
    )

    def __init__(self, cells: gpd.GeoDataFrame, *, name: str, show: bool) -> None:
        super().__init__(name=name, overlay=True, control=True, show=show)
        self._name = "CoverageLayer"
        self.colors = script_json([*(color for _, color in P_CLASSES), NO_VALUE])
        self.cells = packed_json(_cell_rows(cells))


def _cell_rows(cells: gpd.GeoDataFrame) -> list[list[Any]]:
    """Per cell: its outer ring as [lat, lon] pairs, its class, P and hours (None if none)."""
    rings = shapely.get_exterior_ring(cells.geometry.to_numpy())
    coords, owner = shapely.get_coordinates(rings, return_index=True)
    latlon = np.round(coords[:, ::-1], 5)
    corners = np.split(latlon, np.flatnonzero(np.diff(owner)) + 1)
    p = cells["p_asylum"].to_numpy(float)
    hours = cells["time_h"].to_numpy(float)
    return [
        [ring[:-1].tolist(), cls, _number(pv, 3), _number(h, 2)]
        for ring, cls, pv, h in zip(corners, p_class(p), p, hours, strict=True)
    ]


def _number(value: float, digits: int) -> float | None:
    return round(float(value), digits) if np.isfinite(value) else None


def p_class(p: NDArray[np.float64]) -> list[int]:
    """The index in `P_CLASSES` of each value; ``len(P_CLASSES)`` (no value) for NaN."""
    bounds = np.array([low for low, _ in P_CLASSES[1:]])
    classes = np.searchsorted(bounds, p, side="right")
    return np.where(np.isfinite(p), classes, len(P_CLASSES)).tolist()


def coverage_classes() -> list[tuple[str, str]]:
    """Each class of P(reach asylum alive) in `P_CLASSES`: its colour and range ("50%-70%")."""
    uppers = [f"{low:.0%}" for low, _ in P_CLASSES[1:]] + ["100%"]
    return [
        (color, f"{low:.0%}-{upper}") for (low, color), upper in zip(P_CLASSES, uppers, strict=True)
    ]


def coverage_legend() -> list[tuple[Swatch, str, str]]:
    """The legend's lines of the coverage layer: one per class of P(reach asylum alive)."""
    return [
        ("fill", color, f"{'P(reach asylum alive) ' if i == 0 else ''}{label}")
        for i, (color, label) in enumerate(coverage_classes())
    ]


def coverage_name(cells: gpd.GeoDataFrame) -> str:
    """The layer's name in the layer control, with the cells' size when known."""
    size = cells.attrs.get("cell_m")
    return "Coverage: P(reach asylum alive)" + (
        f", {float(size) / 1000:g} km cells" if size else ""
    )


def read_coverage_file(path: str | os.PathLike[str]) -> gpd.GeoDataFrame:
    """The cells of a field that `refuge coverage` wrote (GeoPackage or GeoParquet), in WGS84.

    Parameters
    ----------
    path
        The ``.gpkg`` or ``.parquet`` file.

    Returns
    -------
    geopandas.GeoDataFrame
        One row per cell, in WGS84.

    Raises
    ------
    RefugeError
        If the file is missing or unreadable, or lacks ``p_asylum`` or ``time_h``.
    """
    source = Path(path)
    if not source.is_file():
        raise RefugeError("coverage file not found", source=str(source))
    try:
        cells = gpd.read_parquet(source) if source.suffix == ".parquet" else gpd.read_file(source)
    except Exception as bad:  # pyogrio and pyarrow raise several types: all mean unreadable
        first = str(bad).splitlines()[0] if str(bad) else type(bad).__name__
        raise RefugeError(f"cannot read the coverage field: {first}", source=str(source)) from None
    missing = [c for c in COVERAGE_COLUMNS if c not in cells.columns]
    if missing:
        raise RefugeError("missing columns", source=str(source), value=missing)
    return cells.to_crs(WGS84)
