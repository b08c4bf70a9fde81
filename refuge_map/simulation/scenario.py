"""Scenario files: the pydantic models of a flight-and-pursuit simulation, with units and checks.

Every quantity carries its unit in its field name (``_kmh``, ``_h``, ``_s``, ``_m``, ``_km``) and
is checked against a plausible range, so a value given in the wrong unit (metres per second for
km/h, minutes for hours) fails with the field path and the value instead of running nonsense.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from contextvars import ContextVar
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, TypeAlias

import numpy as np
from numpy.typing import NDArray
from pydantic import (
    AfterValidator,
    ConfigDict,
    Discriminator,
    Field,
    GetPydanticSchema,
    Tag,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)

from geo import ALL_SIX, MOSES_THEN_JOSHUA, AddedCity, default_data_dir, read_levitical
from geo.crs import REGION_BOUNDS_LONLAT
from geo.designation import THREE_MORE_SOURCE
from geo.gazetteer import candidate_sites, named_places
from geo.network import LEVITICAL_FILE
from refuge_map._loading import load_model
from refuge_map._strict import Strict, validated_as
from refuge_map.opinions import DISPUTES
from refuge_map.simulation.provenance import assumed, setting, sourced
from refuge_map.simulation.scenario_cities import CityConditions
from refuge_map.simulation.scenario_exile import ExileOptions, check_calendar

#: Mirrors `geo.CITY_IDS` (tests/test_scenario.py checks they agree); the opinions' choices come
#: from the registry (`refuge_map.opinions.DISPUTES`).
CityId = Literal["kedesh", "shechem", "hebron", "bezer", "ramoth_gilead", "golan"]

#: The choices of each dispute, from the registry (`refuge_map.opinions.DISPUTES`): a word that
#: pydantic checks against the dispute's choices (`Dispute.choice`).
CubitPreset: TypeAlias = Annotated[str, DISPUTES["network.cubit"].choice]
TechumMode: TypeAlias = Annotated[str, DISPUTES["network.techum"].choice]
TechumPreset: TypeAlias = Annotated[str, DISPUTES["network.techum_cubits"].choice]
BoughOpinion: TypeAlias = Annotated[str, DISPUTES["network.bough_opinion"].choice]
RefugeReading: TypeAlias = Annotated[str, DISPUTES["network.refuges"].choice]
RoadsPeriod: TypeAlias = Annotated[str, DISPUTES["network.roads_period"].choice]

#: The nominal calendar: the engine's clock starts here. The date is not a historical claim;
#: pandas datetimes cannot go before 1677, so the flight is dated in a nominal year.
DEFAULT_START = datetime(1800, 1, 1, 6, 0)
#: Replications when a scenario names none (see data/scenarios/README.md for why).
REPLICATIONS = 1
_LEFT, _BOTTOM, _RIGHT, _TOP = REGION_BOUNDS_LONLAT
#: The largest root seed: what the int64 seed columns of runs and sweeps hold.
MAX_SEED = 2**63 - 1


# --------------------------------------------------------------------------- distributions


class _Fixed(Strict):
    """Every agent draws the same value."""

    dist: Literal["fixed"] = Field(description="Distribution kind.")
    value: float

    def sample(self, rng: np.random.Generator, n: int) -> NDArray[np.float64]:
        """`n` draws (no randomness is consumed)."""
        return np.full(n, self.value)


class _Uniform(Strict):
    """Uniform between `low` and `high`."""

    dist: Literal["uniform"] = Field(description="Distribution kind.")
    low: float
    high: float

    @model_validator(mode="after")
    def _ordered(self) -> _Uniform:
        if self.high < self.low:
            raise ValueError(f"high ({self.high}) must not be below low ({self.low})")
        return self

    def sample(self, rng: np.random.Generator, n: int) -> NDArray[np.float64]:
        """`n` draws."""
        return rng.uniform(self.low, self.high, n)


class _LogNormal(Strict):
    """Log-normal: ``median * exp(sigma * Z)``, Z standard normal; draws are clipped to the
    quantity's range."""

    dist: Literal["lognormal"] = Field(description="Distribution kind.")
    median: float
    sigma: float = Field(ge=0.0, le=2.0, description="Spread of the logarithm (dimensionless).")
    bounds: ClassVar[tuple[float, float]] = (0.0, math.inf)

    def sample(self, rng: np.random.Generator, n: int) -> NDArray[np.float64]:
        """`n` draws, clipped to the quantity's range."""
        draws = self.median * np.exp(self.sigma * rng.standard_normal(n))
        low, high = self.bounds
        return np.clip(draws, max(low, 1e-9), high)


