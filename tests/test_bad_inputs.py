"""The bad-input matrix: every bad input answers exit 2 and one line on stderr naming the file,
field or value, with no traceback, and writes or destroys nothing.

Each case builds its inputs (and any files a user already has) under a fresh folder, runs the
command there, and compares every file's bytes under that folder before and after.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "data" / "scenarios" / "tiny.yaml"
SWEEP = ROOT / "data" / "sweeps" / "tiny_escorts.yaml"
CASE = ROOT / "data" / "cases" / "001_pushing_roller.yaml"

#: A case: (a setup writing files under the folder and returning the command's arguments, a
#: text the one line must contain).
Setup = Callable[[Path], list[str]]


def _tiny(**changes: Any) -> dict[str, Any]:
    scenario = yaml.safe_load(TINY.read_text(encoding="utf-8"))
    scenario.update(changes)
    return scenario


def _write(folder: Path, name: str, content: str | bytes | dict[str, Any]) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, dict):
        content = yaml.safe_dump(content) if name.endswith(".yaml") else json.dumps(content)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def _foreign_folder(folder: Path, name: str) -> Path:
    """A user's folder with a file and a subfolder refuge-map did not write."""
    _write(folder, f"{name}/thesis.txt", "four years of work\n")
    _write(folder, f"{name}/sub/notes.md", "# notes\n")
    return folder / name


def _scenario(name: str, content: str | bytes | dict[str, Any]) -> Setup:
    def setup(folder: Path) -> list[str]:
        return ["scenario", "check", str(_write(folder, name, content))]

    return setup


def _run_scenario(content: dict[str, Any], *extra: str) -> Setup:
    def setup(folder: Path) -> list[str]:
        path = _write(folder, "s.yaml", content)
        return ["run", str(path), "--out", str(folder / "out"), *extra]

    return setup


def _nested(depth: int, *, as_json: bool) -> str:
    return (
        "[" * depth + "]" * depth
        if as_json
        else "a:\n" + "".join("  " * i + "- \n" for i in range(1, depth))
    )


def _deep_yaml() -> dict[str, Any]:
    node: dict[str, Any] = {}
    top = node
    for _ in range(200):
        node["x"] = {}
        node = node["x"]
    return {"name": "deep", "incidents": [top]}


def _sweep(content: str | bytes | dict[str, Any]) -> Setup:
    def setup(folder: Path) -> list[str]:
        path = _write(folder, "sweep.yaml", content)
        return ["sweep", str(path), "--out", str(folder / "out"), "--serial"]

    return setup


def _case(content: str | bytes) -> Setup:
    def setup(folder: Path) -> list[str]:
        return ["judge", str(_write(folder, "case.yaml", content))]

    return setup


def _run_into_foreign(folder: Path) -> list[str]:
    return ["run", str(TINY), "--out", str(_foreign_folder(folder, "mine"))]


def _run_onto_file(folder: Path) -> list[str]:
    return ["run", str(TINY), "--out", str(_write(folder, "afile", "a user's file\n"))]


def _layers_beside_folder(folder: Path) -> list[str]:
    _foreign_folder(folder, "data")
    _write(folder, "data/scenarios/mine.yaml", "name: mine\n")
    return ["layers", "--out", str(folder / "data.geojson")]


def _layers_gpkg_is_folder(folder: Path) -> list[str]:
    return ["layers", "--out", str(_foreign_folder(folder, "net.gpkg"))]


def _map_onto_folder(folder: Path) -> list[str]:
    return ["map", "--out", str(_foreign_folder(folder, "map.html"))]


def _png_onto_folder(folder: Path) -> list[str]:
    return ["map", "--png", str(_foreign_folder(folder, "map.png"))]


def _coverage_keeps_previous(cell: str) -> Setup:
    def setup(folder: Path) -> list[str]:
        _write(folder, "cov_prev.gpkg", b"a previous good field")
        _write(folder, "cov_prev.png", b"its picture")
        return ["coverage", "--out", str(folder / "cov_prev.gpkg"), "--cell-m", cell]

    return setup


def _out_here(out: str) -> Setup:
    def setup(folder: Path) -> list[str]:
        (folder / "work").mkdir()
        os.chdir(folder / "work")
        return ["run", str(TINY), "--out", out]

    return setup


def _sweep_resume_corrupt_manifest(folder: Path) -> list[str]:
    _write(folder, "out/manifest.jsonl", b'{"kind": "header"\n\xff\xfe garbage\n')
    _write(folder, "out/.refuge-map.json", '{"written_by": "refuge-map"}\n')
    return ["sweep", str(SWEEP), "--out", str(folder / "out"), "--serial", "--resume"]


