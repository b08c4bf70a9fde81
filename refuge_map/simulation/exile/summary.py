"""The summary of the exile phase: outcomes, years in exile, life exiles, office, rent.

Counted with numpy over the manslayers' columns (one pass per figure, no group of rows built).
A run summarizes its exile whole (`summarize_exile`); the replications after the first read
only the blocks of their headline (`exile_headline`).
"""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from refuge_map.simulation.events import EXILE_OUTCOMES, LIFE_REASONS, codes_of

if TYPE_CHECKING:
    from refuge_map.simulation.exile.life import ExileLife

#: Edges of the histogram of years in exile, each bin closed on the left: ``[0.0, 1.0)`` ...
#: ``[40.0, inf)``.
YEAR_BINS = (0.0, 1.0, 5.0, 10.0, 20.0, 40.0, np.inf)
_BIN_LABELS = tuple(f"[{a}, {b})" for a, b in pairwise(YEAR_BINS))
#: Percentiles of the years in exile (``p10``, ``p50``, ``p90``).
QUANTILES = (10, 50, 90)


def _years(values: NDArray[np.float64]) -> dict[str, Any] | None:
    """Quantiles (linear, as `numpy.quantile`) and a histogram of years in exile; None if there
    are none (NaN is not a year)."""
    values = values[~np.isnan(values)]
    if values.size == 0:
        return None
    # the bin of each value, as pandas.cut(values, YEAR_BINS, right=False): outside them none
    where = np.searchsorted(YEAR_BINS, values, side="right") - 1
    bins = len(_BIN_LABELS)
    quantiles = np.quantile(values, [q / 100 for q in QUANTILES])  # one pass for all three
    counts = np.bincount(where[(where >= 0) & (where < bins)], minlength=bins)
    return {
        "n": int(values.size),
        "mean": round(float(values.mean()), 3),
        **{f"p{q}": round(float(x), 3) for q, x in zip(QUANTILES, quantiles, strict=True)},
        "max": round(float(values.max()), 3),
        "histogram": dict(zip(_BIN_LABELS, counts.tolist(), strict=True)),
    }


#: Years on the clock at which `summarize_exile` counts the manslayers living in each city.
RESIDENT_YEARS = (1, 5, 10, 20, 40)


def _residents(
    city: NDArray[Any], entered_y: NDArray[np.float64], end_y: NDArray[np.float64]
) -> dict[str, dict[str, int]]:
    """The run's manslayers living in each city (where they were last) at `RESIDENT_YEARS`:
    the count whose majority would close a city to more (Makkot 10b, R. Elazar)."""
    inside = ~np.isnan(entered_y) & (city != "")
    names, group = np.unique(city[inside].astype(str), return_inverse=True)
    entered, end = entered_y[inside], end_y[inside]
    living = {
        year: np.bincount(group[(entered <= year) & (end > year)], minlength=len(names))
        for year in RESIDENT_YEARS
    }
    return {
        str(name): {str(year): int(living[year][k]) for year in RESIDENT_YEARS}
        for k, name in enumerate(names)
    }


def _outcome_codes(outcome: NDArray[Any]) -> NDArray[np.intp]:
    """Each manslayer's outcome as its index in `EXILE_OUTCOMES` (``len(EXILE_OUTCOMES)`` for
    none of them)."""
    codes = codes_of(outcome, EXILE_OUTCOMES)
    return np.where(codes < 0, len(EXILE_OUTCOMES), codes)


def _counts(codes: NDArray[np.intp]) -> dict[str, int]:
    """How many of each of `EXILE_OUTCOMES` (`codes` from `_outcome_codes`)."""
    counts = np.bincount(codes, minlength=len(EXILE_OUTCOMES) + 1)
    return dict(zip(EXILE_OUTCOMES, counts.tolist(), strict=False))


def _counts_by(key: NDArray[Any], codes: NDArray[np.intp]) -> dict[str, dict[str, int]]:
    """`_counts` of the manslayers of each value of `key` but "" (in text order)."""
    given = key != ""
    names, group = np.unique(key[given], return_inverse=True)
    return {str(name): _counts(codes[given][group == k]) for k, name in enumerate(names)}


def _years_in_exile(column: dict[str, NDArray[Any]]) -> dict[str, dict[str, Any] | None]:
    """`_years` of the exiles released and of all who entered exile (`column`: the
    manslayers' columns, `ExileLife.by_incident`)."""
    years = column["years_in_exile"].astype(float)
    entered = ~np.isnan(column["entered_y"].astype(float))
    return {
        "released": _years(years[column["outcome"] == "released"]),
        "all_exiles": _years(years[entered]),
    }


def exile_headline(column: dict[str, NDArray[Any]]) -> dict[str, Any]:
    """The blocks of `summarize_exile` that a replication's headline reads (``outcomes`` and
    ``years_in_exile``), alone, from the manslayers' ``outcome``, ``entered_y`` and
    ``years_in_exile`` (`ExileLife.by_incident`, or `Manslayers.headline_columns`): the
    replications after the first need nothing more of their exile, and the rest costs about as
    much again."""
    return {
        "outcomes": _counts(_outcome_codes(column["outcome"])),
        "years_in_exile": _years_in_exile(column),
    }


def summarize_exile(life: ExileLife) -> dict[str, Any]:
    """Outcomes of every manslayer (overall, by city fled to, by verdict, by case), years in
    exile, life exiles and why, goings-out, killings inside, office and rent, the manslayers
    living in each city over the years, the opinions (its ``outcomes`` and ``years_in_exile``
    those of `exile_headline`, one path for both)."""
    column, rent = life.by_incident, life.rent["rent"]
    headline = exile_headline(column)
    entered_y = column["entered_y"].astype(float)
    entered = ~np.isnan(entered_y)
    codes = _outcome_codes(column["outcome"])
    reasons = column["life_reason"][entered]
    return {
        "outcomes": headline["outcomes"],
        "by_city": _counts_by(column["fled_to"], codes),
        "by_verdict": _counts_by(column["verdict"], codes),
        "by_case": _counts_by(column["case"], codes),
        "life_exiles": {key: int((reasons == key).sum()) for key in LIFE_REASONS.values()},
        "years_in_exile": headline["years_in_exile"],
        "deterred_on_trial_road": int(column["deterred_on_trial_road"].sum()),
        "went_out": int(column["went_out"].sum()),
        "killed_again": int(column["killed_again"].sum()),
        "office": {
            "held": int(column["held_office"].sum()),
            "restored": int(column["office_restored"].sum()),
        },
        "rent": {"stays": len(rent), "total": round(float(rent.sum()), 3)},
        "high_priests": int((life.succession.columns["office"] == "high_priest").sum()),
        "residents_by_year": _residents(column["city"], entered_y, column["end_y"].astype(float)),
        "opinions": life.opinions,
    }
