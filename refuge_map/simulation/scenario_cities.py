"""Scenario files, part III: the `cities:` section (what a city of refuge must be to receive).

Makkot 10a; Rambam, Rotzeach 7:6 and 8:8: the cities are middling towns with water and markets;
a city whose majority are manslayers takes no more (Makkot 10b, R. Elazar), and a city with no
elders does not receive (Rambam, Rotzeach 7:6; disputed in Makkot 10b, so `no_elders` is a
registered choice). The defaults change nothing for a run of a few thousand incidents: every
city has elders and room.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, TypeAlias

from pydantic import Field, model_validator

from refuge_map._strict import Strict
from refuge_map.opinions import DISPUTES
from refuge_map.simulation.provenance import assumed, setting

#: The choices of `cities.no_elders`, from the registry: pydantic checks the word against them.
NoEldersOpinion: TypeAlias = Annotated[str, DISPUTES["cities.no_elders"].choice]

#: A middling town (Makkot 10a: "neither small towns nor large cities, but middling towns").
MIDDLING_TOWN = (
    "Makkot 10a: neither small towns nor large cities but middling towns; no source gives a "
    "number. Assumption: a walled town of a few hectares at some 200-300 people a hectare "
    "(an estimate common in the archaeological literature, unverified here)"
)
POPULATION_PROVENANCE = assumed(MIDDLING_TOWN, unit="people", low=300.0, high=5000.0)
RESIDENTS_PROVENANCE = setting(
    "manslayers already living there when the run starts: where the scenario asks its "
    "question (no source gives a number)",
    unit="manslayers",
)


class CityCondition(Strict):
    """One city's conditions; a field left out takes the section's value."""

    population: float | None = Field(
        None,
        ge=0.0,
        le=100_000.0,
        description="Inhabitants beside the manslayers.",
        json_schema_extra=POPULATION_PROVENANCE,
    )
    resident_manslayers: int | None = Field(
        None,
        ge=0,
        le=100_000,
        description="Manslayers living there when the run starts.",
        json_schema_extra=RESIDENTS_PROVENANCE,
    )
    elders: bool = Field(
        True,
        description="Whether the city has elders (one with none does not receive under "
        "`no_elders: not_received`, Rambam, Rotzeach 7:6).",
    )


class CityConditions(Strict):
    """What each city must be to receive a manslayer (Makkot 10a-10b; Rambam, Rotzeach 7:6).

    A city takes a manslayer in while the manslayers in it are no majority: with `population`
    inhabitants beside them and ``m`` manslayers it receives while ``m <= population`` and turns
    the next away once ``m > population`` (Makkot 10b, R. Elazar). Arrivals of the run count
    from `resident_manslayers` up; the one turned away makes for the nearest city that would
    receive him.
    """

    population: float = Field(
        1500.0,
        ge=0.0,
        le=100_000.0,
        description="Inhabitants of each city beside the manslayers (see `by_city`).",
        json_schema_extra=POPULATION_PROVENANCE,
    )
    resident_manslayers: int = Field(
        0,
        ge=0,
        le=100_000,
        description="Manslayers living in each city when the run starts (see `by_city`).",
        json_schema_extra=RESIDENTS_PROVENANCE,
    )
    no_elders: NoEldersOpinion = Field(
        DISPUTES["cities.no_elders"].default,
        description="Makkot 10b: whether a city with no elders receives (Rambam, Rotzeach 7:6: "
        "not_received).",
    )
    by_city: dict[str, CityCondition] = Field(
        default_factory=dict,
        description="A city id -> its own population, resident manslayers and elders.",
    )

    @model_validator(mode="after")
    def _ids(self) -> CityConditions:
        bad = [city for city in self.by_city if not city.replace("_", "").isalnum()]
        if bad:
            raise ValueError(f"by_city: {bad[0]!r} is not a city id")
        return self

    def unknown(self, cities: Iterable[str]) -> str | None:
        """The first city of `by_city` that is not among `cities` (the network's), or None."""
        return next((city for city in sorted(self.by_city) if city not in set(cities)), None)

    def of(self, city: str) -> tuple[float, int, bool]:
        """Population, resident manslayers and elders of `city`."""
        own = self.by_city.get(city, CityCondition())
        population = self.population if own.population is None else own.population
        residents = (
            self.resident_manslayers if own.resident_manslayers is None else own.resident_manslayers
        )
        return population, residents, own.elders
