"""Which city takes the manslayer in: where he makes for, and whether a city receives him.

With ``network.refuges: levitical`` the 42 Levitical cities beside the six protect one who
enters them intending refuge (Makkot 10a, Abaye; Rambam, Rotzeach 8:9-10): a manslayer who
knows it (`World.knows_law`) makes for the nearest of the 48, the others for the nearest of the
six. At the city a full city (Makkot 10b, R. Elazar) or one with no elders (Rambam, Rotzeach
7:6) turns him away, and he makes for the nearest other city that he has not yet been turned
away from. `Reception` owns the count of manslayers in every city through the flight.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
from numpy.typing import NDArray

from geo.arrays import Bools, Floats, Ints
from refuge_map.errors import RefugeError
from refuge_map.simulation.events import EVENT_KINDS
from refuge_map.simulation.exile.rules import NO_ELDERS_CITATION, NO_ELDERS_RULE, room_in_city
from refuge_map.simulation.scenario_cities import CityConditions

if TYPE_CHECKING:
    from refuge_map.simulation._setup import World


#: The city kind (`geo.asylum.CITY_KINDS`) that receives only one who intends refuge.
LEVITICAL = "levitical"


def may_make_for(world: World) -> Bools:
    """(n, cities): the cities each manslayer may make for, by his year and what he knows.

    When the network protects (Mishnah Makkot 2:4), the cities designated by his year; before,
    the designated ones, or all if none is. The 42 Levitical cities only for one who knows that
    they receive him if he intends refuge there (Makkot 10a, Abaye).

    Parameters
    ----------
    world
        The concrete scenario (its network, incident years and `World.knows_law`).

    Returns
    -------
    numpy.ndarray
        Booleans, one row per incident, one column per city (the network's order).
    """
    designated_at = world.network.designated_at
    levitical = world.network.city_kinds == LEVITICAL
    year = world.year[:, None]
    designated = designated_at[None, :] <= year
    none_yet = ~designated[:, ~levitical].any(axis=1, keepdims=True)
    allowed = designated | (none_yet & ~world.network.active(world.year)[:, None])
    return allowed & (~levitical[None, :] | world.knows_law[:, None])


def nearest_city(world: World, xy: Floats, allowed: Bools) -> NDArray[np.str_]:
    """The city each position reaches first by road among its row of `allowed`.

    Parameters
    ----------
    world
        The concrete scenario.
    xy
        Metric positions, (n, 2).
    allowed
        (n, cities) booleans: the cities each position may make for (`may_make_for`).

    Returns
    -------
    numpy.ndarray
        City ids, "" where no allowed city is reachable.
    """
    ids = np.array(world.city_ids)
    found = np.full(len(xy), "", dtype=object)
    patterns, which = _patterns(allowed)
    for k, pattern in enumerate(patterns):  # a few patterns: year, knowledge, turned away
        rows = np.flatnonzero(which == k)
        if not pattern.any():
            continue
        cities = None if pattern.all() else ids[pattern].tolist()
        found[rows] = world.network.router.distance_to_gates(xy[rows, 0], xy[rows, 1], cities)[1]
    return found.astype(str)


def _patterns(allowed: Bools) -> tuple[Bools, Ints]:
    """The distinct rows of `allowed` and the index of each row's (`numpy.unique` over rows,
    on the rows packed into bytes: sorting a million rows of booleans directly takes seconds)."""
    if len(allowed) == 0 or (allowed == allowed[0]).all():
        return allowed[:1], np.zeros(len(allowed), dtype=np.intp)
    packed = np.ascontiguousarray(np.packbits(allowed, axis=1))
    rows = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first, which = np.unique(rows, return_index=True, return_inverse=True)
    return allowed[first], which.ravel()


def city_goals(world: World) -> tuple[Ints, Floats]:
    """Road position (edge, s) of each city, by city index: the end of the road into the town
    (its site's road node), or where no road ends there the middle of the road piece within
    its zone nearest its site (a road that only crosses the zone).

    Parameters
    ----------
    world
        The concrete scenario.

    Returns
    -------
    edge, s
        Edge indices of `World.graph` and metres along them, one per city.
    """
    graph, router = world.graph, world.network.router
    k = len(world.city_ids)
    edge, s = np.full(k, -1, dtype=np.intp), np.zeros(k)
    index = {city: i for i, city in enumerate(world.city_ids)}
    for i, waypoint in enumerate(router.node_waypoint.tolist()):
        at = index.get(waypoint)
        if at is not None:
            edge[at], s[at] = graph.node_edge[i], graph.node_s[i]
    middles = shapely.line_interpolate_point(router.edge_geometries, 0.5, normalized=True)
    sites, zones = world.sites(np.arange(k)), world.zones(np.arange(k))
    for city in np.flatnonzero(edge < 0):  # a few Levitical cities off the roads' ends
        inside = np.flatnonzero(shapely.contains(zones[city], middles))
        if inside.size:
            near = shapely.distance(middles[inside], shapely.points(sites[city]))
            edge[city] = inside[np.argmin(near)]
            s[city] = router.edge_length_m[edge[city]] / 2.0
        else:  # no road inside the zone: the road nearest the site
            snapped, along, _ = world.snap(sites[[city]])
            edge[city], s[city] = snapped[0], along[0]
    return edge, s


@dataclass
class Reception:
    """The manslayers in each city through the flight, and whether it receives the next.

    Runs stacked into one flight (`refuge_map.simulation.stack`) each count their own: the
    arrays hold one slot per run and city, ``run * len(city_ids) + city`` (one run: the city
    index), and `split` gives each run's.

    Attributes
    ----------
    city_ids, kinds
        The cities, by city index, and their kinds (`geo.asylum.CITY_KINDS`), per slot.
    population
        Inhabitants beside the manslayers (`CityConditions`).
    residents
        Manslayers in each city now (the scenario's residents, then every arrival received).
    receives
        False for a city that receives nobody (no elders, under ``cities.no_elders``).
    arrived, turned_away
        Per city: manslayers received, and turned away, in the flight.
    """

    city_ids: tuple[str, ...]
    kinds: NDArray[np.str_]
    population: Floats
    residents: NDArray[np.int64]
    receives: Bools
    arrived: NDArray[np.int64]
    turned_away: NDArray[np.int64]

    @classmethod
    def of(
        cls,
        city_ids: tuple[str, ...],
        kinds: NDArray[np.str_],
        conditions: CityConditions,
        *,
        runs: int = 1,
    ) -> Reception:
        """The cities' conditions as arrays.

        Parameters
        ----------
        city_ids, kinds
            The network's cities and their kinds, in its order.
        conditions
            The scenario's ``cities:`` section.
        runs
            Runs counted apart, each from the same start (slot ``run * len(city_ids) + city``).

        Returns
        -------
        Reception
            Every city at its residents of the start, none received or turned away yet.

        Raises
        ------
        RefugeError
            For a city of ``cities.by_city`` that is not a city of the network.
        """
        unknown = conditions.unknown(city_ids)
        if unknown is not None:
            raise RefugeError(
                f"not a city of this network; valid {list(city_ids)}",
                source="scenario",
                field=f"cities.by_city.{unknown}",
            )
        population, residents, elders = zip(*map(conditions.of, city_ids), strict=True)
        slots = len(city_ids) * runs
        return cls(
            city_ids=city_ids,
            kinds=np.tile(np.asarray(kinds, dtype=str), runs),
            population=np.tile(np.array(population, dtype=np.float64), runs),
            residents=np.tile(np.array(residents, dtype=np.int64), runs),
            receives=np.tile(np.array(elders) | (conditions.no_elders == "received"), runs),
            arrived=np.zeros(slots, np.int64),
            turned_away=np.zeros(slots, np.int64),
        )

    def slot(self, run: Ints, city: Ints) -> Ints:
        """The slots (`admit`'s argument) of cities `city` in runs `run`: ``run *
        len(city_ids) + city``."""
        return run * len(self.city_ids) + city

    def split(self) -> list[Reception]:
        """Each run's reception (one run: itself), by run."""
        k = len(self.city_ids)
        if len(self.residents) == k:
            return [self]
        arrays = ("kinds", "population", "residents", "receives", "arrived", "turned_away")
        return [
            Reception(self.city_ids, **{a: getattr(self, a)[r * k : (r + 1) * k] for a in arrays})
            for r in range(len(self.residents) // k)
        ]

    def admit(self, city: Ints) -> tuple[Bools, NDArray[Any], NDArray[Any]]:
        """Arrivals at their cities: who is received (and counted a resident).

        Parameters
        ----------
        city
            Slots of the arrivals (one run: city indices), in incident order (the earlier are
            received first).

        Returns
        -------
        received, rule, citation
            Per arrival: whether the city received him; for one turned away the rule that
            turns him (a full city, or one with no elders) and its citation, else "".
        """
        # the room of each one's city (asked of the arrivals' cities only: a step's few), and
        # each one's rank among this step's arrivals at his city: the earlier take the room
        receives = self.receives[city]
        room = np.where(receives, room_in_city(self.residents[city], self.population[city]), 0)
        if len(city) == 1 or len(set(city.tolist())) == len(city):
            # each at a city of his own this step (most steps: a few arrivals): rank 0 each,
            # and counting is a fancy-indexed increment (~30 us less than ranking them)
            received = room > 0
            taken = city[received]
            self.residents[taken] += 1
            self.arrived[taken] += 1
            if len(taken) < len(city):
                self.turned_away[city[~received]] += 1
            return self._refusals(received, receives)
        order = np.argsort(city, kind="stable")
        ranked = city[order]
        rank = np.empty(len(city), np.int64)
        rank[order] = np.arange(len(city)) - np.searchsorted(ranked, ranked, side="left")
        received = rank < room
        taken = np.bincount(city[received], minlength=len(self.residents))
        self.residents += taken
        self.arrived += taken
        self.turned_away += np.bincount(city[~received], minlength=len(self.residents))
        return self._refusals(received, receives)

    @staticmethod
    def _refusals(received: Bools, receives: Bools) -> tuple[Bools, NDArray[Any], NDArray[Any]]:
        """`admit`'s result: `received`, and the rule and citation that turn away each one not
        received (a full city, or one with no elders where it does not `receives`), else ""."""
        if received.all():  # every city had room for all who came (most steps)
            blank = np.zeros(len(received), dtype="<U1")  # "" each, cheaper than np.full
            return received, blank, blank
        full_rule, full_citation = EVENT_KINDS["turned_away"]
        rule = np.where(receives, full_rule, NO_ELDERS_RULE)
        citation = np.where(receives, full_citation, NO_ELDERS_CITATION)
        return received, np.where(received, "", rule), np.where(received, "", citation)

    def summary(self) -> dict[str, Any]:
        """Manslayers received and turned away by city kind (the six or the 42), and per city
        with any arrival, turn-away or residents: its population, residents at the start and
        the end of the flight, received, turned away, and whether it is full."""
        start = self.residents - self.arrived
        busy = (self.arrived > 0) | (self.turned_away > 0) | (start > 0) | ~self.receives
        kinds = sorted(set(self.kinds))
        by_city = {
            self.city_ids[i]: {
                "population": float(self.population[i]),
                "residents_at_start": int(start[i]),
                "received": int(self.arrived[i]),
                "turned_away": int(self.turned_away[i]),
                "residents_at_end": int(self.residents[i]),
                "full": bool(room_in_city(self.residents[i], self.population[i]) <= 0),
                "receives": bool(self.receives[i]),
            }
            for i in np.flatnonzero(busy)
        }
        return {
            "received_by_kind": {str(k): int(self.arrived[self.kinds == k].sum()) for k in kinds},
            "turned_away": int(self.turned_away.sum()),
            "by_city": by_city,
        }