def distribution(
    name: str, unit: str, *, low: float, high: float, open_low: bool
) -> GetPydanticSchema:
    """A `{dist: fixed|uniform|lognormal, ...}` field for one quantity and its unit range, as
    the metadata of ``Annotated[Distribution, distribution(...)]``: pydantic validates it into
    this quantity's bounded variants of the three kinds (mypy reads the kinds).

    Values outside ``(low, high]`` (or ``[low, high]`` if not `open_low`) fail validation.
    """
    bound = {"gt" if open_low else "ge": low, "le": high}
    number = Annotated[float, Field(**bound, description=f"In {unit}.")]
    variants = (
        create_model(f"{name}Fixed", __base__=_Fixed, value=(number, ...)),
        create_model(f"{name}Uniform", __base__=_Uniform, low=(number, ...), high=(number, ...)),
        create_model(
            f"{name}LogNormal",
            __base__=_LogNormal,
            median=(number, Field(description=f"Median, in {unit}.")),
        ),
    )
    variants[2].bounds = (low, high)
    for variant in variants:  # module attributes, so that scenarios pickle (to Dask workers)
        variant.__module__ = __name__
        globals()[variant.__name__] = variant
    return validated_as(
        Annotated[variants[0] | variants[1] | variants[2], Field(discriminator="dist")]
    )


def _as_written(**raw: object) -> Callable[[], Any]:
    """A distribution's default as a scenario file writes it: pydantic validates it into the
    field's bounded variant (`validate_default`)."""
    return lambda: dict(raw)


#: A drawn quantity: one of the three kinds (each field validates its own bounded variants).
Distribution: TypeAlias = _Fixed | _Uniform | _LogNormal
SpeedKmh: TypeAlias = Annotated[
    Distribution, distribution("SpeedKmh", "km/h", low=0.0, high=40.0, open_low=True)
]
DelayH: TypeAlias = Annotated[
    Distribution, distribution("DelayH", "hours", low=0.0, high=720.0, open_low=False)
]
DistanceKm: TypeAlias = Annotated[
    Distribution, distribution("DistanceKm", "km", low=0.0, high=100.0, open_low=False)
]


# --------------------------------------------------------------------------- places


def _known_place(name: str) -> str:
    if name not in named_places():
        known = ", ".join(sorted(named_places()))
        raise ValueError(f"unknown place; known names: {known}")
    return name


_GIVEN_PLACE = "a place the scenario gives"
_GIVEN_TIME = "a time the scenario gives: where on the clock or timeline it asks its question"


class Place(Strict):
    """A place: a name (a city id, ``dan``, ``beersheba``, ``jerusalem`` or a road waypoint),
    ``[lon, lat]``, or ``{lon: .., lat: ..}`` in WGS84 degrees."""

    # pydantic merges this with Strict's config: only the schema's description is Place's own
    model_config = ConfigDict(
        json_schema_extra={"description": "A named place, [lon, lat], or {lon, lat} (degrees)."}
    )

    name: Annotated[str, AfterValidator(_known_place)] | None = Field(
        None, description="A city id, a reference point or a road waypoint id."
    )
    lon: float | None = Field(
        None,
        ge=_LEFT,
        le=_RIGHT,
        description="Longitude, WGS84 degrees, within the region.",
        json_schema_extra=setting(_GIVEN_PLACE, unit="degrees"),
    )
    lat: float | None = Field(
        None,
        ge=_BOTTOM,
        le=_TOP,
        description="Latitude, WGS84 degrees, within the region.",
        json_schema_extra=setting(_GIVEN_PLACE, unit="degrees"),
    )

    @property
    def lonlat(self) -> tuple[float, float]:
        """The (lon, lat) given in degrees (ValueError for a place given by name)."""
        if self.lon is None or self.lat is None:
            raise ValueError(f"the place {self.name!r} is named, not given as lon, lat")
        return self.lon, self.lat

    @model_validator(mode="before")
    @classmethod
    def _from_short_forms(cls, data: Any) -> Any:
        if isinstance(data, str):
            return {"name": data}
        if isinstance(data, list | tuple) and len(data) == 2:
            return {"lon": data[0], "lat": data[1]}
        return data

    @model_validator(mode="after")
    def _one_form(self) -> Place:
        if (self.name is None) == (self.lon is None or self.lat is None):
            raise ValueError("give either a name or both lon and lat")
        return self


class Tree(Strict):
    """A tree by the road whose boughs may reach across a zone boundary (Mishnah Makkot 2:7)."""

    trunk: Place = Field(description="Where the trunk stands (snapped onto the nearest road).")
    bough: Place = Field(description="Where the boughs he climbs into hang.")
    at_trunk: bool = Field(
        False, description="He stands at the trunk instead of climbing into the boughs."
    )


# --------------------------------------------------------------------------- incidents


