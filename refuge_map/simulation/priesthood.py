"""The high priesthood over the years: Gompertz lifetimes, succession, vacancies, who releases.

The manslayer dwells in his city "until the death of the high priest" (Numbers 35:25, 28). The
succession is one chain of priests on the scenario's clock (years from its start); the chain is
drawn once per run with a Python loop over priests (a few dozen over a century), and every
question the exiles ask of it is answered for all of them at once with numpy.

Mortality is Gompertz: the hazard at age ``x`` is ``alpha * exp(beta * (x - base_age))``. The
defaults (`DEFAULT_MORTALITY`) take ``beta = 0.04`` per year, a slope in the range of pre-modern
life tables, and ``alpha`` at age 15 from the Strehler-Mildvan regression of Sasaki and Kondo
(2016, Am J Phys Anthropol 159:523-533, fig. 1, over 134 life tables): ``ln alpha = -2.624 *
(beta - 0.0718) / 0.0393 - 7.119``, which gives ``alpha = 0.0068`` per year and a mean life of
about 40 further years at 15 (coefficients as quoted by the baytaAAR package documentation; the
paper itself was not read). A modelling choice, not a historical claim: nothing in the sources
gives the high priests' ages.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from geo.arrays import Floats

if TYPE_CHECKING:
    import pandas as pd

#: Sasaki and Kondo (2016): the Strehler-Mildvan line between the Gompertz parameters at age 15.
_SM_SLOPE, _SM_SPREAD, _SM_LEVEL, _SM_MEAN_BETA = -2.624, 0.0393, -7.119, 0.0718

#: Days in a Julian year: the year length of the exile's clock (365.25 days of 86,400 s).
DAYS_PER_YEAR = 365.25
YEAR_S = DAYS_PER_YEAR * 86_400.0


def strehler_mildvan_alpha(beta: float) -> float:
    """The Gompertz level at age 15 that Sasaki and Kondo's (2016) regression pairs with `beta`."""
    return math.exp(_SM_SLOPE * (beta - _SM_MEAN_BETA) / _SM_SPREAD + _SM_LEVEL)


@dataclass(frozen=True)
class Gompertz:
    """A Gompertz mortality law: hazard ``alpha * exp(beta * (age - base_age))`` per year.

    Parameters
    ----------
    alpha
        Hazard per year at `base_age`.
    beta
        Growth of the log hazard per year of age.
    base_age
        The age at which the hazard is `alpha`, years.
    """

    alpha: float
    beta: float
    base_age: float = 15.0

    def hazard(self, age: Floats) -> Floats:
        """Deaths per person-year at `age`."""
        return self.alpha * np.exp(self.beta * (np.asarray(age, dtype=float) - self.base_age))

    def survival(self, years: Floats, age: Floats) -> Floats:
        """Chance that one aged `age` is alive `years` later."""
        h0 = self.hazard(age)
        return np.exp(-h0 / self.beta * np.expm1(self.beta * np.asarray(years, dtype=float)))

    def remaining_years(self, rng: np.random.Generator, age: Floats) -> Floats:
        """Draw the further years of life of people aged `age` (inverse of `survival`)."""
        h0 = self.hazard(age)
        return np.log1p(self.beta / h0 * rng.standard_exponential(np.shape(h0))) / self.beta

    def mean_remaining_years(self, age: Floats) -> Floats:
        """Expected further years of life at `age`: ``exp(c) E1(c) / beta``, ``c = h(age)/beta``."""
        # imported here: no run asks for it, and scipy.special costs `refuge run` ~0.05 s
        # of its start-up, before the replications are shared with a child
        from scipy.special import exp1

        c = self.hazard(age) / self.beta
        return np.exp(c) * exp1(c) / self.beta


DEFAULT_MORTALITY = Gompertz(alpha=round(strehler_mildvan_alpha(0.04), 4), beta=0.04)


#: Why a term of office ends (the ``term_end`` column of `Succession.priests`).
TERM_ENDS = ("died", "stood_down", "killed", "killed_in_error")


