"""`refuge map`: the network, and optionally a run, as an HTML map and/or a PNG picture."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from refuge_map.cli._app import app
from refuge_map.cli._output import NoLimitsOption
from refuge_map.cli.geo_commands import CubitOption, TechumOption, network_of
from refuge_map.errors import RefugeError

if TYPE_CHECKING:
    import geopandas as gpd

    from refuge_map.render.run_files import RunFiles
    from refuge_map.simulation import Scenario


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
        Path | None,
        typer.Option(
            "--png", help="Also (or only) a static figure: FILE.png, FILE.pdf or FILE.svg."
        ),
    ] = None,
    coverage: Annotated[
        Path | None,
        typer.Option(
            "--coverage",
            help="A scenario whose coverage field (P of reaching asylum alive) to draw.",
        ),
    ] = None,
    coverage_file: Annotated[
        Path | None,
        typer.Option(
            "--coverage-file",
            help="A field `refuge coverage` wrote (FILE.gpkg or FILE.parquet) to draw as is.",
        ),
    ] = None,
    coverage_cell_m: Annotated[
        float, typer.Option("--coverage-cell-m", help="Cell edge of --coverage, metres.")
    ] = 2_000.0,
    cubit: CubitOption = "naeh",
    techum: TechumOption = "squared",
    no_limits: NoLimitsOption = False,
) -> None:
    """Draw the six cities, their boundaries, roads, water and land (and a run, and the
    coverage field) on a map."""
    from refuge_map._atomic import check_file_target
    from refuge_map.render import read_run_files

    if out is None and png is None:
        raise RefugeError("nothing to write: give --out FILE.html and/or --png FILE.png")
    if out is not None:
        from refuge_map.render.save import html_path  # folium: an HTML map only

        check_file_target(html_path(out))
    if png is not None:
        from refuge_map.render.static import figure_path, static_map  # matplotlib: a PNG only

        check_file_target(figure_path(png)[0])
    loaded = read_run_files(run) if run is not None else None
    network = _network_of(loaded, cubit=cubit, techum=techum)
    if out is not None:
        from refuge_map.render import network_map, save_map

        basemap = None if tiles.lower() == "none" else tiles
        cells = _coverage_cells(
            coverage, coverage_file, cell_m=coverage_cell_m, limited=not no_limits
        )
        fmap = network_map(network, run=loaded, tiles=basemap, coverage=cells)
        typer.echo(f"wrote {save_map(fmap, out, self_contained=self_contained)}")
    if png is not None:
        typer.echo(f"wrote {static_map(network, png, run=loaded)}")


def _network_of(run: RunFiles | None, *, cubit: str, techum: str) -> Any:
    """The network to draw, with `cubit` and `techum`: and a run's cities beyond the six (the 42
    Levitical cities, the added cities and their designation) and its roads' period, so that
    its arrivals are at cities the map shows."""
    if run is None or not run.scenario.get("network"):
        return network_of(cubit, techum)
    from refuge_map.simulation.scenario import NetworkOptions

    options = NetworkOptions.model_validate(run.scenario["network"]).load_kwargs()
    chosen = {key: options[key] for key in ("refuges", "roads_period", "added_cities")}
    if options["added_cities"]:
        chosen["designated"] = options["designated"]
    return network_of(cubit, techum, **chosen)


def _coverage_cells(
    scenario_file: Path | None, field_file: Path | None, *, cell_m: float, limited: bool
) -> gpd.GeoDataFrame | None:
    """The coverage cells to draw: computed for a scenario (`refuge_map.coverage`), read from
    a field file, or None.

    Raises
    ------
    RefugeError
        If both are given, the cell size is not positive, or (`limited`) the field would
        exceed `refuge_map.limits`.
    """
    from refuge_map.render import read_coverage_file

    if scenario_file is not None and field_file is not None:
        raise RefugeError("give --coverage SCENARIO or --coverage-file FILE, not both")
    if field_file is not None:
        return read_coverage_file(field_file)
    if scenario_file is None:
        return None
    if not 0 < cell_m < math.inf:
        raise RefugeError("must be positive and finite", source="--coverage-cell-m", value=cell_m)
    if limited:
        from refuge_map.coverage import DEFAULT_DRAWS
        from refuge_map.limits import check_coverage

        check_coverage(cell_m=cell_m, draws=DEFAULT_DRAWS, source="--coverage-cell-m")
    from refuge_map.simulation import load_scenario  # a scenario's only: the simulation's import

    return scenario_cells(load_scenario(scenario_file), cell_m=cell_m)


def scenario_cells(scenario: Scenario, *, cell_m: float) -> gpd.GeoDataFrame:
    """The coverage field of `scenario` computed at `cell_m` and made into the map's cells."""
    from refuge_map.coverage import coverage_layer, scenario_coverage

    return coverage_layer(scenario_coverage(scenario, cell_m=cell_m), cell_m=cell_m)
