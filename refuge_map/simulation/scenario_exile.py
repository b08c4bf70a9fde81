"""Scenario files, part II: the `exile:` section (trial, the city, the high priest, release)."""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal, TypeAlias

from pydantic import AfterValidator, Field, GetPydanticSchema, model_validator

from refuge_map._strict import Strict, validated_as
from refuge_map.errors import RefugeError
from refuge_map.law import Case, Opinions, judge
from refuge_map.law.casefiles import cases_dir, load_case_file
from refuge_map.opinions import DISPUTES
from refuge_map.simulation.priesthood import (
    DEFAULT_MORTALITY,
    YEAR_S,
    Gompertz,
    OfficeChain,
)
from refuge_map.simulation.provenance import assumed, setting, sourced

#: The choices of each dispute, from the registry (`refuge_map.opinions.DISPUTES`): a word that
#: pydantic checks against the dispute's choices (`Dispute.choice`).
BoundaryOpinion: TypeAlias = Annotated[str, DISPUTES["exile.boundary.opinion"].choice]
WarPriestOpinion: TypeAlias = Annotated[str, DISPUTES["exile.priesthood.war_priest"].choice]
OfficeOpinion: TypeAlias = Annotated[str, DISPUTES["exile.office"].choice]
RentOpinion: TypeAlias = Annotated[str, DISPUTES["exile.rent"].choice]


def span(unit: str, low: float, high: float) -> GetPydanticSchema:
    """A ``[low, high]`` field in `unit`: a value drawn uniformly between them (equal: fixed),
    as the metadata of ``Annotated[tuple[float, float], span(...)]`` (pydantic checks the
    range)."""

    def ordered(value: tuple[float, float]) -> tuple[float, float]:
        if not low <= value[0] <= value[1] <= high:
            raise ValueError(
                f"need {low} <= low <= high <= {high} ({unit}); got [{value[0]}, {value[1]}]"
            )
        return value

    return validated_as(
        Annotated[
            tuple[float, float],
            AfterValidator(ordered),
            Field(description=f"[low, high] in {unit}, drawn uniformly ({low}-{high})."),
        ]
    )


Days: TypeAlias = Annotated[tuple[float, float], span("days", 0.0, 3650.0)]
Ages: TypeAlias = Annotated[tuple[float, float], span("years of age", 0.0, 100.0)]
Probability = Annotated[float, Field(ge=0.0, le=1.0)]
#: A yearly chance of a repeatable act; below 1, so that its rate ``-ln(1 - p)`` is finite.
YearlyChance = Annotated[float, Field(ge=0.0, le=0.99)]


# --------------------------------------------------------------------------- cases


@lru_cache(maxsize=256)
def _shipped_case(name: str) -> Case:
    path = cases_dir() / (name if name.endswith(".yaml") else f"{name}.yaml")
    if not path.is_file():
        known = ", ".join(p.stem for p in sorted(cases_dir().glob("*.yaml")))
        raise ValueError(f"no shipped case {name!r}; known: {known}")
    try:
        return load_case_file(path)[0]
    except RefugeError as err:
        raise ValueError(f"case file {Path(path).name} is invalid: {err}") from None


class CaseChoice(Strict):
    """The facts of a killing: a shipped case file (``data/cases``) or inline facts, weighted."""

    file: str | None = Field(
        None, description="A shipped case, by file name or stem: `002_lowering_cask`."
    )
    facts: Case | None = Field(None, description="Inline case facts (`refuge judge --schema`).")
    weight: float = Field(
        1.0,
        gt=0.0,
        description="Relative weight when cases are drawn.",
        json_schema_extra=assumed(
            "how common such killings were; no source counts them", unit="-", low=0.5, high=50.0
        ),
    )

    @model_validator(mode="after")
    def _one_source(self) -> CaseChoice:
        if (self.file is None) == (self.facts is None):
            raise ValueError("give either `file` or `facts`")
        if self.file is not None:
            _shipped_case(self.file)
        return self

    @property
    def case(self) -> Case:
        """The facts."""
        return self.facts if self.facts is not None else _shipped_case(str(self.file))

    @property
    def label(self) -> str:
        """The case's name in results: the file stem, or ``inline:<act>``."""
        return Path(self.file).stem if self.file else f"inline:{self.case.act}"