@dataclass(frozen=True)
class Interruption:
    """Killings that end the high priest's term at once (Mishnah Makkot 2:7): he is killed in
    error (``killed``: he dies then), or he kills in error (``killed_in_error``: he goes into
    exile for life and never returns to office). Times in years, sorted; one per incident."""

    t_y: Floats
    why: NDArray[np.str_]
    incident: NDArray[np.int64]

    @classmethod
    def none(cls) -> Interruption:
        """No killing touches the high priest."""
        return cls(np.empty(0), np.empty(0, dtype=str), np.empty(0, dtype=np.int64))

    def first_in(self, start_y: float, end_y: float) -> int | None:
        """Index of the first killing in ``[start_y, end_y)``, or None."""
        k = int(np.searchsorted(self.t_y, start_y, side="left"))
        return k if k < len(self.t_y) and self.t_y[k] < end_y else None


#: The columns of `Succession.priests`, in order.
PRIEST_COLUMNS = (
    "office",
    "appointed_y",
    "term_end_y",
    "term_end",
    "incident",
    "died_y",
    "stood_down",
    "age_at_appointment",
)


@dataclass(frozen=True)
class Succession:
    """The priests of a run, one per term of office, in years on the scenario clock.

    Held as one array per column (`PRIEST_COLUMNS`): the exile asks its questions a few times
    a round, and a replication's headline never needs the table (`priests`) at all.

    Attributes
    ----------
    columns
        ``office`` (``high_priest`` or ``war_priest``), ``appointed_y``, ``term_end_y`` (death,
        standing down, or a killing: `TERM_ENDS`), ``term_end``, ``incident`` (the killing that
        ended the term, -1 if none), ``died_y``, ``stood_down``, ``age_at_appointment``: one
        value per term, those of each office in order of appointment. The first of each office
        is in office at the clock's zero, appointed then for the purpose of the run.
    """

    columns: dict[str, NDArray[Any]]

    @classmethod
    def of(cls, priests: pd.DataFrame) -> Succession:
        """The succession of a priests table (`priests`, or the one a run folder holds): the
        columns its questions read (``office``, ``appointed_y``, ``term_end_y``, ``died_y``,
        ``stood_down``) at least."""
        return cls({name: priests[name].to_numpy() for name in priests.columns})

    @cached_property
    def priests(self) -> pd.DataFrame:
        """The succession as a table, one row per term (`columns`)."""
        import pandas as pd

        return pd.DataFrame(self.columns)

    def in_office(self, office: str, t_y: Floats) -> NDArray[np.intp]:
        """Row index (into `priests`) of the priest of `office` in office at each time; -1 in a
        vacancy (between a death and the next appointment)."""
        pr = self.columns
        rows = np.flatnonzero(pr["office"] == office)
        appointed, end = pr["appointed_y"][rows], pr["term_end_y"][rows]
        k = np.searchsorted(appointed, t_y, side="right") - 1
        serving = (k >= 0) & (t_y < end[np.maximum(k, 0)])
        return np.where(serving, rows[np.maximum(k, 0)], -1)

    def release(self, t_y: Floats, *, war_priest: str) -> tuple[Floats, NDArray[np.intp]]:
        """When a verdict at `t_y` ends: the first death among the priests who count then.

        Mishnah Makkot 2:6: the high priest in office, one who stood down and still lives, and
        under R. Judah the priest anointed for war; the death of any of them releases him.

        Returns
        -------
        release_y, priest
            Year of the releasing death and the row of the priest who died; ``inf`` and -1 when
            no high priest is in office at `t_y` (Mishnah Makkot 2:7: exile for life).
        """
        pr = self.columns
        t = np.asarray(t_y, dtype=float)[None, :]
        appointed, end = pr["appointed_y"][:, None], pr["term_end_y"][:, None]
        died = pr["died_y"][:, None]
        is_hp = (pr["office"] == "high_priest")[:, None]
        serving = (appointed <= t) & (t < end)
        former = is_hp & pr["stood_down"][:, None] & (end <= t) & (t < died)
        counts = (serving & (is_hp | (war_priest == "judah"))) | former
        deaths = np.where(counts, died, np.inf)
        first = np.argmin(deaths, axis=0)
        vacancy = self.in_office("high_priest", np.asarray(t_y, dtype=float)) < 0
        release_y = np.where(vacancy, np.inf, deaths[first, np.arange(t.shape[1])])
        return release_y, np.where(vacancy, -1, first)


