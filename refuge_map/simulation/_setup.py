"""Build a scenario's world: the cached network, the incidents as arrays, every random draw."""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import shapely
from numpy.typing import NDArray

from geo import RefugeNetwork, load_network, to_metric
from geo.arrays import Floats, Ints
from geo.crs import REGION_BOUNDS_LONLAT, to_lonlat
from geo.gazetteer import named_places
from refuge_map._cells import as_point
from refuge_map.simulation._walk import RoadGraph
from refuge_map.simulation.persuasion import persuader, pleads_himself
from refuge_map.simulation.scenario import (
    GeneratedIncidents,
    Incident,
    NetworkOptions,
    Place,
    Scenario,
)
from refuge_map.simulation.seeds import streams
from refuge_map.simulation.travel import DAY_S

KMH = 1000.0 / 3600.0  # metres per second in one km/h
#: One stream per purpose ("escorts": who persuades the avenger at the encounter).
#: "way": whether he knows the way; "leave_road": whether he leaves the road on seeing the avenger.
STREAMS = (
    "incidents",
    "speeds",
    "delays",
    "escorts",
    "give_up",
    "law",
    "way",
    "leave_road",
)  # new ones last
HOUR_S = 3600.0


@lru_cache(maxsize=8)
def network_for(options_json: str) -> tuple[RefugeNetwork, RoadGraph]:
    """The network and its flat road graph for some network options (cached: a worker builds
    each once). Keyed by the options' JSON so that it is hashable.

    Parameters
    ----------
    options_json
        A scenario's ``network`` options as JSON (`NetworkOptions`).

    Returns
    -------
    tuple
        The `geo.RefugeNetwork` and its `RoadGraph`.

    Raises
    ------
    pydantic.ValidationError
        If the JSON is not valid network options.
    GeoError
        If the network cannot be built with these options.
    """
    options = NetworkOptions.model_validate_json(options_json)
    network = load_network(**options.load_kwargs())
    return network, RoadGraph.from_router(network.router)


def scenario_network(scenario: Scenario) -> RefugeNetwork:
    """The network of a scenario's options, from the same cache the simulation uses (built
    once per process however many runs, maps and fields ask for it).

    Parameters
    ----------
    scenario
        Its ``network`` options.

    Returns
    -------
    geo.RefugeNetwork
        The network those options build.

    Raises
    ------
    GeoError
        If the network cannot be built with the scenario's options.
    """
    return network_for(scenario.network.model_dump_json())[0]


