"""CLI output for scripts: whole lines when piped, `--json`, `--version`; the law's wall and
the light start-up (imports, not times: timing is benchmarks/bench_startup.py's job)."""

from __future__ import annotations

import gc
import itertools
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from refuge_map import __version__

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "data" / "scenarios" / "tiny.yaml"
HEAVY = ("geopandas", "shapely", "pyproj", "networkx", "pyogrio")
#: What a command imports only when it needs it: a progress bar (long runs on a terminal,
#: sweeps), the case vocabulary's reference page (`refuge judge --schema`).
ON_DEMAND = ("rich.progress", "refuge_map.law.reference")
#: The `refuge` console script, as ``python -c`` code.
SCRIPT = "from refuge_map.console import script; script()"


def _loaded_after(statement: str, modules: tuple[str, ...] = HEAVY) -> list[str]:
    """The `modules` (default: the heavy ones) a fresh interpreter holds after running
    `statement`."""
    code = f"import sys; {statement}; print([m for m in {modules!r} if m in sys.modules])"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/"
    )
    return json.loads(done.stdout.splitlines()[-1].replace("'", '"'))


def _command(*args: str | Path) -> str:
    """A statement for `_loaded_after`: `main` of the CLI with `args`, in that interpreter."""
    argv = [str(arg) for arg in args]
    code = f"from refuge_map.cli import main\ntry: main({argv!r})\nexcept SystemExit: pass"
    return f"exec({code!r})"


def test_the_law_imports_no_geometry() -> None:
    assert _loaded_after("import refuge_map.law, refuge_map.law.casefiles") == []
    assert (
        _loaded_after("from refuge_map.law.casefiles import shipped_cases; shipped_cases()") == []
    )


def test_the_cli_loads_the_geographic_stack_only_for_commands_that_need_it() -> None:
    assert _loaded_after("import refuge_map.cli") == []
    case = ROOT / "data" / "cases" / "001_pushing_roller.yaml"
    assert _loaded_after(_command("judge", case)) == []


def test_a_run_loads_no_progress_bar_nor_what_other_commands_need(tmp_path: Path) -> None:
    run = _command("run", TINY, "--out", tmp_path / "run")
    assert _loaded_after(run, ON_DEMAND) == []
    assert (tmp_path / "run" / "summary.json").is_file()  # the run did run


def test_a_query_or_a_run_on_a_cached_network_loads_no_graph_library(tmp_path: Path) -> None:
    # a cached network carries its router's all-pairs tables and its road graph as bytes
    # (`RefugeNetwork.__getstate__`): networkx and scipy.sparse (0.1 s and 0.12 s of start-up)
    # are loaded only to build a network, or by the few that ask for its graph
    where = _command("where", "35.2", "32.2")
    runs = [_command("run", TINY, "--out", tmp_path / f"run{i}") for i in (1, 2)]
    for first, again in ((where, where), tuple(runs)):
        _loaded_after(first)  # builds the network (or finds it cached)
        assert _loaded_after(again, ("networkx", "scipy.sparse")) == []
    assert (tmp_path / "run2" / "summary.json").is_file()


def test_a_run_loads_gdal_only_to_write_a_geopackage() -> None:
    # pyogrio (GDAL's library: 30-40 ms) loads where trajectories.gpkg is written (a child of
    # a run that splits), not with the run's writers
    assert _loaded_after("import refuge_map.io, refuge_map.simulation.io", ("pyogrio",)) == []


def test_the_layers_and_drawings_of_a_cached_network_load_no_graph_library() -> None:
    # its road frames are pickled beside its graph (`RefugeNetwork.road_frames`): the map, the
    # PNG and the layers of `refuge demo` and `refuge layers` leave networkx unloaded (0.1-0.2 s)
    draw = (
        "from geo.network import load_network; from refuge_map.render.static import "
        "draft_static_map; network = load_network(); network.layers(); network.bridges(); "
        "draft_static_map(network)"
    )
    _loaded_after(draw)  # builds the network (or finds it cached)
    assert _loaded_after(draw, ("networkx",)) == []


@pytest.mark.parametrize(
    ("command", "written", "unloaded"),
    [
        # matplotlib draws the PNG only; the network's map is no run's
        (["map", "--out"], "map.html", ("matplotlib", "refuge_map.simulation")),
        (["map", "--png"], "map.png", ("folium", "scipy")),  # a picture: no HTML, no coverage
        (["layers", "--out"], "network.gpkg", ("folium", "matplotlib")),  # its QGIS styles
    ],
)
def test_a_command_loads_no_drawing_library_it_does_not_draw_with(
    tmp_path: Path, command: list[str], written: str, unloaded: tuple[str, ...]
) -> None:
    out = tmp_path / written
    assert _loaded_after(_command(*command, out), unloaded) == []
    assert out.stat().st_size > 0  # the command did write it


