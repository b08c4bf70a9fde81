"""Replications: the headline outcomes of each run, and their mean and 95% interval across runs.

A scenario's replications differ only in their seeds: the first is the root seed itself, the
others are spawned from it (`replication_seeds`), so the first k runs are the same however many
are asked for. Each outcome is given as the mean across replications with the 95% confidence
interval of that mean (Student's t), the standard deviation and the range of the runs; the
interval is clipped to what the outcome can be (`bounds`: a share to [0, 1], hours and years at
0), as a mean near 0 or 1 over few runs would otherwise reach past them. Where one
draw, the death of the high priest in office when the exiles enter (`RELEASE`), explains most of
an outcome's variance across runs (its squared rank correlation with the outcome is at least
`DOMINANT_R2`), the summary says so.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from refuge_map.simulation._student import t975
from refuge_map.simulation.events import EXILE_OUTCOMES
from refuge_map.simulation.priesthood import Succession
from refuge_map.simulation.seeds import spawn_seeds

if TYPE_CHECKING:
    import pandas as pd

    from refuge_map.simulation.run import Run
    from refuge_map.simulation.scenario import Scenario

#: Share of an outcome's variance across replications explained by one draw for the summary to
#: say that the draw dominates it.
DOMINANT_R2 = 0.5
#: The one draw whose influence is measured: the year of the first death that releases a
#: manslayer who entered exile at the run's median entry (Mishnah Makkot 2:6), in years.
RELEASE = "release_y"
#: What the summary says of its intervals (``replications.interval``).
INTERVAL = (
    "95% interval of the mean (Student's t), clipped to [0, 1] for shares and at 0 for hours "
    "and years"
)


def is_share(outcome: str) -> bool:
    """Whether a headline outcome is a share of the incidents (not hours or years)."""
    return not ("_h_" in outcome or "years" in outcome or outcome == RELEASE)


def bounds(outcome: str) -> tuple[float, float]:
    """What a headline outcome can be: a share lies in [0, 1]; hours and years are never
    negative."""
    return (0.0, 1.0) if is_share(outcome) else (0.0, math.inf)


def replication_seeds(scenario: Scenario, seed: int | None = None) -> list[int]:
    """The seeds of the scenario's replications: the root seed (`seed`, default the
    scenario's), then ``replications - 1`` seeds spawned from it (`spawn_seeds`).

    Parameters
    ----------
    scenario
        Its ``replications`` and ``seed``.
    seed
        The root seed instead of ``scenario.seed``.

    Returns
    -------
    list of int
        ``scenario.replications`` seeds, the root first.
    """
    root = scenario.seed if seed is None else seed
    return [root, *spawn_seeds(root, scenario.replications - 1)]


def headline(run: Run) -> dict[str, float]:
    """The outcomes of one run that the replications summarize: the share of incidents of each
    flight outcome, deterred and given up; the median hours to asylum; with an exile, the share
    of each exile outcome, the median years in exile (all exiles, released) and the year of the
    releasing death (`RELEASE`)."""
    succession = None if run.priests is None else Succession.of(run.priests)
    entered = None if run.manslayers is None else run.manslayers["entered_y"].to_numpy(float)
    return headline_of(
        run.scenario, run.summary["overall"], run.summary.get("exile"), entered, succession
    )


def headline_of(
    scenario: Scenario,
    overall: dict[str, Any],
    exile: dict[str, Any] | None,
    entered_y: NDArray[np.float64] | None,
    succession: Succession | None,
) -> dict[str, float]:
    """`headline` from a run's parts, without its tables: the summary's ``overall`` block,
    the ``outcomes`` and ``years_in_exile`` of its ``exile`` block (`exile_headline` gives
    them alone), the manslayers' ``entered_y`` and the succession of priests (the replications
    after the first need no more)."""
    n = overall["incidents"]
    row = {f"flight.{k}": v / n for k, v in overall["outcomes"].items()}
    row |= {"flight.deterred": overall["deterred"] / n, "flight.gave_up": overall["gave_up"] / n}
    time = overall["time_to_asylum_h"]
    row["flight.median_h_to_asylum"] = math.nan if time is None else time["median"]
    if exile:
        later = [k for k in EXILE_OUTCOMES if k != "caught_in_flight"]  # = flight.capture
        row |= {f"exile.{k}": exile["outcomes"][k] / n for k in later}
        for group in ("all_exiles", "released"):
            years = exile["years_in_exile"][group]
            row[f"exile.median_years.{group}"] = math.nan if years is None else years["p50"]
        assert entered_y is not None and succession is not None and scenario.exile is not None
        row[RELEASE] = _release_y(entered_y, succession, scenario.exile.priesthood.war_priest)
    return row


def _release_y(entered_y: NDArray[np.float64], succession: Succession, war_priest: str) -> float:
    """The year of the death that releases one who entered exile at the run's median entry
    (`Succession.release`); NaN if nobody entered, inf with no high priest in office."""
    entered = entered_y[~np.isnan(entered_y)]
    if entered.size == 0:
        return math.nan
    return float(succession.release(np.array([np.median(entered)]), war_priest=war_priest)[0][0])


def interval(
    values: pd.Series, *, within: tuple[float, float] = (-math.inf, math.inf)
) -> dict[str, Any]:
    """Mean, 95% confidence interval of the mean (Student's t) clipped to `within`, standard
    deviation, range and count of the finite `values`; None where there are none (the interval
    with one only)."""
    x = values.dropna().to_numpy(float)
    if x.size == 0:
        return {"n": 0, "mean": None, "ci95": None, "sd": None, "min": None, "max": None}
    sd = float(x.std(ddof=1)) if x.size > 1 else math.nan
    # Student's t quantile as scipy.special gives it (the same values as scipy.stats.t.ppf,
    # whose import costs a command about 0.5 s), without importing either (`_student`)
    half = float(t975(x.size - 1) * sd / math.sqrt(x.size)) if x.size > 1 else None
    mean = float(x.mean())
    low, high = within
    return {
        "n": int(x.size),
        "mean": round(mean, 4),
        "ci95": None
        if half is None
        else [round(max(mean - half, low), 4), round(min(mean + half, high), 4)],
        "sd": None if x.size < 2 else round(sd, 4),
        "min": round(float(x.min()), 4),
        "max": round(float(x.max()), 4),
    }


def _ranks(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Average ranks from 1 (ties share the mean of their places), as ``scipy.stats.rankdata``
    gives them: each value exact (a whole or a half)."""
    _, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    return (np.cumsum(counts) - (counts - 1) / 2.0)[inverse]


def _r2(x: NDArray[np.float64], y: NDArray[np.float64]) -> float | None:
    """Squared rank (Spearman) correlation of two columns over the rows where both are
    finite (an infinite release year ranks last): the Pearson correlation of their average
    ranks, as ``pandas.Series.corr(method="spearman")`` computes it (through
    ``scipy.stats.spearmanr``, whose import costs a command about 0.7 s)."""
    both = np.column_stack([x, y])
    both = np.where(both == np.inf, np.finfo(float).max, both)
    both = both[~np.isnan(both).any(axis=1)]
    if len(both) < 3 or any(len(np.unique(column)) < 2 for column in both.T):
        return None
    ranked = np.column_stack([_ranks(column) for column in both.T])
    rho = np.asarray(np.corrcoef(ranked, rowvar=False))[1, 0]
    return round(float(rho**2), 4)


def across(table: pd.DataFrame) -> dict[str, Any]:
    """The replications block of a summary, from one row per replication (`headline` columns
    and ``seed``): ``n``, ``seeds``, each outcome's `interval`, and ``variance`` (the share of
    each exile outcome's variance across runs the releasing death explains, as a squared rank
    correlation, and which outcomes it dominates)."""
    outcomes = [c for c in table.columns if c not in ("seed", RELEASE)]
    block: dict[str, Any] = {
        "n": len(table),
        "seeds": [int(s) for s in table["seed"]],
        "interval": INTERVAL,
        "outcomes": {c: interval(table[c], within=bounds(c)) for c in outcomes},
    }
    if RELEASE in table:
        release = table[RELEASE].to_numpy(float)
        r2 = {c: _r2(release, table[c].to_numpy(float)) for c in outcomes if c.startswith("exile.")}
        block[RELEASE] = interval(table[RELEASE].replace(np.inf, np.nan), within=bounds(RELEASE))
        block["variance"] = {
            "draw": "the death of the high priest in office when the exiles enter (one draw "
            "of his life)",
            "r2": r2,
            "dominated": sorted(c for c, v in r2.items() if v is not None and v >= DOMINANT_R2),
        }
    return block
