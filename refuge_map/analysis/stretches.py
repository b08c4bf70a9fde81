"""The land divided into stretches by the western cities, and the pairs across the Jordan."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

import geopandas as gpd
import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from geo import ParameterError, RefugeNetwork, load_network, to_lonlat, to_metric
from geo.crs import GEOD
from geo.places import selectable_sites
from refuge_map._cells import as_point
from refuge_map.analysis._roads import road_distance_matrix

#: Deut 19:3 "divide the borders of your land into three"; Makkot 9b reads it as four equal
#: stretches: south border to Hebron = Hebron to Shechem = Shechem to Kedesh = Kedesh to the
#: north border.
STRETCH_SOURCE = "Deut 19:3; Makkot 9b"

#: Makkot 9b: "like two rows in a vineyard": Hebron opposite Bezer, Shechem opposite Ramoth in
#: Gilead, Kedesh opposite Golan.
PAIR_SOURCE = "Makkot 9b"
PAIRS: tuple[tuple[str, str], ...] = (
    ("hebron", "bezer"),
    ("shechem", "ramoth_gilead"),
    ("kedesh", "golan"),
)

#: The western cities from south to north (Joshua 20:7 names them from north to south).
WEST_SOUTH_TO_NORTH: tuple[str, str, str] = ("hebron", "shechem", "kedesh")

Along = Literal["straight", "roads"]
ALONG: tuple[Along, ...] = ("straight", "roads")

#: A border: a gazetteer place id (e.g. ``"beersheba"``) or a (lon, lat) position in degrees.
Limit = str | tuple[float, float]


def _lonlat(network: RefugeNetwork, where: Limit) -> tuple[float, float]:
    """A city's site, a gazetteer place or a (lon, lat) pair, as WGS84 degrees."""
    if not isinstance(where, str):
        return float(where[0]), float(where[1])
    if where in network.cities.index:
        point = as_point(network.cities.at[where, "site"])
    else:
        match = network.places[network.places["id"] == where]
        if match.empty:
            raise ParameterError("not a city or gazetteer place id", field="limit", value=where)
        point = as_point(match.geometry.iloc[0])
    lon, lat = to_lonlat(point.x, point.y)
    return float(lon), float(lat)


def geodesic_km(lon: ArrayLike, lat: ArrayLike) -> NDArray[np.float64]:
    """Geodesic lengths (km, WGS84 ellipsoid) of the legs between consecutive positions."""
    lon_a, lat_a = np.asarray(lon, dtype=float), np.asarray(lat, dtype=float)
    _, _, dist = GEOD.inv(lon_a[:-1], lat_a[:-1], lon_a[1:], lat_a[1:])
    return np.asarray(dist, dtype=float) / 1000.0


def road_km(network: RefugeNetwork, lon: ArrayLike, lat: ArrayLike) -> NDArray[np.float64]:
    """Road lengths (km, off-road legs to the roads included) between consecutive positions."""
    x, y = to_metric(lon, lat)
    matrix = road_distance_matrix(network.router, x, y, x, y)
    return np.diagonal(matrix, offset=1) / 1000.0


def leg_km(
    network: RefugeNetwork, lon: ArrayLike, lat: ArrayLike, *, along: Along
) -> NDArray[np.float64]:
    """Lengths (km) of the legs between consecutive positions, straight or along the roads.

    Raises
    ------
    geo.ParameterError
        If `along` is neither ``"straight"`` nor ``"roads"``.
    """
    if along == "straight":
        return geodesic_km(lon, lat)
    if along == "roads":
        return road_km(network, lon, lat)
    raise ParameterError(f"must be one of {ALONG}", field="along", value=along)


def inequality(km: ArrayLike) -> dict[Hashable, float]:
    """How unequal stretches are: longest over shortest, and the coefficient of variation
    (population standard deviation over the mean); 1 and 0 for equal stretches (keyed as a
    frame's `attrs`)."""
    values = np.asarray(km, dtype=float)
    return {
        "max_min": float(values.max() / values.min()),
        "cv": float(values.std() / values.mean()),
    }