def test_only_a_command_of_the_law_loads_the_case_models(tmp_path: Path) -> None:
    # `--help` names the disputes and presets (`refuge_map.law.opinions`): the case models,
    # the judge and the case files' reader (0.15 s) are loaded by the commands that judge
    models = ("refuge_map.law.case", "refuge_map.law.judging", "refuge_map.law.casefiles")
    assert _loaded_after("import refuge_map.cli", models) == []
    assert _loaded_after(_command("where", "35.2", "31.9"), models) == []
    assert _loaded_after(_command("layers", "--out", tmp_path / "n.gpkg"), models) == []
    case = ROOT / "data" / "cases" / "001_pushing_roller.yaml"
    assert _loaded_after(_command("judge", case), models) == list(models)


def test_what_a_run_imports_before_it_flies_leaves_scipy_special_for_the_end() -> None:
    # the modules `refuge run` imports when it starts (`sim_commands.run_command`): scipy.special
    # (the replications' Student's t) is loaded only once the runs are done, not on the
    # start-up before a child shares the replications
    run_imports = (
        "import geo, refuge_map._atomic, refuge_map.limits, refuge_map.simulation, "
        "refuge_map.simulation._walk, refuge_map.simulation.report, refuge_map.simulation.model"
    )
    assert _loaded_after(run_imports, ("scipy.special",)) == []


