"""Named places a scenario may use: the cities, the gazetteer's reference points, road waypoints."""

from __future__ import annotations

from functools import cache

import geopandas as gpd
import shapely

from geo import default_data_dir

#: Reference points of the gazetteer a scenario may name (the others are map labels).
REFERENCE_POINTS = ("dan", "beersheba", "jerusalem")


@cache
def _read() -> tuple[dict[str, tuple[float, float]], dict[str, tuple[str, ...]]]:
    folder = default_data_dir()
    places = gpd.read_file(folder / "places.geojson", engine="pyogrio")
    roads = gpd.read_file(folder / "roads.geojson", engine="pyogrio")
    points: dict[str, tuple[float, float]] = {}
    for field, end in (("from", 0), ("to", -1)):
        coords = [shapely.get_coordinates(line)[end] for line in roads.geometry]
        points.update(
            {str(n): (float(c[0]), float(c[1])) for n, c in zip(roads[field], coords, strict=True)}
        )
    named = places[
        places["id"].isin(REFERENCE_POINTS) | (places["feature_kind"] == "city_of_refuge")
    ]
    points.update(
        {str(i): (float(p.x), float(p.y)) for i, p in zip(named["id"], named.geometry, strict=True)}
    )
    sited = places[places["city"].notna()]
    sites = {
        str(city): tuple(sorted(map(str, group["id"]))) for city, group in sited.groupby("city")
    }
    return points, sites


def named_places() -> dict[str, tuple[float, float]]:
    """Lon/lat (WGS84 degrees) of every name a scenario may use as a place.

    City ids stand for the city's best-ranked site here; the engine moves them to the site the
    scenario's `candidates` choose.
    """
    return _read()[0]


def candidate_sites() -> dict[str, tuple[str, ...]]:
    """The candidate site ids of each city (`network.candidates` values), by city id."""
    return _read()[1]
