"""Commands on the geography: write the layers, ask where a point stands."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from geo import BOUGH_OPINIONS, CUBIT_PRESETS, load_network
from geo.asylum import KIND_CITATIONS
from geo.lpf import places_lpf
from geo.zones import TECHUM_MODES
from refuge_map.cli._app import app
from refuge_map.errors import RefugeError
from refuge_map.io import LPF_SUFFIX, write_layers, write_lpf

console = Console()

CubitOption = Annotated[
    str, typer.Option("--cubit", help=f"Cubit in metres, or a preset: {', '.join(CUBIT_PRESETS)}.")
]
TechumOption = Annotated[
    str, typer.Option("--techum", help=f"Shape of the Sabbath boundary: {'|'.join(TECHUM_MODES)}.")
]


def parse_cubit(text: str) -> float | str:
    """A cubit option: a number of metres or a preset name (validated by `load_network`)."""
    try:
        return float(text)
    except ValueError:
        return text


@app.command()
def layers(
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            help="FILE.gpkg, FILE.geojson (one file per layer), or FILE.lpf.json (the places "
            "as Linked Places Format).",
        ),
    ],
    cubit: CubitOption = "naeh",
    techum: TechumOption = "squared",
) -> None:
    """Write every layer of the network (cities, zones, roads, hydrography, land, limits), or
    the gazetteer's places as Linked Places Format."""
    network = load_network(cubit_m=parse_cubit(cubit), techum=techum)  # type: ignore[arg-type]
    if out.name.endswith(LPF_SUFFIX):
        written = write_lpf(places_lpf(network.places), out)
    else:
        written = write_layers(network.layers(), out)
    for path in written:
        console.print(f"wrote {path}")


@app.command()
def where(
    lon: Annotated[float, typer.Argument(help="Longitude, WGS84 degrees.")],
    lat: Annotated[float, typer.Argument(help="Latitude, WGS84 degrees.")],
    bough: Annotated[
        tuple[float, float] | None,
        typer.Option(
            "--bough", help="LON LAT of the bough, for a person in a tree (LON LAT is the trunk)."
        ),
    ] = None,
    cubit: CubitOption = "naeh",
    techum: TechumOption = "squared",
    opinion: Annotated[
        str,
        typer.Option(
            "--bough-opinion", help=f"Reading of the bough rule: {', '.join(BOUGH_OPINIONS)}."
        ),
    ] = "mishnah",
) -> None:
    """Say which city and zone a point is in, whether it is protected, and why."""
    if opinion not in BOUGH_OPINIONS:
        raise RefugeError(
            f"unknown opinion; valid {sorted(BOUGH_OPINIONS)}",
            source="--bough-opinion",
            value=opinion,
        )
    network = load_network(cubit_m=parse_cubit(cubit), techum=techum, bough_opinion=opinion)  # type: ignore[arg-type]
    bough_lon, bough_lat = bough if bough else (None, None)
    found = network.locate(lon, lat, bough_lon=bough_lon, bough_lat=bough_lat)
    city = network.cities.iloc[found.city]["name"] if found.city >= 0 else "none"
    protected = found.city >= 0
    console.print(f"city: {city}")
    console.print(f"zone: {found.kind}")
    console.print(f"protected: {'yes' if protected else 'no'}")
    console.print(f"rule: {KIND_CITATIONS[found.kind]}")
    if bough:
        console.print(f"tree: {BOUGH_OPINIONS[opinion]}")
    opts = network.options
    console.print(
        f"opinions: cubit {opts['cubit_m']} m, techum {opts['techum']} "
        f"{opts['techum_cubits']:.0f} cubits"
    )
