"""The refuge network: cities, zones, hydrography and roads loaded together, and its queries."""

from __future__ import annotations

import json
import math
import os
import pickle
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
from numpy.typing import ArrayLike, NDArray
from pyproj import CRS
from shapely.geometry import MultiLineString, MultiPoint, MultiPolygon
from shapely.geometry.base import BaseGeometry

import refuge_data
from geo import _cache
from geo._errors import DataFileError, ParameterError
from geo.asylum import DEFAULT_BOUGH_OPINION, ZONE_KINDS, Asylum, BoughOpinion, RefugeReading
from geo.crs import REGION_CRS, WGS84, check_finite, to_metric
from geo.designation import ALL_SIX, AddedCity, DesignationTimeline, as_timeline
from geo.hydrography import land_sides, read_hydrography, read_rivers, side_of_jordan
from geo.levitical import read_levitical
from geo.places import (
    CITY_IDS,
    Candidates,
    choose_sites,
    read_places,
    town_areas,
    town_extents,
)
from geo.prescribed_roads import bridges, prescribe_roads, signposts
from geo.readings import (
    DEFAULT_CUBIT,
    DEFAULT_REFUGE_READING,
    DEFAULT_TECHUM_CUBITS,
    REFUGE_READINGS,
)
from geo.roads import (
    DEFAULT_ROADS_PERIOD,
    RoadRouter,
    RoadsPeriod,
    Route,
    Way,
    build_road_graph,
    graph_to_gdfs,
    read_roads,
    roads_of_period,
)
from geo.zones import (
    TechumMode,
    resolve_cubit,
    resolve_techum_cubits,
    techum_zones,
)

if TYPE_CHECKING:
    import geopandas as gpd
    import networkx as nx
    import pandas as pd

#: The network's frames (its layers, its road graph's frames and its map's layers), pickled
#: apart from its other attributes and unpickled together on first use (`RefugeNetwork`).
FRAMES = frozenset(
    {"cities", "zones", "hydrography", "land", "places", "levitical", "rivers"}
    | {"_layers", "_road_frames"}
)

DATA_FILES = ("places.geojson", "hydrography.geojson", "roads.geojson")
LEVITICAL_FILE = "levitical_cities.geojson"

#: The OpenStreetMap river lines (ODbL), read when the data folder holds them: the Jordan divide
#: then follows the OpenStreetMap river (see `geo.hydrography`).
RIVERS_FILE = "hydrography_osm_odbl.geojson"

#: Every file `load_network` reads (the last two where the folder has them): the bytes its
#: cache is keyed on (`geo._cache`).
READ_FILES = (*DATA_FILES, RIVERS_FILE, LEVITICAL_FILE)


def default_data_dir() -> Path:
    """The shipped data folder, or the folder named by the ``REFUGE_MAP_DATA`` variable
    (`refuge_data.data_dir`).

    Returns
    -------
    pathlib.Path
        The folder (not checked to exist: `load_network` reports a missing file).
    """
    return refuge_data.data_dir()


@dataclass(frozen=True)
class Location:
    """Where positions stand: the city index (into `RefugeNetwork.city_ids`, -1 for none) and
    the zone kind (``"city"``, ``"techum"`` or ``"outside"``). Scalars for a scalar query.

    Attributes
    ----------
    city
        City index per position (into `RefugeNetwork.city_ids`; -1 for none).
    kind
        ``"city"``, ``"techum"`` or ``"outside"`` per position.
    """

    city: Any
    kind: Any


@dataclass(frozen=True)
class Reach:
    """Distance (metres) from positions to the nearest protecting asylum, and which city.

    Attributes
    ----------
    dist_m
        Metres to the nearest protecting asylum (``inf`` where none protects).
    city
        Id of that city (``""`` where none).
    """

    dist_m: Any
    city: Any


