"""`refuge demo`: the main job on the shipped data, as `make demo` runs it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from geo import load_network
from refuge_map._atomic import atomic_file
from refuge_map.cli._app import app
from refuge_map.io import write_layers

console = Console()


@app.command()
def demo(
    out: Annotated[Path, typer.Option("--out", help="Folder for the outputs.")] = Path("out/demo"),
) -> None:
    """Build the network from the shipped data, write its layers and summary, print where."""
    network = load_network()
    written = write_layers(network.layers(), out / "network.gpkg")
    summary = network.summary()
    with atomic_file(out / "cities.csv") as tmp:
        summary.to_csv(tmp)
    written.append(out / "cities.csv")
    table = Table(title="The six cities of refuge")
    for column in ["city", *summary.columns]:
        table.add_column(column)
    for city, row in summary.iterrows():
        table.add_row(str(city), *(str(v) for v in row))
    console.print(table)
    for path in written:
        console.print(f"wrote {path}")
