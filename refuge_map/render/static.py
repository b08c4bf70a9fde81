"""Static figures for papers and slides (PNG, PDF or SVG by the file's suffix): the network, a
run, the coverage field; each with the cities, roads, labels, a scale bar and the attribution.

Drawn on a bare matplotlib `Figure` (the Agg canvas): no pyplot, no global backend switched.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import geopandas as gpd
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.colors import BoundaryNorm, ListedColormap
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from numpy.typing import NDArray

from geo import REGION_CRS, WGS84, RefugeNetwork, to_metric
from refuge_map._atomic import atomic_file
from refuge_map._cells import as_point
from refuge_map.errors import RefugeError
from refuge_map.render import _style as style
from refuge_map.render._sea import sea_polygon

if TYPE_CHECKING:  # types only: the coverage's module loads scipy, which a picture needs not
    from refuge_map.coverage import CoverageField
    from refuge_map.render.run_files import RunFiles

#: The figure formats, by the file's suffix.
FIGURE_FORMATS = {".png": "png", ".pdf": "pdf", ".svg": "svg"}
SCALE_KM = 20
#: At most this many events of each category are drawn; more are thinned (the legend says).
EVENTS_SHOWN = 150


def static_map(
    network: RefugeNetwork,
    path: str | os.PathLike[str],
    *,
    run: RunFiles | None = None,
    dpi: int = 150,
) -> Path:
    """Draw the network (and a run's flight tracks and events) and write it, atomically, as a
    PNG, PDF or SVG by the suffix of `path`.

    The picture is in the network's metric CRS, framed on the cities and the limits of the
    land, with a scale bar, the attribution line and the legend beside the map. Of a run, the
    tracks of the flight are drawn (not the exile's years) and the events by category, at most
    `EVENTS_SHOWN` of each.

    Raises
    ------
    RefugeError
        If the suffix is not one of `FIGURE_FORMATS` (nothing is drawn or written).
    OSError
        If `path` cannot be written (it is then left as it was).
    """
    figure_path(path)  # a suffix refused before any drawing (`finish` checks it again)
    return draft_static_map(network).finish(path, run=run, dpi=dpi)


def draft_static_map(network: RefugeNetwork) -> StaticMapDraft:
    """The network drawn as `static_map` draws it, ahead of the run (`refuge demo` drafts its
    PNG while the run goes on): `StaticMapDraft.finish` draws the run and writes the file."""
    fig = Figure(figsize=(10, 9), layout="constrained")
    ax = fig.add_subplot()
    _draw_network(ax, network)
    return StaticMapDraft(network, fig, ax)


@dataclass
class StaticMapDraft:
    """A `static_map` with its network drawn (`draft_static_map`), not yet its run nor framed.

    Attributes
    ----------
    network
        The network drawn.
    figure
        The figure it is drawn on.
    ax
        Its map's axes.
    """

    network: RefugeNetwork
    figure: Figure
    ax: Axes

    def finish(
        self, path: str | os.PathLike[str], *, run: RunFiles | None = None, dpi: int = 150
    ) -> Path:
        """Draw the run (if any), frame the map, add the legend and write the file, as
        `static_map` does. A draft makes one picture: the run is drawn on its figure.

        Raises
        ------
        RefugeError
            If the suffix of `path` is not one of `FIGURE_FORMATS` (nothing is written).
        OSError
            If `path` cannot be written (it is then left as it was).
        """
        target, fmt = figure_path(path)
        if run is not None:
            _draw_run(self.ax, run)
        title = None
        if run is not None:
            title = f"The cities of refuge: {run.scenario.get('name') or 'a simulated run'}"
        _frame(self.ax, self.network, title=title)
        handles = _legend_handles(self.network, run)
        self.figure.legend(handles=handles, loc="outside right upper", fontsize=7)
        return _save(self.figure, target, fmt, dpi=dpi)


def coverage_figure(
    network: RefugeNetwork,
    coverage: CoverageField,
    path: str | os.PathLike[str],
    *,
    dpi: int = 110,
) -> Path:
    """Two panels, the hours to the nearest asylum and P(reach asylum alive), over the land
    with the cities, roads, labels, a scale bar and the attribution; written atomically as a
    PNG, PDF or SVG by the suffix of `path`.

    Raises
    ------
    RefugeError
        If the suffix is not one of `FIGURE_FORMATS`.
    OSError
        If `path` cannot be written (it is then left as it was).
    """
    target, fmt = figure_path(path)
    fig = Figure(figsize=(12, 8.5), layout="constrained")
    bounds = [low for low, _ in style.P_CLASSES] + [1.0]
    p_colors = ListedColormap([color for _, color in style.P_CLASSES])
    panels = (
        ("time_h", "hours to the nearest asylum", "cividis_r", None),
        ("p_asylum", "P(reach asylum alive)", p_colors, BoundaryNorm(bounds, len(style.P_CLASSES))),
    )
    for ax, (name, label, cmap, norm) in zip(fig.subplots(1, 2), panels, strict=True):
        image, extent = _raster(coverage, getattr(coverage, name))
        shown = ax.imshow(image, origin="lower", extent=extent, cmap=cmap, norm=norm, zorder=2)
        fig.colorbar(shown, ax=ax, shrink=0.6, label=label)
        _draw_context(ax, network)
        _frame(ax, network, title=label)
    year = coverage.attrs.get("year")
    when = "after the whole designation timeline" if year is None else f"year {year:g}"
    fig.suptitle(
        f"Coverage of the land ({coverage.grid.cell_m:g} m cells, {when}); "
        "Deut 19:6: 'because the way is long'"
    )
    return _save(fig, target, fmt, dpi=dpi)


def figure_path(path: str | os.PathLike[str]) -> tuple[Path, str]:
    """`path` and its figure format (by its suffix).

    Raises
    ------
    RefugeError
        If the suffix is not one of `FIGURE_FORMATS`.
    """
    target = Path(path)
    fmt = FIGURE_FORMATS.get(target.suffix.lower())
    if fmt is None:
        raise RefugeError(
            f"a figure is written as {', '.join('FILE' + s for s in FIGURE_FORMATS)}",
            source=str(target),
        )
    return target, fmt


def _save(fig: Figure, target: Path, fmt: str, *, dpi: int) -> Path:
    """The attribution under the figure, then the file written atomically; PDF and SVG carry
    no creation date, so the same figure gives the same bytes."""
    fig.text(0.01, 0.005, style.ATTRIBUTION, fontsize=5.5, wrap=True, color="#333")
    metadata = {"png": None, "pdf": {"CreationDate": None}, "svg": {"Date": None}}[fmt]
    with atomic_file(target) as tmp:
        fig.savefig(tmp, format=fmt, dpi=dpi, metadata=metadata)
    return target


def _raster(coverage: CoverageField, values: NDArray[np.float64]) -> tuple[Any, list[float]]:
    """The cells' values as a 2-d image (NaN off the land) and its extent."""
    grid = coverage.grid
    col = np.rint((grid.x - grid.x.min()) / grid.cell_m).astype(np.intp)
    row = np.rint((grid.y - grid.y.min()) / grid.cell_m).astype(np.intp)
    image = np.full((row.max() + 1, col.max() + 1), np.nan)
    image[row, col] = np.where(np.isfinite(values), values, np.nan)
    half = grid.cell_m / 2.0
    extent = [grid.x.min() - half, grid.x.max() + half, grid.y.min() - half, grid.y.max() + half]
    return image, extent


def _draw_context(ax: Axes, network: RefugeNetwork) -> None:
    """Over a field: the water, the roads and the labelled cities (no land fill)."""
    water = network.hydrography
    water.plot(ax=ax, color=style.WATER, lw=0.8, zorder=3)
    network.road_frames()[1].plot(ax=ax, color=style.ROAD, lw=0.6, zorder=3)
    _draw_cities(ax, network)


def _draw_network(ax: Axes, network: RefugeNetwork) -> None:
    """Sea, land, water, zones, towns, roads, the limits of the land, and the labelled cities."""
    sea = sea_polygon(network.hydrography.to_crs(WGS84))
    if sea is not None:  # as the HTML map draws it: the sea to the edge of the picture
        metric = gpd.GeoSeries([sea], crs=WGS84).to_crs(REGION_CRS)
        metric.plot(ax=ax, color=style.LAKE_FILL, zorder=0)
    for side, land in network.land.groupby("side"):
        land.plot(ax=ax, color=style.LAND_COLORS.get(str(side), "#eeeeee"), zorder=0)
    water = network.hydrography
    lakes = water["feature_type"] == "lake"
    water[lakes].plot(ax=ax, color=style.LAKE_FILL, edgecolor=style.WATER, lw=0.5, zorder=1)
    water[~lakes].plot(ax=ax, color=style.WATER, lw=1.2, zorder=1)
    zone_style = style.ZONE_STYLES[str(network.options["techum"])]
    network.zones.plot(
        ax=ax, facecolor=zone_style["fillColor"], edgecolor=zone_style["color"], lw=0.8, zorder=2
    )
    network.cities.plot(ax=ax, color=style.TOWN, zorder=3)
    network.road_frames()[1].plot(ax=ax, color=style.ROAD, lw=1, zorder=3)
    limits = network.places[network.places["feature_kind"] == "reference_point"]
    limits.plot(ax=ax, color=style.LIMIT, markersize=8, zorder=4)
    _draw_cities(ax, network)


def _draw_cities(ax: Axes, network: RefugeNetwork) -> None:
    """The six cities (and any added), coloured by side, labelled."""
    for city in network.cities[network.cities["kind"] == "refuge"].itertuples():
        color = style.SIDE_COLORS.get(str(city.side), style.OTHER)
        site = as_point(city.site)
        ax.plot(site.x, site.y, "o", ms=7, color=color, mec="white", zorder=6)
        ax.annotate(
            style.short_name(str(city.name)),
            (site.x, site.y),
            xytext=(6, 4),
            textcoords="offset points",
            fontsize=8,
            fontweight="bold",
            zorder=7,
        )


def _draw_run(ax: Axes, run: RunFiles) -> None:
    """The flight's tracks, light and coloured by role, and the events by category (thinned)."""
    _draw_tracks(ax, run.flight)
    for category, events in run.event_groups():
        shown = events.iloc[:: _thinning(len(events))]
        x, y = to_metric(shown["lon"].to_numpy(), shown["lat"].to_numpy())
        color = style.category_color(category)
        ax.scatter(x, y, s=12, color=color, edgecolors="black", linewidths=0.3, zorder=6)


def _draw_tracks(ax: Axes, flight: pd.DataFrame) -> None:
    """One light line per agent (in the region's metric CRS), a collection per role."""
    # an escort walks with his manslayer: the same track
    points = flight[flight["role"] != "escort"].sort_values(["agent_id", "since_killing_s"])
    if points.empty:
        return
    lon, lat = points["lon"].to_numpy(), points["lat"].to_numpy()
    agent = points["agent_id"].to_numpy()
    starts = np.flatnonzero(np.r_[True, agent[1:] != agent[:-1]])  # each agent's first row
    lines = np.split(np.column_stack(to_metric(lon, lat)), starts[1:])
    roles = points["role"].to_numpy()[starts].astype(str)
    for role in sorted(set(roles)):
        ax.add_collection(
            LineCollection(
                [line for line, of in zip(lines, roles, strict=True) if of == role],
                colors=style.role_color(role),
                lw=0.6,
                alpha=0.35,
                zorder=5,
            )
        )


def _thinning(count: int) -> int:
    """Draw 1 in this many of `count` events of a category: at most `EVENTS_SHOWN` of each."""
    return max(1, math.ceil(count / EVENTS_SHOWN))


def _legend_handles(network: RefugeNetwork, run: RunFiles | None) -> list[Line2D | Patch]:
    """What the picture shows: cities by side, zones, roads, water; tracks and event categories
    (with their counts, and how many of them are drawn)."""
    zone = style.ZONE_STYLES[str(network.options["techum"])]
    handles: list[Line2D | Patch] = [
        _dot(style.SIDE_COLORS["west"], "city of refuge, west of the Jordan"),
        _dot(style.SIDE_COLORS["east"], "city of refuge, beyond the Jordan"),
        Patch(facecolor=zone["fillColor"], edgecolor=zone["color"], label="Sabbath boundary"),
        Line2D([], [], color=style.ROAD, label="road (schematic)"),
        Line2D([], [], color=style.WATER, label="Jordan, lakes, coast"),
    ]
    if run is not None:
        roles = sorted(set(run.flight["role"].unique()) - {"escort"})
        handles += [
            Line2D([], [], color=style.role_color(r), label=f"flight track: {r}") for r in roles
        ]
        for category, events in run.event_groups():
            every = _thinning(len(events))
            shown = f", 1 in {every} drawn" if every > 1 else ""
            label = f"{style.category_label(category)} ({len(events):,}{shown})"
            handles.append(_dot(style.category_color(category), label))
    return handles


def _dot(color: str, label: str) -> Line2D:
    return Line2D([], [], marker="o", ls="", color=color, mec="white", label=label)


def _frame(ax: Axes, network: RefugeNetwork, *, title: str | None) -> None:
    """Frame the cities and the limits of the land; a scale bar; no axes."""
    framed = network.cities["site"].total_bounds
    limits = network.places[network.places["feature_kind"] == "reference_point"].total_bounds
    left, bottom = min(framed[0], limits[0]), min(framed[1], limits[1])
    right, top = max(framed[2], limits[2]), max(framed[3], limits[3])
    margin = 0.08 * max(right - left, top - bottom)
    ax.set_xlim(left - margin, right + margin)
    ax.set_ylim(bottom - margin, top + margin)
    ax.set_aspect("equal")
    ax.set_axis_off()
    x0, y0 = left - margin * 0.6, bottom - margin * 0.6
    ax.plot([x0, x0 + SCALE_KM * 1000], [y0, y0], color="black", lw=3, zorder=8)
    ax.annotate(f"{SCALE_KM} km", (x0, y0), xytext=(0, 4), textcoords="offset points", fontsize=8)
    ax.set_title(title or "The cities of refuge", fontsize=12)