def test_a_run_through_main_leaves_the_callers_collector_as_it_was(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    # only the console script's own process freezes what a command loaded
    frozen = gc.get_freeze_count()
    result = run_cli("run", TINY, "--out", tmp_path / "run")
    assert result.code == 0, result.err
    assert gc.get_freeze_count() == frozen


def test_the_console_script_freezes_what_a_run_loaded(tmp_path: Path) -> None:
    # and collects nothing while the run's modules load (held), collecting again after
    probe = (
        "import gc, sys\n"
        "from refuge_map.cli import _app, script\n"
        "def frozen(held): sys.stderr.write(f'FROZEN {gc.get_freeze_count()} {held} "
        "{gc.isenabled()}\\n')\n"
        "loaded = _app.freeze_loaded\n"
        "_app.freeze_loaded = lambda: frozen((not gc.isenabled(), loaded())[0])\n"
        "import refuge_map.cli.sim_commands as sim\n"
        "sim.freeze_loaded = _app.freeze_loaded\n"
        f"sys.argv = ['refuge', 'run', {str(TINY)!r}, '--out', {str(tmp_path / 'run')!r}]\n"
        "script()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd="/"
    )
    seen = [line.split()[1:] for line in done.stderr.splitlines() if line[:7] == "FROZEN "]
    assert len(seen) == 1 and int(seen[0][0]) > 50_000  # the simulation's modules and libraries
    assert seen[0][1:] == ["True", "True"]  # held while they loaded, collecting again after
    assert (tmp_path / "run" / "summary.json").is_file()


def test_version(run_cli: Callable[..., Any]) -> None:
    result = run_cli("--version")
    assert result.code == 0 and result.out.strip() == f"refuge-map {__version__}"


def test_piped_output_is_never_wrapped(tmp_path: Path) -> None:
    # a path far longer than any terminal: the line naming it must come out whole
    deep = tmp_path.joinpath(*["a-rather-long-folder-name"] * 12)
    deep.mkdir(parents=True)
    scenario = deep / "tiny.yaml"
    scenario.write_bytes(TINY.read_bytes())
    done = subprocess.run(
        [Path(sys.executable).with_name("refuge"), "scenario", "check", scenario],
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": "/usr/bin:/bin", "COLUMNS": "40"},
    )
    assert done.stdout.splitlines() == [
        f"ok: {scenario}: scenario 'tiny', 3 incidents, dt 120 s, horizon 24 h, 1 replication(s)"
    ]


def test_where_json(run_cli: Callable[..., Any]) -> None:
    result = run_cli("where", "35.2", "32.2", "--json")
    assert result.code == 0, result.err
    answer = json.loads(result.out)
    assert set(answer) == {"city", "zone", "protected", "rule", "tree", "opinions"}
    assert answer["zone"] in ("city", "techum", "outside") and "Numbers 35" in answer["rule"]
    assert answer["opinions"]["bough"] == "mishnah"


def test_cases_json(run_cli: Callable[..., Any]) -> None:
    listed = json.loads(run_cli("cases", "--json").out)
    names = [case["case"] for case in listed["cases"]]
    assert "001_pushing_roller" in names and len(names) == len(set(names)) >= 49
    assert all("default" in case["expected"] for case in listed["cases"])


def test_scenario_check_json(run_cli: Callable[..., Any]) -> None:
    checked = json.loads(run_cli("scenario", "check", TINY, "--json").out)
    assert checked["ok"] is True and checked["scenario"]["name"] == "tiny"
    assert checked["scenario"]["dt_s"] == 120


def test_run_json(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    result = run_cli("run", TINY, "--out", tmp_path / "out", "--json")
    assert result.code == 0, result.err
    printed = json.loads(result.out)
    on_disk = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert printed["summary"] == on_disk
    assert {Path(p).name for p in printed["files"]} >= {"events.parquet", "summary.json"}


@pytest.mark.slow
def test_sweep_report_json(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    from test_sweep_run import write_sweep

    out = tmp_path / "out"
    assert run_cli("sweep", write_sweep(tmp_path), "--out", out, "--serial").code == 0
    result = run_cli("sweep", "report", out, "--json")
    assert result.code == 0, result.err
    files = [Path(p) for p in json.loads(result.out)["files"]]
    assert (out / "report" / "summary.csv") in files and all(p.is_file() for p in files)


@pytest.mark.parametrize(
    ("args", "code", "stream", "text"),
    [
        (["--version"], 0, "stdout", f"refuge-map {__version__}\n"),
        (["judge", "no-such-case.yaml"], 2, "stderr", "refuge: error: "),
    ],
)
def test_the_console_script_leaves_with_the_commands_code_and_all_its_output(
    args: list[str], code: int, stream: str, text: str
) -> None:
    # `script` leaves without the interpreter's finalization: its output must be flushed first
    # (buffered, as a pipe has it unless PYTHONUNBUFFERED is set)
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *args],
        capture_output=True,
        text=True,
        cwd="/",
        env=buffered,
    )
    assert done.returncode == code
    assert getattr(done, stream).startswith(text) and getattr(done, stream).endswith("\n")


@pytest.mark.parametrize(
    ("closed", "args", "code"),
    [("stdout", ["--version"], 0), ("stderr", ["judge", "no-such-case.yaml"], 2)],
)
def test_the_console_script_leaves_with_the_commands_code_when_a_stream_is_closed(
    closed: str, args: list[str], code: int
) -> None:
    # a stream whose descriptor was closed when the interpreter started is None in `sys`
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import sys; sys.{closed} = None; {SCRIPT}",
            *args,
        ],
        capture_output=True,
        text=True,
        cwd="/",
    )
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("name", "given", "seen"),
    [
        ("OPENBLAS_NUM_THREADS", None, "1"),
        ("OPENBLAS_NUM_THREADS", "3", "3"),
        ("ARROW_DEFAULT_MEMORY_POOL", None, "system"),
        ("ARROW_DEFAULT_MEMORY_POOL", "mimalloc", "mimalloc"),
        ("PYDANTIC_DISABLE_PLUGINS", None, "__all__"),
        ("PYDANTIC_DISABLE_PLUGINS", "logfire", "logfire"),
    ],
)
def test_the_console_script_sets_its_process_defaults_unless_told_otherwise(
    name: str, given: str | None, seen: str
) -> None:
    # set before numpy's and pyarrow's imports (which importing the CLI does not do): numpy's
    # and scipy's OpenBLAS start no threads of their own in a command's process, and Arrow's
    # buffers come from the system's allocator; a value the user set is kept
    probe = (
        "import os, sys; from refuge_map import cli, console; "
        f"cli.main = lambda: print(os.environ.get({name!r}), 'numpy' in sys.modules, "
        "'pyarrow' in sys.modules); console.script()"
    )
    env = {k: v for k, v in os.environ.items() if k != name}
    told = env if given is None else env | {name: given}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd="/", env=told
    )
    assert done.stdout.split() == [seen, "False", "False"]


def test_a_commands_arrow_buffers_come_from_the_systems_allocator() -> None:
    # what a command's tables and files are made in (pandas' text columns are Arrow's)
    probe = (
        "from refuge_map import cli, console; "
        "cli.main = lambda: print(__import__('pyarrow').default_memory_pool().backend_name); "
        "console.script()"
    )
    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd="/", env=env
    )
    assert done.stdout.split() == ["system"], done.stderr


