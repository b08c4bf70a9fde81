"""`refuge demo`: the main job on the shipped data, as `make demo` runs it."""

from __future__ import annotations

import gc
import math
import os
import pickle
import tempfile
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from refuge_data import data_dir
from refuge_map.cli._app import app, freeze_loaded, hold_collections
from refuge_map.cli._output import console

if TYPE_CHECKING:
    import geopandas as gpd
    import pandas as pd

    from geo import RefugeNetwork
    from refuge_map.render.html_map import MapDraft
    from refuge_map.render.run_files import RunFiles
    from refuge_map.render.static import StaticMapDraft
    from refuge_map.simulation import Run
    from refuge_map.simulation.scenario import Scenario
#: The demo map's coverage cells: coarse, to keep the page small.
COVERAGE_CELL_M = 5_000.0


@app.command()
def demo(
    out: Annotated[Path, typer.Option("--out", help="Folder for the outputs.")] = Path("out/demo"),
    scenario: Annotated[
        Path | None, typer.Option("--scenario", help="Scenario file (default: the shipped one).")
    ] = None,
    replications: Annotated[
        int | None,
        typer.Option("--replications", help="Runs (default: the scenario's `replications`)."),
    ] = None,
) -> None:
    """Run the default scenario on the shipped data: network layers, the run, its summary
    tables (flight; exile, if any) and a self-contained HTML map with the coverage field (a
    PNG too); print where everything is. `out` is refused if it holds files refuge-map did
    not write."""
    hold_collections()
    from refuge_map._aside import aside
    from refuge_map._atomic import atomic_file, check_folder_target, write_marker
    from refuge_map.cli.sim_commands import with_replications
    from refuge_map.simulation import load_scenario, replicate, scenario_network, write_run
    from refuge_map.simulation._walk import compiled
    from refuge_map.simulation.report import report_tables

    check_folder_target(out)
    out.mkdir(parents=True, exist_ok=True)
    write_marker(out)  # claimed before the first file, so that a re-run after a kill may go on
    shown = console()
    chosen = with_replications(
        load_scenario(scenario or data_dir() / "scenarios" / "default.yaml"), replications
    )
    network = scenario_network(chosen)
    layers = network.layers()  # made here: the map asks for them too
    # Two children work beside this process (two cores; the run uses one): one writes the
    # GeoPackage while the run goes on here, then draws the PNG's network; the other drafts
    # the HTML map (what the run does not change); once the run is done, they draw it on the
    # PNG and finish the HTML map while this process writes the run's files.
    run_folder = _RunFolder(out / "run")
    html_map = _HtmlMap(network, chosen, out, run_folder)
    static_files = _GpkgAndPng(network, layers, out, run_folder)
    with (
        closing(run_folder),
        aside(html_map.write, prepare=html_map.prepare) as html,
        aside(static_files.write, prepare=static_files.prepare) as gpkg_and_png,
    ):
        # numba's kernels load here, beside the children's imports (they draw with none), the
        # collections held until all is loaded
        compiled()
        freeze_loaded()
        cities = network.summary()
        with atomic_file(out / "cities.csv") as tmp:
            cities.to_csv(tmp)
        shown.print(_cities_table(cities))
        run = replicate(chosen)
        run_folder.hand(run)
        html.go()
        gpkg_and_png.go()
        run_files = write_run(run, run_folder.path, split=False)  # the drawings have the cores
        for table in report_tables(run.summary):
            shown.print(table)
        gpkg, png = gpkg_and_png.result()
        written = [*gpkg, out / "cities.csv", *run_files, html.result(), png]
    write_marker(out)
    for path in written:
        shown.print(f"wrote {path}")
    shown.print(f"open the map: {(out / 'map.html').resolve()}")