def stretches(
    network: RefugeNetwork,
    *,
    south: Limit = "beersheba",
    north: Limit = "dan",
    along: Along = "straight",
) -> pd.DataFrame:
    """The four stretches south border -> Hebron -> Shechem -> Kedesh -> north border.

    Makkot 9b reads "divide the borders of your land into three" (Deut 19:3) as four equal
    stretches cut by the three western cities. The borders are not defined there; Dan and
    Beersheba ("from Dan to Beersheba", Judges 20:1) are the default.

    Parameters
    ----------
    network
        The loaded network (its chosen identification of each city).
    south, north
        The borders: gazetteer place ids or (lon, lat) positions.
    along
        ``"straight"``: geodesic length on the WGS84 ellipsoid; ``"roads"``: along the prepared
        roads (Deut 19:3), off-road legs from each site to its nearest road included.

    Returns
    -------
    pandas.DataFrame
        One row per stretch: ``from``, ``to``, ``km``, ``ratio_to_mean`` and ``source``;
        ``attrs`` holds ``along``, ``max_min``, ``cv`` and ``source``.

    Raises
    ------
    geo.ParameterError
        For an unknown place id or an unknown `along`.
    """
    names = [_name(south, "south border"), *WEST_SOUTH_TO_NORTH, _name(north, "north border")]
    points = [_lonlat(network, p) for p in (south, *WEST_SOUTH_TO_NORTH, north)]
    lon, lat = np.array(points).T
    km = leg_km(network, lon, lat, along=along)
    table = pd.DataFrame(
        {
            "from": names[:-1],
            "to": names[1:],
            "km": km,
            "ratio_to_mean": km / km.mean(),
            "source": STRETCH_SOURCE,
        },
        index=pd.RangeIndex(1, 5, name="stretch"),
    )
    table.attrs = {"along": along, **inequality(km), "source": STRETCH_SOURCE}
    return table


def _name(limit: Limit, label: str) -> str:
    return limit if isinstance(limit, str) else label


def pairings(network: RefugeNetwork) -> pd.DataFrame:
    """The three pairs across the Jordan, "like two rows in a vineyard" (Makkot 9b).

    Parameters
    ----------
    network
        The loaded network (`geo.load_network`).

    Returns
    -------
    pandas.DataFrame
        One row per pair (``west``, ``east``): ``km`` (geodesic), ``road_km``, ``bearing_deg``
        (initial azimuth from the western city to the eastern one; 90 is due east),
        ``off_east_deg`` (bearing minus 90: how far the row leans from a true east-west line),
        ``north_offset_km`` (how far the eastern city lies north (+) or south (-) of the
        western one, along the meridian) and ``source``.
    """
    rows = []
    for west, east in PAIRS:
        (lon_w, lat_w), (lon_e, lat_e) = _lonlat(network, west), _lonlat(network, east)
        bearing, _, dist = GEOD.inv(lon_w, lat_w, lon_e, lat_e)
        _, _, north = GEOD.inv(lon_w, lat_w, lon_w, lat_e)
        rows.append(
            {
                "west": west,
                "east": east,
                "km": dist / 1000.0,
                "road_km": float(road_km(network, [lon_w, lon_e], [lat_w, lat_e])[0]),
                "bearing_deg": bearing % 360.0,
                "off_east_deg": bearing % 360.0 - 90.0,
                "north_offset_km": float(np.sign(lat_e - lat_w)) * north / 1000.0,
                "source": PAIR_SOURCE,
            }
        )
    table = pd.DataFrame(rows)
    table.attrs = {"source": PAIR_SOURCE}
    return table