@dataclass
class RefugeNetwork:
    """The six cities of refuge as geography, in the metric CRS `crs`.

    Build it with `load_network`. Attributes are GeoDataFrames in `crs` (use `layers()` for
    WGS84 copies) and the road graph. ``cities`` holds the six, then (with the option
    ``refuges="levitical"``) the other 42 Levitical cities and any added cities; its ``kind``
    column (`geo.asylum.CITY_KINDS`) says which. ``levitical`` is the whole Levitical layer of
    the data folder (None where the folder has none), whatever the option.

    Attributes
    ----------
    cities
        One row per city (site, side, ``kind``), indexed by city id.
    zones
        The protecting zones (city and techum) of each city.
    hydrography
        Rivers, lakes and the coast.
    rivers
        The OpenStreetMap rivers of the data folder (None where it has none): bridges are
        counted on them, else on the hydrography.
    land
        The land per side of the Jordan (rows ``west`` and ``east``).
    places
        The gazetteer.
    roads
        The road graph with gate nodes (`geo.roads.build_road_graph`).
    designation
        When each city protects (Mishnah Makkot 2:4).
    options
        The `load_network` options it was built with (recorded in every result).
    crs
        The metric CRS of every layer.
    levitical
        The whole Levitical layer of the data folder, or None.
    data_dir
        The data folder it was read from.
    """

    cities: gpd.GeoDataFrame
    zones: gpd.GeoDataFrame
    hydrography: gpd.GeoDataFrame
    land: gpd.GeoDataFrame
    places: gpd.GeoDataFrame
    roads: nx.MultiGraph
    designation: DesignationTimeline
    options: dict[str, Any]
    crs: CRS = REGION_CRS
    levitical: gpd.GeoDataFrame | None = None
    data_dir: Path | None = None
    rivers: gpd.GeoDataFrame | None = None
    _asylum: Asylum = field(init=False, repr=False)
    _router: RoadRouter | None = field(init=False, repr=False, default=None)
    _layers: dict[str, gpd.GeoDataFrame] | None = field(init=False, repr=False, default=None)
    _city_ids: tuple[str, ...] = field(init=False, repr=False)
    _city_kinds: NDArray[np.str_] = field(init=False, repr=False)
    _city_sites: NDArray[np.object_] = field(init=False, repr=False)
    _designated_at: NDArray[np.float64] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        import pandas as pd

        kind = self.cities.get("kind", pd.Series("refuge", index=self.cities.index))
        self._asylum = Asylum(
            self.cities.geometry.to_numpy(),
            self.zones.geometry.to_numpy(),
            needs_intent=(kind == "levitical").to_numpy(),
        )
        self._layers = None  # a frame: set here, its class attribute gone (`FRAMES`)
        self._city_ids = tuple(self.cities.index)
        self._city_kinds = kind.to_numpy(str)
        self._city_sites = self.cities["site"].to_numpy()
        self._designated_at = self.cities["designated_at"].to_numpy(dtype=np.float64)

    def __getstate__(self) -> dict[str, Any]:
        """The network's attributes for pickling (the cache, a worker): its road graph as the
        bytes of its own pickle, beside its node and edge frames (`graph_to_gdfs`), so that
        loading them needs no networkx until `roads` is asked for, which a run, a query or the
        layers of a map never do (they ask the `router` and the `road_frames`); and its frames
        (`FRAMES`) as the bytes of one pickle, so that loading them needs no pandas until one
        is asked for, which a run's flights never do (they read the cities' arrays and the
        `asylum`): a child forked to fly replications then never imports pandas."""
        state = dict(self.__dict__)
        if "roads" in state:
            roads = state.pop("roads")
            state["_pickled_roads"] = pickle.dumps(roads, pickle.HIGHEST_PROTOCOL)
            state["_road_frames"] = graph_to_gdfs(roads)
        frames = {name: state.pop(name) for name in FRAMES if name in state}
        if frames:  # else still pickled: a network loaded from a pickle, none read
            state["_pickled_frames"] = pickle.dumps(frames, pickle.HIGHEST_PROTOCOL)
        return state

    def __getattr__(self, name: str) -> Any:
        # called only for an attribute not set: of a network loaded from a pickle, a frame
        # or `roads` (pickled apart, `__getstate__`)
        if name in FRAMES and "_pickled_frames" in self.__dict__:
            self._read_frames()
            return getattr(self, name)
        if name != "roads" or "_pickled_roads" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        self._read_frames()  # now, so that the road frames dropped here are not restored later
        self.__dict__.pop("_road_frames", None)  # the graph is the user's now, to change
        self.roads = pickle.loads(self.__dict__.pop("_pickled_roads"))
        return self.roads

    def _read_frames(self) -> None:
        """Unpickle the frames pickled apart (`__getstate__`), if they still are."""
        pickled = self.__dict__.pop("_pickled_frames", None)
        if pickled is not None:
            self.__dict__.update(pickle.loads(pickled))

    def road_frames(self) -> tuple[gpd.GeoDataFrame, gpd.GeoDataFrame]:
        """The road graph's node and edge frames (`graph_to_gdfs`), in the network's CRS:
        copies of those pickled with the network while its graph is unread (so that a map of
        a cached network imports no networkx: 0.1-0.2 s), else made from the graph. The
        caller may change them."""
        frames: tuple[gpd.GeoDataFrame, gpd.GeoDataFrame] | None = getattr(
            self, "_road_frames", None
        )
        if frames is None:
            return graph_to_gdfs(self.roads)
        nodes, edges = frames
        return nodes.copy(), edges.copy()

    def _check_city(self, city: str) -> None:
        if city not in self.city_ids:
            raise ParameterError(f"unknown city; valid {self.city_ids}", field="city", value=city)

    def _refuge_ids(self) -> tuple[str, ...]:
        """Ids of the cities that protect without intent (the six and any added cities)."""
        return tuple(
            c for c, k in zip(self._city_ids, self._city_kinds, strict=True) if k != "levitical"
        )

    @property
    def city_ids(self) -> tuple[str, ...]:
        """City ids in the order of the city indices the queries return."""
        return self._city_ids

    @property
    def city_kinds(self) -> NDArray[np.str_]:
        """Each city's ``kind`` (`geo.asylum.CITY_KINDS`), in the order of `city_ids`."""
        return self._city_kinds

    @property
    def city_sites(self) -> NDArray[np.object_]:
        """Each city's chosen site (a metric point), in the order of `city_ids`."""
        return self._city_sites

    @property
    def designated_at(self) -> NDArray[np.float64]:
        """When each city protects from (its designation, years; in the order of
        `city_ids`)."""
        return self._designated_at

    @property
    def asylum(self) -> Asylum:
        """The prepared zone predicate in metric coordinates (for simulations)."""
        return self._asylum

    @property
    def router(self) -> RoadRouter:
        """The road router in metric coordinates (for simulations and analyses): made with the
        network by `load_network` (and cached with it), else on first use."""
        if self._router is None:
            self._router = RoadRouter(self.roads)
        return self._router

    def active(self, t: ArrayLike | None = None) -> NDArray[np.bool_]:
        """Whether the cities protect at time(s) `t` (Mishnah Makkot 2:4: all six or none)."""
        return self.designation.active(t)

    def city_xy(
        self,
        x: NDArray[np.float64],
        y: NDArray[np.float64],
        *,
        bough_x: NDArray[np.float64] | None = None,
        bough_y: NDArray[np.float64] | None = None,
        at_trunk: NDArray[np.bool_] | bool = False,
        t: ArrayLike | None = None,
        bough_opinion: BoughOpinion | None = None,
        intends_refuge: ArrayLike = True,
    ) -> tuple[NDArray[np.intp], NDArray[np.float64], NDArray[np.float64]]:
        """Index of the city protecting each metric position (-1: none), and the position
        (trunk or bough) that decided it. Same arguments as `locate`, in metres."""
        opinion = bough_opinion or self.options["bough_opinion"]
        city, dx, dy = self._asylum.deciding_position(
            x,
            y,
            bough_x,
            bough_y,
            at_trunk=at_trunk,
            opinion=opinion,
            intends_refuge=np.asarray(intends_refuge, dtype=bool),
        )
        active = self.active(t)
        if t is not None:
            # a city added later (Deuteronomy 19:8-9) protects only from its own designation
            when = np.asarray(t, dtype=np.float64)
            active = active & (when >= self._designated_at[np.maximum(city, 0)])
        if not np.all(active):
            city = np.where(active, city, -1)
        return city, dx, dy

    def locate_xy(
        self, x: NDArray[np.float64], y: NDArray[np.float64], **kwargs: Any
    ) -> tuple[NDArray[np.intp], NDArray[np.int8]]:
        """`locate` on metric coordinates: city indices and zone-kind codes (`ZONE_KINDS`)."""
        city, dx, dy = self.city_xy(x, y, **kwargs)
        return city, self._asylum.kind_of(city, dx, dy)

    def in_asylum_xy(self, x: NDArray[np.float64], y: NDArray[np.float64], **kwargs: Any) -> Any:
        """`in_asylum` on metric coordinates (the simulation's per-step test)."""
        return self.city_xy(x, y, **kwargs)[0] >= 0

    def locate(
        self,
        lon: ArrayLike,
        lat: ArrayLike,
        *,
        bough_lon: ArrayLike | None = None,
        bough_lat: ArrayLike | None = None,
        at_trunk: ArrayLike = False,
        t: ArrayLike | None = None,
        bough_opinion: BoughOpinion | None = None,
        intends_refuge: ArrayLike = True,
    ) -> Location:
        """Which city's asylum each position is in, and whether in the town or its techum.

        Parameters
        ----------
        lon, lat
            WGS84 degrees (scalars or arrays). For a person in a tree, the trunk's position.
        bough_lon, bough_lat
            For a person in a tree, the bough's position (NaN where a person is not in a
            tree). Under the default opinion the bough alone decides (Mishnah Makkot 2:7).
        at_trunk
            The person stands at the trunk rather than in the boughs (matters to Rava and
            Rambam; see `geo.asylum.BOUGH_OPINIONS`).
        t
            A time on the designation timeline; the zones protect only once all six cities
            are designated (Mishnah Makkot 2:4). None: after the whole timeline.
        bough_opinion
            Overrides the network's reading of the bough rule.
        intends_refuge
            Whether each person entered intending refuge (default yes: a manslayer who flees
            flees for refuge). Only the six protect one who did not; the other 42 Levitical
            cities, where the network has them, protect only one who did (Makkot 10a, Abaye;
            Rambam, Rotzeach 8:9-10; `geo.asylum.CITY_KINDS`).

        Returns
        -------
        Location
            City index (-1 for none) and zone kind, scalars for scalar input.

        Raises
        ------
        QueryError
            If a coordinate is NaN or infinite.
        ParameterError
            For an unknown bough opinion.
        """
        scalar = np.ndim(lon) == 0 and np.ndim(lat) == 0
        x, y, bx, by = _metric_query(lon, lat, bough_lon, bough_lat)
        city, kind = self.locate_xy(
            x,
            y,
            bough_x=bx,
            bough_y=by,
            at_trunk=np.asarray(at_trunk, dtype=bool),
            t=t,
            bough_opinion=bough_opinion,
            intends_refuge=intends_refuge,
        )
        kinds = ZONE_KINDS[kind]
        if scalar:
            return Location(int(city[0]), str(kinds[0]))
        return Location(city, kinds)

    def in_asylum(
        self,
        lon: ArrayLike,
        lat: ArrayLike,
        *,
        bough_lon: ArrayLike | None = None,
        bough_lat: ArrayLike | None = None,
        **kwargs: Any,
    ) -> Any:
        """Whether each position is protected (a bool for a scalar query). Same arguments as
        `locate`; the zone kind is not computed."""
        x, y, bx, by = _metric_query(lon, lat, bough_lon, bough_lat)
        if "at_trunk" in kwargs:
            kwargs["at_trunk"] = np.asarray(kwargs["at_trunk"], dtype=bool)
        protected = self.in_asylum_xy(x, y, bough_x=bx, bough_y=by, **kwargs)
        return bool(protected[0]) if np.ndim(lon) == 0 and np.ndim(lat) == 0 else protected

    def route(self, lon: float, lat: float, city: str) -> Route:
        """The shortest road route from a position to `city`'s asylum (off-road leg included).

        Raises
        ------
        ParameterError
            For an unknown city.
        QueryError
            For a non-finite coordinate.
        """
        self._check_city(city)
        x, y = to_metric(lon, lat)
        return self.router.route(float(x), float(y), city)

    def way_to_asylum_xy(
        self,
        x: NDArray[np.float64],
        y: NDArray[np.float64],
        *,
        t: ArrayLike | None = None,
        cities: tuple[str, ...] | None = None,
        intends_refuge: bool = True,
    ) -> Way:
        """The way from metric positions to the nearest protecting asylum, in two parts.

        Off-road to the nearest road, then by road to the gate of a zone. Positions inside a
        zone are at 0; where the off-road leg itself crosses into a zone, the way ends there,
        on the leg (``road_m`` 0). Before the network is active (Mishnah Makkot 2:4) nothing
        protects: ``inf`` and city ``""``. `cities` restricts the targets (e.g. to ask what
        the three beyond the Jordan alone would have covered; such a subset is treated as
        protecting, whatever the law says about it). Without `intends_refuge` the other 42
        Levitical cities are no asylum (Makkot 10a, Abaye). A city added later (Deuteronomy
        19:8-9) counts only once designated by `t` (a single time).

        Raises
        ------
        ParameterError
            For an unknown city.
        QueryError
            For a non-finite coordinate.
        """
        for name in cities or ():
            self._check_city(name)
        chosen = cities
        if not intends_refuge:
            chosen = tuple(c for c in (cities or self.city_ids) if c in self._refuge_ids())
        if t is not None and np.ndim(t) == 0 and bool(self.active(t)):
            designated = self._designated_at <= float(np.asarray(t))
            if not designated.all():
                ids = np.asarray(self.city_ids)[designated]
                chosen = tuple(c for c in (chosen or self.city_ids) if c in set(ids))
        way = self.router.way_to_gates(x, y, chosen)
        offroad, road = way.offroad_m.copy(), way.road_m.copy()
        city = np.asarray(way.city, dtype=object)
        targets = set(chosen or self.city_ids)
        is_target = np.r_[[cid in targets for cid in self.city_ids], False]  # [-1]: no zone
        ids = np.array([*self.city_ids, ""], dtype=object)
        here = self._asylum.zone_of(x, y)
        inside = is_target[here]
        foot_zone = self._asylum.zone_of(way.foot_x, way.foot_y)
        entered = is_target[foot_zone] & ~inside
        if entered.any():
            zone = foot_zone[entered]
            px, py = x[entered], y[entered]
            fx, fy = way.foot_x[entered], way.foot_y[entered]
            share = self._asylum.entry_along(px, py, fx, fy, zone)
            offroad[entered] = share * np.hypot(fx - px, fy - py)
            road[entered] = 0.0
            city[entered] = ids[zone]
        offroad[inside], road[inside] = 0.0, 0.0
        city[inside] = ids[here[inside]]
        if cities is None:
            inactive = ~np.broadcast_to(self.active(t), offroad.shape)
            offroad[inactive], road[inactive], city[inactive] = math.inf, math.inf, ""
        return Way(offroad, road, city.astype(str), way.foot_x, way.foot_y)

    def distance_to_asylum(
        self,
        lon: ArrayLike,
        lat: ArrayLike,
        *,
        t: ArrayLike | None = None,
        cities: tuple[str, ...] | None = None,
        intends_refuge: bool = True,
    ) -> Reach:
        """Distance (off-road leg plus roads) to the nearest protecting asylum, vectorized.

        WGS84 positions; see `way_to_asylum_xy` for the way and the arguments. Scalars for a
        scalar query.
        """
        x, y = to_metric(np.atleast_1d(lon), np.atleast_1d(lat))
        way = self.way_to_asylum_xy(x, y, t=t, cities=cities, intends_refuge=intends_refuge)
        dist, city = way.offroad_m + way.road_m, np.asarray(way.city, dtype=object)
        if np.ndim(lon) == 0 and np.ndim(lat) == 0:
            return Reach(float(dist[0]), str(city[0]))
        return Reach(dist, city)

    def signposts(self) -> gpd.GeoDataFrame:
        """The "miklat" signs at every crossroads outside the zones (Makkot 10b; Rambam 8:5).

        Each points along a shortest road way to the nearest city of refuge (the six and any
        added cities; not the 42, which protect only one who knows to seek them). Columns as
        `geo.prescribed_roads.signposts`; Point geometry in `crs`.
        """
        import geopandas as gpd

        router = self.router
        inside = self._asylum.zone_of(router.node_x, router.node_y) >= 0
        table = signposts(router, cities=self._refuge_ids(), skip=inside)
        table["node"] = router.node_ids[table["node"].to_numpy()]
        table["toward"] = router.node_ids[table["toward"].to_numpy()]
        points = shapely.points(table["x"].to_numpy(), table["y"].to_numpy())
        return gpd.GeoDataFrame(table.drop(columns=["x", "y"]), geometry=points, crs=self.crs)

    def bridges(self) -> gpd.GeoDataFrame:
        """Where the roads cross a river, each by a bridge (Rambam, Rotzeach 8:5): on the
        OpenStreetMap rivers where the data folder has them, else on Natural Earth's."""
        edges = self.road_frames()[1]
        return bridges(edges, self.hydrography if self.rivers is None else self.rivers)

    def layers(self) -> dict[str, gpd.GeoDataFrame]:
        """Every layer as a WGS84 GeoDataFrame, by layer name (for files and maps).

        Each layer holds one geometry type (`LAYER_GEOMETRY`): the hydrography is split into
        ``hydrography_lines`` (rivers, lake centre lines, the coast) and
        ``hydrography_polygons`` (lakes). Fields are plain numbers, booleans or text; lists
        are JSON text (`_to_file_frame`). Road nodes carry no metric ``x``/``y`` beside
        their WGS84 point.

        They are made once per network (a map and a GeoPackage of it ask for them three times);
        each call gives copies, which the caller may change.
        """
        if self._layers is None:
            self._layers = self._file_layers()
        return {name: frame.copy() for name, frame in self._layers.items()}

    def _file_layers(self) -> dict[str, gpd.GeoDataFrame]:
        """`layers`, made."""
        import geopandas as gpd

        cities = self.cities.drop(columns=["site"])
        sites = gpd.GeoDataFrame(
            self.cities.drop(columns="geometry"), geometry="site", crs=self.crs
        ).rename_geometry("geometry")
        nodes, edges = self.road_frames()
        places = self.places.reset_index(drop=True)
        hydro = self.hydrography.reset_index(drop=True)
        lines = hydro.geom_type.isin(["LineString", "MultiLineString"])
        frames = {
            "cities": cities,
            "sites": sites,
            "zones": self.zones,
            "candidates": places[places["feature_kind"] != "reference_point"],
            "limits": places[places["feature_kind"] == "reference_point"],
            "hydrography_lines": hydro[lines],
            "hydrography_polygons": hydro[~lines],
            "land": self.land,
            "roads": edges,
            "road_nodes": nodes.drop(columns=["x", "y"]),
        }
        return {name: _to_file_frame(frame) for name, frame in frames.items()}

    def summary(self) -> pd.DataFrame:
        """One row per city: kind, side, identification, OpenBible score, designation, zone
        size."""
        import pandas as pd

        columns = ["name", "kind", "side", "modern_identification", "openbible_score"]
        table = self.cities[[*columns, "alternatives", "designated_at"]].copy()
        table["town_ha"] = (self.cities.geometry.area / 1e4).round(1)
        table["zone_km2"] = (self.zones.geometry.area / 1e6).round(2)
        return pd.DataFrame(table)

    def _repr_html_(self) -> str:
        options = ", ".join(f"{k}={v}" for k, v in self.options.items())
        return f"<p><b>RefugeNetwork</b> ({options})</p>" + self.summary().to_html()


