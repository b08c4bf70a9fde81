"""Static matplotlib maps for the notebooks: the land, the roads, the cities and a surface."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from numpy.typing import ArrayLike

from geo import RefugeNetwork
from geo.land_grid import LandGrid, study_area
from refuge_data import ATTRIBUTION
from refuge_map.analysis.coverage_grid import ACTIVATION_SOURCE


def base_map(network: RefugeNetwork, ax: Axes | None = None, *, labels: bool = True) -> Axes:
    """Draw the study area, the lakes and the Jordan, the roads and the six cities.

    Parameters
    ----------
    network
        The loaded network (drawn in its metric CRS, axes in km).
    ax
        Axes to draw on (a new figure if None).
    labels
        Write the cities' names.

    Returns
    -------
    matplotlib.axes.Axes
        The axes, with equal aspect and the attribution as a footnote.
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 9))
    area = study_area(network)
    area.plot(ax=ax, color="#f3efe2", edgecolor="#b8b09a", linewidth=0.5)
    hydro = network.hydrography
    water = hydro[hydro["feature_type"] == "lake"]
    water.plot(ax=ax, color="#a9cce3", linewidth=0)
    rivers = hydro[hydro["feature_type"].isin(["river", "lake_centerline"])]
    rivers.plot(ax=ax, color="#2e86c1", linewidth=1.0)
    router = network.router
    for line in router.edge_geometries:
        x, y = line.xy
        ax.plot(x, y, color="#7f7f7f", linewidth=0.8, zorder=2)
    sites = network.cities["site"]
    ax.scatter(sites.x, sites.y, s=30, color="#c0392b", zorder=4, label="cities of refuge")
    if labels:
        for city, point in sites.items():
            ax.annotate(
                str(network.cities.at[city, "name"]).split(" (")[0],
                (point.x, point.y),
                xytext=(4, 4),
                textcoords="offset points",
                fontsize=8,
                zorder=5,
            )
    left, bottom, right, top = area.total_bounds
    ax.set_xlim(left, right)
    ax.set_ylim(bottom, top)
    ax.set_aspect("equal")
    _plain(ax)
    ax.annotate(ATTRIBUTION, (0, -0.02), xycoords="axes fraction", va="top", fontsize=5, wrap=True)
    return ax


def surface_map(
    network: RefugeNetwork,
    grid: LandGrid,
    km: ArrayLike,
    ax: Axes | None = None,
    *,
    title: str = "",
    vmax: float | None = None,
) -> Axes:
    """Colour each cell of `grid` by a distance (km) over the base map.

    Where no cell has a finite distance, nothing protects at all: the map says so, with its
    source (Mishnah Makkot 2:4), instead of drawing a colour scale.

    Returns
    -------
    matplotlib.axes.Axes
        The axes.
    """
    ax = base_map(network, ax)
    values = np.asarray(km, dtype=float)
    reached = np.isfinite(values)
    if reached.any():
        cells = grid.cells()[reached]
        cells = cells.assign(km=values[reached])
        cells.plot(
            ax=ax,
            column="km",
            cmap="viridis_r",
            vmin=0,
            vmax=vmax,
            alpha=0.75,
            legend=True,
            legend_kwds={"label": "km to the nearest asylum", "shrink": 0.6},
            zorder=1.5,
        )
    else:
        ax.text(
            0.5,
            0.5,
            f"No asylum anywhere\n({ACTIVATION_SOURCE.split(';')[0]})",
            transform=ax.transAxes,
            ha="center",
            va="center",
            fontsize=12,
            color="#c0392b",
            bbox={"facecolor": "white", "alpha": 0.8},
        )
    _plain(ax)
    ax.set_title(title)
    return ax


def _plain(ax: Axes) -> None:
    """No ticks or axis labels: the map is in km of the metric CRS, which a reader needs not."""
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_xlabel("")
    ax.set_ylabel("")
