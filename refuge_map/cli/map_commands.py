"""`refuge map`: the network, and optionally a run, as an HTML map and/or a PNG picture."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from geo import load_network
from refuge_map.cli._app import app
from refuge_map.cli.geo_commands import CubitOption, TechumOption, parse_cubit
from refuge_map.errors import RefugeError
from refuge_map.render import network_map, read_run_files, save_map
from refuge_map.render.static import static_map


@app.command("map")
def map_command(
    out: Annotated[
        Path | None, typer.Option("--out", help="The HTML map to write (FILE.html).")
    ] = None,
    run: Annotated[
        Path | None, typer.Option("--run", help="A run folder: tracks, events and trees.")
    ] = None,
    self_contained: Annotated[
        bool,
        typer.Option(
            "--self-contained", help="Inline every script and style: the page fetches nothing."
        ),
    ] = False,
    tiles: Annotated[
        str, typer.Option("--tiles", help="Basemap by xyzservices name, or none.")
    ] = "none",
    png: Annotated[
        Path | None, typer.Option("--png", help="Also (or only) a static picture (FILE.png).")
    ] = None,
    cubit: CubitOption = "naeh",
    techum: TechumOption = "squared",
) -> None:
    """Draw the six cities, their boundaries, roads, water and land (and a run) on a map."""
    if out is None and png is None:
        raise RefugeError("nothing to write: give --out FILE.html and/or --png FILE.png")
    network = load_network(cubit_m=parse_cubit(cubit), techum=techum)  # type: ignore[arg-type]
    loaded = read_run_files(run) if run is not None else None
    if out is not None:
        basemap = None if tiles.lower() == "none" else tiles
        fmap = network_map(network, run=loaded, tiles=basemap)
        typer.echo(f"wrote {save_map(fmap, out, self_contained=self_contained)}")
    if png is not None:
        typer.echo(f"wrote {static_map(network, png, run=loaded)}")