class Incident(Strict):
    """One killing in error, given explicitly."""

    place: Place = Field(description="Where the killing happened; the manslayer flees from here.")
    time_h: float = Field(
        0.0,
        ge=0.0,
        le=720.0,
        description="Hours after the nominal start when it happened.",
        json_schema_extra=setting(_GIVEN_TIME, unit="h"),
    )
    killer_home: Place | None = Field(
        None, description="The manslayer's home (default: the place); kept for later phases."
    )
    kin_home: Place | None = Field(
        None,
        description="Home of the victim's kin, where the avenger learns of the death "
        "(default: the place).",
    )
    year: float | None = Field(
        None,
        description="Year on the designation timeline (default: the scenario's `year`).",
        json_schema_extra=setting(_GIVEN_TIME, unit="years"),
    )
    tree: Tree | None = Field(
        None, description="The manslayer runs to this tree and climbs it instead of to a city."
    )


class GeneratedIncidents(Strict):
    """N incidents drawn over the land.

    ``along_roads``: a point uniform along the road network (by length), moved by a normal
    offset of `offroad_sigma_km` in each direction; people live and work by the roads.
    ``uniform_land``: uniform over the land (either side of the Jordan) within the extent of the
    road network grown by 10 km. Homes lie at a distance drawn from `home_distance_km` in a
    uniform direction. Incident times are uniform over ``[0, time_spread_h]``.
    """

    n: int = Field(
        ge=1,
        le=1_000_000,
        description="Number of incidents.",
        json_schema_extra=setting("how many killings the run follows", unit="incidents"),
    )
    where: Literal["along_roads", "uniform_land"] = Field(
        "along_roads", description="Spatial distribution of the places (see the model's doc)."
    )
    offroad_sigma_km: float = Field(
        2.0,
        ge=0.0,
        le=50.0,
        description="Off-road spread for `along_roads`, km.",
        json_schema_extra=assumed(
            "people live and work near the roads; no source gives how near",
            unit="km",
            low=0.5,
            high=5.0,
        ),
    )
    home_distance_km: DistanceKm = Field(
        default_factory=_as_written(dist="uniform", low=0.0, high=10.0),
        description="Distance from the place to the kin's and the killer's homes, km.",
        json_schema_extra=assumed(
            "the kin live in the same or a neighbouring village (the avenger is the next of "
            "kin, Numbers 35:19); no source gives a distance. Range of the central value.",
            unit="km",
            low=1.0,
            high=20.0,
        ),
    )
    time_spread_h: float = Field(
        0.0,
        ge=0.0,
        le=720.0,
        description="Incident times are uniform over [0, this], hours.",
        json_schema_extra=setting(_GIVEN_TIME, unit="h"),
    )


# --------------------------------------------------------------------------- agents


#: What the avenger knows of the fugitive's way (`Avenger.knows`): a modelling choice, not a
#: dispute of the Sages (data/scenarios/README.md).
AvengerKnows = Literal["sees_him", "nearest_city", "destination"]

#: Bohannon (1997), "Comfortable and maximum walking speed of adults aged 20-79 years", Age and
#: Ageing 26:15-19: comfortable 1.3-1.5 m/s (4.7-5.3 km/h), maximum 1.75-2.5 m/s (6.3-9.1 km/h).
WALKING_SPEEDS = (
    "Bohannon 1997 (Age and Ageing 26:15-19) measures comfortable walking at 4.7-5.3 km/h and "
    "the fastest at 6.3-9.1 km/h"
)
#: ORBIS (Scheidel, Meeks and Weiland 2012, the Stanford geospatial network model of the Roman
#: world) times foot travel on roads at 30 km a day.
ORBIS_DAY = "ORBIS (Scheidel, Meeks and Weiland 2012) times foot travel on roads at 30 km a day"


