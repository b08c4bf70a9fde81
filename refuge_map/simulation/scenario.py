"""Scenario files: the pydantic models of a flight-and-pursuit simulation, with units and checks.

Every quantity carries its unit in its field name (``_kmh``, ``_h``, ``_s``, ``_m``, ``_km``) and
is checked against a plausible range, so a value given in the wrong unit (metres per second for
km/h, minutes for hours) fails with the field path and the value instead of running nonsense.
"""

from __future__ import annotations

import hashlib
import math
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)

from geo import ALL_SIX, MOSES_THEN_JOSHUA
from geo.crs import REGION_BOUNDS_LONLAT
from geo.gazetteer import candidate_sites, named_places
from refuge_map._loading import load_model
from refuge_map.opinions import DISPUTES
from refuge_map.simulation.scenario_exile import ExileOptions, check_calendar

#: Mirrors `geo.CITY_IDS` (tests/test_scenario.py checks they agree); the opinions' choices come
#: from the registry (`refuge_map.opinions.DISPUTES`).
CityId = Literal["kedesh", "shechem", "hebron", "bezer", "ramoth_gilead", "golan"]

#: The choices of each dispute, from the registry (`refuge_map.opinions.DISPUTES`).
CubitPreset = DISPUTES["network.cubit"].literal
TechumMode = DISPUTES["network.techum"].literal
TechumPreset = DISPUTES["network.techum_cubits"].literal
BoughOpinion = DISPUTES["network.bough_opinion"].literal

#: The nominal calendar: the engine's clock starts here. The date is not a historical claim;
#: pandas datetimes cannot go before 1677, so the flight is dated in a nominal year.
DEFAULT_START = datetime(1800, 1, 1, 6, 0)
_LEFT, _BOTTOM, _RIGHT, _TOP = REGION_BOUNDS_LONLAT
#: The largest root seed: what the int64 seed columns of runs and sweeps hold.
MAX_SEED = 2**63 - 1


class _Strict(BaseModel):
    # NaN and infinity are no number a scenario may hold (an input file is refused naming them)
    model_config = ConfigDict(
        extra="forbid", frozen=True, validate_default=True, allow_inf_nan=False
    )


# --------------------------------------------------------------------------- distributions


class _Fixed(_Strict):
    """Every agent draws the same value."""

    dist: Literal["fixed"] = Field(description="Distribution kind.")
    value: float

    def sample(self, rng: np.random.Generator, n: int) -> NDArray[np.float64]:
        """`n` draws (no randomness is consumed)."""
        return np.full(n, self.value)


class _Uniform(_Strict):
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


class _LogNormal(_Strict):
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


def distribution(name: str, unit: str, *, low: float, high: float, open_low: bool) -> Any:
    """A `{dist: fixed|uniform|lognormal, ...}` field type for one quantity and its unit range.

    Values outside ``(low, high]`` (or ``[low, high]`` if not `open_low`) fail validation.
    """
    bound = {"gt" if open_low else "ge": low, "le": high}
    number = Annotated[float, Field(**bound, description=f"In {unit}.")]  # type: ignore[call-overload]
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
    return Annotated[variants[0] | variants[1] | variants[2], Field(discriminator="dist")]


SpeedKmh = distribution("SpeedKmh", "km/h", low=0.0, high=40.0, open_low=True)
DelayH = distribution("DelayH", "hours", low=0.0, high=720.0, open_low=False)
DistanceKm = distribution("DistanceKm", "km", low=0.0, high=100.0, open_low=False)


# --------------------------------------------------------------------------- places


def _known_place(name: str) -> str:
    if name not in named_places():
        known = ", ".join(sorted(named_places()))
        raise ValueError(f"unknown place; known names: {known}")
    return name


