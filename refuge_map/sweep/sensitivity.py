"""Which assumptions move which outcomes: Morris screening (Sobol indices on request) with SALib.

Every parameter a scenario marks ``assumption`` (`refuge_map.simulation.provenance`) is a factor,
varied over its declared range: a number is set to the sampled value; a distribution's central
value (a log-normal's median, a fixed value) is set, a uniform distribution or a ``[low, high]``
span is scaled so that its middle is the sampled value. SALib draws the design (Morris
trajectories, or Saltelli's sample for Sobol), the design points run as one sweep on the sweep
backend (`run_sweep`: Dask, resumable), and SALib's analysis gives, for every outcome of the runs
and every factor, Morris's mu* (the mean absolute elementary effect, in the outcome's unit), its
95% confidence half-width and sigma; or Sobol's first-order and total indices.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from refuge_map._atomic import atomic_file
from refuge_map.errors import RefugeError
from refuge_map.simulation.events import EXILE_OUTCOMES
from refuge_map.simulation.provenance import assumptions
from refuge_map.simulation.scenario import Scenario
from refuge_map.sweep.backends import Backend
from refuge_map.sweep.runner import Progress, run_sweep
from refuge_map.sweep.spec import Axes, SweepSpec

Method = Literal["morris", "sobol"]
TABLE = "sensitivity.csv"
PLOT = "sensitivity.png"


def _exile_share(runs: pd.DataFrame, *, kind: str) -> pd.Series:
    """The share of the incidents whose exile ended in `kind`, per run."""
    return runs[f"exile_{kind}"] / runs["incidents"]


#: The outcomes analysed, from the columns of runs.parquet: shares of the incidents and hours.
OUTCOMES: dict[str, Callable[[pd.DataFrame], pd.Series]] = {
    "p_capture": lambda runs: runs["p_capture"],
    "time_to_asylum_h": lambda runs: runs["time_to_asylum_h"],
    **{
        f"p_{kind}": functools.partial(_exile_share, kind=kind)
        for kind in EXILE_OUTCOMES
        if kind != "caught_in_flight"  # the flight's p_capture
    },
}


@dataclass(frozen=True)
class Factor:
    """One assumption as a factor: its parameter name, the sweep axis that sets it, what the
    sampled number sets there (``value``, ``median``, ``scale``) and its range."""

    name: str
    axis: str
    sets: Literal["value", "median", "scale"]
    current: Any
    low: float
    high: float

    def at(self, x: float) -> Any:
        """The axis value with the factor's central value at `x`."""
        if self.sets != "scale":
            return float(x)
        uniform = isinstance(self.current, dict)
        low, high = (self.current["low"], self.current["high"]) if uniform else self.current
        factor = x / ((low + high) / 2) if low + high else 1.0
        if uniform:
            return self.current | {"low": low * factor, "high": high * factor}
        return [low * factor, high * factor]


def factors(scenario: Scenario) -> list[Factor]:
    """The scenario's assumptions as factors (`Factor`), in parameter order."""
    found = []
    for row in assumptions(scenario):
        value, (low, high) = row["value"], row["range"]
        if isinstance(value, dict) and value["dist"] in ("lognormal", "fixed"):
            key = "median" if value["dist"] == "lognormal" else "value"
            found.append(Factor(row["name"], f"{row['name']}.{key}", "median", value, low, high))
        elif isinstance(value, dict | list):
            found.append(Factor(row["name"], row["name"], "scale", value, low, high))
        else:
            found.append(Factor(row["name"], row["name"], "value", value, low, high))
    return found


def problem(chosen: list[Factor]) -> dict[str, Any]:
    """SALib's problem: the factors' names and ranges."""
    return {
        "num_vars": len(chosen),
        "names": [f.name for f in chosen],
        "bounds": [[f.low, f.high] for f in chosen],
    }


def design(
    chosen: list[Factor], *, method: Method, size: int, levels: int, seed: int
) -> np.ndarray:
    """The sample: `size` Morris trajectories of `levels` levels, or a Saltelli sample of base
    size `size` (a power of two) for first-order and total Sobol indices."""
    spec = problem(chosen)
    if method == "morris":
        from SALib.sample import morris

        return morris.sample(spec, N=size, num_levels=levels, seed=seed)
    from SALib.sample import sobol

    return sobol.sample(spec, size, calc_second_order=False, seed=seed)


def sensitivity_sweep(
    scenario: Scenario,
    *,
    method: Method = "morris",
    size: int = 10,
    levels: int = 4,
) -> tuple[SweepSpec, list[Factor], np.ndarray]:
    """The sweep that runs the design: one run per design point, all with the same seed
    (common random numbers: an elementary effect is the factor's, not the draws'), spawned
    from the scenario's; the base the scenario itself.

    Raises
    ------
    RefugeError
        If the scenario marks no parameter an assumption.
    """
    chosen = factors(scenario)
    if not chosen:
        raise RefugeError("the scenario has no parameter marked `assumption` to vary")
    sample = design(chosen, method=method, size=size, levels=levels, seed=scenario.seed)
    points = [{f.axis: f.at(x) for f, x in zip(chosen, row, strict=True)} for row in sample]
    spec = SweepSpec(
        name=f"sensitivity-{scenario.name}",
        description=f"{method} over the assumptions of {scenario.name}",
        base=scenario.model_dump(mode="json"),
        axes=Axes(points=points),
        seed=scenario.seed,
        common_seeds=True,
    )
    return spec, chosen, sample


