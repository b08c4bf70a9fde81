"""Every output file the package writes, made small by the `refuge` commands, and its columns.

The files page (`_pages.files_page`) and `tests/test_columns.py` both call `write_outputs`: the
columns and types shown are those of files just written, so a new column shows up (and, without
a meaning in `refuge_map.columns`, fails the test).
"""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq
import pyogrio
import yaml

from refuge_map.cli import main

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "data" / "scenarios"

#: A sweep of two short runs, serial: enough for every file a sweep writes.
SWEEP = {
    "name": "docs",
    "seed": 1,
    "replications": 1,
    "base": {"name": "docs", "dt_s": 600, "horizon_h": 6, "generate": {"n": 2}},
    "axes": {"grid": {"escorts.enabled": [False, True]}},
}

#: Readable names of the stored types.
_TYPES = {
    "int32": "integer",
    "int64": "integer",
    "double": "float",
    "float64": "float",
    "large_string": "text",
    "string": "text",
    "object": "text",
    "bool": "boolean",
    "binary": "geometry (WKB)",
    "datetime64[ms]": "datetime",
}


@dataclass(frozen=True)
class Table:
    """One table of one output file: which command writes it, and its (name, type) columns."""

    command: str
    file: str
    table: str
    columns: tuple[tuple[str, str], ...]


def refuge(*args: str | Path) -> None:
    """Run `refuge ARGS...` in-process, quietly.

    Raises
    ------
    RuntimeError
        If the command exits with a non-zero code (with what it printed on stderr).
    """
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main([str(a) for a in args])
            code = 0
        except SystemExit as stop:
            code = int(stop.code or 0)
    if code:
        raise RuntimeError(f"refuge {' '.join(map(str, args))}: {err.getvalue().strip()}")


def _type(name: str) -> str:
    return "datetime" if name.startswith(("timestamp", "datetime")) else _TYPES.get(name, name)


def parquet_columns(path: Path) -> tuple[tuple[str, str], ...]:
    """The columns of a Parquet file with their stored types."""
    schema = pq.read_schema(path)
    return tuple(
        (name, _type(str(kind))) for name, kind in zip(schema.names, schema.types, strict=True)
    )


def gpkg_tables(path: Path, command: str) -> list[Table]:
    """One `Table` per layer of a GeoPackage, its geometry column last."""
    tables = []
    for layer, geometry in pyogrio.list_layers(path):
        info = pyogrio.read_info(path, layer=layer)
        columns = [
            (str(f), _type(str(t))) for f, t in zip(info["fields"], info["dtypes"], strict=True)
        ]
        if geometry:
            columns.append(("geometry", f"geometry ({geometry}, WGS84)"))
        tables.append(Table(command, f"{path.name}, layer {layer}", str(layer), tuple(columns)))
    return tables


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "text"
    if value is None:
        return "null"
    return "list" if isinstance(value, list) else "object"


def json_keys(value: Any, prefix: str = "") -> dict[str, set[str]]:
    """Every leaf key of a JSON value as a dotted path (``[]`` for a list's items), with the
    JSON types found there."""
    if isinstance(value, dict) and value:
        keys: dict[str, set[str]] = {}
        for key, item in value.items():
            for path, kinds in json_keys(item, f"{prefix}.{key}" if prefix else key).items():
                keys.setdefault(path, set()).update(kinds)
        return keys
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        keys = {}
        for item in value:
            for path, kinds in json_keys(item, f"{prefix}[]").items():
                keys.setdefault(path, set()).update(kinds)
        return keys
    return {prefix: {_json_type(value)}}


def json_table(command: str, file: str, table: str, value: Any) -> Table:
    """A JSON document's leaf keys as a `Table` (types joined by ``|``)."""
    keys = json_keys(value)
    return Table(command, file, table, tuple((k, " or ".join(sorted(v))) for k, v in keys.items()))


def write_outputs(out: Path) -> list[Table]:
    """Write every output file small under `out` with the `refuge` commands; return its tables.

    A run of `exile_whole_life.yaml` (all the exile's tables), the layers and the places as
    Linked Places Format, a coarse coverage field, and a serial sweep of two short runs with its
    report.
    """
    run = out / "run"
    refuge("run", SCENARIOS / "exile_whole_life.yaml", "--out", run)
    tables = [
        Table("refuge run", path.name, path.stem, parquet_columns(path))
        for path in sorted(run.glob("*.parquet"))
    ]
    tables += gpkg_tables(run / "trajectories.gpkg", "refuge run")
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    tables.append(json_table("refuge run", "summary.json", "summary", summary))

    refuge("layers", "--out", out / "network.gpkg")
    tables += gpkg_tables(out / "network.gpkg", "refuge layers")
    refuge("layers", "--out", out / "places.lpf.json")
    lpf = json.loads((out / "places.lpf.json").read_text(encoding="utf-8"))
    tables.append(json_table("refuge layers", "FILE.lpf.json", "lpf", lpf))

    coverage = out / "coverage.gpkg"
    refuge("coverage", "--out", coverage, "--cell-m", "20000", "--draws", "4")
    tables += gpkg_tables(coverage, "refuge coverage")

    tables += _sweep_tables(out / "sweep")
    return tables


def _sweep_tables(folder: Path) -> list[Table]:
    folder.mkdir(parents=True)
    (folder / "sweep.yaml").write_text(yaml.safe_dump(SWEEP), encoding="utf-8")
    sweep = folder / "out"
    refuge("sweep", "run", folder / "sweep.yaml", "--out", sweep, "--serial")
    refuge("sweep", "report", sweep)
    command = "refuge sweep run"
    tables = [Table(command, "runs.parquet", "runs", parquet_columns(sweep / "runs.parquet"))]
    for part in ("part", "events"):
        path = next((sweep / "parts").glob(f"{part}-*.parquet"))
        file = f"parts/{part}-NNNNN.parquet"
        tables.append(Table(command, file, "sweep_parts", parquet_columns(path)))
    header, *lines = (sweep / "manifest.jsonl").read_text(encoding="utf-8").splitlines()
    tables.append(
        json_table(command, "manifest.jsonl (header line)", "manifest", json.loads(header))
    )
    run_line = {k: v for line in lines for k, v in json.loads(line).items()}
    tables.append(json_table(command, "manifest.jsonl (run lines)", "manifest_runs", run_line))
    for csv in sorted((sweep / "report").glob("*.csv")):
        frame = pd.read_csv(csv)
        file = "report/summary.csv" if csv.stem == "summary" else "report/AXIS.csv"
        columns = tuple((str(c), _type(str(t))) for c, t in frame.dtypes.items())
        tables.append(Table("refuge sweep report", file, "report", columns))
    return tables