class _RunFolder:
    """The demo's run (its files in ``out/run``) as the drawings read it (`files`), handed to
    them once it is done (`hand`), so that they draw while this process writes the files.

    The drawings' children were forked before the run: it comes to them pickled in an unnamed
    temporary file that this process opened before (`close` it at the end; a crash leaves
    nothing). Read from the run's files instead, each child waited for the writing (0.25 s)
    and read them for itself (0.1-0.2 s); now each makes the tables it draws (`run_files_of`,
    60 ms) from the run (its pickle: 15 ms here, 4 ms there)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handover = tempfile.TemporaryFile()  # noqa: SIM115 (open until `close`)
        self._run: Run | None = None
        self._files: RunFiles | None = None

    def hand(self, run: Run) -> None:
        """The run is done: kept for the drawings here, pickled for those in the children."""
        self._run = run
        pickle.dump(run, self._handover, protocol=pickle.HIGHEST_PROTOCOL)
        self._handover.flush()

    def files(self) -> RunFiles:
        """The run as its files read (`run_files_of`), made at the first call (after `hand`):
        the drawings only read it."""
        from refuge_map.render.run_files import run_files_of

        if self._files is None:
            self._files = run_files_of(self._run if self._run is not None else self._handed())
        return self._files

    def _handed(self) -> Run:
        """The run `hand` pickled (in a child: forked before it)."""
        handover = self._handover.fileno()
        run: Run = pickle.loads(os.pread(handover, os.fstat(handover).st_size, 0))
        return run

    def close(self) -> None:
        """Close the hand-over file (the children's copies close as they leave)."""
        self._handover.close()


class _HtmlMap:
    """The demo's self-contained HTML map: the network, the scenario's coverage field and the
    run written in the `_RunFolder`; drafted (`draft`: what the run does not change) before the
    run's files are there, finished and written (`write`) once they are."""

    def __init__(
        self, network: RefugeNetwork, scenario: Scenario, out: Path, run: _RunFolder
    ) -> None:
        self._network, self._scenario, self._out, self._run = network, scenario, out, run
        self._draft: MapDraft | None = None

    def prepare(self) -> None:
        """What the map's child does before the run's files are there (`_child_memory`, then
        `draft`)."""
        _child_memory()
        self.draft()

    def draft(self) -> MapDraft:
        """Draft the map: its network layers and the coverage field."""
        from refuge_map.cli.map_commands import scenario_cells
        from refuge_map.render.html_map import draft_map

        cells = scenario_cells(self._scenario, cell_m=COVERAGE_CELL_M)
        self._draft = draft_map(self._network, coverage=cells)
        return self._draft

    def write(self) -> Path:
        """Finish the map (drafted first here, if it was not) with the run and write it."""
        from refuge_map.render import save_map

        drafted = self._draft or self.draft()
        self._draft = None  # a draft makes one map
        fmap = drafted.finish(self._run.files())
        return save_map(fmap, self._out / "map.html", self_contained=True)


class _GpkgAndPng:
    """The demo's GeoPackage of the network's layers and its PNG of the network and the run
    written in the `_RunFolder`: `prepare`d (the GeoPackage written, matplotlib imported and
    the network drawn) before the run's files are there, the run drawn and the PNG written
    (`write`, which does what `prepare` did not) once they are."""

    def __init__(
        self,
        network: RefugeNetwork,
        layers: dict[str, gpd.GeoDataFrame],
        out: Path,
        run: _RunFolder,
    ) -> None:
        self._network, self._layers, self._out, self._run = network, layers, out, run
        self._gpkg: list[Path] | None = None
        self._draft: StaticMapDraft | None = None

    def prepare(self) -> None:
        """Write the GeoPackage, then draft the PNG (`_child_memory` first)."""
        _child_memory()
        self._write_gpkg()
        self._draw_network()

    def _write_gpkg(self) -> list[Path]:
        from refuge_map.io import write_layers

        self._gpkg = write_layers(self._layers, self._out / "network.gpkg")
        return self._gpkg

    def _draw_network(self) -> StaticMapDraft:
        from refuge_map.render.static import draft_static_map

        self._draft = draft_static_map(self._network)
        return self._draft

    def write(self) -> tuple[list[Path], Path]:
        """The GeoPackage's files and the PNG, drawn here."""
        gpkg = self._gpkg or self._write_gpkg()
        drafted = self._draft or self._draw_network()
        self._draft = None  # a draft makes one picture
        return gpkg, drafted.finish(self._out / "map.png", run=self._run.files())


def _child_memory() -> None:
    """A child's memory, for the second it lives: no collections. (Its Arrow buffers come
    from the system's allocator as the console script's do,
    `refuge_map.console.PROCESS_DEFAULTS`; Arrow's mimalloc zeroed a 2 MB page for each one a
    fresh child began to fill, 0.1-0.3 s of system time per child, measured on the demo.)

    The collector ran 100-160 times in a child's imports and drafts and 15-55 times in its
    drawing, some 4 % of its CPU, to free nearly nothing: what the child makes (the modules
    it imports, the drawing's elements) lives until it leaves, and it leaves by `os._exit`.
    Reference counting frees what it always frees meanwhile. The same bytes.
    """
    gc.disable()


def _cities_table(summary: pd.DataFrame) -> Table:
    table = Table(title="The six cities of refuge")
    for column in ["city", *summary.columns]:
        table.add_column(str(column))
    for city, row in summary.iterrows():
        table.add_row(str(city), *(_cell(str(k), v) for k, v in row.items()))
    return table


def _cell(column: str, value: object) -> str:
    """A value of the cities' table as a reader reads it: a designation's time in words where
    the file has -inf (from the start) or inf (never; `refuge_map.columns`)."""
    if column != "designated_at" or not isinstance(value, float):
        return str(value)
    if math.isinf(value):
        return "from the start" if value < 0 else "never"
    return f"year {value:g}"