# --------------------------------------------------------------------------- phases


class Trial(Strict):
    """The leg to the court of his town and back (Numbers 35:24-25; Mishnah Makkot 2:6)."""

    days_until_trial: Days = Field(
        (7.0, 60.0),
        description="Days from his arrival until the court's men fetch him (at least 0.1).",
        json_schema_extra=assumed(
            "the court of his town sends for him (Makkot 9b-10a); no source says when. Range of "
            "the middle of [low, high]",
            unit="days",
            low=3.0,
            high=180.0,
        ),
    )
    return_delay_days: Days = Field(
        (0.0, 0.0),
        description="Days from the verdict until the assembly sets out to restore him to his "
        "city (Numbers 35:25), on top of the walk.",
        json_schema_extra=assumed(
            "no source says how soon the assembly restores him; range of the middle",
            unit="days",
            low=0.0,
            high=30.0,
        ),
    )
    strike_per_100km: float = Field(
        0.5,
        ge=0.0,
        le=100.0,
        description="Attacks per 100 km walked outside asylum on the trial leg, by the flight's "
        "avenger while he still pursues (not one the escorts persuaded, nor one who gave up).",
        json_schema_extra=assumed(
            "the court's men guard him (Makkot 9b-10a); no source gives a rate",
            unit="1/100 km",
            low=0.0,
            high=2.0,
        ),
    )
    persuade_p: Probability = Field(
        0.5,
        description="Chance the escorts turn an attacking avenger back (Mishnah Makkot 2:5).",
        json_schema_extra=assumed(
            "Mishnah Makkot 2:5 says they speak to him, not how often he listens",
            unit="probability",
            low=0.1,
            high=0.9,
        ),
    )

    @model_validator(mode="after")
    def _fetched_later(self) -> Trial:
        if self.days_until_trial[0] < 0.1:
            raise ValueError(
                "days_until_trial: the court needs at least 0.1 day; "
                f"got {self.days_until_trial[0]}"
            )
        return self


class Boundary(Strict):
    """Leaving the city's Sabbath boundary (Numbers 35:26-27; Mishnah Makkot 2:7)."""

    leave_per_year: YearlyChance = Field(
        0.0,
        description="Yearly chance that he goes out beyond the boundary (the law forbids it).",
        json_schema_extra=assumed(
            "the law forbids it (Numbers 35:26-27); no source says how often it happened",
            unit="1/year",
            low=0.0,
            high=0.1,
        ),
    )
    opinion: BoundaryOpinion = Field(
        DISPUTES["exile.boundary.opinion"].default,
        description="Mishnah Makkot 2:7: yose_hagelili (a duty for the avenger) or akiva (an "
        "option; the halakha follows R. Akiva against a colleague, and Rambam, Rotzeach 5:10 "
        "rules so).",
    )
    avenger_finds_p: Probability = Field(
        0.5,
        description="Chance the avenger finds him each time he is out.",
        json_schema_extra=assumed(
            "no source says how often the avenger watches the boundary",
            unit="probability",
            low=0.05,
            high=1.0,
        ),
    )
    option_taken_p: Probability = Field(
        0.5,
        description="Under R. Akiva: chance the avenger who finds him takes his option.",
        json_schema_extra=assumed(
            "R. Akiva makes it an option (Mishnah Makkot 2:7), not how often it is taken",
            unit="probability",
            low=0.1,
            high=1.0,
        ),
    )
    tree_share: Probability = Field(
        0.0,
        description="Share of his goings-out that are into a tree at the edge; the bough rule "
        "(network.bough_opinion) decides whether he is still inside.",
        json_schema_extra=assumed(
            "the Mishnah's case of the tree (Makkot 2:7), not how often it arises",
            unit="share",
            low=0.0,
            high=0.5,
        ),
    )