def _report_corrupt_runs(folder: Path) -> list[str]:
    _write(folder, "out/manifest.jsonl", '{"kind": "header", "sweep": "x"}\n')
    _write(folder, "out/sweep.json", '{"axes": {"lhs": {}}}')
    _write(folder, "out/runs.parquet", b"PAR1 this is not a parquet file")
    return ["sweep", "report", str(folder / "out")]


def _map_bad_trees(folder: Path) -> list[str]:
    from refuge_map.simulation import load_scenario, simulate, write_run

    run = folder / "run"
    write_run(simulate(load_scenario(TINY)), run)
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    summary["trees"] = [{"trunk": [35.2, 32.2], "bough": "oak"}]
    (run / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    return ["map", "--out", str(folder / "m.html"), "--run", str(run)]


def _map_coverage_not_geodata(folder: Path) -> list[str]:
    field = _write(folder, "field.gpkg", "this is a text file, not a GeoPackage\n")
    return ["map", "--out", str(folder / "m.html"), "--coverage-file", str(field)]


def _sweep_of(**base_changes: Any) -> dict[str, Any]:
    sweep = yaml.safe_load(SWEEP.read_text(encoding="utf-8"))
    sweep["base"].update(base_changes)
    return sweep


def _unreachable_cluster(folder: Path) -> list[str]:
    out = folder / "out"
    return ["sweep", str(SWEEP), "--out", str(out), "--cluster", "tcp://127.0.0.1:9"]


DEEP_DESIGNATION = {"network": {"designation": []}}
BIG_INT = "name: big\nseed: " + "9" * 5001 + "\n"

CASES: dict[str, tuple[Setup, str]] = {
    # never destroy what the package did not write
    "run --out a folder of the user's": (_run_into_foreign, "did not write"),
    "run --out an existing file": (_run_onto_file, "is a file"),
    "layers .geojson beside a user's folder": (_layers_beside_folder, "did not write"),
    "layers .gpkg that is a folder": (_layers_gpkg_is_folder, "is a folder"),
    "map --out an existing folder": (_map_onto_folder, "is a folder"),
    "map --png an existing folder": (_png_onto_folder, "is a folder"),
    "coverage bad cell 0 keeps the old field": (_coverage_keeps_previous("0"), "--cell-m"),
    "coverage bad cell -5": (_coverage_keeps_previous("-5"), "--cell-m"),
    "coverage cell inf": (_coverage_keeps_previous("inf"), "inf"),
    "coverage cell nan": (_coverage_keeps_previous("nan"), "nan"),
    "run --out .": (_out_here("."), "current folder"),
    "run --out ..": (_out_here(".."), "current folder"),
    # files that are not text, or too deep, or too big
    "scenario not UTF-8": (_scenario("s.yaml", "name: caf\xe9\n".encode("latin-1")), "UTF-8"),
    "scenario binary": (_scenario("s.yaml", bytes(range(256)) * 4), "s.yaml"),
    "scenario JSON not UTF-8": (_scenario("s.json", b'{"name": "\xff"}'), "UTF-8"),
    "case not UTF-8": (_case("title: caf\xe9\n".encode("latin-1")), "UTF-8"),
    "case binary": (_case(b"\x00\x01\x02\x89PNG\r\n"), "case.yaml"),
    "sweep not UTF-8": (_sweep("name: caf\xe9\n".encode("latin-1")), "UTF-8"),
    "sweep binary": (_sweep(b"\x00\xff" * 300), "sweep.yaml"),
    "scenario nested 3000 deep (YAML)": (
        _scenario("s.yaml", _nested(3000, as_json=False)),
        "s.yaml",
    ),
    "scenario nested 3000 deep (JSON)": (
        _scenario("s.json", _nested(3000, as_json=True)),
        "nested",
    ),
    "scenario nested 200 deep mapping": (_scenario("s.yaml", _deep_yaml()), "nested"),
    "scenario 5,001-digit integer": (_scenario("s.yaml", BIG_INT), "s.yaml"),
    "scenario too large": (
        _scenario("s.yaml", "# " + "x" * (5 * 2**20) + "\nname: a\n"),
        "limited",
    ),
    # numbers out of range
    "scenario seed 2**63": (_scenario("s.yaml", _tiny(seed=2**63)), "seed"),
    "scenario seed 1e38": (_scenario("s.yaml", _tiny(seed=1e38)), "seed"),
    "scenario seed negative": (_scenario("s.yaml", _tiny(seed=-1)), "seed"),
    "run --seed 2**63": (_run_scenario(_tiny(), "--seed", str(2**63)), "--seed"),
    "run --seed -1": (_run_scenario(_tiny(), "--seed", "-1"), "--seed"),
    "scenario dt_s nan": (_scenario("s.yaml", _tiny(dt_s=float("nan"))), "dt_s"),
    "scenario horizon_h inf": (_scenario("s.yaml", _tiny(horizon_h=float("inf"))), "horizon_h"),
    "scenario year nan": (_scenario("s.yaml", _tiny(year=float("nan"))), "year"),
    "scenario empty designation": (_scenario("s.yaml", _tiny(**DEEP_DESIGNATION)), "designation"),
    "scenario lat 95": (_scenario("s.yaml", _tiny(incidents=[{"place": [35.2, 95.0]}])), "lat"),
    "scenario lon/lat swapped": (
        _scenario("s.yaml", _tiny(incidents=[{"place": [31.8, 35.2]}])),
        "incidents",
    ),
    "scenario NaN bough": (
        _scenario(
            "s.yaml",
            _tiny(
                incidents=[
                    {
                        "place": "shechem",
                        "tree": {"trunk": "shechem", "bough": [float("nan"), 32.2]},
                    }
                ]
            ),
        ),
        "bough",
    ),
    "where lat 95": (lambda f: ["where", "35.2", "95"], "lat"),
    "where lat 200": (lambda f: ["where", "35.2", "200"], "lat"),
    "where lon lat swapped": (lambda f: ["where", "32.2", "35.2"], "swapped"),
    "where lat nan": (lambda f: ["where", "35.2", "nan"], "lat"),
    "where NaN bough": (lambda f: ["where", "35.2", "32.2", "--bough", "nan", "32.2"], "lon"),
    "where bough inf": (lambda f: ["where", "35.2", "32.2", "--bough", "35.2", "inf"], "lat"),
    "where cubit 1e308": (lambda f: ["where", "35.2", "32.2", "--cubit", "1e308"], "cubit"),
    "where cubit nan": (lambda f: ["where", "35.2", "32.2", "--cubit", "nan"], "cubit"),
    "where cubit inf": (lambda f: ["where", "35.2", "32.2", "--cubit", "inf"], "cubit"),
    # corrupt files of an earlier output
    "sweep --resume, corrupt manifest": (_sweep_resume_corrupt_manifest, "manifest"),
    "sweep report, corrupt runs.parquet": (_report_corrupt_runs, "runs.parquet"),
    "map --run, malformed trees": (_map_bad_trees, "trees"),
    "map --coverage-file not geodata": (_map_coverage_not_geodata, "field.gpkg"),
    "map --coverage-cell-m inf": (
        lambda f: [
            "map",
            "--out",
            str(f / "m.html"),
            "--coverage",
            str(TINY),
            "--coverage-cell-m",
            "inf",
        ],
        "--coverage-cell-m",
    ),
    # work that cannot finish: refused with an estimate
    "run dt_s 1e-9": (_run_scenario(_tiny(dt_s=1e-9)), "steps"),
    "run 10^6 incidents at dt_s 1": (
        _run_scenario(_tiny(dt_s=1, incidents=[], generate={"n": 1_000_000})),
        "agent-steps",
    ),
    "sweep of 10^10 runs": (
        _sweep(
            _sweep_of()
            | {
                "replications": 100_000,
                "axes": {
                    "lhs": {"avenger.delay_h.median": {"low": 1, "high": 2}},
                    "samples": 100_000,
                },
            }
        ),
        "runs",
    ),
    "coverage cell 1 m": (
        lambda f: ["coverage", "--out", str(f / "c.gpkg"), "--cell-m", "1"],
        "cells",
    ),
    "coverage --draws 10^9": (
        lambda f: ["coverage", "--out", str(f / "c.gpkg"), "--draws", "1000000000"],
        "draws",
    ),
    "sweep on an unreachable cluster": (_unreachable_cluster, "--cluster"),
}


def _snapshot(folder: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(folder.rglob("*"))
    }


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_is_one_line_exit_2_and_nothing_changes(
    name: str, run_cli: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup, needle = CASES[name]
    monkeypatch.chdir(tmp_path)
    args = setup(tmp_path)
    before = _snapshot(tmp_path)
    result = run_cli(*args)
    lines = result.err.splitlines()
    assert result.code == 2, (result.code, result.err[-800:])
    assert len(lines) == 1 and lines[0].startswith("refuge: error: "), result.err[-800:]
    assert needle in lines[0], lines[0]
    assert "Traceback" not in result.err + result.out
    assert _snapshot(tmp_path) == before  # nothing written, nothing destroyed
