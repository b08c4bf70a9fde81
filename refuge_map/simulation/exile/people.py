"""The manslayers of the exile phase: who each is, and the one owner of his state.

`Manslayers` holds, per incident, the facts of his case (drawn once) and his state through the
phase (his city, term, outcome); its methods are the only code that changes that state, so an
outcome is written in one place (`Manslayers.end`), with the time it happened.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from geo.arrays import Bools, Floats, Ints
from refuge_map.law import Ruling
from refuge_map.simulation.events import (
    CAPTURE,
    EXILE_OUTCOMES,
    HORIZON,
    LIFE_REASONS,
    codes_of,
)
from refuge_map.simulation.exile.rules import can_be_levite, life_reason, office_restored
from refuge_map.simulation.priesthood import YEAR_S
from refuge_map.simulation.scenario_exile import ExileOptions

if TYPE_CHECKING:
    import pandas as pd

    from refuge_map.simulation._setup import World
    from refuge_map.simulation.engine import Flight, Outcomes


def _drawn(
    options: ExileOptions, n: int, rngs: dict[str, np.random.Generator]
) -> tuple[Ints, Bools, Bools, Floats, Bools]:
    """A run's draws of `Manslayers.draw` for its `n` incidents, in its streams' order: the
    case, the Levite draw, office, further years of life (at a drawn age) and whether he is
    a student."""
    case = _assign_cases(options, n, rngs["cases"])
    rng = rngs["people"]
    age = rng.uniform(*options.age_years, n)
    levite_draw = rng.uniform(size=n) < options.levite_share
    office = rng.uniform(size=n) < options.office_share
    remaining = options.priesthood.mortality.remaining_years(rng, age)
    student = rngs["students"].uniform(size=n) < options.student_share
    return case, levite_draw, office, remaining, student


def _assign_cases(options: ExileOptions, n: int, rng: np.random.Generator) -> Ints:
    """The case of each incident: drawn by weight, or case ``i mod len`` in order."""
    if options.assign == "in_order":
        return np.arange(n) % len(options.cases)
    weights = np.array([choice.weight for choice in options.cases])
    return rng.choice(len(weights), size=n, p=weights / weights.sum())


@dataclass
class Manslayers:
    """Per-incident facts and state, index ``i`` = incident ``i``.

    Attributes
    ----------
    case, student, verdict, levite, office, death_y
        His case (index into the scenario's cases), whether he is a student (whose teacher goes
        with him, Makkot 10a), its verdict, whether he is a Levite and held an office, and the
        year he dies of old age.
    life_reason
        "" unless he never leaves (a reason of `LIFE_REASONS`).
    city
        Index of his city of refuge (-1: none).
    outcome, end_y
        `EXILE_OUTCOMES` ("" while he lives in the phase) and the year it happened.
    tried, entered_y, release_y
        Whether he stood trial, the year he entered exile, the year his term ends.
    deterred, left, killed_again
        Counts: escorts turned his avenger back, he went out, he killed again.
    """

    case: Ints
    student: Bools
    verdict: NDArray[np.str_]
    life_reason: NDArray[np.object_]
    tried: Bools
    levite: Bools
    office: Bools
    death_y: Floats
    city: Ints
    outcome: NDArray[np.object_]
    entered_y: Floats
    end_y: Floats
    release_y: Floats
    deterred: NDArray[np.int64]
    left: NDArray[np.int64]
    killed_again: NDArray[np.int64]

    @classmethod
    def draw(
        cls,
        world: World,
        outcomes: Outcomes,
        options: ExileOptions,
        rulings: list[Ruling],
        rngs: Sequence[dict[str, np.random.Generator]],
    ) -> Manslayers:
        """The facts of every incident's case and the manslayer's age, lineage, office and
        death; the flight's end (`world`, `outcomes`: `Flight.outcome_columns`) decides who is
        already dead or still on the road. With several runs' streams (`rngs`), their incidents
        end to end (`exile.runs`, `world.run`), each run's drawn from its own as alone."""
        cases = [choice.case for choice in options.cases]
        sizes = np.bincount(world.run, minlength=len(rngs)).tolist()
        drawn = [_drawn(options, size, r) for size, r in zip(sizes, rngs, strict=True)]
        columns = zip(*drawn, strict=True)  # each draw of every run, end to end
        case, levite_draw, office, remaining, student = (np.concatenate(c) for c in columns)
        n, killed_y = world.n, world.t0_s / YEAR_S
        death_y = killed_y + remaining
        levite = np.array([c.killer.levite for c in cases])[case] | (
            levite_draw & np.array([can_be_levite(c) for c in cases])[case]
        )
        reasons = [(r.consequences and r.consequences.life_exile_reason) or "" for r in rulings]
        city = codes_of(outcomes["city"], world.city_ids)
        flight_end = np.asarray(outcomes["outcome"], dtype=object)
        outcome = np.select(
            [flight_end == CAPTURE, flight_end == HORIZON],
            ["caught_in_flight", "flight_unfinished"],
            "",
        ).astype(object)
        return cls(
            case=case,
            student=student,
            verdict=np.array([r.verdict for r in rulings])[case],
            life_reason=np.array(reasons, dtype=object)[case],
            tried=np.zeros(n, dtype=bool),
            levite=levite,
            office=office,
            death_y=death_y,
            city=city,
            outcome=outcome,
            entered_y=np.full(n, np.nan),
            end_y=np.full(n, np.nan),
            release_y=np.full(n, np.inf),
            deterred=np.zeros(n, np.int64),
            left=np.zeros(n, np.int64),
            killed_again=np.zeros(n, np.int64),
        )

    def end(self, idx: Ints, outcome: str | NDArray[Any], t_y: Floats) -> None:
        """His life in the phase ends: `outcome` (of `EXILE_OUTCOMES`) at year `t_y`."""
        assert set(np.atleast_1d(outcome).tolist()) <= set(EXILE_OUTCOMES), outcome
        self.outcome[idx] = outcome
        self.end_y[idx] = t_y

    def try_(self, idx: Ints) -> None:
        """They stood trial (Numbers 35:24)."""
        self.tried[idx] = True

    def sentence(self, idx: Ints, release_y: Floats) -> Floats:
        """A term until `release_y` (a new term never shortens the old one); return the
        release years, ``inf`` for a life exile (Mishnah Makkot 2:7)."""
        self.life_reason[idx] = life_reason(self.life_reason[idx], release_y)
        return np.where(self.life_reason[idx] != "", np.inf, release_y)

    def extend(self, idx: Ints, release_y: Floats) -> None:
        """A new term on top of the old (he killed again): he leaves at the later release."""
        self.life_reason[idx] = life_reason(self.life_reason[idx], release_y)
        self.release_y[idx] = np.maximum(self.release_y[idx], release_y)

    def enter(self, idx: Ints, entered_y: Floats, release_y: Floats) -> None:
        """They are back in their city of refuge at `entered_y`, until `release_y`."""
        self.release_y[idx] = release_y
        self.entered_y[idx] = entered_y

    def move(self, idx: Ints, city: Ints) -> None:
        """They are banished to another city (a Levite, Mishnah Makkot 2:7)."""
        self.city[idx] = city

    def count(self, what: str, idx: Ints) -> None:
        """One more of `what` (``deterred``, ``left`` or ``killed_again``) for each of `idx`."""
        counts: NDArray[np.int64] = getattr(self, what)
        counts[idx] += 1

    def columns(self, flight: Flight, options: ExileOptions) -> dict[str, NDArray[Any]]:
        """One value per incident of each column of his row (`manslayer_table`): his outcome,
        case, verdict, term and life in the city (all a summary reads)."""
        labels = np.array([choice.label for choice in options.cases])
        reason = np.array([LIFE_REASONS.get(text, "") for text in self.life_reason], dtype=str)
        entered = np.isfinite(self.entered_y)
        headline = self.headline_columns()
        released = headline["outcome"] == "released"
        return {
            "outcome": headline["outcome"],
            "fled_to": np.asarray(flight.outcome_columns["heading"], dtype=str),
            "city": np.where(self.city >= 0, flight.world.city_names(self.city), ""),
            "case": labels[self.case],
            "verdict": np.where(self.tried, self.verdict, ""),
            "life_exile": entered & (reason != ""),
            "life_reason": np.where(entered, reason, ""),
            "levite": self.levite,
            "student": self.student,
            "held_office": self.office,
            "office_restored": office_restored(self.office, released, options),
            "entered_y": headline["entered_y"],
            "end_y": self.end_y,
            "years_in_exile": headline["years_in_exile"],
            "deterred_on_trial_road": self.deterred,
            "went_out": self.left,
            "killed_again": self.killed_again,
        }

    def headline_columns(self, rows: slice = slice(None)) -> dict[str, NDArray[Any]]:
        """The columns of `columns` a replication's headline reads (``outcome``,
        ``entered_y``, ``years_in_exile``), of `rows` (a run's, in a stack of runs)."""
        return {
            "outcome": self.outcome[rows].astype(str),
            "entered_y": self.entered_y[rows],
            "years_in_exile": self.end_y[rows] - self.entered_y[rows],
        }


def manslayer_table(columns: dict[str, NDArray[Any]]) -> pd.DataFrame:
    """One row per incident (index ``incident``): his outcome, case, verdict, term and life in
    the city, from `Manslayers.columns`."""
    import pandas as pd

    frame = pd.DataFrame(columns)
    frame.index.name = "incident"
    return frame
