"""Commands on the geography: write the layers, ask where a point stands."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer

from refuge_map.cli._app import app
from refuge_map.cli._output import console, print_json
from refuge_map.errors import RefugeError

if TYPE_CHECKING:
    from geo.readings import TechumMode

CubitOption = Annotated[
    str,
    typer.Option("--cubit", help="Cubit in metres, or a preset name (a wrong one lists them)."),
]
TechumOption = Annotated[
    str,
    typer.Option(
        "--techum", help="Shape of the Sabbath boundary, e.g. squared (a wrong one lists them)."
    ),
]


def parse_cubit(text: str) -> float | str:
    """A cubit option: a number of metres or a preset name (validated by `load_network`)."""
    try:
        return float(text)
    except ValueError:
        return text


def network_of(cubit: str, techum: str, **options: Any) -> Any:
    """`geo.load_network` with the cubit and techum options as typed (imported on first use)."""
    from geo import load_network

    mode = cast("TechumMode", techum)  # load_network refuses an unknown mode (ParameterError)
    return load_network(cubit_m=parse_cubit(cubit), techum=mode, **options)


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
    from geo.lpf import places_lpf
    from refuge_map.io import LPF_SUFFIX, check_layers_output, write_layers, write_lpf

    gazetteer = out.name.endswith(LPF_SUFFIX)
    if not gazetteer:
        check_layers_output(out)
    network = network_of(cubit, techum)
    if gazetteer:
        written = write_lpf(places_lpf(network.places), out)
    else:
        written = write_layers(network.layers(), out)
    for path in written:
        console().print(f"wrote {path}")


def check_position(lon: float, lat: float, *, option: str) -> None:
    """Refuse a position that is not a finite WGS84 coordinate inside the region.

    Raises
    ------
    RefugeError
        Naming the option and the value, with a hint when longitude and latitude look swapped.
    """
    from geo.crs import REGION_BOUNDS_LONLAT

    left, bottom, right, top = REGION_BOUNDS_LONLAT
    for name, value, limit in (("lon", lon, 180.0), ("lat", lat, 90.0)):
        if not math.isfinite(value):
            raise RefugeError("must be a finite number", source=option, field=name, value=value)
        if abs(value) > limit:
            raise RefugeError(
                f"not a WGS84 {name} (-{limit:g}..{limit:g})",
                source=option,
                field=name,
                value=value,
            )
    if not (left <= lon <= right and bottom <= lat <= top):
        swapped = left <= lat <= right and bottom <= lon <= top
        hint = "; longitude and latitude look swapped (give LON LAT)" if swapped else ""
        raise RefugeError(
            f"outside the region lon {left}..{right}, lat {bottom}..{top}{hint}",
            source=option,
            field="lon lat",
            value=(lon, lat),
        )


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
        typer.Option("--bough-opinion", help="Reading of the bough rule (a wrong one lists them)."),
    ] = "mishnah",
    as_json: Annotated[bool, typer.Option("--json", help="Print a stable JSON object.")] = False,
) -> None:
    """Say which city and zone a point is in, whether it is protected, and why."""
    from geo import BOUGH_OPINIONS
    from geo.asylum import KIND_CITATIONS

    if opinion not in BOUGH_OPINIONS:
        raise RefugeError(
            f"unknown opinion; valid {sorted(BOUGH_OPINIONS)}",
            source="--bough-opinion",
            value=opinion,
        )
    check_position(lon, lat, option="LON LAT")
    if bough:
        check_position(*bough, option="--bough")
    network = network_of(cubit, techum, bough_opinion=opinion)
    bough_lon, bough_lat = bough if bough else (None, None)
    found = network.locate(lon, lat, bough_lon=bough_lon, bough_lat=bough_lat)
    opts = network.options
    answer = {
        "city": network.cities.iloc[found.city]["name"] if found.city >= 0 else "none",
        "zone": str(found.kind),
        "protected": bool(found.city >= 0),
        "rule": KIND_CITATIONS[found.kind],
        "tree": BOUGH_OPINIONS[opinion] if bough else None,
        "opinions": {
            "cubit_m": float(opts["cubit_m"]),
            "techum": str(opts["techum"]),
            "techum_cubits": float(opts["techum_cubits"]),
            "bough": opinion,
        },
    }
    if as_json:
        print_json(answer)
        return
    out = console()
    out.print(f"city: {answer['city']}")
    out.print(f"zone: {answer['zone']}")
    out.print(f"protected: {'yes' if answer['protected'] else 'no'}")
    out.print(f"rule: {answer['rule']}")
    if bough:
        out.print(f"tree: {answer['tree']}")
    out.print(
        f"opinions: cubit {opts['cubit_m']} m, techum {opts['techum']} "
        f"{opts['techum_cubits']:.0f} cubits"
    )
