"""Named places a scenario may use (geo/gazetteer.py): waypoints, reference points, sites."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from geo import gazetteer
from geo._cache import CACHE_ENV
from geo.gazetteer import REFERENCE_POINTS, candidate_sites, named_places, reference_point


@pytest.fixture
def unread() -> Iterator[None]:
    """The gazetteer's files read afresh in the test (and again after it)."""
    for read in (gazetteer._read, gazetteer._places):
        read.cache_clear()
    yield
    for read in (gazetteer._read, gazetteer._places):
        read.cache_clear()


def test_a_reference_point_is_where_the_named_places_put_it() -> None:
    named = named_places()
    cities = list(candidate_sites())
    assert "jerusalem" in REFERENCE_POINTS and cities
    for name in (*REFERENCE_POINTS, *cities):
        assert reference_point(name) == named[name], name
    with pytest.raises(KeyError):
        reference_point("no-such-place")


def test_reference_points_and_sites_are_read_without_the_roads(
    unread: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_roads(*args: object, **kwargs: object) -> None:
        raise AssertionError("the roads were read")

    monkeypatch.setenv(CACHE_ENV, "off")  # the waypoints read from the file, not the cache
    monkeypatch.setattr(gazetteer, "read_layer", no_roads)
    assert len(reference_point("jerusalem")) == 2
    assert candidate_sites()
    with pytest.raises(AssertionError, match="roads were read"):
        named_places()  # the waypoints are the roads'


def test_the_places_are_kept_in_the_cache_and_read_back_from_it_without_gdal(
    unread: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv(CACHE_ENV, str(cache))  # and so for the process started below
    read = reference_point("jerusalem"), candidate_sites()
    assert len(list(cache.glob("network-*.pickle"))) == 1
    named = named_places()  # the waypoints too: an entry of their own
    assert len(list(cache.glob("network-*.pickle"))) == 2
    probe = (
        "import json, sys\n"
        "from geo.gazetteer import candidate_sites, named_places, reference_point\n"
        "print(json.dumps([reference_point('jerusalem'), candidate_sites(), named_places(),"
        " 'pyogrio' in sys.modules]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd="/"
    )
    point, sites, points, gdal = json.loads(done.stdout)
    assert (tuple(point), {city: tuple(ids) for city, ids in sites.items()}) == read
    assert {name: tuple(lonlat) for name, lonlat in points.items()} == named
    assert list(points) == list(named)  # in the same order
    assert not gdal  # GDAL's library is not loaded to read a place