class Priesthood(Strict):
    """The succession of high priests (and priests anointed for war) over the years."""

    alpha_per_year: float = Field(
        DEFAULT_MORTALITY.alpha,
        gt=0.0,
        le=1.0,
        description="Gompertz hazard per year at base_age_years (default: Sasaki & Kondo 2016).",
        json_schema_extra=sourced(
            "Sasaki and Kondo 2016 (Am J Phys Anthropol 159:523-533), the Strehler-Mildvan "
            "line over 134 life tables, at beta_per_year (refuge_map.simulation.priesthood)",
            unit="1/year",
        ),
    )
    beta_per_year: float = Field(
        DEFAULT_MORTALITY.beta,
        gt=0.0,
        le=0.5,
        description="Gompertz growth of the log hazard.",
        json_schema_extra=assumed(
            "a slope in the range of pre-modern life tables; nothing gives the priests' ages",
            unit="1/year",
            low=0.03,
            high=0.07,
        ),
    )
    base_age_years: float = Field(
        DEFAULT_MORTALITY.base_age,
        ge=0.0,
        le=60.0,
        description="The age at which the hazard is alpha_per_year, years.",
        json_schema_extra=sourced("Sasaki and Kondo 2016 fit the level at age 15", unit="years"),
    )
    first_age_years: Ages = Field(
        (35.0, 65.0),
        description="Age of the high priest in office at the start.",
        json_schema_extra=assumed(
            "a grown man in office; no source gives the ages. Range of the middle",
            unit="years",
            low=35.0,
            high=65.0,
        ),
    )
    first_term_years: float | None = Field(
        None,
        gt=0.0,
        le=500.0,
        description="Pin the death of the high priest in office at the start to this year "
        "(a teaching setting: data/scenarios/priest_dies_early.yaml).",
        json_schema_extra=setting(
            "a teaching setting: the verdicts fall before, in the vacancy and after", unit="years"
        ),
    )
    appointment_age_years: Ages = Field(
        (30.0, 50.0),
        description="Age of each successor at his appointment.",
        json_schema_extra=assumed(
            "no source gives the ages; range of the middle", unit="years", low=25.0, high=55.0
        ),
    )
    vacancy_days: Days = Field(
        (0.0, 60.0),
        description="Days from a high priest's death to the next appointment.",
        json_schema_extra=assumed(
            "no source gives the interval; range of the middle", unit="days", low=0.0, high=90.0
        ),
    )
    step_down_per_year: Probability = Field(
        0.0,
        description="Yearly chance a high priest stands down (he still counts, 2:6).",
        json_schema_extra=assumed(
            "Mishnah Makkot 2:6 knows one who stood down, not how often",
            unit="1/year",
            low=0.0,
            high=0.1,
        ),
    )
    war_priest: WarPriestOpinion = Field(
        DISPUTES["exile.priesthood.war_priest"].default,
        description="Mishnah Makkot 2:6: does the priest anointed for war release him? "
        "first_tanna (no; Rambam, Rotzeach 7:9) or judah (yes).",
    )

    @property
    def mortality(self) -> Gompertz:
        """The Gompertz law of priests and manslayers."""
        return Gompertz(self.alpha_per_year, self.beta_per_year, self.base_age_years)

    def chain(self, *, high_priest: bool) -> OfficeChain:
        """The chain of high priests, or of priests anointed for war (who do not stand down and
        whose first death is never pinned)."""
        return OfficeChain(
            mortality=self.mortality,
            first_age=self.first_age_years,
            appointment_age=self.appointment_age_years,
            vacancy_days=self.vacancy_days,
            step_down_per_year=self.step_down_per_year if high_priest else 0.0,
            first_term_years=self.first_term_years if high_priest else None,
        )