class Fugitive(Strict):
    """The manslayer: he flees at once by the fastest way to the nearest city that protects
    (Numbers 35:11-12; the assembly judges later, Numbers 35:24)."""

    speed_road_kmh: SpeedKmh = Field(
        default_factory=_as_written(dist="lognormal", median=6.0, sigma=0.15),
        description="Speed on the prepared roads (Deut 19:3), km/h.",
        json_schema_extra=assumed(
            f"he flees at a brisk walk, between the comfortable and the fastest: {WALKING_SPEEDS}",
            unit="km/h",
            low=4.5,
            high=9.0,
        ),
    )
    speed_offroad_kmh: SpeedKmh = Field(
        default_factory=_as_written(dist="lognormal", median=4.0, sigma=0.2),
        description="Speed across country to the nearest road, km/h.",
        json_schema_extra=assumed(
            "across country slower than on a prepared road (about two thirds of it)",
            unit="km/h",
            low=2.5,
            high=6.0,
        ),
    )
    walk_h_per_day: float = Field(
        12.0,
        gt=0.0,
        le=24.0,
        description="Hours he walks in each 24 from his setting out; he rests the rest (night).",
        json_schema_extra=assumed(
            f"{ORBIS_DAY}, about 6 hours at 5 km/h; one fleeing for his life walks the daylight "
            "(10-14 hours in the land)",
            unit="h/day",
            low=6.0,
            high=16.0,
        ),
    )
    knows_way_p: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="Share of manslayers who know the way to their city. Where the signposts "
        "stand (`network.signposts`, Makkot 10b) every one takes the shortest way; without "
        "them one who does not know it takes at each junction the road that points most "
        "nearly at his city, which may be longer.",
        json_schema_extra=assumed(
            "the court set up signposts so the fugitive knows where to turn (Makkot 10b; "
            "Rambam, Rotzeach 8:5), so not all knew the way; no source says how many. It "
            "changes nothing while the signposts stand",
            unit="share",
            low=0.0,
            high=1.0,
        ),
    )
    leave_road_p: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="Share of manslayers who, when they see their avenger within `avenger."
        "sight_m`, leave the road and go across country (at `speed_offroad_kmh`) straight for "
        "their city (or tree); the others keep to the road.",
        json_schema_extra=assumed(
            "the texts say nothing of it: a man who sees his pursuer may take to the hills or "
            "trust the prepared road (Deut 19:3); half of each",
            unit="share",
            low=0.0,
            high=1.0,
        ),
    )
    knows_law_p: float = Field(
        0.0,
        ge=0.0,
        le=1.0,
        description="Share of manslayers who know that the 42 Levitical cities receive one who "
        "enters them intending refuge (Makkot 10a, Abaye; Rambam, Rotzeach 8:9-10): with "
        "`network.refuges: levitical` they make for the nearest of the 48, intending refuge "
        "there; the rest for the nearest of the six.",
        json_schema_extra=assumed(
            "the rule is Makkot 10a (Abaye) and Rambam, Rotzeach 8:9-10; no source says how "
            "many knew it. 0 by default: only the six, which receive whether or not he meant "
            "to seek refuge there",
            unit="share",
            low=0.0,
            high=1.0,
        ),
    )


class Avenger(Strict):
    """The blood avenger, "while his heart is hot" (Deut 19:6): he learns of the death when the
    news reaches the kin's home, sets out at once, and may give up as his heart cools."""

    start: Place | None = Field(
        None, description="Where every avenger starts (default: each incident's kin home)."
    )
    delay_h: DelayH = Field(
        default_factory=_as_written(dist="lognormal", median=1.0, sigma=0.5),
        description="Hours from the killing until word of it leaves the scene for the kin.",
        json_schema_extra=assumed(
            "the body is found and a messenger sent; no source gives how soon",
            unit="h",
            low=0.25,
            high=6.0,
        ),
    )
    news_speed_kmh: float = Field(
        8.0,
        gt=0.0,
        le=40.0,
        description="Speed of the news from the scene to the kin's home (straight line), km/h.",
        json_schema_extra=assumed(
            f"a runner, faster than a walker: {WALKING_SPEEDS}",
            unit="km/h",
            low=5.0,
            high=12.0,
        ),
    )
    speed_road_kmh: SpeedKmh = Field(
        default_factory=_as_written(dist="lognormal", median=7.0, sigma=0.15),
        description="Speed on the roads, km/h.",
        json_schema_extra=assumed(
            "he pursues 'while his heart is hot' and may overtake him 'because the way is long' "
            f"(Deut 19:6): a little faster than the fugitive; {WALKING_SPEEDS}",
            unit="km/h",
            low=5.0,
            high=9.5,
        ),
    )
    speed_offroad_kmh: SpeedKmh = Field(
        default_factory=_as_written(dist="lognormal", median=5.0, sigma=0.2),
        description="Speed across country to the nearest road, km/h.",
        json_schema_extra=assumed(
            "across country slower than on the road (about two thirds of it)",
            unit="km/h",
            low=3.0,
            high=7.0,
        ),
    )
    walk_h_per_day: float = Field(
        12.0,
        gt=0.0,
        le=24.0,
        description="Hours he walks in each 24 from his setting out; he rests the rest (night).",
        json_schema_extra=assumed(
            f"{ORBIS_DAY}; in pursuit he walks the daylight like the fugitive",
            unit="h/day",
            low=6.0,
            high=16.0,
        ),
    )
    give_up_per_day: float = Field(
        0.05,
        ge=0.0,
        le=10.0,
        description="Hazard that he gives up the pursuit, per day since he set out.",
        json_schema_extra=assumed(
            "'while his heart is hot' (Deut 19:6): the heat passes; no source gives a rate "
            "(0.05: half give up within two weeks)",
            unit="1/day",
            low=0.0,
            high=0.5,
        ),
    )
    knows: AvengerKnows = Field(
        "nearest_city",
        description="What he knows of the fugitive's way. `sees_him`: only what he sees: he "
        "goes to where he last saw him (at first the scene of the killing, which the news "
        "names); `nearest_city`: he goes by the shortest road to the gate of the city of refuge "
        "nearest the scene (what any kinsman could guess) and waits there; `destination`: he "
        "knows the city the fugitive makes for and goes for its gate. In every mode he chases "
        "the fugitive by the roads while he sees him (`sight_m`). Default `nearest_city`: the "
        "avenger who 'pursues and overtakes him because the way is long' (Deuteronomy 19:6) "
        "pursues on the way to the city, and the cities were known and signposted (Makkot 10b).",
    )
    sight_m: float = Field(
        300.0,
        gt=0.0,
        le=5000.0,
        description="The avenger and the manslayer see and know each other within this "
        "straight-line distance, metres (terrain is not modelled).",
        json_schema_extra=assumed(
            "the texts say nothing of it: a man is told apart at a few hundred metres in open "
            "country, less among hills and trees",
            unit="m",
            low=100.0,
            high=1000.0,
        ),
    )
    capture_m: float = Field(
        20.0,
        gt=0.0,
        le=500.0,
        description="He kills a fugitive within this distance, metres.",
        json_schema_extra=assumed(
            "within a stone's throw or a weapon's reach of him", unit="m", low=5.0, high=50.0
        ),
    )

    @model_validator(mode="before")
    @classmethod
    def _no_strategy(cls, data: Any) -> Any:
        if isinstance(data, dict) and "strategy" in data:
            raise ValueError(
                f"`strategy: {data['strategy']}` is replaced by `knows` (the avenger is not "
                "all-knowing): sees_him, nearest_city or destination (the old intercept)"
            )
        return data