def analyse(
    runs: pd.DataFrame,
    chosen: list[Factor],
    sample: np.ndarray,
    *,
    method: Method,
    levels: int,
    seed: int,
) -> pd.DataFrame:
    """One row per (outcome, factor): Morris ``mu_star``, ``mu_star_conf``, ``sigma`` (or Sobol
    ``S1``, ``S1_conf``, ``ST``, ``ST_conf``), and ``rank`` within the outcome (1: most
    influential). Outcomes that no run produced (NaN) or that never vary are left out."""
    runs = runs.sort_values("point")
    spec = problem(chosen)
    rows = []
    for outcome, column in OUTCOMES.items():
        y = column(runs).to_numpy(float)
        if np.isnan(y).any() or np.ptp(y) == 0:
            continue
        if method == "morris":
            from SALib.analyze import morris

            result = morris.analyze(spec, sample, y, num_levels=levels, seed=seed)
            keys: tuple[str, ...] = ("mu_star", "mu_star_conf", "sigma")
        else:
            from SALib.analyze import sobol

            result = sobol.analyze(spec, y, calc_second_order=False, seed=seed)
            keys = ("S1", "S1_conf", "ST", "ST_conf")
        table = pd.DataFrame({k: np.asarray(result[k], dtype=float) for k in keys})
        table.insert(0, "parameter", spec["names"])
        table.insert(0, "outcome", outcome)
        score = table["mu_star" if method == "morris" else "ST"]
        table["rank"] = score.rank(ascending=False, method="min").astype(int)
        rows.append(table)
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()


def ranking(table: pd.DataFrame, *, method: Method) -> pd.Series:
    """Each factor's influence over all outcomes: the mean over outcomes of its score divided
    by the outcome's largest score (1: the most influential on every outcome), sorted."""
    score = "mu_star" if method == "morris" else "ST"
    top = table.groupby("outcome")[score].transform("max").replace(0, np.nan)
    share = (table[score] / top).fillna(0.0)
    return share.groupby(table["parameter"]).mean().sort_values(ascending=False)


def _plot(table: pd.DataFrame, *, method: Method, path: Path) -> None:
    """A heat map: factors (rows, most influential first) by outcomes, the score scaled by
    each outcome's largest."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    score = "mu_star" if method == "morris" else "ST"
    order = ranking(table, method=method).index
    grid = table.pivot(index="parameter", columns="outcome", values=score).loc[order]
    grid = grid / grid.max(axis=0).replace(0, np.nan)
    fig, ax = plt.subplots(figsize=(2 + 0.9 * grid.shape[1], 1.5 + 0.3 * grid.shape[0]))
    image = ax.imshow(grid.to_numpy(float), cmap="viridis", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(grid.shape[1]), grid.columns, rotation=45, ha="right")
    ax.set_yticks(range(grid.shape[0]), grid.index)
    label = "Morris mu*" if method == "morris" else "Sobol total index"
    fig.colorbar(image, ax=ax, label=f"{label} / the outcome's largest")
    ax.set_title("Which assumptions move which outcomes")
    fig.tight_layout()
    with atomic_file(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110, metadata={"Software": None})
    plt.close(fig)


@dataclass(frozen=True)
class SensitivityResult:
    """What `run_sensitivity` wrote: the table, the ranking over all outcomes, the files."""

    table: pd.DataFrame
    ranking: pd.Series
    files: list[Path]


def run_sensitivity(
    scenario: Scenario,
    out: str | Path,
    *,
    backend: AbstractContextManager[Backend],
    method: Method = "morris",
    size: int = 10,
    levels: int = 4,
    resume: bool = False,
    progress: Progress | None = None,
    announce: Callable[[Backend], None] | None = None,
) -> SensitivityResult:
    """Vary every assumption of `scenario` over its range and measure what it moves.

    Parameters
    ----------
    scenario
        The scenario (one run per design point, its seed the root of the runs' seeds).
    out
        The folder: the sweep's files (``runs.parquet``, ``manifest.jsonl``, ...),
        ``sensitivity.csv`` and ``sensitivity.png``.
    backend, resume, progress, announce
        As for `run_sweep`.
    method, size, levels
        ``morris`` (`size` trajectories of `levels` levels: ``size * (factors + 1)`` runs) or
        ``sobol`` (base size `size`, a power of two: ``size * (factors + 2)`` runs).

    Raises
    ------
    RefugeError
        If the scenario has no assumption, or a run failed.
    """
    folder = Path(out)
    spec, chosen, sample = sensitivity_sweep(scenario, method=method, size=size, levels=levels)
    result = run_sweep(
        spec, folder, backend=backend, resume=resume, progress=progress, announce=announce
    )
    failed = result.runs[result.runs["status"] != "done"]
    if len(failed):
        first = failed.iloc[0]
        raise RefugeError(
            f"{len(failed)} run(s) failed; the first: {first['error']}",
            source=str(folder / "runs.parquet"),
        )
    table = analyse(result.runs, chosen, sample, method=method, levels=levels, seed=scenario.seed)
    with atomic_file(folder / TABLE) as tmp:
        table.to_csv(tmp, index=False, float_format="%.6g")
    _plot(table, method=method, path=folder / PLOT)
    with atomic_file(folder / "factors.json") as tmp:
        factors_json = [
            {"parameter": f.name, "axis": f.axis, "sets": f.sets, "range": [f.low, f.high]}
            for f in chosen
        ]
        tmp.write_text(json.dumps(factors_json, indent=2) + "\n", encoding="utf-8")
    files = [folder / TABLE, folder / PLOT, folder / "factors.json", folder / "runs.parquet"]
    return SensitivityResult(table, ranking(table, method=method), files)
