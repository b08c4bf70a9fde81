"""The legal rules the exile phase applies, each named and cited, in one place.

Every rule here reads an opinion (where the Sages disagree, `refuge_map.opinions`) or the
facts of a ruling of `refuge_map.law`, and answers for all manslayers at once; the phase's
other modules call these rules and never write one inline.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from geo.arrays import Bools, Floats, Ints
from refuge_map.law import Case, Ruling, judge
from refuge_map.opinions import DISPUTES
from refuge_map.simulation.priesthood import YEAR_S
from refuge_map.simulation.scenario_exile import Boundary, ExileOptions

#: Why an exile never leaves when no high priest is in office at his verdict (Mishnah Makkot
#: 2:7: "if there is no high priest ... he never leaves"); a reason of `LIFE_REASONS`.
NO_HIGH_PRIEST = "no high priest in office at the verdict"


def holds(path: str, opinion: str) -> str:
    """What `opinion` holds in the dispute at scenario `path` (`refuge_map.opinions.DISPUTES`)."""
    return DISPUTES[path].holds[opinion]


def life_reason(reason: NDArray[Any], release_y: Floats) -> NDArray[Any]:
    """Mishnah Makkot 2:7: no high priest in office at the verdict, and he never leaves
    (a reason already given, from the ruling, stands)."""
    return np.where((reason == "") & ~np.isfinite(release_y), NO_HIGH_PRIEST, reason)


def spared(release_y: Floats, back_s: Floats) -> Bools:
    """Mishnah Makkot 2:6: the verdict was given and the high priest died before he went back
    into exile: he is not exiled (`release_y` in years, `back_s` in seconds of the clock)."""
    return release_y * YEAR_S < back_s


#: The rule text of one spared by the high priest's death after his verdict (Mishnah Makkot 2:6).
SPARED_RULE = "the high priest died after the verdict, before he went into exile: he is not exiled"


def avenger_kills_outside(found: Floats, option: Floats, boundary: Boundary) -> Bools:
    """Mishnah Makkot 2:7: the avenger who finds him outside the boundary kills him; under
    R. Yose the Galilean it is his duty, under R. Akiva his option, taken at
    ``option_taken_p`` (`found`, `option`: uniform draws)."""
    takes = found < boundary.avenger_finds_p
    if boundary.opinion == "akiva":  # an option, not a duty: he may let him be
        takes &= option < boundary.option_taken_p
    return takes


def war_priest_releases(options: ExileOptions) -> bool:
    """Mishnah Makkot 2:6: under R. Judah the death of the priest anointed for war releases
    him too; under the first Tanna it does not."""
    return options.priesthood.war_priest == "judah"


def office_restored(office: Bools, released: Bools, options: ExileOptions) -> Bools:
    """Mishnah Makkot 2:8: one released returns to the office he held under R. Meir, not
    under R. Judah."""
    return office & released & (options.office == "meir")


def pays_rent(options: ExileOptions, levitical: Bools) -> Bools:
    """Rent to the Levites: in the 42 Levitical cities he pays it (Rambam, Rotzeach 8:10); in
    the six, under R. Judah he pays and under R. Meir not (Mishnah Makkot 2:8). `levitical`:
    whether each stay is in one of the 42."""
    return levitical | (options.rent == "judah")


#: The rule of rent in one of the 42 (Rambam, Rotzeach 8:10), beside the dispute for the six.
LEVITICAL_RENT = "in the other Levitical cities he pays rent to the Levites (Rambam, Rotzeach 8:10)"


def room_in_city(residents: NDArray[np.int64] | int, population: Floats | float) -> Any:
    """Makkot 10b (R. Elazar; Rambam, Rotzeach 7:6): a city whose majority are manslayers takes
    no more. With `population` inhabitants beside them it receives while its manslayers are no
    majority (``residents <= population``): how many more it takes (0 when full)."""
    return np.maximum(np.floor(np.asarray(population) - residents) + 1, 0).astype(np.int64)


#: The rule of a city with no elders (Makkot 10b, R. Ami and R. Asi; Rambam, Rotzeach 7:6).
NO_ELDERS_RULE = "a city with no elders in it does not receive him: he goes on to the next"
NO_ELDERS_CITATION = "Makkot 10b; Rambam, Rotzeach 7:6"


def can_be_levite(case: Case) -> bool:
    """Only an Israelite, not a high priest, may be drawn a Levite (Mishnah Makkot 2:7)."""
    return not case.killer.high_priest and case.killer.status == "israelite"


def verdict_texts(rulings: list[Ruling], case: Ints) -> tuple[NDArray[Any], NDArray[Any]]:
    """The finding and the citation of the rule that decided each incident's verdict."""
    deciding = [next(s for s in r.trace if s.decides) for r in rulings]
    rule = np.array([f"{r.verdict}: {s.finding}" for r, s in zip(rulings, deciding, strict=True)])
    return rule[case], np.array([s.citation for s in deciding])[case]


def home_rule(rulings: list[Ruling], case: Ints) -> NDArray[Any]:
    """What the sources say of the avenger once one not exiled goes home (Rambam, Rotzeach 6
    of an enemy; nothing more of the others)."""
    texts = []
    for ruling in rulings:
        rule = next((s.rule for s in ruling.trace if s.decides), "")
        texts.append(
            "an enemy gets no refuge (close to deliberate): an avenger who kills him is not "
            "liable (Rambam, Rotzeach 6); not simulated"
            if rule == "enemy"
            else "not exiled: he goes home free; the sources read here say nothing more of the "
            "avenger"
        )
    return np.array(texts)[case]


class Place(NamedTuple):
    """Where one who kills again inside his city goes, and the rule that says so (2:7)."""

    within: str
    finding: str
    citation: str


def _again(case: Case, levite: bool) -> Case:
    """The same facts, the killing now inside the city of refuge, by a Levite or not."""
    data = case.model_dump()
    data["inside_city_of_refuge"] = True
    data["killer"]["levite"] = levite
    return Case.model_validate(data)


@lru_cache(maxsize=16)
def rulings_of(options: ExileOptions) -> tuple[Ruling, ...]:
    """The ruling on each of the scenario's cases under its opinions (`refuge_map.law.judge`),
    judged once per options however many replications live the exile."""
    return tuple(judge(choice.case, options.law) for choice in options.cases)


@lru_cache(maxsize=16)
def places_of_exile(options: ExileOptions) -> dict[tuple[int, bool], Place]:
    """Mishnah Makkot 2:7: each exile case judged again as a killing inside the city, by a
    Levite or not: banished to another neighbourhood, or a Levite to another city (judged once
    per options; the mapping is shared, read only)."""
    placed = {}
    for k, choice in enumerate(options.cases):
        for levite in (False, True) if can_be_levite(choice.case) else (choice.case.killer.levite,):
            ruling = judge(_again(choice.case, levite), options.law)
            if ruling.consequences is not None:  # only an exile lives in the city to kill again
                step = next(s for s in ruling.trace if s.rule == "place_of_exile")
                within = ruling.consequences.exile_within
                placed[(k, levite)] = Place(within, step.finding, step.citation)
    return placed