class Escorts(Strict):
    """Two disciples of the Sages go with him to speak to the avenger (Mishnah Makkot 2:5)."""

    enabled: bool = Field(False, description="Whether the court gives him the two escorts.")
    persuade_p: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="Chance that they persuade the avenger to desist when he reaches him.",
        json_schema_extra=assumed(
            "Mishnah Makkot 2:5 says they speak to him, not how often he listens",
            unit="probability",
            low=0.1,
            high=0.9,
        ),
    )
    plead_p: float = Field(
        0.2,
        ge=0.0,
        le=1.0,
        description="Under R. Meir (exile.law.plead: meir), chance that his own plea turns the "
        "avenger back when he reaches him, if the escorts did not (Mishnah Makkot 2:5).",
        json_schema_extra=assumed(
            "R. Meir lets him plead his cause himself, not how often it works; less than the "
            "escorts, who are Sages",
            unit="probability",
            low=0.0,
            high=0.6,
        ),
    )


# --------------------------------------------------------------------------- network


def _known_site(site: str) -> str:
    if not any(site in sites for sites in candidate_sites().values()):
        known = sorted(site for sites in candidate_sites().values() for site in sites)
        raise ValueError(f"unknown candidate site; known: {', '.join(known)}")
    return site


def _preset_or(preset: Any, other: Any, other_tag: str) -> GetPydanticSchema:
    """A field that takes a preset name (a string) or another form, told apart by type, so
    that an error names the form the file used: ``network.cubit.metres``; the metadata of
    ``Annotated[A | B, _preset_or(...)]`` (a union built at run time, `validated_as`)."""
    return validated_as(
        Annotated[
            Annotated[preset, Tag("preset")] | Annotated[other, Tag(other_tag)],
            Discriminator(lambda value: "preset" if isinstance(value, str) else other_tag),
        ]
    )


#: The ids of the `added_cities` of the network options being validated (`NetworkOptions`
#: sets it around its own validation), so that a designation step may name them.
_ADDED_IDS: ContextVar[frozenset[str]] = ContextVar("added_ids", default=frozenset())


def _designable(city: str) -> str:
    known = ALL_SIX | _ADDED_IDS.get()
    if city not in known:
        raise ValueError(f"unknown city {city!r}; valid {sorted(known)}")
    return city


class DesignationStep(Strict):
    """Cities set aside at one year of the timeline."""

    year: float = Field(
        description="Year on the timeline's own scale.",
        json_schema_extra=setting(_GIVEN_TIME, unit="years"),
    )
    cities: tuple[Annotated[str, AfterValidator(_designable)], ...] = Field(
        min_length=1, description="City ids designated then: of the six, or of `added_cities`."
    )
    source: str = Field("", description="Where the text says so.")


#: The provenance of an added city's position.
_ADDED_PLACE = setting(
    "where the scenario places a city to come (Deuteronomy 19:8-9 names none): its `source` "
    "says why there",
    unit="degrees",
)


