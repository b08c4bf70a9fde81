"""Measure how closely each shipped road leg follows a DARMC Roman road (a check, nothing shipped).

The DARMC Roman road network (McCormick et al. 2013, doi:10.7910/DVN/TI0KAU) is CC BY-NC 3.0:
it is read from a path the user supplies and only compared with, never copied into, the data.
For each leg of data/roads.geojson this prints, in the metric `REGION_CRS`:

- ``within_3km``: the share of the leg's length lying within 3 km of a DARMC road;
- ``mean_off_m``: the mean distance from the leg (sampled every 100 m) to the nearest DARMC road;
- ``max_off_m``: the largest such distance, i.e. the directed Hausdorff distance from the leg
  to the DARMC network.

Usage: ``.venv/bin/python data/tools/check_roads_against_darmc.py [DARMC_PATH] [--by-route]``
(default DARMC path ``../shared/reference/roads.geojson``, layer ``darmc_roman_roads``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely

from geo.crs import REGION_CRS
from geo.roads import read_roads

ROADS_PATH = Path(__file__).resolve().parents[1] / "roads.geojson"
NEAR_M = 3000.0
SAMPLE_M = 100.0


def read_darmc(path: Path) -> shapely.Geometry:
    """The DARMC Roman roads of a reference file as one (multi)line in `REGION_CRS`."""
    roads = gpd.read_file(path)
    if "layer" in roads.columns:
        roads = roads[roads["layer"] == "darmc_roman_roads"]
    return shapely.union_all(roads.to_crs(REGION_CRS).geometry.to_numpy())


def agreement(legs: gpd.GeoDataFrame, darmc: shapely.Geometry) -> pd.DataFrame:
    """Per leg: length, share within `NEAR_M` of DARMC, mean and largest distance to DARMC."""
    near = shapely.buffer(darmc, NEAR_M)
    geoms = legs.geometry.to_numpy()
    length = shapely.length(geoms)
    rows = []
    for geom, total in zip(geoms, length, strict=True):
        samples = shapely.line_interpolate_point(geom, np.arange(0.0, total + SAMPLE_M, SAMPLE_M))
        off = shapely.distance(samples, darmc)
        rows.append(
            (shapely.length(shapely.intersection(geom, near)) / total, off.mean(), off.max())
        )
    table = pd.DataFrame(rows, columns=["within_3km", "mean_off_m", "max_off_m"], index=legs.index)
    return pd.concat([legs[["route", "from", "to"]], table.assign(km=length / 1000.0)], axis=1)


def by_route(table: pd.DataFrame) -> pd.DataFrame:
    """Length-weighted share within 3 km and mean offset per route; largest offset per route."""
    weighted = table.assign(
        near_km=table["within_3km"] * table["km"], off_km=table["mean_off_m"] * table["km"]
    )
    grouped = weighted.groupby("route", sort=False)
    sums = grouped[["km", "near_km", "off_km"]].sum()
    return pd.DataFrame(
        {
            "km": sums["km"],
            "within_3km": sums["near_km"] / sums["km"],
            "mean_off_m": sums["off_km"] / sums["km"],
            "max_off_m": grouped["max_off_m"].max(),
        }
    )


def main() -> None:
    """Print the agreement table (Markdown) for the shipped roads."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("darmc", nargs="?", default="../shared/reference/roads.geojson")
    parser.add_argument("--by-route", action="store_true", help="one row per route")
    args = parser.parse_args()
    table = agreement(read_roads(ROADS_PATH), read_darmc(Path(args.darmc)))
    print(markdown(by_route(table) if args.by_route else table.set_index("route")))


def markdown(table: pd.DataFrame) -> str:
    """The table as Markdown, its index as the first column, numbers rounded for reading."""
    formats = {
        "km": "{:.1f}",
        "within_3km": "{:.0%}",
        "mean_off_m": "{:.0f}",
        "max_off_m": "{:.0f}",
    }
    shown = table.assign(**{c: table[c].map(f.format) for c, f in formats.items()})
    header = [table.index.name or "", *shown.columns]
    lines = [header, ["---"] * len(header)]
    lines += [
        [str(i), *map(str, row)] for i, row in zip(shown.index, shown.to_numpy(), strict=True)
    ]
    return "\n".join("| " + " | ".join(line) + " |" for line in lines)


if __name__ == "__main__":
    main()
