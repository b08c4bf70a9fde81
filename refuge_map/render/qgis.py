"""QGIS styles (QML) for the network's file layers, in the colours of the HTML map.

A GeoPackage holds them in its ``layer_styles`` table (the table QGIS itself reads and writes),
so that ``refuge layers --out FILE.gpkg`` opens in QGIS symbolised as on the map.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from xml.sax.saxutils import quoteattr

import pandas as pd

from refuge_map.render import _style as style

#: Columns of the ``layer_styles`` table, as QGIS creates it.
LAYER_STYLE_COLUMNS = (
    "f_table_catalog",
    "f_table_schema",
    "f_table_name",
    "f_geometry_column",
    "styleName",
    "styleQML",
    "styleSLD",
    "useAsDefault",
    "description",
    "owner",
    "ui",
    "update_time",
)

#: A symbol: kind (``fill``, ``line`` or ``marker``), main colour, outline colour, fill opacity.
Symbol = tuple[str, str, str, float]

_ZONE_FILL_OPACITY = 0.25  # as the HTML map fills the chosen boundary


def _rgba(hex_colour: str, opacity: float = 1.0) -> str:
    """``#a93226`` -> ``169,50,38,255`` (QGIS colour text)."""
    red, green, blue = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"{red},{green},{blue},{round(255 * opacity)}"


def _symbol_xml(name: str, symbol: Symbol) -> str:
    """One QGIS symbol of a single simple layer."""
    kind, colour, outline, opacity = symbol
    if kind == "fill":
        cls = "SimpleFill"
        options = {
            "color": _rgba(colour, opacity),
            "outline_color": _rgba(outline),
            "outline_width": "0.3",
            "style": "solid" if opacity > 0 else "no",
        }
    elif kind == "line":
        cls = "SimpleLine"
        options = {"line_color": _rgba(colour), "line_width": "0.6", "line_style": "solid"}
    else:
        cls = "SimpleMarker"
        options = {
            "color": _rgba(colour, opacity),
            "outline_color": _rgba(outline),
            "name": "circle",
            "size": "2.4",
        }
    body = "".join(
        f'<Option type="QString" name="{key}" value={quoteattr(value)}/>'
        for key, value in options.items()
    )
    return (
        f'<symbol type="{kind}" name={quoteattr(name)} alpha="1" clip_to_extent="1" '
        f'force_rhr="0"><layer class="{cls}" enabled="1" locked="0" pass="0">'
        f'<Option type="Map">{body}</Option></layer></symbol>'
    )


def single_qml(symbol: Symbol) -> str:
    """A QML document: every feature drawn with `symbol`."""
    renderer = (
        '<renderer-v2 type="singleSymbol" symbollevels="0" enableorderby="0" forceraster="0">'
        f"<symbols>{_symbol_xml('0', symbol)}</symbols></renderer-v2>"
    )
    return _document(renderer)


def categorized_qml(field: str, categories: Mapping[str, Symbol]) -> str:
    """A QML document: features coloured by the value of `field`, one symbol per category."""
    cats = "".join(
        f'<category value={quoteattr(value)} symbol="{i}" label={quoteattr(value)} render="true"/>'
        for i, value in enumerate(categories)
    )
    symbols = "".join(_symbol_xml(str(i), sym) for i, sym in enumerate(categories.values()))
    renderer = (
        f'<renderer-v2 type="categorizedSymbol" attr={quoteattr(field)} symbollevels="0" '
        f'enableorderby="0" forceraster="0"><categories>{cats}</categories>'
        f"<symbols>{symbols}</symbols></renderer-v2>"
    )
    return _document(renderer)


def _document(renderer: str) -> str:
    return (
        "<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>\n"
        f'<qgis version="3.28.0" styleCategories="Symbology">{renderer}'
        "<blendMode>0</blendMode><featureBlendMode>0</featureBlendMode>"
        "<layerOpacity>1</layerOpacity></qgis>\n"
    )


def layer_qml() -> dict[str, str]:
    """The QML of each layer of `geo.RefugeNetwork.layers`, by layer name."""
    side_fill = {side: ("fill", colour, colour, 0.8) for side, colour in style.LAND_COLORS.items()}
    side_dot = {
        side: ("marker", colour, "#ffffff", 1.0) for side, colour in style.SIDE_COLORS.items()
    }
    zones = {
        mode: ("fill", spec["fillColor"], spec["color"], _ZONE_FILL_OPACITY)
        for mode, spec in style.ZONE_STYLES.items()
    }
    return {
        "cities": single_qml(("fill", style.TOWN, style.TOWN, 0.6)),
        "sites": categorized_qml("side", side_dot),
        "zones": categorized_qml("techum", zones),
        "candidates": single_qml(("marker", style.CANDIDATE, "#ffffff", 1.0)),
        "limits": single_qml(("marker", style.LIMIT, "#ffffff", 1.0)),
        "hydrography_lines": single_qml(("line", style.WATER, style.WATER, 1.0)),
        "hydrography_polygons": single_qml(("fill", style.LAKE_FILL, style.WATER, 0.7)),
        "land": categorized_qml("side", side_fill),
        "roads": single_qml(("line", style.ROAD, style.ROAD, 1.0)),
        "road_nodes": single_qml(("marker", style.ROAD, style.ROAD, 1.0)),
    }


def layer_styles(layers: Iterable[str], *, updated: str) -> pd.DataFrame:
    """The ``layer_styles`` table for `layers` (those that have a style), one default each.

    Parameters
    ----------
    layers
        Layer names of the GeoPackage (layers without a style in `layer_qml` are skipped).
    updated
        The ``update_time`` of every row (a pinned date keeps the file byte-identical).
    """
    qml = layer_qml()
    rows = [
        {
            "f_table_catalog": "",
            "f_table_schema": "",
            "f_table_name": name,
            "f_geometry_column": "geom",
            "styleName": name,
            "styleQML": qml[name],
            "styleSLD": "",
            "useAsDefault": True,
            "description": "refuge-map: the colours of the HTML map",
            "owner": "",
            "ui": "",
            "update_time": pd.Timestamp(updated).tz_localize(None),
        }
        for name in layers
        if name in qml
    ]
    return pd.DataFrame(rows, columns=list(LAYER_STYLE_COLUMNS))
