"""The wheel works without the source tree: built from a copy of the sources, installed into a
fresh venv outside the checkout, it runs `refuge demo` and `refuge cases` on the data, cases
and map assets it carries.

The fresh venv gets no copy of the dependencies: a ``.pth`` line puts the project venv's
site-packages on its path (as plain directories, so the editable install's finder there is
never run), and the wheel goes in with ``--no-deps``. Nothing comes from the network.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NODE_MODULES = ROOT / "refuge_map" / "render" / "assets" / "node_modules"
SKIPPED = {".venv", ".git", "build", "out", "node_modules", "__pycache__", ".pytest_cache"}


def _copy_sources(target: Path) -> None:
    """The checkout without its venv, git data and build leftovers, plus the npm assets."""

    def ignore(folder: str, names: list[str]) -> set[str]:
        return {n for n in names if n in SKIPPED or n.endswith(".egg-info")}

    shutil.copytree(ROOT, target, ignore=ignore)
    shutil.copytree(NODE_MODULES, target / NODE_MODULES.relative_to(ROOT))


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"{args}: {done.stderr[-2000:]}"
    return done


@pytest.mark.slow
def test_the_wheel_installs_and_runs_outside_the_checkout(tmp_path: Path) -> None:
    if not (NODE_MODULES / "leaflet" / "package.json").is_file():
        pytest.fail("the map's assets are not installed: run `make assets`")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "REFUGE_MAP_DATA")}
    sources, wheels, home = tmp_path / "src", tmp_path / "wheels", tmp_path / "elsewhere"
    _copy_sources(sources)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    built = _run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels), "."],
        cwd=sources,
        env=env,
    )
    # the map's assets and the explorer's page ship as package data, declared as such
    assert "absent from the `packages` configuration" not in built.stdout + built.stderr
    wheel = next(wheels.glob("refuge_map-*.whl"))

    env_dir = tmp_path / "fresh-venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    site = Path(
        _run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            cwd=tmp_path,
            env=env,
        ).stdout.strip()
    )
    (site / "project_deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    _run(
        [*pip, "--python", str(python), "install", "-q", "--no-deps", "--no-index", str(wheel)],
        cwd=tmp_path,
        env=env,
    )
    shutil.rmtree(sources)  # nothing may come from the source tree any more

    home.mkdir()
    where = _run(
        [
            str(python),
            "-c",
            "import refuge_map, refuge_data, json; "
            "print(json.dumps([refuge_map.__file__, str(refuge_data.data_dir())]))",
        ],
        cwd=home,
        env=env,
    )
    package, data = (Path(p) for p in json.loads(where.stdout))
    assert package.is_relative_to(env_dir) and data.is_relative_to(env_dir)
    refuge = str(env_dir / "bin" / "refuge")
    demo = _run([refuge, "demo", "--out", str(home / "demo")], cwd=home, env=env)
    for name in ("network.gpkg", "cities.csv", "map.html", "map.png", "run/events.parquet"):
        assert (home / "demo" / name).is_file(), name
    page = (home / "demo" / "map.html").read_text(encoding="utf-8")
    assert "L.TimeDimension=" in page and "<script src=" not in page  # assets inlined
    assert "open the map:" in demo.stdout
    cases = _run([refuge, "cases", "--json"], cwd=home, env=env)
    listed = json.loads(cases.stdout)
    assert Path(listed["folder"]).is_relative_to(env_dir) and len(listed["cases"]) >= 49
    table = _run([refuge, "cases"], cwd=home, env=env).stdout
    assert "001_pushing_roller" in table and f"{len(listed['cases'])} cases shipped" in table
    print(demo.stdout[-400:], f"{len(listed['cases'])} cases from {listed['folder']}", sep="\n")