@dataclass(frozen=True)
class EqualizingLimits:
    """Borders that make the four stretches of Makkot 9b as equal as they can be.

    Attributes
    ----------
    along
        ``"straight"`` or ``"roads"``: how the inner stretches were measured.
    inner_km
        Hebron-Shechem and Shechem-Kedesh (fixed by the sites).
    outer_km
        The length both outer stretches take (south border-Hebron = Kedesh-north border).
    south, north
        The borders as (lon, lat), on the axis of the land (see `limits_on_axis`).
    spread_km
        Root-mean-square deviation of the four stretches from their mean at the optimum; 0 only
        if Hebron-Shechem equals Shechem-Kedesh.
    nearest
        For each border, the nearest gazetteer place (``limit``, ``id``, ``name``, ``km``).
    source
        The rule's source.
    """

    along: str
    inner_km: tuple[float, float]
    outer_km: float
    south: tuple[float, float]
    north: tuple[float, float]
    spread_km: float
    nearest: pd.DataFrame
    source: str = STRETCH_SOURCE


def limits_on_axis(
    lon: ArrayLike, lat: ArrayLike, inner_km: tuple[float, float]
) -> tuple[float, tuple[float, float], tuple[float, float]]:
    """Solve for the two free borders that make four stretches as equal as possible.

    The three western cities fix the two inner stretches a (Hebron-Shechem) and b
    (Shechem-Kedesh). The borders lie on the axis of the land: the geodesic from Shechem through
    Hebron prolonged beyond Hebron, and from Shechem through Kedesh prolonged beyond Kedesh, at
    distances s and n. Solved: minimise the sum of squared deviations of (s, a, b, n) from
    their mean over s, n >= 0. Setting both partial derivatives to zero gives s = n = mean,
    so s = n = (a + b) / 2; the stretches are exactly equal only if a = b (otherwise the
    residual is |a - b| / (2 sqrt 2) root-mean-square).

    Parameters
    ----------
    lon, lat
        Hebron, Shechem and Kedesh (degrees), south to north.
    inner_km
        The two inner stretches (km), measured however the caller chose.

    Returns
    -------
    outer_km, south, north
        The common length of the outer stretches, and the two borders as (lon, lat).
    """
    lon_a, lat_a = np.asarray(lon, dtype=float), np.asarray(lat, dtype=float)
    outer_km = float(np.mean(inner_km))
    ends = []
    for end in (0, 2):
        _, back_az, _ = GEOD.inv(lon_a[1], lat_a[1], lon_a[end], lat_a[end])
        ex, ey, _ = GEOD.fwd(lon_a[end], lat_a[end], back_az + 180.0, outer_km * 1000.0)
        ends.append((float(ex), float(ey)))
    return outer_km, ends[0], ends[1]


def equalizing_limits(network: RefugeNetwork, *, along: Along = "straight") -> EqualizingLimits:
    """Which southern and northern borders would make the four stretches of Makkot 9b equal.

    See `limits_on_axis` for exactly what is solved. Along the roads, the inner stretches are
    road lengths; the roads end at Beersheba and Dan, so the borders are placed on the axis at
    the road length, as if a straight prepared road carried on beyond the last city (Rambam,
    Rotzeach 8:5: the roads are kept straight).

    Parameters
    ----------
    network
        The loaded network (`geo.load_network`).
    along
        ``"straight"`` (geodesic) or ``"roads"``.

    Returns
    -------
    EqualizingLimits
        The borders, the stretches they give, and the source.

    Raises
    ------
    geo.ParameterError
        For an unknown `along`.
    """
    lon, lat = np.array([_lonlat(network, c) for c in WEST_SOUTH_TO_NORTH]).T
    a, b = leg_km(network, lon, lat, along=along)
    outer, south, north = limits_on_axis(lon, lat, (float(a), float(b)))
    spread = float(np.std([outer, a, b, outer]))
    return EqualizingLimits(
        along=along,
        inner_km=(float(a), float(b)),
        outer_km=outer,
        south=south,
        north=north,
        spread_km=spread,
        nearest=nearest_places(network.places, {"south": south, "north": north}),
    )


