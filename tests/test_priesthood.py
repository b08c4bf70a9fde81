"""The high priesthood: Gompertz mortality, the succession, and whose death releases (2:6-7)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from refuge_map.simulation.priesthood import (
    DEFAULT_MORTALITY,
    Gompertz,
    OfficeChain,
    Succession,
    draw_succession,
    strehler_mildvan_alpha,
)

LAW = Gompertz(alpha=0.0068, beta=0.04)


def test_default_level_follows_the_strehler_mildvan_line() -> None:
    assert strehler_mildvan_alpha(0.0718) == pytest.approx(math.exp(-7.119))
    assert DEFAULT_MORTALITY.alpha == pytest.approx(0.0068, abs=1e-4)
    assert DEFAULT_MORTALITY.mean_remaining_years(np.array([15.0]))[0] == pytest.approx(40, abs=2)


def test_mean_remaining_life_decreases_with_age() -> None:
    ages = np.arange(0.0, 100.0, 5.0)
    mean = LAW.mean_remaining_years(ages)
    assert np.all(np.diff(mean) < 0)


@pytest.mark.parametrize("age", [20.0, 45.0, 70.0])
def test_mean_remaining_life_is_the_integral_of_survival(age: float) -> None:
    years = np.linspace(0.0, 200.0, 200_001)
    integral = np.trapezoid(LAW.survival(years, np.full_like(years, age)), years)
    assert LAW.mean_remaining_years(np.array([age]))[0] == pytest.approx(integral, rel=1e-4)


@pytest.mark.parametrize("age", [30.0, 60.0])
def test_draws_follow_the_analytic_survival_curve(age: float) -> None:
    draws = LAW.remaining_years(np.random.default_rng(11), np.full(20_000, age))
    result = stats.kstest(draws, lambda t: 1.0 - LAW.survival(t, np.full_like(t, age)))
    assert result.pvalue > 0.01


def _succession(rows: list[tuple[str, float, float, float, bool]]) -> Succession:
    frame = pd.DataFrame(
        rows, columns=["office", "appointed_y", "term_end_y", "died_y", "stood_down"]
    )
    return Succession.of(frame.assign(age_at_appointment=40.0))


# high priest A serves 0-10 and dies; vacancy 10-11; B serves 11-20 then stands down, dies at 30;
# C serves 20-40; the war priest serves 0-15.
PRIESTS = _succession(
    [
        ("high_priest", 0.0, 10.0, 10.0, False),
        ("high_priest", 11.0, 20.0, 30.0, True),
        ("high_priest", 20.0, 40.0, 40.0, False),
        ("war_priest", 0.0, 15.0, 15.0, False),
    ]
)


def test_high_priest_in_office_and_vacancy() -> None:
    t = np.array([0.0, 5.0, 10.5, 11.0, 25.0, 45.0])
    assert PRIESTS.in_office("high_priest", t).tolist() == [0, 0, -1, 1, 2, -1]


def test_release_at_the_death_of_the_high_priest_of_the_verdict() -> None:
    # Numbers 35:25; Mishnah Makkot 2:6: a successor appointed before the verdict releases at
    # his own death; a verdict in a vacancy is for life (2:7).
    release, priest = PRIESTS.release(np.array([5.0, 10.5, 12.0]), war_priest="first_tanna")
    # B is in office at 12 and dies at 30 (having stood down at 20): his death releases
    assert release.tolist() == [10.0, math.inf, 30.0]
    assert priest.tolist() == [0, -1, 1]


def test_a_high_priest_who_stood_down_still_releases() -> None:
    # Mishnah Makkot 2:6: one who passed from his office; C is in office (dies 40), B still lives
    release, priest = PRIESTS.release(np.array([25.0]), war_priest="first_tanna")
    assert release[0] == 30.0 and priest[0] == 1


def test_the_war_priest_releases_only_under_r_judah() -> None:
    t = np.array([5.0, 12.0])
    plain, _ = PRIESTS.release(t, war_priest="first_tanna")
    judah, who = PRIESTS.release(t, war_priest="judah")
    assert plain.tolist() == [10.0, 30.0]
    assert judah.tolist() == [10.0, 15.0] and who[1] == 3


def test_drawn_succession_has_no_overlap_and_vacancies_within_bounds() -> None:
    chain = OfficeChain(LAW, (40.0, 60.0), (30.0, 50.0), (10.0, 30.0), step_down_per_year=0.02)
    rngs = (np.random.default_rng(1), np.random.default_rng(2))
    priests = draw_succession(chain, chain, rngs, 300.0).priests
    for _, office in priests.groupby("office"):
        gap = office["appointed_y"].to_numpy()[1:] - office["term_end_y"].to_numpy()[:-1]
        after_death = ~office["stood_down"].to_numpy()[:-1]
        assert np.all(gap[after_death] * 365.25 >= 10.0 - 1e-6)
        assert np.all(gap[after_death] * 365.25 <= 30.0 + 1e-6)
        assert np.all(gap[~after_death] == 0.0)
    assert (priests["died_y"] >= priests["term_end_y"]).all()
    assert priests["term_end_y"].max() > 300.0


def test_a_pinned_first_term_and_separate_streams() -> None:
    chain = OfficeChain(LAW, (40.0, 60.0), (30.0, 50.0), (0.0, 0.0), first_term_years=2.5)
    alone = draw_succession(chain, None, (np.random.default_rng(3), np.random.default_rng(4)), 50)
    both = draw_succession(chain, chain, (np.random.default_rng(3), np.random.default_rng(4)), 50)
    assert alone.priests.at[0, "died_y"] == 2.5
    high = both.priests[both.priests["office"] == "high_priest"].reset_index(drop=True)
    pd.testing.assert_frame_equal(high, alone.priests)  # the war priests change nothing else