@dataclass(frozen=True)
class World:
    """A scenario made concrete for one seed: per-incident arrays in metres, seconds, m/s.

    Index ``i`` of every array field is incident ``i``; every other field is of the whole run,
    a plain value (the walking hours) or a shared object (the network):
    `refuge_map.simulation.stack.stack_worlds` relies on this to put several runs into one
    world (arrays end to end, the others shared).
    """

    network: RefugeNetwork
    graph: RoadGraph
    place: Floats  # (n, 2) where the killing happened
    killer_home: Floats  # (n, 2)
    avenger_start: Floats  # (n, 2)
    t0_s: Floats  # when the killing happened
    year: Floats  # on the designation timeline
    fugitive_road: Floats
    fugitive_offroad: Floats
    avenger_road: Floats
    avenger_offroad: Floats
    setout_s: Floats  # when the news reaches the avenger and he sets out
    give_up_s: Floats  # when his heart cools and he gives up (inf: never)
    deterred_if: NDArray[np.bool_]  # the escorts (or his plea) would persuade the avenger
    persuader: NDArray[np.int64]  # who would: `persuasion.SPEAKERS` codes
    plea: bool  # R. Meir: he may plead his cause himself (Mishnah Makkot 2:5)
    plea_p: float
    fugitive_walk_s: float  # seconds on foot in each 24 hours
    avenger_walk_s: float
    trunk: Floats  # (n, 2), NaN without a tree
    bough: Floats  # (n, 2), NaN without a tree
    at_trunk: NDArray[np.bool_]
    knows_law: NDArray[np.bool_]  # he knows the 42 receive one intending refuge (Makkot 10a)
    finds_way: NDArray[np.bool_]  # he takes the shortest way: he knows it, or signposts show it
    leaves_road: NDArray[np.bool_]  # he goes across country when he sees his avenger
    run: NDArray[np.int64]  # the run of each incident (0; runs stacked: 0, 1, ...)

    @property
    def n(self) -> int:
        """Number of incidents."""
        return len(self.t0_s)

    @property
    def has_tree(self) -> NDArray[np.bool_]:
        """The incidents whose manslayer runs for a tree."""
        return np.isfinite(self.trunk[:, 0])

    def snap(self, xy: Floats) -> tuple[Ints, Floats, Floats]:
        """Road positions (edge, s) nearest to points, and the off-road distance to them."""
        return _snap(self.network, xy)

    @property
    def city_ids(self) -> tuple[str, ...]:
        """The cities of refuge, in the network's order (the index of every ``city`` array)."""
        return self.network.city_ids

    @property
    def _cities(self) -> CityTables:
        """The network's cities as arrays by city index (`city_tables`: built once per network,
        shared by every world on it)."""
        return city_tables(self.network, self.graph)

    def city_names(self, city: Ints) -> NDArray[np.str_]:
        """The names of city indices ("" for -1: none)."""
        return self._cities.name[np.asarray(city)]

    def city_kinds(self, city: Ints) -> NDArray[np.str_]:
        """The kind of each city index (``refuge``, ``levitical``, ...)."""
        return self._cities.kind[np.asarray(city)]

    @property
    def bough_opinion(self) -> str:
        """The reading of the bough rule the network was built on (Mishnah Makkot 2:7)."""
        return str(self.network.options["bough_opinion"])

    def towns(self, city: Ints) -> NDArray[np.object_]:
        """The town polygon of each city index."""
        return self._cities.town[city]

    def zones(self, city: Ints) -> NDArray[np.object_]:
        """The protecting zone (town and Sabbath boundary) of each city index."""
        return self._cities.zone[city]

    def sites(self, city: Ints) -> Floats:
        """Metric positions of the cities' chosen sites, by city index."""
        return self._cities.site[city]

    @property
    def city_roads(self) -> Floats:
        """Road distance (metres) between the sites of every two cities (`RoadGraph.between`),
        by city index; inf on the diagonal (`CityTables.roads`)."""
        return self._cities.roads


def _snap(network: RefugeNetwork, xy: Floats) -> tuple[Ints, Floats, Floats]:
    """`World.snap` on `network`'s roads (a world's, or its cities' for `CityTables`)."""
    snap = network.router.snap(xy[:, 0], xy[:, 1])
    return snap.edge, snap.along_m, snap.offroad_m


@dataclass(frozen=True)
class CityTables:
    """A network's cities as arrays by city index, read from its tables once (the exile asks
    for them a few hundred times a run, in every replication's world).

    Attributes
    ----------
    name
        The city ids, with "" at index -1 (none).
    kind
        ``refuge``, ``levitical``, ...
    site
        (k, 2) metric x, y of each chosen site.
    town, zone
        The town polygon and its protecting zone (town and Sabbath boundary).
    roads
        (k, k) road distance (metres) between the sites of every two cities; inf on the
        diagonal.
    """

    name: NDArray[np.str_]
    kind: NDArray[np.str_]
    site: Floats
    town: NDArray[np.object_]
    zone: NDArray[np.object_]
    roads: Floats

    @classmethod
    def of(cls, network: RefugeNetwork, graph: RoadGraph) -> CityTables:
        """Read the tables of `network`'s cities (`graph`: its road graph)."""
        sites = network.city_sites
        site = np.column_stack([shapely.get_x(sites), shapely.get_y(sites)])
        k = len(site)
        a, b = np.repeat(np.arange(k), k), np.tile(np.arange(k), k)
        dist = graph.between(_snap(network, site[a]), _snap(network, site[b]))
        return cls(
            name=np.array([*network.city_ids, ""]),
            kind=network.city_kinds,
            site=site,
            town=network.asylum.towns,
            zone=network.asylum.zones,
            roads=np.where(a == b, np.inf, dist).reshape(k, k),
        )


#: `CityTables` by the identity of their network, while the network lives.
_CITY_TABLES: dict[int, CityTables] = {}