class Place(_Strict):
    """A place: a name (a city id, ``dan``, ``beersheba``, ``jerusalem`` or a road waypoint),
    ``[lon, lat]``, or ``{lon: .., lat: ..}`` in WGS84 degrees."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        validate_default=True,
        allow_inf_nan=False,
        json_schema_extra={"description": "A named place, [lon, lat], or {lon, lat} (degrees)."},
    )

    name: Annotated[str, AfterValidator(_known_place)] | None = Field(
        None, description="A city id, a reference point or a road waypoint id."
    )
    lon: float | None = Field(
        None, ge=_LEFT, le=_RIGHT, description="Longitude, WGS84 degrees, within the region."
    )
    lat: float | None = Field(
        None, ge=_BOTTOM, le=_TOP, description="Latitude, WGS84 degrees, within the region."
    )

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


class Tree(_Strict):
    """A tree by the road whose boughs may reach across a zone boundary (Mishnah Makkot 2:7)."""

    trunk: Place = Field(description="Where the trunk stands (snapped onto the nearest road).")
    bough: Place = Field(description="Where the boughs he climbs into hang.")
    at_trunk: bool = Field(
        False, description="He stands at the trunk instead of climbing into the boughs."
    )


# --------------------------------------------------------------------------- incidents


class Incident(_Strict):
    """One killing in error, given explicitly."""

    place: Place = Field(description="Where the killing happened; the manslayer flees from here.")
    time_h: float = Field(
        0.0, ge=0.0, le=720.0, description="Hours after the nominal start when it happened."
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
        None, description="Year on the designation timeline (default: the scenario's `year`)."
    )
    tree: Tree | None = Field(
        None, description="The manslayer runs to this tree and climbs it instead of to a city."
    )


class GeneratedIncidents(_Strict):
    """N incidents drawn over the land.

    ``along_roads``: a point uniform along the road network (by length), moved by a normal
    offset of `offroad_sigma_km` in each direction; people live and work by the roads.
    ``uniform_land``: uniform over the land (either side of the Jordan) within the extent of the
    road network grown by 10 km. Homes lie at a distance drawn from `home_distance_km` in a
    uniform direction. Incident times are uniform over ``[0, time_spread_h]``.
    """

    n: int = Field(ge=1, le=1_000_000, description="Number of incidents.")
    where: Literal["along_roads", "uniform_land"] = Field(
        "along_roads", description="Spatial distribution of the places (see the model's doc)."
    )
    offroad_sigma_km: float = Field(
        2.0, ge=0.0, le=50.0, description="Off-road spread for `along_roads`, km."
    )
    home_distance_km: DistanceKm = Field(  # type: ignore[valid-type]
        default_factory=lambda: {"dist": "uniform", "low": 0.0, "high": 10.0},
        description="Distance from the place to the kin's and the killer's homes, km.",
    )
    time_spread_h: float = Field(
        0.0, ge=0.0, le=720.0, description="Incident times are uniform over [0, this], hours."
    )


# --------------------------------------------------------------------------- agents


class Fugitive(_Strict):
    """The manslayer: he flees at once by the fastest way to the nearest city that protects
    (Numbers 35:11-12; the assembly judges later, Numbers 35:24)."""

    speed_road_kmh: SpeedKmh = Field(  # type: ignore[valid-type]
        default_factory=lambda: {"dist": "lognormal", "median": 6.0, "sigma": 0.15},
        description="Speed on the prepared roads (Deut 19:3), km/h.",
    )
    speed_offroad_kmh: SpeedKmh = Field(  # type: ignore[valid-type]
        default_factory=lambda: {"dist": "lognormal", "median": 4.0, "sigma": 0.2},
        description="Speed across country to the nearest road, km/h.",
    )


class Avenger(_Strict):
    """The blood avenger, "while his heart is hot" (Deut 19:6)."""

    start: Place | None = Field(
        None, description="Where every avenger starts (default: each incident's kin home)."
    )
    delay_h: DelayH = Field(  # type: ignore[valid-type]
        default_factory=lambda: {"dist": "lognormal", "median": 2.0, "sigma": 0.5},
        description="Hours from the killing until he learns of it and sets out.",
    )
    speed_road_kmh: SpeedKmh = Field(  # type: ignore[valid-type]
        default_factory=lambda: {"dist": "lognormal", "median": 7.0, "sigma": 0.15},
        description="Speed on the roads, km/h.",
    )
    speed_offroad_kmh: SpeedKmh = Field(  # type: ignore[valid-type]
        default_factory=lambda: {"dist": "lognormal", "median": 5.0, "sigma": 0.2},
        description="Speed across country to the nearest road, km/h.",
    )
    strategy: Literal["chase", "intercept"] = Field(
        "chase",
        description="`chase`: follow the fugitive by the roads to where he is now; "
        "`intercept`: go by the shortest road to the gate of the city he is heading for, "
        "then down the road towards him.",
    )
    capture_m: float = Field(
        20.0, gt=0.0, le=500.0, description="He kills a fugitive within this distance, metres."
    )


class Escorts(_Strict):
    """Two disciples of the Sages go with him to speak to the avenger (Mishnah Makkot 2:5)."""

    enabled: bool = Field(False, description="Whether the court gives him the two escorts.")
    persuade_p: float = Field(
        0.5, ge=0.0, le=1.0, description="Chance that they persuade the avenger to desist."
    )


# --------------------------------------------------------------------------- network


def _known_site(site: str) -> str:
    if not any(site in sites for sites in candidate_sites().values()):
        known = sorted(site for sites in candidate_sites().values() for site in sites)
        raise ValueError(f"unknown candidate site; known: {', '.join(known)}")
    return site


def _preset_or(preset: Any, other: Any, other_tag: str) -> Any:
    """A field that takes a preset name (a string) or another form, told apart by type, so
    that an error names the form the file used: ``network.cubit.metres``."""
    return Annotated[
        Annotated[preset, Tag("preset")] | Annotated[other, Tag(other_tag)],
        Discriminator(lambda value: "preset" if isinstance(value, str) else other_tag),
    ]


class DesignationStep(_Strict):
    """Cities set aside at one year of the timeline."""

    year: float = Field(description="Year on the timeline's own scale.")
    cities: tuple[CityId, ...] = Field(min_length=1, description="City ids designated then.")
    source: str = Field("", description="Where the text says so.")


class NetworkOptions(_Strict):
    """The opinions the geography is built on (passed to `geo.load_network`)."""

    candidates: _preset_or(  # type: ignore[valid-type]
        Literal["best"], dict[CityId, Annotated[str, AfterValidator(_known_site)]], "sites"
    ) = Field("best", description="`best`, or a mapping city id -> candidate site id.")
    cubit: _preset_or(  # type: ignore[valid-type]
        CubitPreset, float, "metres"
    ) = Field(
        DISPUTES["network.cubit"].default,
        description="The cubit: a preset name or metres (0.3-0.8).",
    )
    techum: TechumMode = Field(
        DISPUTES["network.techum"].default,
        description="Shape of the Sabbath boundary (Mishnah Eruvin 5:1).",
    )
    techum_cubits: _preset_or(  # type: ignore[valid-type]
        TechumPreset, float, "cubits"
    ) = Field(
        DISPUTES["network.techum_cubits"].default,
        description="Breadth of the protecting boundary: a preset or cubits.",
    )
    bough_opinion: BoughOpinion = Field(
        DISPUTES["network.bough_opinion"].default,
        description="Reading of the bough rule (Mishnah Makkot 2:7; Makkot 12a-b).",
    )
    designation: _preset_or(  # type: ignore[valid-type]
        Literal["all_six", "moses_then_joshua"],
        Annotated[tuple[DesignationStep, ...], Field(min_length=1)],
        "steps",
    ) = Field(
        "all_six",
        description="`all_six` (from the start), `moses_then_joshua` (east at year 0, west at "
        "year 14), or a list of steps in year order.",
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
        if self.designation == "all_six":
            designated = ALL_SIX
        elif self.designation == "moses_then_joshua":
            designated = MOSES_THEN_JOSHUA
        else:
            designated = [
                {"t": s.year, "cities": s.cities, "source": s.source} for s in self.designation
            ]
        return {
            "cubit_m": self.cubit,
            "techum": self.techum,
            "techum_cubits": self.techum_cubits,
            "candidates": self.candidates,
            "designated": designated,
            "bough_opinion": self.bough_opinion,
        }


# --------------------------------------------------------------------------- scenario


class Output(_Strict):
    """What the run records."""

    record_every_steps: int = Field(
        1, ge=1, description="Record trajectories every this many steps (and at every event)."
    )


class Scenario(_Strict):
    """A flight-and-pursuit scenario: the network's opinions, the incidents, the agents, time.

    The engine's clock counts seconds from `start`; `year` says where on the designation
    timeline (in years) the incidents happen, so whether any city protects is decided per
    incident (Mishnah Makkot 2:4).
    """

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$", description="Short id, used in run ids.")
    description: str = Field("", description="What the scenario teaches or tests.")
    seed: int = Field(
        0, ge=0, le=MAX_SEED, description="Root seed of all random draws (0 to 2**63 - 1)."
    )
    replications: int = Field(
        1, ge=1, le=100_000, description="Runs of `simulate_replications`, seeds spawned."
    )
    start: datetime = Field(
        DEFAULT_START,
        description="Nominal tz-naive date and time of the clock's zero (1678-2261; the "
        "calendar is nominal, not historical).",
    )
    year: float = Field(
        20.0, description="Year on the designation timeline at which the incidents happen."
    )
    dt_s: float = Field(60.0, gt=0.0, le=3600.0, description="Time step, seconds.")
    horizon_h: float = Field(
        48.0, gt=0.0, le=720.0, description="How long the flight is followed, hours."
    )
    network: NetworkOptions = Field(default_factory=NetworkOptions)  # type: ignore[arg-type]
    generate: GeneratedIncidents | None = Field(
        None, description="Draw the incidents (instead of listing them in `incidents`)."
    )
    incidents: tuple[Incident, ...] = Field(
        (), description="The incidents, given explicitly (or use `generate`)."
    )
    fugitive: Fugitive = Field(default_factory=Fugitive)  # type: ignore[arg-type]
    avenger: Avenger = Field(default_factory=Avenger)  # type: ignore[arg-type]
    escorts: Escorts = Field(default_factory=Escorts)  # type: ignore[arg-type]
    output: Output = Field(default_factory=Output)  # type: ignore[arg-type]
    exile: ExileOptions | None = Field(
        None,
        description="Simulation II: trial, the years in the city, the high priest, release "
        "(absent: the run ends with the flight).",
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
            raise ValueError("the incident list is empty (value: []); list some or `generate`")
        if generate is not None and value:
            raise ValueError("give either `incidents` or `generate`, not both")
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


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file (YAML, or JSON by its suffix).

    Raises
    ------
    RefugeError
        One line naming the file, the field path and the value of the first problem.
    """
    return load_model(Scenario, path)


def scenario_schema() -> dict[str, Any]:
    """The JSON Schema of scenario files."""
    return Scenario.model_json_schema()
