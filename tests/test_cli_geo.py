"""`refuge where`, `refuge layers` and the error policy of the CLI."""

import subprocess
import sys

import geopandas as gpd
import pyogrio
import pytest


def test_where_in_hebron(run_cli):
    result = run_cli("where", "35.10222", "31.525087")
    assert result.code == 0
    assert "Hebron" in result.out and "zone: city" in result.out and "protected: yes" in result.out
    assert "Numbers 35" in result.out


def test_where_outside(run_cli):
    result = run_cli("where", "35.0", "30.5")
    assert result.code == 0
    assert "protected: no" in result.out and "zone: outside" in result.out


def test_where_in_a_tree_follows_the_bough(run_cli):
    result = run_cli("where", "35.0", "30.5", "--bough", "35.10222", "31.525087")
    assert "protected: yes" in result.out and "Mishnah Makkot 2:7" in result.out


def test_where_round_techum_and_cubit(run_cli):
    result = run_cli("where", "35.10222", "31.535", "--cubit", "0.576", "--techum", "round")
    assert result.code == 0 and "cubit 0.576 m, techum round" in result.out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["where", "35", "31.5", "--cubit", "-1"], "cubit_m"),
        (["where", "35", "31.5", "--techum", "oval"], "techum"),
        (["where", "35", "nan"], "lat"),
        (["where", "35", "31.5", "--bough-opinion", "hillel"], "hillel"),
        (["layers", "--out", "x.shp"], "x.shp"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(run_cli, args, needle):
    result = run_cli(*args)
    assert result.code == 2
    assert needle in result.err
    assert result.err.strip().count("\n") == 0
    assert "Traceback" not in result.err


def test_layers_to_geopackage(run_cli, tmp_path):
    out = tmp_path / "net.gpkg"
    result = run_cli("layers", "--out", out)
    assert result.code == 0
    names = {name for name, _ in pyogrio.list_layers(out)}
    assert {"cities", "zones", "roads", "hydrography_lines", "land", "limits"} <= names
    cities = gpd.read_file(out, layer="cities")
    assert len(cities) == 6 and cities.crs.to_epsg() == 4326
    assert not list(tmp_path.glob(".*part*"))


def test_layers_to_geojson_files(run_cli, tmp_path):
    result = run_cli("layers", "--out", tmp_path / "net.geojson")
    assert result.code == 0
    assert (tmp_path / "net" / "zones.geojson").is_file()
    assert len(gpd.read_file(tmp_path / "net" / "zones.geojson")) == 6


@pytest.mark.parametrize(
    ("args", "needle"),
    [(["where"], "Missing argument"), (["where", "35", "31.5", "--bogus"], "No such option")],
)
def test_usage_errors_are_one_line_and_exit_2(run_cli, args, needle):
    result = run_cli(*args)
    assert result.code == 2
    assert needle in result.err
    assert result.err.strip().count("\n") == 0


def test_the_cli_needs_no_undeclared_package():
    # typer carries its own click: the CLI must not import a click it does not declare.
    probe = "import sys, refuge_map.cli; print('click' in sys.modules)"
    found = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert found.stdout.strip() == "False"


def test_layers_are_byte_identical_run_to_run(run_cli, tmp_path):
    for name in ("a.gpkg", "b.gpkg"):
        assert run_cli("layers", "--out", tmp_path / name).code == 0
    assert (tmp_path / "a.gpkg").read_bytes() == (tmp_path / "b.gpkg").read_bytes()