# A frame with a default (None) is not a class attribute: a network loaded from a pickle has
# its frames pickled apart, found by `__getattr__` only where nothing else answers for them.
for _name in FRAMES & {f.name for f in fields(RefugeNetwork)}:
    if _name in vars(RefugeNetwork):
        delattr(RefugeNetwork, _name)


def _metric_query(
    lon: ArrayLike, lat: ArrayLike, bough_lon: ArrayLike | None, bough_lat: ArrayLike | None
) -> tuple[
    NDArray[np.float64], NDArray[np.float64], NDArray[np.float64] | None, NDArray[np.float64] | None
]:
    """Project a query to metres; NaN bough coordinates (not in a tree) stay NaN."""
    x, y = to_metric(np.atleast_1d(lon), np.atleast_1d(lat))
    if bough_lon is None or bough_lat is None:
        return x, y, None, None
    blon, blat = np.broadcast_arrays(
        np.atleast_1d(np.asarray(bough_lon, dtype=float)),
        np.atleast_1d(np.asarray(bough_lat, dtype=float)),
    )
    absent = np.isnan(blon) | np.isnan(blat)
    check_finite(np.where(absent, 0.0, blon), "bough_lon")
    check_finite(np.where(absent, 0.0, blat), "bough_lat")
    bx, by = to_metric(np.where(absent, 0.0, blon), np.where(absent, 0.0, blat))
    bx[absent], by[absent] = np.nan, np.nan
    return x, y, bx, by


