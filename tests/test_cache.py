"""The on-disk cache of built networks (`geo._cache`): a cached network is the fresh one; any
change of what it is built from is another entry; damage, pruning, 'off', another process."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import shapely
from geopandas.testing import assert_geodataframe_equal

import geo.network
from geo import (
    AddedCity,
    DataFileError,
    ParameterError,
    RefugeNetwork,
    default_data_dir,
    load_network,
)
from geo import _cache as cache
from geo.designation import designate_three_more
from geo.network import FRAMES
from geo.roads import RoadRouter

THREE_MORE = (
    AddedCity("dibon", "Dibon", 35.7766, 31.5022),
    AddedCity("megiddo", "Megiddo", 35.1844, 32.5853),
    AddedCity("lod", "Lod", 34.9, 31.95),
)
LEVITICAL_THREE_MORE = {
    "refuges": "levitical",
    "added_cities": THREE_MORE,
    "designated": designate_three_more(
        geo.MOSES_THEN_JOSHUA, [city.id for city in THREE_MORE], t=100.0
    ),
    "cubit_m": "chazon_ish",
    "techum": "round",
}


TABLES = ("cities", "zones", "hydrography", "land", "places", "levitical", "rivers")


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache folder of this test alone."""
    path = tmp_path / "cache"
    monkeypatch.setenv(cache.CACHE_ENV, str(path))
    return path


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    shutil.copytree(
        default_data_dir(),
        tmp_path / "data",
        ignore=shutil.ignore_patterns("cases", "scenarios", "sweeps", "tools", "*.md", "*.py"),
    )
    return tmp_path / "data"


def entries(folder: Path) -> list[Path]:
    """The cache's entries in `folder` (``network-<sha256>.pickle``)."""
    return sorted(p for p in folder.glob("network-*.pickle") if cache._ENTRY.fullmatch(p.name))