def city_tables(network: RefugeNetwork, graph: RoadGraph) -> CityTables:
    """The `CityTables` of a network (`graph`: its road graph, `network_for`'s): built at the
    first call, then the same for every world on it (a network is no hashable key: by its
    identity, forgotten when it is collected)."""
    tables = _CITY_TABLES.get(id(network))
    if tables is None:
        tables = _CITY_TABLES[id(network)] = CityTables.of(network, graph)
        weakref.finalize(network, _CITY_TABLES.pop, id(network), None)
    return tables


def build_world(scenario: Scenario, seed: int) -> World:
    """Resolve places, draw the incidents and every agent's speeds, delay, persuasion, whether
    he knows the way and whether he leaves the road on seeing his avenger.

    Random streams are spawned from ``SeedSequence(seed)``, one per purpose (`STREAMS`), so a
    change to one draw leaves the others as they were.
    """
    network, graph = network_for(scenario.network.model_dump_json())
    rngs = streams(seed, STREAMS)
    if scenario.generate is not None:
        place, kin, killer, t0 = _generated(scenario.generate, network, rngs["incidents"])
        year = np.full(len(t0), scenario.year)
        trunk = bough = np.full((len(t0), 2), np.nan)
        at_trunk = np.zeros(len(t0), dtype=bool)
    else:
        place, kin, killer, t0, year, trunk, bough, at_trunk = _explicit(scenario, network)
    n = len(t0)
    if scenario.avenger.start is not None:
        kin = np.tile(_resolve([scenario.avenger.start], network), (n, 1))
    fugitive, avenger = scenario.fugitive, scenario.avenger
    speeds = rngs["speeds"]
    setout = _news_arrives(scenario, place, kin, t0, rngs["delays"])
    escorts = scenario.escorts
    speaker = persuader(
        rngs["escorts"],
        n,
        escorts=escorts.enabled,
        escorts_p=escorts.persuade_p,
        plea=pleads_himself(scenario),
        plea_p=escorts.plead_p,
    )
    return World(
        network=network,
        graph=graph,
        place=place,
        killer_home=killer,
        avenger_start=kin,
        t0_s=t0,
        year=year,
        fugitive_road=fugitive.speed_road_kmh.sample(speeds, n) * KMH,
        fugitive_offroad=fugitive.speed_offroad_kmh.sample(speeds, n) * KMH,
        avenger_road=avenger.speed_road_kmh.sample(speeds, n) * KMH,
        avenger_offroad=avenger.speed_offroad_kmh.sample(speeds, n) * KMH,
        setout_s=setout,
        give_up_s=setout + _days_until(avenger.give_up_per_day, rngs["give_up"], n) * DAY_S,
        deterred_if=speaker > 0,
        persuader=speaker,
        plea=pleads_himself(scenario),
        plea_p=escorts.plead_p,
        fugitive_walk_s=fugitive.walk_h_per_day * HOUR_S,
        avenger_walk_s=avenger.walk_h_per_day * HOUR_S,
        trunk=trunk,
        bough=bough,
        at_trunk=at_trunk,
        knows_law=rngs["law"].uniform(size=n) < fugitive.knows_law_p,
        # the signs "miklat" at the crossroads show every one the way (Makkot 10b)
        finds_way=(rngs["way"].uniform(size=n) < fugitive.knows_way_p) | scenario.network.signposts,
        leaves_road=rngs["leave_road"].uniform(size=n) < fugitive.leave_road_p,
        run=np.zeros(n, dtype=np.int64),
    )


def _news_arrives(
    scenario: Scenario, place: Floats, kin: Floats, t0: Floats, rng: np.random.Generator
) -> Floats:
    """When the avenger sets out: word leaves the scene after the delay and travels in a
    straight line to the kin's home; he sets out at once, "while his heart is hot" (Deut
    19:6)."""
    avenger = scenario.avenger
    news_s = np.hypot(*(kin - place).T) / (avenger.news_speed_kmh * KMH)
    return t0 + avenger.delay_h.sample(rng, len(t0)) * HOUR_S + news_s


def _days_until(rate_per_day: float, rng: np.random.Generator, n: int) -> Floats:
    """Exponential days until an event of hazard `rate_per_day` (inf at rate 0)."""
    if rate_per_day <= 0:
        return np.full(n, np.inf)
    return rng.standard_exponential(n) / rate_per_day