@dataclass(frozen=True)
class OfficeChain:
    """How one office passes from priest to priest (ages in years, rates per year).

    Parameters
    ----------
    mortality
        The Gompertz law of every priest.
    first_age
        ``(low, high)``: uniform age of the priest in office at the clock's zero.
    appointment_age
        ``(low, high)``: uniform age of each successor at his appointment.
    vacancy_days
        ``(low, high)``: uniform days from a death to the next appointment.
    step_down_per_year
        Yearly chance that a priest stands down; his successor is appointed at once.
    first_term_years
        If given, the first priest's term ends (by death) at this year instead of a drawn one.
    """

    mortality: Gompertz
    first_age: tuple[float, float]
    appointment_age: tuple[float, float]
    vacancy_days: tuple[float, float]
    step_down_per_year: float = 0.0
    first_term_years: float | None = None

    def draw(
        self,
        office: str,
        rng: np.random.Generator,
        horizon_y: float,
        interruption: Interruption | None = None,
    ) -> dict[str, NDArray[Any]]:
        """The terms of office from the clock's zero until past `horizon_y` (`PRIEST_COLUMNS`,
        one value per term); a killing of `interruption` within a term ends it then (a vacancy
        follows, as after a death)."""
        rows: list[tuple[str, float, float, str, int, float, bool, float]] = []
        t, age = 0.0, rng.uniform(*self.first_age)
        rate = -math.log1p(-self.step_down_per_year) if self.step_down_per_year < 1 else math.inf
        cut = interruption or Interruption.none()
        while t <= horizon_y:  # one pass per priest
            life = float(self.mortality.remaining_years(rng, np.array([age]))[0])
            if not rows and self.first_term_years is not None:
                life = self.first_term_years
            down = rng.exponential(1.0 / rate) if 0 < rate < math.inf else math.inf
            end, died, why, incident = t + min(life, down), t + life, "died", -1
            if down < life:
                why = "stood_down"
            k = cut.first_in(t, end)
            if k is not None:  # Mishnah Makkot 2:7: killed, or into exile for life
                end, why, incident = float(cut.t_y[k]), str(cut.why[k]), int(cut.incident[k])
                died = end if why == "killed" else died
            stood_down = why == "stood_down"
            rows.append((office, t, end, why, incident, died, stood_down, age))
            gap = 0.0 if stood_down else rng.uniform(*self.vacancy_days) / DAYS_PER_YEAR
            t, age = end + gap, rng.uniform(*self.appointment_age)
        return dict(zip(PRIEST_COLUMNS, map(np.array, zip(*rows, strict=True)), strict=True))


def draw_succession(
    high_priest: OfficeChain,
    war_priest: OfficeChain | None,
    rngs: tuple[np.random.Generator, np.random.Generator],
    horizon_y: float,
    interruption: Interruption | None = None,
) -> Succession:
    """The high priests (and, if asked, the priests anointed for war) until `horizon_y`; the
    killings of `interruption` end the high priests' terms.

    Each office draws from its own stream, so adding the war priest leaves the high priests as
    they were (the runs of two opinions differ only where the opinions differ).
    """
    offices = [high_priest.draw("high_priest", rngs[0], horizon_y, interruption)]
    if war_priest is not None:
        offices.append(war_priest.draw("war_priest", rngs[1], horizon_y))
    return Succession({name: np.concatenate([o[name] for o in offices]) for name in PRIEST_COLUMNS})