def no_build(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make a build fail: what loads after this came from the cache."""

    def refuse(*args: object) -> RefugeNetwork:
        raise AssertionError("built, not loaded from the cache")

    monkeypatch.setattr(geo.network, "_build", refuse)


def assert_same_network(cached: RefugeNetwork, fresh: RefugeNetwork) -> None:
    """Every attribute the same, and every table, geometry and the graph equal."""
    # (not their pickles byte for byte: pandas caches a dtype's numpy dtype on first use, which
    # a pickle then holds, so two equal networks pickle alike only with the same history)
    compared = {*TABLES, "roads", "designation", "options", "crs", "data_dir", "_asylum", "_router"}
    # the cities' arrays, made from them (what a run reads without the frames), and the map's
    # layers (made on first use)
    left = {"_designated_at", "_city_ids", "_city_kinds", "_city_sites", "_layers"}
    # the road frames and bridges of a loaded network (its frames pickled beside its graph:
    # no networkx) are those of its graph
    for mine, theirs in zip(cached.road_frames(), fresh.road_frames(), strict=True):
        assert_geodataframe_equal(mine, theirs, check_less_precise=False)
    assert_geodataframe_equal(cached.bridges(), fresh.bridges(), check_less_precise=False)
    for network in (cached, fresh):  # either may be loaded: its graph unpickled when asked for
        assert network.roads.number_of_nodes() == len(network.router.node_ids)
    assert cached.__dict__.keys() == fresh.__dict__.keys() == compared | left
    for name in TABLES:
        mine, theirs = getattr(cached, name), getattr(fresh, name)
        assert (mine is None) == (theirs is None), name
        if mine is not None:
            assert_geodataframe_equal(mine, theirs, check_less_precise=False)
            for column in mine.columns[mine.dtypes == "geometry"]:
                assert shapely.equals_exact(mine[column], theirs[column], tolerance=0).all()
    assert cached.cities["site"].crs == fresh.cities["site"].crs
    assert list(cached.roads.nodes(data=True)) == list(fresh.roads.nodes(data=True))
    assert cached.roads.graph == fresh.roads.graph
    ours, others = cached.roads.edges(keys=True, data=True), fresh.roads.edges(keys=True, data=True)
    assert [e[:3] for e in ours] == [e[:3] for e in others]
    for (*_, mine), (*_, theirs) in zip(ours, others, strict=True):
        assert mine.keys() == theirs.keys()
        for name, value in mine.items():
            if isinstance(value, shapely.Geometry):
                assert shapely.equals_exact(value, theirs[name], tolerance=0)
            else:
                assert value == theirs[name] or (value != value and theirs[name] != theirs[name])
    assert cached.designation == fresh.designation
    assert cached.options == fresh.options
    assert cached.crs == fresh.crs
    assert cached.data_dir == fresh.data_dir
    np.testing.assert_array_equal(cached._designated_at, fresh._designated_at)
    for name in ("towns", "zones", "needs_intent", "_zone_bounds", "_order"):
        mine, theirs = getattr(cached.asylum, name), getattr(fresh.asylum, name)
        assert np.array_equal(mine, theirs), name
    assert shapely.is_prepared(cached.asylum.zones).all()
    assert_same_router(cached.router, fresh.router)
    assert cached._layers is None


def assert_same_router(cached: RoadRouter, fresh: RoadRouter) -> None:
    """Every table of the router equal, and its adjacency (a loaded one makes it again)."""
    arrays = ("node_ids", "node_x", "node_y", "node_gate", "node_waypoint", "edge_u", "edge_v")
    for name in (*arrays, "edge_length_m", "node_dist", "node_pred"):
        np.testing.assert_array_equal(getattr(cached, name), getattr(fresh, name), err_msg=name)
    assert shapely.equals_exact(cached.edge_geometries, fresh.edge_geometries, tolerance=0).all()
    assert (cached.matrix != fresh.matrix).nnz == 0
    flood = cached.flood()
    np.testing.assert_array_equal(flood.dist, fresh.flood().dist)
    assert not flood.dist.flags.writeable  # the cached flood's arrays are every caller's


def test_a_cached_network_is_the_fresh_one(folder, monkeypatch):
    fresh = load_network()
    assert len(entries(folder)) == 1
    assert folder.stat().st_mode & 0o777 == 0o700
    no_build(monkeypatch)
    cached = load_network()
    assert cached is not fresh
    assert_same_network(cached, fresh)
    # the same answers, down to a route
    lon, lat = np.array([35.2, 35.9, 34.9]), np.array([31.9, 32.3, 31.5])
    assert cached.locate(35.2, 31.9) == fresh.locate(35.2, 31.9)
    np.testing.assert_array_equal(cached.in_asylum(lon, lat), fresh.in_asylum(lon, lat))
    assert cached.route(35.2, 31.9, "hebron").length_m == fresh.route(35.2, 31.9, "hebron").length_m


def test_the_road_frames_of_a_cached_network_are_the_callers_to_change(folder, monkeypatch):
    load_network()
    no_build(monkeypatch)
    cached = load_network()
    nodes, edges = cached.road_frames()
    bridges = cached.bridges()
    edges["name"], edges["geometry"] = "renamed", None
    nodes["x"] = np.nan
    again_nodes, again_edges = cached.road_frames()
    assert again_nodes["x"].notna().all() and len(again_nodes) == len(nodes) > 0
    assert (again_edges["name"] != "renamed").all() and again_edges.geometry.notna().all()
    assert_geodataframe_equal(cached.bridges(), bridges, check_less_precise=False)


def test_every_option_is_kept_in_the_entry(folder, monkeypatch):
    fresh = load_network(**LEVITICAL_THREE_MORE)
    monkeypatch.setenv(cache.CACHE_ENV, "off")
    uncached = load_network(**LEVITICAL_THREE_MORE)
    monkeypatch.setenv(cache.CACHE_ENV, str(folder))
    no_build(monkeypatch)
    cached = load_network(**LEVITICAL_THREE_MORE)
    assert "megiddo" in cached.cities.index and cached.options["refuges"] == "levitical"
    assert_same_network(cached, fresh)
    assert_same_network(cached, uncached)


def test_a_changed_file_or_option_is_another_entry(folder, data_copy, monkeypatch):
    shipped = load_network()
    assert len(entries(folder)) == 1
    # the same bytes in another folder: the same entry, the network of that folder
    copied = load_network(data_copy)
    assert len(entries(folder)) == 1 and copied.data_dir == data_copy
    roads = data_copy / "roads.geojson"
    roads.write_bytes(roads.read_bytes() + b"\n")
    load_network(data_copy)
    assert len(entries(folder)) == 2
    (data_copy / geo.network.LEVITICAL_FILE).unlink()  # a file gone counts too
    assert load_network(data_copy).levitical is None
    assert len(entries(folder)) == 3
    load_network(cubit_m=0.5)
    load_network(designated=geo.MOSES_THEN_JOSHUA)
    load_network(candidates={"kedesh": next(iter(shipped.cities["site_id"]))})
    assert len(entries(folder)) == 6
    # a preset and its metres are the same network
    no_build(monkeypatch)
    load_network(cubit_m=shipped.options["cubit_m"])


def test_the_code_and_the_libraries_are_in_the_key(monkeypatch):
    files = tuple(default_data_dir() / name for name in geo.network.READ_FILES)
    first = cache.key(files, {"cubit_m": 0.48})
    assert cache.key(files, {"cubit_m": 0.48}) == first
    assert cache.key(files, {"cubit_m": 0.480000001}) != first
    versions = cache._versions()
    changed = tuple("9.9" if v == "1.2.0" or v == versions[-1] else v for v in versions)
    monkeypatch.setattr(cache, "_versions", lambda: changed)
    assert cache.key(files, {"cubit_m": 0.48}) != first
    assert set(cache.LIBRARIES) <= set(versions)


def test_a_parameter_without_a_stable_form_is_not_cached(folder):
    files = (default_data_dir() / "places.geojson",)
    assert cache.key(files, {"when": object()}) is None
    built = cache.cached(lambda: [1], kind=list, files=files, params=object())
    assert built == [1]
    assert not folder.exists() or not any(folder.iterdir())


def test_sets_hash_the_same_in_every_process():
    params = {"cities": frozenset({"kedesh", "shechem", "hebron", "bezer"}), "t": 1.5}
    probe = (
        "from geo import _cache; print(_cache._canonical({'cities': frozenset({'kedesh', "
        "'shechem', 'hebron', 'bezer'}), 't': 1.5}).decode())"
    )
    seen = {
        subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            text=True,
            check=True,
            env=os.environ | {"PYTHONHASHSEED": seed},
        ).stdout.strip()
        for seed in ("1", "2", "3")
    }
    assert seen == {cache._canonical(params).decode()}


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # truncated
        lambda data: data[:100] + bytes([data[100] ^ 1]) + data[101:],  # one bit of the payload
        lambda data: hashlib.sha256(b"junk").digest() + b"junk",  # checked, and no pickle
        lambda data: (lambda p: hashlib.sha256(p).digest() + p)(pickle.dumps({"a": 1})),
        lambda data: b"",
    ],
    ids=["truncated", "bit", "no-pickle", "another-object", "empty"],
)
def test_a_damaged_entry_is_built_again_and_replaced(folder, damage):
    fresh = load_network()
    (entry,) = entries(folder)
    good = entry.read_bytes()
    entry.write_bytes(damage(good))
    rebuilt = load_network()
    assert_same_network(rebuilt, fresh)
    assert entries(folder) == [entry]
    assert isinstance(cache._load(entry), RefugeNetwork)


def test_off_writes_nothing_anywhere(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(cache.CACHE_ENV, "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.cache_dir() is None
    load_network()
    assert list(tmp_path.iterdir()) == []
    assert capsys.readouterr() == ("", "")


def test_where_the_cache_goes(tmp_path, monkeypatch):
    monkeypatch.delenv(cache.CACHE_ENV)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "refuge-map"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # ignored, as the spec says
    assert cache.cache_dir() == tmp_path / "home" / ".cache" / "refuge-map"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache.cache_dir() == tmp_path / "home" / ".cache" / "refuge-map"
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "mine"))
    assert cache.cache_dir() == tmp_path / "mine"
    monkeypatch.setenv(cache.CACHE_ENV, "OFF")
    assert cache.cache_dir() is None


def test_an_unusable_folder_builds_as_before(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # others could plant a pickle there: not used
    fresh = load_network()
    for where in (blocker, blocker / "cache", shared):
        monkeypatch.setenv(cache.CACHE_ENV, str(where))
        assert_same_network(load_network(), fresh)
    assert blocker.read_text() == "not a folder"
    assert list(shared.iterdir()) == []
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize(
    ("change", "error", "match"),
    [
        ("places", DataFileError, "duplicate"),
        ("roads", DataFileError, "cannot read the file"),
        ("candidates", ParameterError, "candidate"),
    ],
)
def test_bad_data_raises_as_before_and_writes_nothing(
    folder, data_copy, monkeypatch, change, error, match
):
    options: dict[str, object] = {}
    if change == "places":
        path = data_copy / "places.geojson"
        doc = json.loads(path.read_text(encoding="utf-8"))
        cities = [f for f in doc["features"] if f["properties"]["feature_kind"] == "city_of_refuge"]
        cities[0]["properties"]["id"] = cities[1]["properties"]["id"]
        path.write_text(json.dumps(doc), encoding="utf-8")
    elif change == "roads":
        (data_copy / "roads.geojson").write_text("{ not json", encoding="utf-8")
    else:
        options["candidates"] = {"kedesh": "nowhere"}
    with pytest.raises(error, match=match) as cached_error:
        load_network(data_copy, **options)
    assert not folder.exists() or entries(folder) == []
    monkeypatch.setenv(cache.CACHE_ENV, "off")
    with pytest.raises(error) as uncached_error:
        load_network(data_copy, **options)
    assert str(cached_error.value) == str(uncached_error.value)


def test_pruning_keeps_the_most_recent_and_nothing_else_is_touched(folder, monkeypatch):
    monkeypatch.setattr(cache, "KEEP", 3)
    folder.mkdir(mode=0o700)
    now = time.time()
    ours = [folder / f"network-{i:064x}.pickle" for i in range(5)]
    for age, path in enumerate(reversed(ours)):
        path.write_bytes(b"entry")
        os.utime(path, (now - 100 * age, now - 100 * age))
    stale, fresh_temp = folder / ".network-old.tmp", folder / ".network-new.tmp"
    stale.write_bytes(b"left by a killed process")
    os.utime(stale, (now - 2 * cache._TEMP_STALE_S, now - 2 * cache._TEMP_STALE_S))
    fresh_temp.write_bytes(b"being written")
    foreign = [folder / "notes.txt", folder / "network-abc.pickle", folder / "network-x.tmp"]
    for path in foreign:
        path.write_bytes(b"not ours")
    old_foreign = folder / f"network-{0:064x}.pickle.bak"
    old_foreign.write_bytes(b"not ours either")
    os.utime(old_foreign, (now - 1e6, now - 1e6))
    (folder / "a-folder").mkdir()
    cache._prune(folder)
    assert [p.exists() for p in ours] == [False, False, True, True, True]
    assert not stale.exists() and fresh_temp.exists()
    assert all(p.exists() for p in [*foreign, old_foreign, folder / "a-folder"])
    # a write prunes: the new entry is kept, the least recently used goes
    load_network()
    left = entries(folder)
    assert len(left) == 3 and ours[2] not in left and ours[4] in left


def test_a_hit_makes_an_entry_recent(folder, monkeypatch):
    load_network()
    (entry,) = entries(folder)
    os.utime(entry, (1e9, 1e9))
    load_network()
    assert entry.stat().st_mtime > 1e9 + 1


def test_a_loaded_networks_frames_are_unpickled_together_when_one_is_read(folder, monkeypatch):
    fresh = load_network()
    no_build(monkeypatch)
    cached = load_network()
    assert not FRAMES & cached.__dict__.keys()  # pickled apart (what a run's flights read not)
    assert cached.city_ids == fresh.city_ids == tuple(fresh.cities.index)
    np.testing.assert_array_equal(cached.city_kinds, fresh.cities["kind"].to_numpy(str))
    np.testing.assert_array_equal(cached.designated_at, fresh.cities["designated_at"])
    assert shapely.equals_exact(cached.city_sites, fresh.cities["site"].to_numpy(), 0).all()
    assert not FRAMES & cached.__dict__.keys()
    assert_geodataframe_equal(cached.zones, fresh.zones, check_less_precise=False)
    assert {"cities", "zones", "land", "places", "_road_frames"} <= cached.__dict__.keys()
    assert "_pickled_frames" not in cached.__dict__
    again = pickle.loads(pickle.dumps(cached))  # pickled apart again, once read
    assert not FRAMES & again.__dict__.keys()
    assert_geodataframe_equal(again.cities, fresh.cities, check_less_precise=False)


def test_a_second_process_loads_the_entry(folder):
    fresh = load_network()
    probe = (
        "import pickle, sys\n"
        "import geo.network\n"
        "def refuse(*args): raise AssertionError('built, not loaded')\n"
        "geo.network._build = refuse\n"
        "network = geo.load_network()\n"
        "assert 'pyogrio' not in sys.modules, 'a file was read'\n"
        "network.router.distance_to_gates([-38000.0], [11000.0], ['hebron'])\n"
        "network.router.route(-38000.0, 11000.0, 'hebron')\n"
        "network.city_xy([-38000.0], [11000.0])\n"
        "assert network.city_ids and len(network.city_kinds) == len(network.city_sites)\n"
        "heavy = [m for m in ('networkx', 'scipy', 'pandas') if m in sys.modules]\n"
        "assert not heavy, f'{heavy}: what a loaded network and its router need not load'\n"
        "sys.stdout.buffer.write(pickle.dumps(network))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        check=False,
        env=os.environ | {"PYTHONHASHSEED": "7"},
    )
    assert done.returncode == 0, done.stderr.decode()
    assert_same_network(pickle.loads(done.stdout), fresh)


def test_the_key_covers_every_file_the_build_reads(tmp_path):
    """A build in a fresh process, every file it opens recorded (Python's own opens and GDAL's
    through geopandas): each is among `geo.network.READ_FILES`, and each of those is read."""
    probe = (
        "import json, os, sys\n"
        "import geopandas\n"
        "from geo import default_data_dir, load_network\n"
        "opened = set()\n"
        "def hook(event, args):\n"
        "    if event == 'open' and isinstance(args[0], (str, os.PathLike)):\n"
        "        opened.add(os.fspath(args[0]))\n"
        "sys.addaudithook(hook)\n"
        "read = geopandas.read_file\n"
        "def reading(path, *args, **kwargs):\n"
        "    opened.add(str(path))\n"
        "    return read(path, *args, **kwargs)\n"
        "geopandas.read_file = reading\n"
        "load_network()\n"
        "print(json.dumps(sorted(opened)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env=os.environ | {cache.CACHE_ENV: "off"},
    )
    data = default_data_dir().resolve()
    read = [Path(path) for path in json.loads(done.stdout)]
    names = {path.name for path in read if path.resolve().parent == data}
    assert names == set(geo.network.READ_FILES)
