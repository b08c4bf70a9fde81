"""The summary of the exile phase: outcomes, years in exile, life exiles, office, rent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from refuge_map.simulation.events import EXILE_OUTCOMES, LIFE_REASONS

if TYPE_CHECKING:
    from refuge_map.simulation.exile.life import ExileLife


def _years(values: pd.Series) -> dict[str, Any] | None:
    """Quantiles and a histogram of years in exile."""
    values = values.dropna()
    if values.empty:
        return None
    bins = [0, 1, 5, 10, 20, 40, np.inf]
    counts = pd.cut(values, bins, right=False).value_counts(sort=False)
    return {
        "n": len(values),
        "mean": round(float(values.mean()), 3),
        **{f"p{q}": round(float(values.quantile(q / 100)), 3) for q in (10, 50, 90)},
        "max": round(float(values.max()), 3),
        "histogram": {str(k): int(v) for k, v in counts.items()},
    }


def _outcome_counts(frame: pd.DataFrame) -> dict[str, int]:
    counts = frame["outcome"].value_counts()
    return {kind: int(counts.get(kind, 0)) for kind in EXILE_OUTCOMES}


def summarize_exile(life: ExileLife) -> dict[str, Any]:
    """Outcomes of every manslayer (overall, by city fled to, by verdict, by case), years in
    exile, life exiles and why, goings-out, killings inside, office and rent, the opinions."""
    frame, ledger = life.manslayers, life.ledger
    entered = frame["entered_y"].notna()
    groups = {
        key: {str(k): _outcome_counts(g) for k, g in frame[frame[key] != ""].groupby(key)}
        for key in ("fled_to", "verdict", "case")
    }
    return {
        "outcomes": _outcome_counts(frame),
        "by_city": groups["fled_to"],
        "by_verdict": groups["verdict"],
        "by_case": groups["case"],
        "life_exiles": {
            key: int((frame["life_reason"][entered] == key).sum()) for key in LIFE_REASONS.values()
        },
        "years_in_exile": {
            "released": _years(frame["years_in_exile"][frame["outcome"] == "released"]),
            "all_exiles": _years(frame["years_in_exile"][entered]),
        },
        "deterred_on_trial_road": int(frame["deterred_on_trial_road"].sum()),
        "went_out": int(frame["went_out"].sum()),
        "killed_again": int(frame["killed_again"].sum()),
        "office": {
            "held": int(frame["held_office"].sum()),
            "restored": int(frame["office_restored"].sum()),
        },
        "rent": {"stays": len(ledger), "total": round(float(ledger["rent"].sum()), 3)},
        "high_priests": int((life.priests["office"] == "high_priest").sum()),
        "opinions": life.opinions,
    }