def nearest_places(
    places: gpd.GeoDataFrame, positions: dict[str, tuple[float, float]]
) -> pd.DataFrame:
    """The nearest gazetteer place (geodesic km) to each named (lon, lat) position."""
    plon, plat = to_lonlat(places.geometry.x.to_numpy(), places.geometry.y.to_numpy())
    rows = []
    for label, (lon, lat) in positions.items():
        _, _, dist = GEOD.inv(np.full_like(plon, lon), np.full_like(plat, lat), plon, plat)
        best = int(np.argmin(dist))
        rows.append(
            {
                "limit": label,
                "lon": lon,
                "lat": lat,
                "id": places["id"].iloc[best],
                "name": places["name"].iloc[best],
                "km": float(dist[best]) / 1000.0,
            }
        )
    return pd.DataFrame(rows)


def candidate_sensitivity(
    network_loader: Callable[..., RefugeNetwork] = load_network,
    *,
    cities: Sequence[str] | None = None,
    south: Limit = "beersheba",
    north: Limit = "dan",
) -> pd.DataFrame:
    """The measures of Makkot 9b under each identification candidate of each city.

    The network is loaded once with the best identifications and once per other candidate
    (``network_loader(candidates={city: site_id})``); every other city keeps its best site.

    Parameters
    ----------
    network_loader
        `geo.load_network` or a wrapper of it (another data folder, other options).
    cities
        The cities whose candidates to try (default: every city with alternatives).
    south, north
        The borders for the stretches.

    Returns
    -------
    pandas.DataFrame
        One row per (city, candidate site): ``rank``, ``modern_identification``,
        ``openbible_score``, ``moved_km`` (from the best site), for each of straight and roads the
        stretches' ``cv_*`` and ``max_min_*`` and the equalizing border distance
        ``outer_km_*``, then ``pair_km`` and ``pair_north_offset_km`` for the city's pair
        across the Jordan, and ``source``.

    Raises
    ------
    geo.ParameterError
        For an unknown city.
    """
    base = network_loader()
    sites = selectable_sites(base.places).sort_values(["city", "rank"])
    chosen = list(cities) if cities is not None else _cities_with_alternatives(sites)
    unknown = sorted(set(chosen) - set(base.city_ids))
    if unknown:
        raise ParameterError("unknown city", field="cities", value=unknown[0])
    rows = []
    for city in chosen:
        best = _lonlat(base, city)
        for site in sites[sites["city"] == city].itertuples():
            net = base if site.id == str(base.cities.at[city, "site_id"]) else None
            net = net or network_loader(candidates={city: site.id})
            moved = geodesic_km([best[0], _lonlat(net, city)[0]], [best[1], _lonlat(net, city)[1]])
            rows.append(
                {
                    "city": city,
                    "site_id": site.id,
                    "rank": site.rank,
                    "modern_identification": site.modern_identification,
                    "openbible_score": site.openbible_score,
                    "moved_km": float(moved[0]),
                    **_measures(net, city, south=south, north=north),
                    "source": STRETCH_SOURCE,
                }
            )
    return pd.DataFrame(rows)


def _cities_with_alternatives(sites: pd.DataFrame) -> list[str]:
    counts = sites.groupby("city").size()
    return [c for c in counts.index if counts[c] > 1]


def _measures(network: RefugeNetwork, city: str, *, south: Limit, north: Limit) -> dict[str, float]:
    out: dict[str, float] = {}
    for along in ALONG:
        table = stretches(network, south=south, north=north, along=along)
        out[f"cv_{along}"] = table.attrs["cv"]
        out[f"max_min_{along}"] = table.attrs["max_min"]
        out[f"outer_km_{along}"] = equalizing_limits(network, along=along).outer_km
    pairs = pairings(network)
    pair = pairs[(pairs["west"] == city) | (pairs["east"] == city)].iloc[0]
    out["pair_km"] = float(pair["km"])
    out["pair_north_offset_km"] = float(pair["north_offset_km"])
    return out