#: The geometry of each file layer (`RefugeNetwork.layers`): one type per layer, written as its
#: multi-part form where a layer mixes single and multi parts.
LAYER_GEOMETRY: dict[str, str] = {
    "cities": "Polygon",
    "sites": "Point",
    "zones": "Polygon",
    "candidates": "Point",
    "limits": "Point",
    "hydrography_lines": "LineString",
    "hydrography_polygons": "Polygon",
    "land": "Polygon",
    "roads": "LineString",
    "road_nodes": "Point",
}


def _to_file_frame(frame: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    """A WGS84 copy with plain columns that any file format takes: lists, arrays and sets as
    JSON text (``["Josh 20:7", "Josh 21:32"]``), infinite times (designated from the start, or
    never) as missing; a named index becomes a column, an unnamed one is dropped."""
    import geopandas as gpd
    import pandas as pd

    named = any(name is not None for name in frame.index.names)
    out = frame.to_crs(WGS84).reset_index(drop=not named)
    for column in out.columns:
        if column == out.geometry.name:
            continue
        if pd.api.types.is_float_dtype(out[column]):
            out[column] = out[column].where(np.isfinite(out[column]))
        elif out[column].dtype == object:
            out[column] = out[column].map(_plain_value)
    if out.geom_type.str.startswith("Multi").any():
        multi = [_as_multi(g) for g in out.geometry]
        out[out.geometry.name] = gpd.GeoSeries(multi, index=out.index, crs=out.crs)
    return out


def _as_multi(geom: BaseGeometry) -> BaseGeometry:
    """A single-part geometry as its one-part multi form (a multi-part one as it is)."""
    multi: dict[str, Callable[..., BaseGeometry]] = {
        "Point": MultiPoint,
        "LineString": MultiLineString,
        "Polygon": MultiPolygon,
    }
    return multi[geom.geom_type]([geom]) if geom.geom_type in multi else geom


def _plain_value(value: object) -> object:
    """A cell as a file value: text and numbers as they are, lists/arrays/sets as JSON text."""
    import pandas as pd

    if value is None or value is pd.NA or isinstance(value, str | int | float | bool):
        return None if value is pd.NA else value
    if isinstance(value, list | tuple | set | frozenset | np.ndarray):
        items = sorted(value) if isinstance(value, set | frozenset) else list(value)
        return json.dumps([v.item() if isinstance(v, np.generic) else v for v in items])
    return str(value)


def load_network(
    data_dir: str | os.PathLike[str] | None = None,
    *,
    cubit_m: float | str = DEFAULT_CUBIT,
    techum: TechumMode = "squared",
    techum_cubits: float | str = DEFAULT_TECHUM_CUBITS,
    candidates: Candidates = "best",
    designated: Any = ALL_SIX,
    bough_opinion: BoughOpinion = DEFAULT_BOUGH_OPINION,
    roads_period: RoadsPeriod = DEFAULT_ROADS_PERIOD,
    refuges: RefugeReading = DEFAULT_REFUGE_READING,
    added_cities: tuple[AddedCity, ...] = (),
) -> RefugeNetwork:
    """Load and validate the network from a data folder.

    Parameters
    ----------
    data_dir
        Folder with ``places.geojson``, ``hydrography.geojson`` and ``roads.geojson``
        (default: the shipped data, see `default_data_dir`).
    cubit_m
        The cubit in metres, or a preset of `geo.zones.CUBIT_PRESETS` (default ``"naeh"``,
        48 cm, RULES.md §10).
    techum
        ``"squared"`` (default: the town squared to the four directions, Mishnah Eruvin 5:1,
        Eruvin 56a) or ``"round"`` (a plain buffer).
    techum_cubits
        Breadth of the boundary in cubits or a preset of `geo.zones.TECHUM_CUBIT_PRESETS`
        (default ``"sabbath"``: 2,000 cubits, Numbers 35:5; Mishnah Makkot 2:7).
    candidates
        ``"best"`` or a mapping city id -> candidate site id.
    designated
        The designated cities (a set of ids) or a designation timeline (see
        `geo.designation.as_timeline`); default all six.
    bough_opinion
        The reading of the tree-bough rule (`geo.asylum.BOUGH_OPINIONS`).
    roads_period
        Which roads count (`geo.roads.ROADS_PERIODS`): ``"all"`` (default: every leg of the
        road file), ``"iron_age"`` (the legs attested for the Iron Age, the time of Joshua's
        designation) or ``"hellenistic_roman"`` (the roads of the Mishnah's time, Mishnah
        Makkot 2:5). Legs marked ``both`` count in either period.
    refuges
        Which cities receive (`geo.asylum.REFUGE_READINGS`): ``"six"`` (default) or
        ``"levitical"``, adding the other 42 Levitical cities of ``levitical_cities.geojson``
        as zones that protect only one who intends refuge (Makkot 10a, Abaye). Their zones follow
        the same techum options, and they protect once the network does (Mishnah Makkot 2:4;
        assumption: Joshua 21 gave them after Joshua 20 designated the six).
    added_cities
        Cities of refuge beyond the six (Deuteronomy 19:8-9), to be designated in
        `designated` (see `geo.designation.designate_three_more`).

    Returns
    -------
    RefugeNetwork
        The validated network, in `REGION_CRS`.

    Raises
    ------
    DataFileError
        For a missing or invalid data file (naming the file, field and value).
    ParameterError
        For an invalid option.
    """
    folder = Path(data_dir) if data_dir is not None else default_data_dir()
    for name in DATA_FILES:
        if not (folder / name).is_file():
            raise DataFileError("data file not found", source=str(folder / name))
    if refuges not in REFUGE_READINGS:
        raise ParameterError(
            f"unknown reading; valid {sorted(REFUGE_READINGS)}", field="refuges", value=refuges
        )
    cubit = resolve_cubit(cubit_m)
    breadth_cubits = resolve_techum_cubits(techum_cubits)
    if not math.isfinite(cubit * breadth_cubits):
        raise ParameterError(
            "the boundary's breadth (techum_cubits x cubit_m) is no finite distance",
            field="cubit_m",
            value=cubit_m,
        )
    added_ids = frozenset(city.id for city in added_cities)
    timeline = as_timeline(designated, known=ALL_SIX | added_ids)
    checked = _Options(
        cubit_m=cubit,
        techum=techum,
        techum_cubits=breadth_cubits,
        candidates=candidates,
        designation=timeline,
        bough_opinion=bough_opinion,
        roads_period=roads_period,
        refuges=refuges,
        added_cities=tuple(added_cities),
    )
    network = _cache.cached(
        lambda: _build(folder, checked),
        kind=RefugeNetwork,
        files=tuple(folder / name for name in READ_FILES),
        params=checked,
    )
    network.data_dir = folder  # the same bytes in another folder: the same network
    return network


@dataclass(frozen=True)
class _Options:
    """`load_network`'s options, checked and resolved (a cubit preset as its metres): with the
    bytes of the files, what a network is built from (its cache's key, `geo._cache.key`)."""

    cubit_m: float
    techum: TechumMode
    techum_cubits: float
    candidates: Candidates
    designation: DesignationTimeline
    bough_opinion: BoughOpinion
    roads_period: RoadsPeriod
    refuges: RefugeReading
    added_cities: tuple[AddedCity, ...]


def _build(folder: Path, checked: _Options) -> RefugeNetwork:
    """`load_network` on checked options: read the files of `READ_FILES` and build.

    Raises
    ------
    DataFileError
        For an invalid data file, or a missing Levitical one where ``refuges="levitical"``.
    ParameterError
        For an unknown candidate site or a bad added city.
    """
    import pandas as pd

    cubit, breadth_cubits, timeline = checked.cubit_m, checked.techum_cubits, checked.designation
    candidates, techum, refuges = checked.candidates, checked.techum, checked.refuges
    places = read_places(folder / "places.geojson")
    sites = choose_sites(places, candidates)
    hydrography = read_hydrography(folder / "hydrography.geojson")
    rivers = read_rivers(folder / RIVERS_FILE) if (folder / RIVERS_FILE).is_file() else None
    land = land_sides(hydrography, rivers)
    levitical_path = folder / LEVITICAL_FILE
    levitical = read_levitical(levitical_path) if levitical_path.is_file() else None
    if refuges == "levitical" and levitical is None:
        raise DataFileError("data file not found (refuges='levitical')", source=str(levitical_path))
    cities = _city_table(sites, land, timeline)
    if refuges == "levitical" and levitical is not None:
        others = levitical[~levitical["city_of_refuge"]]
        cities = _more_cities(cities, _levitical_sites(others), land, timeline.activation_time)
    if checked.added_cities:
        times = timeline.designation_times()
        added = _added_sites(checked.added_cities, places.crs)
        cities = _more_cities(cities, added, land, pd.Series(times).reindex(added.index))
    zones = _zone_table(cities, breadth_m=breadth_cubits * cubit, mode=techum)
    zones["cubit_m"], zones["techum_cubits"] = cubit, breadth_cubits
    legs = roads_of_period(read_roads(folder / "roads.geojson"), checked.roads_period)
    roads = build_road_graph(legs, zones.assign(site=cities["site"]))
    prescribe_roads(roads, hydrography if rivers is None else rivers, cubit_m=cubit)
    options = {
        "cubit_m": cubit,
        "techum": techum,
        "techum_cubits": breadth_cubits,
        "candidates": candidates if isinstance(candidates, str) else dict(candidates),
        "bough_opinion": checked.bough_opinion,
        "roads_period": checked.roads_period,
        # the Jordan line the two sides are computed from
        "jordan_line": "openstreetmap" if rivers is not None else "natural_earth",
        **({"refuges": refuges} if refuges != DEFAULT_REFUGE_READING else {}),
        # the designation timeline, "t: cities; ..." (Mishnah Makkot 2:4: all six, or none)
        "designated": "; ".join(
            f"{event.t:g}: {', '.join(sorted(event.cities))}" for event in timeline.events
        ),
    }
    network = RefugeNetwork(
        cities=cities,
        zones=zones,
        hydrography=hydrography,
        land=land,
        places=places.to_crs(REGION_CRS),
        roads=roads,
        designation=timeline,
        options=options,
        levitical=None if levitical is None else levitical.to_crs(REGION_CRS),
        data_dir=folder,
        rivers=rivers,
    )
    network.router  # noqa: B018 (made now, so that a cached network carries its tables)
    return network


def _city_table(
    sites: gpd.GeoDataFrame, land: gpd.GeoDataFrame, timeline: DesignationTimeline
) -> gpd.GeoDataFrame:
    """One row per city: names, side of the Jordan, identification, site and town extent."""
    import geopandas as gpd
    import pandas as pd

    site_points = sites.geometry.to_crs(REGION_CRS)
    cities = gpd.GeoDataFrame(
        {
            "name": sites["name"],
            "hebrew_name": sites.get("hebrew_name"),
            "side": side_of_jordan(site_points, land),
            "site_id": sites["site_id"],
            "modern_identification": sites.get("modern_identification"),
            "rank": sites["rank"],
            "openbible_score": sites.get("openbible_score"),
            "alternatives": sites["alternatives"],
            "designated_at": pd.Series(timeline.designation_times()).reindex(sites.index),
            **town_areas(sites),
            "town_area_source": sites.get("town_area_source"),
            "site": site_points,
        },
        geometry=town_extents(sites),
        crs=REGION_CRS,
    )
    cities["kind"] = "refuge"
    cities.index.name = "city"
    return cities


def _levitical_sites(levitical: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    """The Levitical layer's rows in the shape `choose_sites` gives (WGS84, indexed by id)."""
    import geopandas as gpd

    alternatives = (
        levitical["identifications"].str.count(";") if "identifications" in levitical else 0
    )
    return gpd.GeoDataFrame(
        {
            "name": levitical["name"],
            "site_id": levitical.get("openbible_site_id", levitical["id"]),
            "modern_identification": levitical["modern_identification"],
            "rank": 1,
            "openbible_score": levitical["openbible_score"],
            "alternatives": alternatives,
            "kind": "levitical",
        },
        geometry=levitical.geometry,
        crs=levitical.crs,
    )


def _added_sites(added: tuple[AddedCity, ...], crs: Any) -> gpd.GeoDataFrame:
    """Added cities of refuge (Deuteronomy 19:8-9) in the shape `choose_sites` gives."""
    import geopandas as gpd
    import pandas as pd

    ids = [city.id for city in added]
    if len(set(ids)) != len(ids) or set(ids) & set(CITY_IDS):
        raise ParameterError("added cities need new, distinct ids", field="added_cities", value=ids)
    return gpd.GeoDataFrame(
        {
            "name": [city.name for city in added],
            "site_id": ids,
            "modern_identification": [city.source for city in added],
            "rank": 1,
            "openbible_score": pd.NA,
            "alternatives": 0,
            "kind": "refuge",
        },
        geometry=gpd.points_from_xy([c.lon for c in added], [c.lat for c in added]),
        index=pd.Index(ids, name="city"),
        crs=crs,
    )


def _more_cities(
    cities: gpd.GeoDataFrame, sites: gpd.GeoDataFrame, land: gpd.GeoDataFrame, designated_at: Any
) -> gpd.GeoDataFrame:
    """`cities` with rows for more sites appended (town extent, side, designation time)."""
    import geopandas as gpd
    import pandas as pd

    points = sites.geometry.to_crs(REGION_CRS)
    more = gpd.GeoDataFrame(
        sites.drop(columns="geometry").assign(
            side=side_of_jordan(points, land), designated_at=designated_at, site=points
        ),
        geometry=town_extents(sites),
        crs=REGION_CRS,
    )
    return gpd.GeoDataFrame(pd.concat([cities, more]), geometry="geometry", crs=REGION_CRS)


def _zone_table(
    cities: gpd.GeoDataFrame, *, breadth_m: float, mode: TechumMode
) -> gpd.GeoDataFrame:
    import geopandas as gpd

    zones = gpd.GeoDataFrame(
        {"name": cities["name"], "techum": mode, "breadth_m": breadth_m},
        geometry=techum_zones(cities.geometry, breadth_m=breadth_m, mode=mode),
        crs=REGION_CRS,
    )
    zones.index.name = "city"
    return zones