class AddedCitySpec(Strict):
    """A city of refuge beyond the six, "when the LORD enlarges your border" (Deuteronomy
    19:8-9; Rambam, Rotzeach 8:4): it protects from the designation step that names it."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$", description="A new city id (not one of six).")
    name: str = Field(min_length=1, description="Its name on maps and in results.")
    lon: float = Field(
        ge=_LEFT,
        le=_RIGHT,
        description="Longitude, WGS84 degrees.",
        json_schema_extra=_ADDED_PLACE,
    )
    lat: float = Field(
        ge=_BOTTOM,
        le=_TOP,
        description="Latitude, WGS84 degrees.",
        json_schema_extra=_ADDED_PLACE,
    )
    source: str = Field(
        THREE_MORE_SOURCE, description="Where its placement comes from (text or analysis)."
    )

    def added_city(self) -> AddedCity:
        """As `geo.AddedCity` (the ``added_cities`` of `geo.load_network`)."""
        return AddedCity(self.id, self.name, self.lon, self.lat, self.source)


class NetworkOptions(Strict):
    """The opinions the geography is built on (passed to `geo.load_network`)."""

    candidates: Annotated[
        str | dict[str, str],
        _preset_or(
            Literal["best"], dict[CityId, Annotated[str, AfterValidator(_known_site)]], "sites"
        ),
    ] = Field("best", description="`best`, or a mapping city id -> candidate site id.")
    cubit: Annotated[str | float, _preset_or(CubitPreset, float, "metres")] = Field(
        DISPUTES["network.cubit"].default,
        description="The cubit: a preset name or metres (0.3-0.8).",
        json_schema_extra=sourced(DISPUTES["network.cubit"].citation, unit="m or preset"),
    )
    techum: TechumMode = Field(
        DISPUTES["network.techum"].default,
        description="Shape of the Sabbath boundary (Mishnah Eruvin 5:1).",
    )
    techum_cubits: Annotated[str | float, _preset_or(TechumPreset, float, "cubits")] = Field(
        DISPUTES["network.techum_cubits"].default,
        description="Breadth of the protecting boundary: a preset or cubits.",
        json_schema_extra=sourced(
            DISPUTES["network.techum_cubits"].citation, unit="cubits or preset"
        ),
    )
    bough_opinion: BoughOpinion = Field(
        DISPUTES["network.bough_opinion"].default,
        description="Reading of the bough rule (Mishnah Makkot 2:7; Makkot 12a-b).",
    )
    designation: Annotated[
        str | tuple[DesignationStep, ...],
        _preset_or(
            Literal["all_six", "moses_then_joshua"],
            Annotated[tuple[DesignationStep, ...], Field(min_length=1)],
            "steps",
        ),
    ] = Field(
        "all_six",
        description="`all_six` (from the start), `moses_then_joshua` (east at year 0, west at "
        "year 14), or a list of steps in year order.",
    )
    refuges: RefugeReading = Field(
        DISPUTES["network.refuges"].default,
        description="Which cities receive: the six, or all 48 Levitical cities (the 42 only "
        "one who enters intending refuge; Makkot 10a, Abaye; Rambam, Rotzeach 8:9-10).",
    )
    roads_period: RoadsPeriod = Field(
        DISPUTES["network.roads_period"].default,
        description="Which roads count: all, iron_age or hellenistic_roman (data/ROADS.md).",
    )
    signposts: bool = Field(
        True,
        description="Whether the signs reading 'miklat' (refuge) stand at the crossroads "
        "(Makkot 10b, R. Eliezer ben Yaakov; Rambam, Rotzeach 8:5): where they do, every "
        "manslayer takes the shortest way (`fugitive.knows_way_p` matters only without them).",
    )
    added_cities: tuple[AddedCitySpec, ...] = Field(
        (),
        description="Cities of refuge beyond the six (Deuteronomy 19:8-9), designated by a "
        "step of `designation` that names them.",
    )

    @field_validator("cubit")
    @classmethod
    def _cubit_in_metres(cls, value: str | float) -> str | float:
        if isinstance(value, float) and not 0.3 <= value <= 0.8:
            raise ValueError(f"a cubit in metres lies between 0.3 and 0.8; got {value}")
        return value

    @field_validator("techum_cubits")
    @classmethod
    def _breadth_in_cubits(cls, value: str | float) -> str | float:
        if isinstance(value, float) and not 100.0 <= value <= 10_000.0:
            raise ValueError(f"a breadth in cubits lies between 100 and 10000; got {value}")
        return value

    @field_validator("designation")
    @classmethod
    def _in_year_order(cls, value: Any) -> Any:
        if isinstance(value, tuple):
            years = [step.year for step in value]
            for i in range(1, len(years)):
                if years[i] < years[i - 1]:
                    raise ValueError(
                        f"steps must be in year order: step {i} (year {years[i]}) "
                        f"comes after year {years[i - 1]}"
                    )
        return value

    @model_validator(mode="wrap")
    @classmethod
    def _steps_may_name_added_cities(cls, data: Any, handler: Any) -> Any:
        raw = json.loads(data) if isinstance(data, str | bytes) else data
        added = raw.get("added_cities", ()) if isinstance(raw, dict) else ()
        ids = frozenset(str(c.get("id")) for c in added if isinstance(c, dict))
        token = _ADDED_IDS.set(ids | {c.id for c in added if isinstance(c, AddedCitySpec)})
        try:
            return handler(data)
        finally:
            _ADDED_IDS.reset(token)

    @model_validator(mode="after")
    def _added_cities_designated(self) -> NetworkOptions:
        added = [city.id for city in self.added_cities]
        clash = sorted(set(added) & ALL_SIX) or sorted({c for c in added if added.count(c) > 1})
        if clash:
            raise ValueError(f"added_cities: ids must be new and distinct; got {clash[0]!r}")
        steps = self.designation if isinstance(self.designation, tuple) else ()
        named = {city for step in steps for city in step.cities}
        unnamed = [city for city in added if city not in named]
        if unnamed:
            raise ValueError(
                f"added_cities: {unnamed[0]!r} is designated by no step of `designation` "
                "(Deuteronomy 19:9: they are added by a designation)"
            )
        return self

    @model_validator(mode="after")
    def _sites_of_their_city(self) -> NetworkOptions:
        for city, site in (self.candidates if isinstance(self.candidates, dict) else {}).items():
            if site not in candidate_sites()[city]:
                raise ValueError(
                    f"candidates.{city}: {site!r} is not a candidate of {city}; "
                    f"valid {list(candidate_sites()[city])}"
                )
        return self

    def load_kwargs(self) -> dict[str, Any]:
        """These options as keyword arguments of `geo.load_network`."""
        designated: Any
        if isinstance(self.designation, tuple):
            designated = [
                {"t": s.year, "cities": s.cities, "source": s.source} for s in self.designation
            ]
        else:
            designated = {"all_six": ALL_SIX, "moses_then_joshua": MOSES_THEN_JOSHUA}[
                self.designation
            ]
        return {
            "cubit_m": self.cubit,
            "techum": self.techum,
            "techum_cubits": self.techum_cubits,
            "candidates": self.candidates,
            "designated": designated,
            "bough_opinion": self.bough_opinion,
            "refuges": self.refuges,
            "roads_period": self.roads_period,
            "added_cities": tuple(city.added_city() for city in self.added_cities),
        }


# --------------------------------------------------------------------------- scenario


class Output(Strict):
    """What the run records."""

    record_every_steps: int = Field(
        1,
        ge=1,
        description="Record trajectories every this many steps (and at every event).",
        json_schema_extra=setting("how much of the way the trajectories keep", unit="steps"),
    )


class Scenario(Strict):
    """A flight-and-pursuit scenario: the network's opinions, the incidents, the agents, time.

    The engine's clock counts seconds from `start`; `year` says where on the designation
    timeline (in years) the incidents happen, so whether any city protects is decided per
    incident (Mishnah Makkot 2:4).
    """

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$", description="Short id, used in run ids.")
    description: str = Field("", description="What the scenario teaches or tests.")
    seed: int = Field(
        0,
        ge=0,
        le=MAX_SEED,
        description="Root seed of all random draws (0 to 2**63 - 1).",
        json_schema_extra=setting("the root of every random stream", unit="-"),
    )
    replications: int = Field(
        REPLICATIONS,
        ge=1,
        le=100_000,
        description="Runs of the scenario, their seeds spawned from `seed`; results give each "
        "outcome's mean and 95% interval across them.",
        json_schema_extra=setting(
            "enough runs for the headline outcomes to be stable (data/scenarios/README.md)",
            unit="runs",
        ),
    )
    start: datetime = Field(
        DEFAULT_START,
        description="Nominal tz-naive date and time of the clock's zero (1678-2261; the "
        "calendar is nominal, not historical).",
    )
    year: float = Field(
        20.0,
        description="Year on the designation timeline at which the incidents happen.",
        json_schema_extra=setting(_GIVEN_TIME, unit="years"),
    )
    dt_s: float = Field(
        60.0,
        gt=0.0,
        le=3600.0,
        description="Time step, seconds.",
        json_schema_extra=setting("the resolution of the flight's clock", unit="s"),
    )
    horizon_h: float = Field(
        120.0,
        gt=0.0,
        le=720.0,
        description="How long the flight is followed, hours.",
        json_schema_extra=setting("long enough for the flights to end", unit="h"),
    )
    network: NetworkOptions = Field(
        default_factory=NetworkOptions,
        description="The opinions the geography is built on (cubit, techum, boughs, roads).",
    )
    generate: GeneratedIncidents | None = Field(
        None, description="Draw the incidents (instead of listing them in `incidents`)."
    )
    incidents: tuple[Incident, ...] = Field(
        (), description="The incidents, given explicitly (or use `generate`)."
    )
    fugitive: Fugitive = Field(
        default_factory=Fugitive, description="The manslayer: his speeds and his way."
    )
    avenger: Avenger = Field(
        default_factory=Avenger, description="The blood avenger: his delay, speeds and resolve."
    )
    escorts: Escorts = Field(
        default_factory=Escorts, description="The two disciples who walk with the manslayer."
    )
    output: Output = Field(default_factory=Output, description="What the run records.")
    exile: ExileOptions | None = Field(
        None,
        description="Simulation II: trial, the years in the city, the high priest, release "
        "(absent: the run ends with the flight).",
    )
    cities: CityConditions = Field(
        default_factory=CityConditions,
        description="What a city must be to receive: not full of manslayers (Makkot 10b, "
        "R. Elazar), with elders (Rambam, Rotzeach 7:6).",
    )

    @field_validator("start")
    @classmethod
    def _in_pandas_range(cls, value: datetime) -> datetime:
        if value.tzinfo is not None or not 1678 <= value.year <= 2261:
            raise ValueError(f"must be a tz-naive date between 1678 and 2261; got {value}")
        return value

    @field_validator("horizon_h")
    @classmethod
    def _longer_than_a_step(cls, value: float, info: ValidationInfo) -> float:
        dt_s = info.data.get("dt_s")
        if dt_s is not None and value * 3600.0 < dt_s:
            raise ValueError(f"the horizon ({value} h) is shorter than the time step ({dt_s} s)")
        return value

    @field_validator("incidents")
    @classmethod
    def _some_incidents(cls, value: tuple[Incident, ...], info: ValidationInfo) -> Any:
        generate = info.data.get("generate")
        if generate is None and not value:
            raise ValueError("no incidents: list some under `incidents`, or `generate` them")
        if generate is not None and value:
            raise ValueError("give either `incidents` or `generate`, not both")
        return value

    @field_validator("cities")
    @classmethod
    def _cities_of_the_network(cls, value: CityConditions, info: ValidationInfo) -> Any:
        network: NetworkOptions | None = info.data.get("network")
        if network is not None:
            known = {*ALL_SIX, *(city.id for city in network.added_cities)}
            if network.refuges == "levitical":
                known |= _levitical_ids()
            unknown = value.unknown(known)
            if unknown is not None:
                raise ValueError(f"by_city: {unknown!r} is not a city of the network")
        return value

    @field_validator("exile")
    @classmethod
    def _within_the_clock(cls, value: ExileOptions | None, info: ValidationInfo) -> Any:
        start, horizon_h = info.data.get("start"), info.data.get("horizon_h")
        if value is not None and start is not None and horizon_h is not None:
            check_calendar(start, horizon_h, value)
        return value

    def __hash__(self) -> int:
        return hash(self.model_dump_json())

    @property
    def key(self) -> str:
        """A short stable hash of the whole scenario (its JSON)."""
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:8]


@cache
def _levitical_ids() -> frozenset[str]:
    """The ids of the shipped Levitical cities (`network.refuges: levitical`)."""
    return frozenset(read_levitical(default_data_dir() / LEVITICAL_FILE).index)


def run_incidents(scenario: Scenario) -> int:
    """A run's incidents: those it generates, or those it lists."""
    return scenario.generate.n if scenario.generate is not None else len(scenario.incidents)


def run_steps(scenario: Scenario) -> int:
    """A run's time steps over its horizon (the last one partial)."""
    return math.ceil(scenario.horizon_h * 3600.0 / scenario.dt_s)


def run_agent_steps(scenario: Scenario) -> int:
    """A run's agent-steps if every incident lasted the horizon: its manslayers and avengers
    (one each per incident) times the steps."""
    return 2 * run_incidents(scenario) * run_steps(scenario)


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file (YAML, or JSON by its suffix).

    Parameters
    ----------
    path
        The scenario file (``.yaml``/``.yml`` or ``.json``).

    Returns
    -------
    Scenario
        The validated scenario.

    Raises
    ------
    RefugeError
        The file is missing or unreadable, or invalid: the message names the file and, for
        every problem found, the field path and the value.
    """
    return load_model(Scenario, path)


def scenario_schema() -> dict[str, Any]:
    """The JSON Schema of scenario files.

    Returns
    -------
    dict
        The schema (JSON Schema 2020-12, as pydantic writes it): each field's description,
        and a number's unit and provenance.
    """
    return Scenario.model_json_schema()
