"""A static picture of the network (and a run) for papers and slides: PNG via matplotlib."""

from __future__ import annotations

import os
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from geo import RefugeNetwork, to_metric
from geo.roads import graph_to_gdfs
from refuge_map._atomic import atomic_file
from refuge_map.render import _style as style
from refuge_map.render.run_layers import RunFiles

SCALE_KM = 20


def static_map(
    network: RefugeNetwork,
    path: str | os.PathLike[str],
    *,
    run: RunFiles | None = None,
    dpi: int = 150,
) -> Path:
    """Draw the network (and a run's tracks and events) and write it as a PNG, atomically.

    The picture is in the network's metric CRS, framed on the cities and the limits of the
    land, with a scale bar and the attribution line.

    Raises
    ------
    OSError
        If `path` cannot be written (it is then left as it was).
    """
    # A bare Figure draws with the Agg canvas: no pyplot, no global backend switched.
    fig = Figure(figsize=(7, 9), layout="constrained")
    ax = fig.add_subplot()
    _draw_network(ax, network)
    if run is not None:
        _draw_run(ax, run, network)
    _frame(ax, network, title=f"Run {run.run_id}" if run is not None else None)
    ax.legend(handles=_legend_handles(network, run), loc="lower right", fontsize=6.5)
    fig.text(0.01, 0.005, style.ATTRIBUTION, fontsize=5.5, wrap=True, color="#333")
    target = Path(path)
    with atomic_file(target) as tmp:
        fig.savefig(tmp, format="png", dpi=dpi)
    return target


def _draw_network(ax: Axes, network: RefugeNetwork) -> None:
    """Land, water, zones, towns, roads, the limits of the land, and the labelled cities."""
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
    graph_to_gdfs(network.roads)[1].plot(ax=ax, color=style.ROAD, lw=1, zorder=3)
    limits = network.places[network.places["feature_kind"] == "reference_point"]
    limits.plot(ax=ax, color=style.LIMIT, markersize=8, zorder=4)
    for city in network.cities.itertuples():
        color = style.SIDE_COLORS.get(str(city.side), style.OTHER)
        ax.plot(city.site.x, city.site.y, "o", ms=7, color=color, mec="white", zorder=6)
        ax.annotate(
            style.short_name(str(city.name)),
            (city.site.x, city.site.y),
            xytext=(6, 4),
            textcoords="offset points",
            fontsize=8,
            fontweight="bold",
            zorder=7,
        )


def _draw_run(ax: Axes, run: RunFiles, network: RefugeNetwork) -> None:
    """Each agent's whole track, coloured by role, and the events as dots."""
    points = run.trajectories.to_crs(network.crs).sort_values("t")
    for _, track in points.groupby("agent_id"):
        role = str(track["role"].iloc[0])
        ax.plot(track.geometry.x, track.geometry.y, lw=1.2, color=style.role_color(role), zorder=5)
    events = run.events
    if len(events):
        x, y = to_metric(events["lon"].to_numpy(), events["lat"].to_numpy())
        colors = [style.event_color(str(kind)) for kind in events["kind"]]
        ax.scatter(x, y, s=18, c=colors, edgecolors="black", linewidths=0.4, zorder=6)


def _legend_handles(network: RefugeNetwork, run: RunFiles | None) -> list[Line2D | Patch]:
    """What the picture shows: cities by side, zones, roads, water; tracks and events."""
    zone = style.ZONE_STYLES[str(network.options["techum"])]
    handles: list[Line2D | Patch] = [
        _dot(style.SIDE_COLORS["west"], "city of refuge, west of the Jordan"),
        _dot(style.SIDE_COLORS["east"], "city of refuge, beyond the Jordan"),
        Patch(facecolor=zone["fillColor"], edgecolor=zone["color"], label="Sabbath boundary"),
        Line2D([], [], color=style.ROAD, label="road (schematic)"),
        Line2D([], [], color=style.WATER, label="Jordan, lakes, coast"),
    ]
    if run is not None:
        roles = sorted(run.trajectories["role"].unique())
        handles += [Line2D([], [], color=style.role_color(r), label=f"track: {r}") for r in roles]
        kinds = sorted(run.events["kind"].unique())
        handles += [_dot(style.event_color(k), str(k).replace("_", " ")) for k in kinds]
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