#: A pydantic plugin, found by its entry point, that says so on stderr when it is loaded.
PYDANTIC_PLUGIN = """\
import sys
sys.stderr.write("pydantic plugin loaded\\n")
class Watcher:
    def new_schema_validator(self, *args, **kwargs):
        return None, None, None
plugin = Watcher()
"""


@pytest.mark.parametrize(("given", "loaded"), [(None, False), ("", True)])
def test_the_console_script_loads_no_pydantic_plugin_unless_told_to(
    tmp_path: Path, given: str | None, loaded: bool
) -> None:
    # pydantic reads the entry points of every installed distribution for its plugins when
    # its first validator is built (a command that reads a case file: `cases`): the console
    # script turns them off unless the user set PYDANTIC_DISABLE_PLUGINS (empty: all of them on)
    (tmp_path / "probe_plugin.py").write_text(PYDANTIC_PLUGIN)
    info = tmp_path / "probe_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: probe-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[pydantic]\nprobe = probe_plugin:plugin\n")
    path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    told = env | {"PYTHONPATH": path}
    if given is not None:
        told["PYDANTIC_DISABLE_PLUGINS"] = given
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, "cases"], capture_output=True, text=True, env=told
    )
    assert done.returncode == 0, done.stderr
    assert re.match(r"\d+ cases shipped in ", done.stdout), done.stdout[:200]
    assert ("pydantic plugin loaded" in done.stderr) is loaded, done.stderr


def _panel_rows(text: str, title: str) -> list[tuple[str, str, int]]:
    """The rows of a help panel: its name column (blank where a description goes on), its
    description line, and the description column's width (the panel's, less the names' column
    and the padding before its right edge)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if f"─ {title} ─" in line)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("╰"))
    rows = [line[1:-1] for line in lines[start + 1 : end]]  # within the panel's edges
    name, first = rows[0].split(maxsplit=1)[0], rows[0]
    column = len(first) - len(first[first.index(name) + len(name) :].lstrip())
    return [(row[:column].strip(), row[column:].rstrip(), len(row) - 1 - column) for row in rows]


@pytest.mark.parametrize("columns", ["80", "130"])
def test_the_commands_summaries_wrap_to_the_panels_width(run_cli, monkeypatch, columns):
    """`refuge --help` lists each command with its summary wrapped at the panel's edge, not
    broken where its docstring's lines end: a summary's line ends only where its next word
    would not fit."""
    monkeypatch.setenv("COLUMNS", columns)
    rows = _panel_rows(run_cli("--help").out, "Commands")
    assert {"demo", "run", "sweep", "where"} <= {name for name, _, _ in rows}
    for (_, line, width), (name, following, _) in itertools.pairwise(rows):
        if not name:  # the same command's summary goes on
            assert len(line) + 1 + len(following.split()[0]) > width, line


def test_explore_without_its_extra_names_what_to_install(run_cli, monkeypatch):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # its import then fails
    result = run_cli("explore", "--port", "0")
    assert result.code == 2 and result.out == ""
    expected = "refuge explore: uvicorn is not installed: pip install 'refuge-map[explore]'"
    assert result.err.strip() == f"refuge: error: {expected}"


def _invocations() -> list[tuple[str, ...]]:
    """Each command's and group's help and an option it does not have; each group's
    commands' help; a missing argument (`refuge run`), a group without its command."""
    from refuge_map.cli import _name_of, app

    names = [_name_of(info) for info in app.registered_commands]
    args = [(name, flag) for name in names for flag in ("--help", "--no-such-option")]
    for group in app.registered_groups:
        assert group.name is not None and group.typer_instance is not None
        args += [(group.name, "--help"), (group.name, "--no-such-option")]
        args += [
            (group.name, _name_of(info), "--help")
            for info in group.typer_instance.registered_commands
        ]
    return [*args, ("run",), *((group.name,) for group in app.registered_groups if group.name)]


@pytest.mark.parametrize("args", _invocations(), ids=" ".join)
def test_a_command_built_alone_says_what_the_whole_app_says(run_cli, monkeypatch, args):
    """`main` builds click's command of the command or group its arguments name only
    (`app_for`): what it prints, and its exit code, are the whole application's."""
    from refuge_map import cli

    lean = cli.app_for(args)
    assert len(lean.registered_commands) + len(lean.registered_groups) == 1
    alone = run_cli(*args)
    monkeypatch.setattr(cli, "app_for", lambda _: cli.app)
    whole = run_cli(*args)
    assert alone == whole
    assert alone.out or alone.err  # a help, or one line of error