def _resolve(places: list[Place], network: RefugeNetwork) -> Floats:
    """Metric (n, 2) coordinates of places; a city id stands for the chosen site."""
    sites = dict(zip(network.city_ids, network.city_sites, strict=True))
    xy = np.empty((len(places), 2))
    for i, place in enumerate(places):  # build time, once per listed place
        if place.name is not None and place.name in sites:
            site = as_point(sites[place.name])
            xy[i] = site.x, site.y
        else:
            lon, lat = named_places()[place.name] if place.name else place.lonlat
            xy[i] = np.concatenate(to_metric(lon, lat), axis=None)
    return xy


def _explicit(
    scenario: Scenario, network: RefugeNetwork
) -> tuple[Floats, Floats, Floats, Floats, Floats, Floats, Floats, NDArray[np.bool_]]:
    incidents: tuple[Incident, ...] = scenario.incidents
    place = _resolve([i.place for i in incidents], network)
    kin = _resolve([i.kin_home or i.place for i in incidents], network)
    killer = _resolve([i.killer_home or i.place for i in incidents], network)
    t0 = np.array([i.time_h * 3600.0 for i in incidents])
    year = np.array([scenario.year if i.year is None else i.year for i in incidents])
    trees = [i.tree for i in incidents]
    trunk, bough = np.full((len(trees), 2), np.nan), np.full((len(trees), 2), np.nan)
    given = [(k, tree) for k, tree in enumerate(trees) if tree is not None]
    if given:
        with_tree = [k for k, _ in given]
        trunk[with_tree] = _resolve([tree.trunk for _, tree in given], network)
        bough[with_tree] = _resolve([tree.bough for _, tree in given], network)
    at_trunk = np.array([tree is not None and tree.at_trunk for tree in trees])
    return place, kin, killer, t0, year, trunk, bough, at_trunk


def _generated(
    spec: GeneratedIncidents, network: RefugeNetwork, rng: np.random.Generator
) -> tuple[Floats, Floats, Floats, Floats]:
    """Places, kin and killer homes, and times of `spec.n` drawn incidents (see the model)."""
    if spec.where == "along_roads":
        place = _along_roads(network, spec.n, spec.offroad_sigma_km * 1000.0, rng)
    else:
        place = _uniform_land(network, spec.n, rng)
    away = [place + _offsets(spec.home_distance_km.sample(rng, spec.n), rng) for _ in range(2)]
    # the kin's homes, then the killers' (drawn in that order), brought into the region at once
    kin, killer = np.split(_clip_to_region(np.concatenate(away)), 2)
    return place, kin, killer, rng.uniform(0.0, spec.time_spread_h * 3600.0, spec.n)


def _offsets(distance_km: Floats, rng: np.random.Generator) -> Floats:
    angle = rng.uniform(0.0, 2 * np.pi, len(distance_km))
    return np.column_stack([np.cos(angle), np.sin(angle)]) * distance_km[:, None] * 1000.0


def _along_roads(
    network: RefugeNetwork, n: int, sigma_m: float, rng: np.random.Generator
) -> Floats:
    router = network.router
    weights = router.edge_length_m / router.edge_length_m.sum()
    edge = rng.choice(len(weights), size=n, p=weights)
    points = shapely.line_interpolate_point(
        router.edge_geometries[edge], rng.uniform(0.0, 1.0, n), normalized=True
    )
    return _clip_to_region(shapely.get_coordinates(points) + rng.normal(0.0, sigma_m, (n, 2)))


def _uniform_land(network: RefugeNetwork, n: int, rng: np.random.Generator) -> Floats:
    left, bottom, right, top = shapely.total_bounds(network.router.edge_geometries)
    land = shapely.union_all(network.land.geometry.to_numpy())
    shapely.prepare(land)
    found = np.empty((0, 2))
    while len(found) < n:  # rejection sampling, a few rounds of vectorized draws
        xy = rng.uniform((left - 1e4, bottom - 1e4), (right + 1e4, top + 1e4), (2 * n, 2))
        found = np.vstack([found, xy[shapely.contains_xy(land, xy[:, 0], xy[:, 1])]])
    return found[:n]


def _clip_to_region(xy: Floats) -> Floats:
    """Move points that fell outside the region back onto its edge."""
    left, bottom, right, top = REGION_BOUNDS_LONLAT
    lon, lat = to_lonlat(xy[:, 0], xy[:, 1])
    x, y = to_metric(np.clip(lon, left, right), np.clip(lat, bottom, top))
    return np.column_stack([x, y])
