"""Report a sweep: outcome rates against each axis, with Wilson intervals, as tables and PNGs."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from refuge_map._atomic import atomic_file
from refuge_map.errors import RefugeError
from refuge_map.sweep.manifest import MANIFEST
from refuge_map.sweep.runner import RUNS_TABLE, SPEC_COPY
from refuge_map.sweep.worker import OUTCOME_COUNTS

REPORT = "report"

#: Bins of a Latin-hypercube axis (equal counts of runs).
LHS_BINS = 5

#: Normal quantile of the 95% intervals.
Z95 = 1.959964

CAPTION = (
    "Rates pool the incidents of every run at a level (incidents are drawn independently); "
    "95% Wilson intervals. Deut 19:6: 'lest the avenger overtake him, because the way is long'; "
    "Mishnah Makkot 2:5: the two disciples speak to the avenger."
)


def wilson(successes: np.ndarray, trials: np.ndarray, z: float = Z95) -> tuple[np.ndarray, ...]:
    """Rate and Wilson score interval ``(rate, low, high)`` of binomial counts (NaN for none)."""
    k, n = np.asarray(successes, dtype=float), np.asarray(trials, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        centre = (p + z**2 / (2 * n)) / (1 + z**2 / n)
        half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / (1 + z**2 / n)
    return p, centre - half, centre + half


def rate_table(runs: pd.DataFrame, by: pd.Series | None = None) -> pd.DataFrame:
    """Outcome rates (arrival, capture, horizon) with intervals, per level of `by` (or all)."""
    done = runs[runs["status"] == "done"]
    keys = by.loc[done.index] if by is not None else pd.Series("all", index=done.index)
    sums = done.groupby(keys, sort=True, observed=True)[["incidents", *OUTCOME_COUNTS]].sum()
    table = pd.DataFrame({"runs": done.groupby(keys, sort=True, observed=True).size()})
    table["incidents"] = sums["incidents"]
    for kind in OUTCOME_COUNTS:
        rate, low, high = wilson(sums[kind].to_numpy(), sums["incidents"].to_numpy())
        table[f"p_{kind}"], table[f"p_{kind}_low"], table[f"p_{kind}_high"] = rate, low, high
    return table


def axis_levels(runs: pd.DataFrame, axis: str, *, continuous: bool) -> pd.Series:
    """Each run's level on an axis: its value, or its equal-count bin for a sampled axis."""
    if not continuous:
        return runs[axis].astype(str)
    bins = min(LHS_BINS, runs[axis].nunique())
    return pd.qcut(runs[axis], q=bins, duplicates="drop")


def write_report(out: str | Path) -> list[Path]:
    """Write ``report/summary.csv``, and per axis ``report/<axis>.csv`` and ``<axis>.png``.

    Parameters
    ----------
    out
        The folder `run_sweep` wrote.

    Returns
    -------
    list of pathlib.Path
        The files written.

    Raises
    ------
    RefugeError
        If `out` holds no finished sweep (no ``runs.parquet`` or manifest).
    """
    folder = Path(out)
    if not (folder / RUNS_TABLE).is_file() or not (folder / MANIFEST).is_file():
        raise RefugeError("no sweep results here (runs.parquet, manifest.jsonl)", source=str(out))
    runs, header, lhs = _read_sweep(folder)
    written = [_write_csv(rate_table(runs), folder / REPORT / "summary.csv")]
    for axis in header["axes"]:
        table = rate_table(runs, axis_levels(runs, axis, continuous=axis in lhs))
        table.index.name = axis
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", axis)
        written.append(_write_csv(table, folder / REPORT / f"{name}.csv"))
        written.append(_plot_axis(table, axis, folder / REPORT / f"{name}.png"))
    return written


def _read_sweep(folder: Path) -> tuple[pd.DataFrame, dict[str, Any], set[str]]:
    """The runs table, the manifest's header and the spec's Latin-hypercube axes.

    Raises
    ------
    RefugeError
        Naming the file that cannot be read, and how to recover.
    """
    hint = "rewrite it from the manifest with: refuge sweep SWEEP.yaml --out DIR --resume"
    try:
        runs = pd.read_parquet(folder / RUNS_TABLE)
    except Exception as bad:  # pyarrow raises several types: all mean a torn or foreign file
        first = str(bad).splitlines()[0] if str(bad) else type(bad).__name__
        raise RefugeError(
            f"cannot read the runs table ({first[:120]}); {hint}", source=str(folder / RUNS_TABLE)
        ) from None
    try:
        header = json.loads((folder / MANIFEST).read_text(encoding="utf-8").splitlines()[0])
        spec = json.loads((folder / SPEC_COPY).read_text(encoding="utf-8"))
        lhs = set(spec["axes"]["lhs"])
        if not isinstance(header.get("axes"), list):
            raise KeyError("axes")
        return runs, header, lhs
    except (OSError, ValueError, KeyError, TypeError) as bad:
        raise RefugeError(
            f"corrupt sweep folder ({type(bad).__name__}: {bad}); start it again with a new --out",
            source=str(folder),
        ) from None


def _write_csv(table: pd.DataFrame, path: Path) -> Path:
    with atomic_file(path) as tmp:
        table.to_csv(tmp, float_format="%.4f")
    return path


def _plot_axis(table: pd.DataFrame, axis: str, path: Path) -> Path:
    # A bare Figure draws with the Agg canvas: no pyplot state, no global backend switched.
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4.5), layout="constrained")
    ax = fig.add_subplot()
    x = np.arange(len(table))
    for offset, kind in zip((-0.1, 0.1), ("arrival", "capture"), strict=True):
        rate = table[f"p_{kind}"].to_numpy()
        error = [rate - table[f"p_{kind}_low"], table[f"p_{kind}_high"] - rate]
        ax.errorbar(x + offset, rate, yerr=error, fmt="o-", capsize=4, label=kind)
    ax.set_xticks(x, [str(level) for level in table.index], rotation=20)
    ax.set(xlabel=axis, ylabel="share of incidents", ylim=(0, 1))
    fig.suptitle(f"Outcomes against {axis}", fontsize=11)
    ax.set_title(textwrap.fill(CAPTION, 110), fontsize=6.5)
    ax.legend()
    with atomic_file(path) as tmp:
        fig.savefig(tmp, dpi=100, format="png")
    return path
