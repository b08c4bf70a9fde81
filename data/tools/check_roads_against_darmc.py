"""Measure how closely each shipped road leg follows a DARMC Roman road (a check, nothing shipped).

The DARMC Roman road network (McCormick et al. 2013, doi:10.7910/DVN/TI0KAU) is CC BY-NC 3.0:
it is read from a path the user supplies and only compared with, never copied into, the data.
For each leg of data/roads.geojson this prints, in the metric `REGION_CRS`:

- ``within_2km``, ``within_3km``: the share of the leg's length lying within 2 km and 3 km of
  a DARMC road;
- ``mean_off_m``: the mean distance from the leg (sampled every 100 m) to the nearest DARMC road;
- ``max_off_m``: the largest such distance, i.e. the directed Hausdorff distance from the leg
  to the DARMC network.

With ``--summary`` it prints the network's length, its length-weighted shares within 2 and 3 km
of DARMC, and the off-road distance from each of `LARGE_TOWNS` to the nearest road.

Usage: ``.venv/bin/python data/tools/check_roads_against_darmc.py [DARMC_PATH] [--by-route |
--summary] [--roads ROADS_PATH]`` (default DARMC path ``../shared/reference/roads.geojson``,
layer ``darmc_roman_roads``).
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
NEAR_M = (2000.0, 3000.0)
SAMPLE_M = 100.0

#: Twenty of the largest ancient towns of the region (own selection: the largest Iron-Age tells
#: by excavated extent and the principal Hellenistic-Roman cities), at their OpenBible.info
#: rank-1 identification (CC BY 4.0): name -> (OpenBible modern id, lon, lat).
LARGE_TOWNS = {
    "Jerusalem": ("m66c5b8", 35.234167, 31.776667),
    "Hazor": ("m6429cf", 35.569167, 33.018333),
    "Ashkelon": ("m0a9529", 34.545833, 31.663889),
    "Ekron (Tel Miqne)": ("ma2bedf", 34.851944, 31.7775),
    "Gath (Tell es-Safi)": ("m28d167", 34.84694, 31.69972),
    "Lachish": ("m31bdd9", 34.849167, 31.565278),
    "Gezer": ("mcd1a5c", 34.919167, 31.859167),
    "Megiddo": ("mf52435", 35.184444, 32.585278),
    "Dan": ("mb61c67", 35.652, 33.249),
    "Ashdod": ("mf32c7d", 34.6578, 31.7572),
    "Gaza": ("mb5cfe4", 34.4644, 31.504),
    "Samaria": ("me64af8", 35.195, 32.276111),
    "Shechem": ("m657590", 35.281944, 32.213611),
    "Beth-shean": ("m2af7af", 35.503056, 32.503611),
    "Rabbah (Amman)": ("m0c1bc5", 35.9343, 31.9547),
    "Tyre": ("m11c602", 35.196111, 33.270833),
    "Acco": ("mac4103", 35.088333, 32.921111),
    "Joppa": ("mcb49f3", 34.753039, 32.054481),
    "Dor": ("m13789b", 34.916364, 32.617428),
    "Caesarea": ("m11da12", 34.891667, 32.5),
}


def read_darmc(path: Path) -> shapely.Geometry:
    """The DARMC Roman roads of a reference file as one (multi)line in `REGION_CRS`."""
    roads = gpd.read_file(path)
    if "layer" in roads.columns:
        roads = roads[roads["layer"] == "darmc_roman_roads"]
    return shapely.union_all(roads.to_crs(REGION_CRS).geometry.to_numpy())


def agreement(legs: gpd.GeoDataFrame, darmc: shapely.Geometry) -> pd.DataFrame:
    """Per leg: length, shares within each of `NEAR_M` of DARMC, mean and largest distance."""
    near = [shapely.buffer(darmc, dist) for dist in NEAR_M]
    geoms = legs.geometry.to_numpy()
    length = shapely.length(geoms)
    rows = []
    for geom, total in zip(geoms, length, strict=True):
        samples = shapely.line_interpolate_point(geom, np.arange(0.0, total + SAMPLE_M, SAMPLE_M))
        off = shapely.distance(samples, darmc)
        shares = [shapely.length(shapely.intersection(geom, zone)) / total for zone in near]
        rows.append((*shares, off.mean(), off.max()))
    columns = [*SHARE_COLUMNS, "mean_off_m", "max_off_m"]
    table = pd.DataFrame(rows, columns=columns, index=legs.index)
    return pd.concat([legs[["route", "from", "to"]], table.assign(km=length / 1000.0)], axis=1)


SHARE_COLUMNS = [f"within_{dist / 1000:.0f}km" for dist in NEAR_M]


def by_route(table: pd.DataFrame) -> pd.DataFrame:
    """Length-weighted shares within 2 and 3 km and mean offset per route; largest offset."""
    weighted = table.assign(
        off_km=table["mean_off_m"] * table["km"],
        **{f"{c}_km": table[c] * table["km"] for c in SHARE_COLUMNS},
    )
    grouped = weighted.groupby("route", sort=False)
    sums = grouped.sum(numeric_only=True)
    return pd.DataFrame(
        {
            "km": sums["km"],
            **{c: sums[f"{c}_km"] / sums["km"] for c in SHARE_COLUMNS},
            "mean_off_m": sums["off_km"] / sums["km"],
            "max_off_m": grouped["max_off_m"].max(),
        }
    )


def summary(legs: gpd.GeoDataFrame, table: pd.DataFrame) -> str:
    """The whole network's length and shares near DARMC, and each large town's off-road
    distance to the nearest leg, as Markdown."""
    km = table["km"].sum()
    shares = ", ".join(
        f"{(table[c] * table['km']).sum() / km:.0%} {c.replace('_', ' ')}" for c in SHARE_COLUMNS
    )
    network = shapely.union_all(legs.geometry.to_numpy())
    names = list(LARGE_TOWNS)
    lonlat = np.array([LARGE_TOWNS[n][1:] for n in names])
    towns = gpd.GeoSeries(gpd.points_from_xy(*lonlat.T), crs="EPSG:4326").to_crs(REGION_CRS)
    off_km = shapely.distance(towns.to_numpy(), network) / 1000.0
    worst = int(np.argmax(off_km))
    lines = [
        f"{len(table)} legs, {km:.0f} km; {shares}.",
        f"Worst off-road distance from the {len(names)} large towns: "
        f"{off_km[worst]:.1f} km ({names[worst]}); mean {off_km.mean():.1f} km.",
        "",
        "| town | OpenBible id | off-road km |",
        "| --- | --- | --- |",
        *(f"| {n} | {LARGE_TOWNS[n][0]} | {d:.1f} |" for n, d in zip(names, off_km, strict=True)),
    ]
    return "\n".join(lines)


def main() -> None:
    """Print the agreement table (Markdown) for the shipped roads."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("darmc", nargs="?", default="../shared/reference/roads.geojson")
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--by-route", action="store_true", help="one row per route")
    shown.add_argument("--summary", action="store_true", help="network totals and large towns")
    parser.add_argument("--roads", default=str(ROADS_PATH), help="road file to check")
    args = parser.parse_args()
    legs = read_roads(args.roads)
    table = agreement(legs, read_darmc(Path(args.darmc)))
    if args.summary:
        print(summary(legs, table))
    else:
        print(markdown(by_route(table) if args.by_route else table.set_index("route")))


def markdown(table: pd.DataFrame) -> str:
    """The table as Markdown, its index as the first column, numbers rounded for reading."""
    formats = {
        "km": "{:.1f}",
        **{c: "{:.0%}" for c in SHARE_COLUMNS},
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
