"""Named places a scenario may use: the cities, the gazetteer's reference points, road waypoints."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, partial
from pathlib import Path
from typing import cast

import shapely

from geo import _cache
from geo._validate import read_layer
from geo.network import default_data_dir
from geo.places import read_places
from geo.roads import REQUIRED_FIELDS as ROAD_FIELDS

#: Reference points of the gazetteer a scenario may name (the others are map labels).
REFERENCE_POINTS = ("dan", "beersheba", "jerusalem")

#: What `_places` gives: the lon/lat of each named place, and the candidate sites of each city.
Places = tuple[dict[str, tuple[float, float]], dict[str, tuple[str, ...]]]


@cache
def _places() -> Places:
    """The lon/lat of the reference points and the cities of refuge, and the candidate sites of
    each city (`_read_places`), kept in the network cache (`geo._cache`) beside the networks: a
    run's exile asks for one point (the Temple's, for the priests' events), and reading the file
    took GDAL's import and its read (65 ms of `refuge run`)."""
    path = default_data_dir() / "places.geojson"
    return _cache.cached(
        partial(_read_places, path), kind=tuple, files=(path,), params="gazetteer places"
    )


def _read_places(path: Path) -> Places:
    """Read the places file `path` through geo's validating reader, in WGS84 as stored (see
    `_places`)."""
    places = read_places(path)
    named = places[
        places["id"].isin(REFERENCE_POINTS) | (places["feature_kind"] == "city_of_refuge")
    ]
    named_points = cast("Sequence[shapely.Point]", named.geometry)
    points = {
        str(i): (float(p.x), float(p.y)) for i, p in zip(named["id"], named_points, strict=True)
    }
    sited = places[places["city"].notna()]
    sites = {
        str(city): tuple(sorted(map(str, group["id"]))) for city, group in sited.groupby("city")
    }
    return points, sites


@cache
def _read() -> dict[str, tuple[float, float]]:
    """Every named point (`_read_named`), kept in the network cache (`geo._cache`) like
    `_places`: a scenario that names a place read the roads through GDAL for their waypoints
    (0.28 s of its command, GDAL's import with it)."""
    data = default_data_dir()
    roads, places = data / "roads.geojson", data / "places.geojson"
    return _cache.cached(
        partial(_read_named, roads), kind=dict, files=(roads, places), params="named places"
    )


def _read_named(roads_path: Path) -> dict[str, tuple[float, float]]:
    """Every named point: the waypoints of the roads file `roads_path` (read through geo's
    validating reader, in WGS84 as stored: not projected and back, so the coordinates are the
    file's to the last digit), then the places' (`_places`), which win where a name is both."""
    roads = read_layer(roads_path, ROAD_FIELDS, geom_types=("LineString",))
    points: dict[str, tuple[float, float]] = {}
    for field, end in (("from", 0), ("to", -1)):
        coords = [shapely.get_coordinates(line)[end] for line in roads.geometry]
        points.update(
            {str(n): (float(c[0]), float(c[1])) for n, c in zip(roads[field], coords, strict=True)}
        )
    points.update(_places()[0])
    return points


def named_places() -> dict[str, tuple[float, float]]:
    """Lon/lat (WGS84 degrees) of every name a scenario may use as a place.

    City ids stand for the city's best-ranked site here; the engine moves them to the site the
    scenario's `candidates` choose.

    Raises
    ------
    DataFileError
        If the shipped places or roads file fails validation (every problem listed).
    """
    return _read()


def reference_point(name: str) -> tuple[float, float]:
    """Lon/lat (WGS84 degrees) of one of the `REFERENCE_POINTS` or a city of refuge (its
    best-ranked site), as `named_places` gives it, read without the roads.

    Raises
    ------
    KeyError
        If `name` is neither.
    DataFileError
        If the shipped places file fails validation (every problem listed).
    """
    return _places()[0][name]


def candidate_sites() -> dict[str, tuple[str, ...]]:
    """The candidate site ids of each city (`network.candidates` values), by city id.

    Every site of the gazetteer is listed; those excluded from selection (a negative OpenBible
    score, `geo.places.EXCLUDING_FLAGS`) are refused with the reason by `geo.places.choose_sites`
    when the network loads.

    Raises
    ------
    DataFileError
        If the shipped places file fails validation (every problem listed).
    """
    return _places()[1]
