"""The Sages side by side: what each dispute of the law of exile changes in a sweep's outcomes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import pandas as pd

from refuge_map.opinions import DISPUTES
from refuge_map.sweep import SweepSpec
from refuge_map.sweep.worker import EXILE_COLUMNS

#: The source of each dispute a sweep can vary, by its axis (a dotted scenario path): every
#: entry of the registry (`refuge_map.opinions.DISPUTES`), geometric, legal and the exile's.
DISPUTE_SOURCES: dict[str, str] = {path: dispute.source for path, dispute in DISPUTES.items()}

#: The outcomes of a manslayer who entered his city of refuge
#: (`refuge_map.simulation.events.EXILE_OUTCOMES`).
IN_EXILE = (
    "exile_released",
    "exile_died_in_exile",
    "exile_killed_outside_boundary",
    "exile_in_exile_at_horizon",
)
#: The outcomes `dispute_effects` reads by default: ``exiled`` (the sum of `IN_EXILE`), then
#: every exile column of runs.parquet.
EFFECT_COLUMNS = ("exiled", *EXILE_COLUMNS)


def smaller_sweep(spec: SweepSpec, *, replications: int, incidents: int) -> SweepSpec:
    """The same sweep (axes, seed, base) with fewer replications and incidents per run.

    For a quick look or a test: the design points are unchanged, so every dispute is still
    crossed with every other; each run is one batch's worth of work.

    Raises
    ------
    pydantic.ValidationError
        If `replications` or `incidents` is out of range, or the base has no ``generate``.
    """
    base = dict(spec.base)
    base["generate"] = {**base["generate"], "n": incidents}
    return SweepSpec.model_validate(
        spec.model_dump(mode="json") | {"replications": replications, "base": base}
    )


def dispute_effects(
    runs: pd.DataFrame, axes: Sequence[str], *, columns: Sequence[str] = EFFECT_COLUMNS
) -> pd.DataFrame:
    """Each dispute's effect on the outcomes, per 100 manslayers, averaged over the other axes.

    In a full grid every level of one axis meets the same levels of the others, so the mean of
    a level is its marginal effect; ``shift`` is its difference from the axis's first level (the
    order of the sweep file).

    Parameters
    ----------
    runs
        ``runs.parquet`` of a sweep (`refuge_map.sweep.run_sweep`), with its exile columns.
    axes
        The axes to read (columns of `runs`).
    columns
        The outcome columns (default `EFFECT_COLUMNS`: those who went into exile, then every exile
        column of the sweep).

    Returns
    -------
    pandas.DataFrame
        Index ``(axis, level, outcome)``; columns ``per_100`` (count per 100 manslayers; rent in
        nominal units per 100), ``shift`` and ``source`` (the dispute's citation).

    Raises
    ------
    KeyError
        If an axis or column is not in `runs`.
    """
    done = runs[runs["status"] == "done"]
    done = done.assign(exiled=done[list(IN_EXILE)].sum(axis=1))
    rates = done[list(columns)].div(done["incidents"], axis=0) * 100.0
    frames = []
    for axis in axes:
        levels = list(dict.fromkeys(done[axis]))
        means = rates.groupby(done[axis], sort=False).mean().reindex(levels)
        long = _stacked(means).rename("per_100").to_frame()
        long["shift"] = _stacked(means - means.iloc[0])
        long["source"] = DISPUTE_SOURCES.get(axis, "")
        frames.append(pd.concat({axis: long}, names=["axis"]))
    table = pd.concat(frames)
    table.index = table.index.set_names(["axis", "level", "outcome"])
    return table


def _stacked(frame: pd.DataFrame) -> pd.Series:
    """The frame's columns stacked into one Series (its columns are one level, so `stack` gives
    a Series; the stubs also allow a DataFrame)."""
    return cast(pd.Series, frame.stack())