class ExileOptions(Strict):
    """The manslayer's life after the flight: trial, the city, the high priest, release."""

    cases: tuple[CaseChoice, ...] = Field(
        min_length=1, description="The facts of the killings, drawn by weight or in order."
    )
    assign: Literal["draw", "in_order"] = Field(
        "draw", description="draw (by weight) or in_order (incident i gets case i mod len)."
    )
    law: Opinions = Field(
        default_factory=Opinions,
        description="The opinion followed in each dispute of the law (refuge judge).",
    )
    trial: Trial = Field(
        default_factory=Trial,
        description="The leg to the court of his town and back.",
    )
    boundary: Boundary = Field(
        default_factory=Boundary,
        description="Going out beyond the Sabbath boundary.",
    )
    priesthood: Priesthood = Field(
        default_factory=Priesthood,
        description="The succession of high priests.",
    )
    age_years: Ages = Field(
        (20.0, 50.0),
        description="The manslayer's age at the killing.",
        json_schema_extra=assumed(
            "working men (the cases are of work: Mishnah Makkot 2:1); range of the middle",
            unit="years",
            low=20.0,
            high=50.0,
        ),
    )
    kill_again_per_year: YearlyChance = Field(
        0.0,
        description="Yearly chance that he kills again in error inside the city.",
        json_schema_extra=assumed(
            "Mishnah Makkot 2:7 rules on it, not how often it happens",
            unit="1/year",
            low=0.0,
            high=0.02,
        ),
    )
    levite_share: Probability = Field(
        0.0,
        description="Share of manslayers who are Levites (moved city to city, 2:7).",
        json_schema_extra=assumed(
            "one tribe of twelve would be about 0.08; no count is given",
            unit="share",
            low=0.0,
            high=0.2,
        ),
    )
    office_share: Probability = Field(
        0.0,
        description="Share of manslayers who held an office before (Mishnah Makkot 2:8).",
        json_schema_extra=assumed(
            "Mishnah Makkot 2:8 rules on it, not how many held one",
            unit="share",
            low=0.0,
            high=0.5,
        ),
    )
    student_share: Probability = Field(
        0.0,
        description="Share of manslayers who are students: the teacher of each goes into exile "
        "with him (Makkot 10a; Rambam, Rotzeach 7:1).",
        json_schema_extra=assumed(
            "the rule is Makkot 10a; no source says how many manslayers were students of a teacher",
            unit="share",
            low=0.0,
            high=0.5,
        ),
    )
    office: OfficeOpinion = Field(
        DISPUTES["exile.office"].default,
        description="Mishnah Makkot 2:8: meir (returns to office) or judah (does not).",
    )
    rent: RentOpinion = Field(
        DISPUTES["exile.rent"].default,
        description="Mishnah Makkot 2:8: judah (pays rent to the Levites) or meir (not).",
    )
    rent_per_year: float = Field(
        1.0,
        ge=0.0,
        le=1000.0,
        description="Rent per year, nominal units (no sum is given).",
        json_schema_extra=setting("a nominal unit: no sum is given", unit="units/year"),
    )
    horizon_years: float = Field(
        80.0,
        gt=0.0,
        le=400.0,
        description="How long the exiles are followed, years.",
        json_schema_extra=setting("long enough for a manslayer's life", unit="years"),
    )

    @model_validator(mode="after")
    def _judgeable(self) -> ExileOptions:
        for i, choice in enumerate(self.cases):
            if judge(choice.case, self.law).verdict == "undetermined":
                raise ValueError(
                    f"cases.{i} ({choice.label}): the court reaches no verdict under these "
                    "opinions; choose facts it can judge"
                )
        return self


#: The last instant of the results' clock, to the microsecond: a nanosecond ``datetime64``'s,
#: pandas' ``Timestamp.max`` (2262-04-11 23:47:16.854775), without importing pandas to check a
#: scenario.
LAST_CLOCK_TIME = datetime(1970, 1, 1) + timedelta(microseconds=(2**63 - 1) // 1000)


def check_calendar(start: datetime, flight_h: float, exile: ExileOptions) -> None:
    """Raise ValueError if the clock would run past its last date (`LAST_CLOCK_TIME`)."""
    room_s = (LAST_CLOCK_TIME - start).total_seconds()
    if flight_h * 3600.0 + exile.horizon_years * YEAR_S >= room_s:
        raise ValueError(
            f"start {start:%Y-%m-%d} + exile.horizon_years {exile.horizon_years} runs past "
            "2262-04-11, the last date of the datetime clock; start earlier or shorten it"
        )
