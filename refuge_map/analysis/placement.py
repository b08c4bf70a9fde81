"""Where six cities of refuge would best stand: p-median and p-center on the road network."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import Bounds, LinearConstraint, OptimizeResult, milp
from scipy.sparse import csr_array, eye_array, hstack, kron

from geo import ParameterError, RefugeNetwork, load_network, to_lonlat, to_metric
from geo.crs import GEOD
from geo.designation import THREE_MORE, THREE_MORE_SOURCE, AddedCity, designate_three_more
from geo.land_grid import LandGrid
from geo.places import selectable_sites
from geo.roads import WALK_SPEED_M_S
from refuge_map._cells import as_point
from refuge_map.analysis._roads import road_distance_matrix
from refuge_map.analysis.stretches import STRETCH_SOURCE

#: Numbers 35:14: three cities beyond the Jordan and three in the land of Canaan.
SIX_SOURCE = "Numbers 35:13-14; Deut 4:41-43; Joshua 20:7-8"
PER_SIDE: Mapping[str, int] = {"west": 3, "east": 3}

_SAME_POINT_M = 1.0


def candidate_sites(network: RefugeNetwork, *, road_nodes: bool = True) -> gpd.GeoDataFrame:
    """The places a city of refuge may be put: gazetteer sites and, optionally, road nodes.

    Gazetteer sites are every selectable identification of every city (`geo.places.
    selectable_sites`: not those OpenBible's sources reject; the network's chosen six among
    them); road nodes are the named waypoints of the road graph (the ancient sites the
    roads pass; gates and other unnamed split points are artefacts of the present zones and are
    left out). A road node within a metre of a gazetteer site is the same place and is dropped.
    The side of the Jordan is the land polygon (`network.land`) holding the point.

    Parameters
    ----------
    network
        The loaded network (`geo.load_network`).
    road_nodes
        Add the road graph's named waypoints to the gazetteer sites.

    Returns
    -------
    geopandas.GeoDataFrame
        Indexed 0..n-1 with ``id`` (the site id, or ``node_<graph id>``), ``name``, ``kind``
        (``"site"`` or ``"road_node"``) and ``side``; Point geometry in the metric CRS.
    """
    places = selectable_sites(network.places)
    frames = [
        pd.DataFrame(
            {
                "id": places["id"].to_numpy(),
                "name": places["modern_identification"].fillna(places["name"]).to_numpy(),
                "kind": "site",
                "x": places.geometry.x.to_numpy(),
                "y": places.geometry.y.to_numpy(),
            }
        )
    ]
    if road_nodes:
        router = network.router
        waypoint = router.node_waypoint
        named = waypoint != ""
        frames.append(
            pd.DataFrame(
                {
                    "id": [f"node_{n}" for n in router.node_ids[named].tolist()],
                    "name": waypoint[named],
                    "kind": "road_node",
                    "x": router.node_x[named],
                    "y": router.node_y[named],
                }
            )
        )
    table = pd.concat(frames, ignore_index=True)
    first = _first_of_duplicates(table["x"].to_numpy(), table["y"].to_numpy())
    table = table[first].reset_index(drop=True)
    points = shapely.points(table["x"].to_numpy(), table["y"].to_numpy())
    west = network.land.geometry["west"]
    table["side"] = np.where(shapely.contains(west, points), "west", "east")
    return gpd.GeoDataFrame(table.drop(columns=["x", "y"]), geometry=points, crs=network.crs)


def _first_of_duplicates(x: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.bool_]:
    """True for each point not within `_SAME_POINT_M` of an earlier one."""
    close = np.hypot(x[:, None] - x[None, :], y[:, None] - y[None, :]) < _SAME_POINT_M
    earlier = cast(NDArray[np.bool_], np.tril(close, k=-1).any(axis=1))  # 2-D in: an array out
    return ~earlier


def cost_matrix(
    network: RefugeNetwork, grid: LandGrid, candidates: gpd.GeoDataFrame
) -> NDArray[np.float64]:
    """Travel distance (km) from each cell centre to each candidate site.

    The off-road leg from the cell to its nearest road, the roads, and the leg from the road
    to the site (`refuge_map.analysis._roads.road_distance_matrix`: the router's snap and the
    simulation's road distance). Measured to the site itself, not to the
    gate of a zone, so that every placement, the historical one included, is measured alike.

    Parameters
    ----------
    network
        The loaded network (`geo.load_network`).
    grid
        The land's cells (`land_grid`).
    candidates
        Candidate sites (`candidate_sites`), in the network's CRS.

    Returns
    -------
    numpy.ndarray
        Shape ``(cells, candidates)``.
    """
    geoms = candidates.geometry
    metres = road_distance_matrix(
        network.router, grid.x, grid.y, geoms.x.to_numpy(), geoms.y.to_numpy()
    )
    return metres / 1000.0


def nearest_km(cost: NDArray[np.float64], chosen: ArrayLike) -> NDArray[np.float64]:
    """Distance from each demand point (row) to its nearest chosen candidate (column)."""
    return cost[:, np.asarray(chosen, dtype=np.intp)].min(axis=1)


def evaluate(
    cost: NDArray[np.float64], weight: ArrayLike, chosen: ArrayLike
) -> tuple[float, float]:
    """Weighted mean and worst distance from each demand point to its nearest chosen site.

    Parameters
    ----------
    cost
        Distance (km) from each demand point (row) to each candidate (column), as
        `cost_matrix` gives it.
    weight
        Weight of each demand point.
    chosen
        Column indices of the chosen sites.

    Returns
    -------
    mean_km, worst_km
        The weighted mean and the largest nearest distance.
    """
    nearest = nearest_km(cost, chosen)
    mean = np.average(nearest, weights=np.asarray(weight, dtype=float))
    return float(mean), float(nearest.max())


def _side_rows(
    side: ArrayLike, per_side: Mapping[str, int]
) -> tuple[csr_array, NDArray[np.float64]]:
    """One equality row per side: the number of chosen candidates on it.

    Raises
    ------
    geo.ParameterError
        If a side has fewer candidates than it must receive.
    """
    labels = np.asarray(side)
    rows, counts = [], []
    for name, count in per_side.items():
        on_side = labels == name
        if on_side.sum() < count:
            raise ParameterError(
                f"only {int(on_side.sum())} candidates on this side", field="per_side", value=name
            )
        rows.append(on_side.astype(float))
        counts.append(float(count))
    return csr_array(np.vstack(rows)), np.array(counts)


def p_median(
    cost: NDArray[np.float64],
    weight: ArrayLike,
    side: ArrayLike,
    *,
    per_side: Mapping[str, int] = PER_SIDE,
) -> NDArray[np.intp]:
    """The sites that minimise the weighted mean distance to the nearest site (p-median).

    Solved exactly as a mixed-integer programme with HiGHS (`scipy.optimize.milp`, relative
    gap 0): open y_c in {0, 1}, assignment x_ic in [0, 1], minimise sum_i,c w_i d_ic x_ic
    subject to sum_c x_ic = 1, x_ic <= y_c, and sum over each side of y_c = its count
    (Numbers 35:14: three and three).

    Parameters
    ----------
    cost
        Distance from each demand point (row) to each candidate (column).
    weight
        Demand weight per row.
    side
        Side label per candidate.
    per_side
        How many sites each side receives.

    Returns
    -------
    numpy.ndarray
        Sorted column indices of the chosen candidates.

    Raises
    ------
    geo.ParameterError
        If a side has too few candidates.
    """
    n, m = cost.shape
    side_a, side_b = _side_rows(side, per_side)
    x_cols = n * m
    one_per_row = kron(eye_array(n), np.ones((1, m)), format="csr")
    assign = hstack([one_per_row, csr_array((n, m))])
    link = hstack([eye_array(x_cols), -kron(np.ones((n, 1)), eye_array(m))])
    sides = hstack([csr_array((side_a.shape[0], x_cols)), side_a])
    w = np.asarray(weight, dtype=float)
    result = milp(
        np.concatenate([(w[:, None] * cost).ravel(), np.zeros(m)]),
        constraints=[
            LinearConstraint(assign, 1.0, 1.0),
            LinearConstraint(link, -np.inf, 0.0),
            LinearConstraint(sides, side_b, side_b),
        ],
        integrality=np.concatenate([np.zeros(x_cols), np.ones(m)]),
        bounds=Bounds(0.0, 1.0),
        options={"mip_rel_gap": 0.0},
    )
    return _opened(result, first=x_cols)


def p_center(
    cost: NDArray[np.float64], side: ArrayLike, *, per_side: Mapping[str, int] = PER_SIDE
) -> NDArray[np.intp]:
    """The sites that minimise the worst distance to the nearest site (p-center).

    Solved exactly: the optimal radius is one of the distances in `cost`, so a binary search
    over the sorted distinct distances (from the largest nearest-candidate distance, below
    which no choice can serve every point) asks at each radius R whether some choice with the
    required count on each side covers every demand point within R: a set-cover feasibility
    programme in y_c in {0, 1} (`scipy.optimize.milp`), sum_c [d_ic <= R] y_c >= 1.

    Parameters
    ----------
    cost
        Distance from each demand point (row) to each candidate (column).
    side
        Side label per candidate.
    per_side
        How many sites each side receives.

    Returns
    -------
    numpy.ndarray
        Sorted column indices of the chosen candidates at the smallest feasible radius.

    Raises
    ------
    geo.ParameterError
        If a side has too few candidates.
    """
    side_a, side_b = _side_rows(side, per_side)
    radii = np.unique(cost[np.isfinite(cost)])
    radii = radii[radii >= cost.min(axis=1).max()]
    low, high = 0, len(radii) - 1
    best = _cover(cost, radii[high], side_a, side_b)
    while low < high:
        mid = (low + high) // 2
        chosen = _cover(cost, radii[mid], side_a, side_b)
        if chosen is None:
            low = mid + 1
        else:
            best, high = chosen, mid
    if best is None:
        raise ParameterError("no choice of sites reaches every demand point", field="cost")
    return best


def _cover(
    cost: NDArray[np.float64], radius: float, side_a: csr_array, side_b: NDArray[np.float64]
) -> NDArray[np.intp] | None:
    """A choice covering every row within `radius`, or None if there is none."""
    m = cost.shape[1]
    result = milp(
        np.zeros(m),
        constraints=[
            LinearConstraint(csr_array((cost <= radius).astype(float)), 1.0, np.inf),
            LinearConstraint(side_a, side_b, side_b),
        ],
        integrality=np.ones(m, dtype=np.int_),
        bounds=Bounds(0.0, 1.0),
    )
    return _opened(result, first=0) if result.status == 0 else None


def _opened(result: OptimizeResult, *, first: int) -> NDArray[np.intp]:
    """Indices of the open candidates in a solved programme whose y start at `first`.

    Raises
    ------
    geo.ParameterError
        If the programme has no solution.
    """
    if result.x is None:
        raise ParameterError(f"no placement found: {result.message}", field="per_side")
    return np.flatnonzero(np.round(result.x[first:]) == 1)


@dataclass(frozen=True)
class Placement:
    """Six sites and how far the land is from them.

    Attributes
    ----------
    label
        What chose them (``"historical"``, ``"equal stretches"``, ``"p-median"``,
        ``"p-center"``).
    sites
        The chosen rows of the candidate table.
    mean_km, worst_km
        Mean (by area) and worst distance from the land to the nearest site.
    cell_km
        Distance from each cell of the grid to the nearest site.
    source
        The principle's source.
    """

    label: str
    sites: gpd.GeoDataFrame
    mean_km: float
    worst_km: float
    cell_km: NDArray[np.float64]
    source: str


def placements(
    network: RefugeNetwork,
    grid: LandGrid,
    *,
    road_nodes: bool = True,
    per_side: Mapping[str, int] = PER_SIDE,
) -> dict[str, Placement]:
    """The historical six against the equal-stretches principle and the two optima.

    - ``historical``: the network's six sites (Numbers 35:14; Deut 4:41-43; Joshua 20:7-8).
    - ``equal stretches``: in the west, the candidates nearest the points a quarter, half and
      three quarters of the way from Beersheba to Dan (Makkot 9b on Deut 19:3); in the east,
      the historical three that Moses set aside (Deut 4:41-43).
    - ``p-median`` and ``p-center``: `p_median` and `p_center` over `candidate_sites`, with
      the land's cells (`grid`) as demand, uniform by area.

    Distances are `cost_matrix` distances: the same for every placement. With 5 km cells
    (about 1,200 cells and 50 candidates) everything takes about 5 s, nearly all of it the
    p-median programme; 15 km cells take well under a second.

    Parameters
    ----------
    network
        The loaded network (`geo.load_network`).
    grid
        The land's cells (`land_grid`), the demand.
    road_nodes
        Offer the road graph's named waypoints as candidates too, beside the gazetteer sites.
    per_side
        How many cities each side of the Jordan gets in the optima.

    Returns
    -------
    dict
        Label to `Placement`: ``historical``, ``equal stretches``, ``p-median``, ``p-center``.
    """
    candidates = candidate_sites(network, road_nodes=road_nodes)
    cost = cost_matrix(network, grid, candidates)
    weight = grid.weight_km2
    side = candidates["side"].to_numpy()
    chosen = {
        "historical": (_historical(network, candidates), SIX_SOURCE),
        "equal stretches": (_equal_stretches(network, candidates), STRETCH_SOURCE),
        "p-median": (p_median(cost, weight, side, per_side=per_side), SIX_SOURCE),
        "p-center": (p_center(cost, side, per_side=per_side), SIX_SOURCE),
    }
    out = {}
    for label, (columns, source) in chosen.items():
        mean_km, worst_km = evaluate(cost, weight, columns)
        out[label] = Placement(
            label,
            candidates.iloc[columns],
            mean_km,
            worst_km,
            nearest_km(cost, columns),
            source,
        )
    return out


def _historical(network: RefugeNetwork, candidates: gpd.GeoDataFrame) -> NDArray[np.intp]:
    ids = candidates["id"].to_numpy()
    return np.array([int(np.flatnonzero(ids == s)[0]) for s in network.cities["site_id"]])


def _equal_stretches(network: RefugeNetwork, candidates: gpd.GeoDataFrame) -> NDArray[np.intp]:
    places = network.places.set_index("id").geometry
    south, north = as_point(places["beersheba"]), as_point(places["dan"])
    (slon, nlon), (slat, nlat) = to_lonlat([south.x, north.x], [south.y, north.y])
    quarters = GEOD.npts(slon, slat, nlon, nlat, 3, initial_idx=1, terminus_idx=1)
    west = candidates[candidates["side"] == "west"]
    qx, qy = to_metric(*np.array(quarters).T)
    gap = np.hypot(
        west.geometry.x.to_numpy()[None, :] - qx[:, None],
        west.geometry.y.to_numpy()[None, :] - qy[:, None],
    )
    picked = west.index[gap.argmin(axis=1)].to_numpy()
    historical = _historical(network, candidates)
    east = historical[candidates["side"].to_numpy()[historical] == "east"]
    return np.sort(np.concatenate([picked, east]))


def three_more(network: RefugeNetwork, grid: LandGrid, *, road_nodes: bool = True) -> Placement:
    """Where three more cities would serve best beside the historical six (Deut 19:8-9).

    "If the LORD enlarges your border ... you shall add three more cities to these three"
    (Deuteronomy 19:8-9; Rambam, Rotzeach 8:4: in the days of the Messiah). The six stay; the
    three are the `candidate_sites` (not already among the six) that minimise the mean distance
    from the land to its nearest city, nine in all: a p-median with the six fixed, solved
    exactly by `p_median` with the six's nearest distance as one always-open column.

    The land is `grid`, the present study area: the enlarged borders the verse speaks of lie
    beyond the data (which ends at lon 34-37, lat 29.5-33.6), so this answers where three more
    would serve best within the land the data hold.

    Parameters
    ----------
    network
        The loaded network (`geo.load_network`).
    grid
        The land's cells (`land_grid`), the demand.
    road_nodes
        Offer the road graph's named waypoints as candidates too, beside the gazetteer sites.

    Returns
    -------
    Placement
        ``sites`` the three new sites; ``mean_km``, ``worst_km`` and ``cell_km`` for all nine.
    """
    candidates = candidate_sites(network, road_nodes=road_nodes)
    cost = cost_matrix(network, grid, candidates)
    weight = grid.weight_km2
    six = _historical(network, candidates)
    free = np.setdiff1d(np.arange(len(candidates)), six)
    extended = np.column_stack([nearest_km(cost, six), cost[:, free]])
    side = np.array(["six", *["new"] * len(free)])
    chosen = p_median(extended, weight, side, per_side={"six": 1, "new": THREE_MORE})
    new = free[chosen[chosen > 0] - 1]
    nine = np.sort(np.concatenate([six, new]))
    mean_km, worst_km = evaluate(cost, weight, nine)
    return Placement(
        "three more",
        candidates.iloc[new],
        mean_km,
        worst_km,
        nearest_km(cost, nine),
        THREE_MORE_SOURCE,
    )


def designate_more(network: RefugeNetwork, placement: Placement, *, t: float) -> RefugeNetwork:
    """The network again, with `placement`'s three sites designated as cities of refuge at `t`.

    The designation step of Deuteronomy 19:8-9 (`geo.designation.designate_three_more`): the
    network is reloaded from its data folder with its own options, the three added as cities
    (ids ``added_1`` .. ``added_3``) that protect from `t`.

    Parameters
    ----------
    network
        The loaded network (`geo.load_network`).
    placement
        Three sites (as `three_more` gives them).
    t
        When the three are designated (years, on the network's timeline).

    Returns
    -------
    geo.RefugeNetwork
        A new network with nine cities; `network` is unchanged.

    Raises
    ------
    geo.ParameterError
        If the placement does not hold three sites, or `t` comes before the last designation.
    """
    lon, lat = to_lonlat(placement.sites.geometry.x, placement.sites.geometry.y)
    added = tuple(
        AddedCity(f"added_{i + 1}", str(name), float(x), float(y))
        for i, (name, x, y) in enumerate(zip(placement.sites["name"], lon, lat, strict=True))
    )
    ids = [city.id for city in added]
    options = network.options
    return load_network(
        network.data_dir,
        cubit_m=options["cubit_m"],
        techum=options["techum"],
        techum_cubits=options["techum_cubits"],
        candidates=options["candidates"],
        bough_opinion=options["bough_opinion"],
        refuges=options.get("refuges", "six"),
        added_cities=added,
        designated=designate_three_more(network.designation, ids, t=t),
    )


def compare_placements(placed: Mapping[str, Placement]) -> pd.DataFrame:
    """One row per placement: its sites, mean and worst distance (km) and walking hours.

    Walking hours use the road graph's walking speed (`geo.roads.WALK_SPEED_M_S`, 5 km/h).

    Parameters
    ----------
    placed
        Placements by label (as `placements` gives them).

    Returns
    -------
    pandas.DataFrame
        Indexed by label.
    """
    speed_kmh = WALK_SPEED_M_S * 3.6
    rows = [
        {
            "placement": p.label,
            "west": ", ".join(_names(p.sites, "west")),
            "east": ", ".join(_names(p.sites, "east")),
            "mean_km": p.mean_km,
            "worst_km": p.worst_km,
            "mean_hours": p.mean_km / speed_kmh,
            "worst_hours": p.worst_km / speed_kmh,
            "source": p.source,
        }
        for p in placed.values()
    ]
    return pd.DataFrame(rows).set_index("placement")


def _names(sites: gpd.GeoDataFrame, side: str) -> list[str]:
    own = sites[sites["side"] == side]
    return [name or ident for name, ident in zip(own["name"], own["id"], strict=True)]
