"""Replications: each outcome's mean and 95% interval across runs (simulation/replications.py)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from refuge_map.simulation import (
    Scenario,
    load_scenario,
    read_run,
    replicate,
    replication_seeds,
    simulate,
)
from refuge_map.simulation._setup import build_world
from refuge_map.simulation._student import T975, t975
from refuge_map.simulation.engine import fly
from refuge_map.simulation.exile import trial
from refuge_map.simulation.model import replication_headline, replication_headlines
from refuge_map.simulation.replications import RELEASE, _r2, bounds, headline, interval
from refuge_map.simulation.stack import fly_stacked

SCENARIOS = Path(__file__).parents[1] / "data" / "scenarios"

SMALL: dict[str, Any] = {
    "name": "small",
    "seed": 5,
    "dt_s": 120,
    "horizon_h": 12,
    "generate": {"n": 25, "home_distance_km": {"dist": "uniform", "low": 0, "high": 2}},
    "avenger": {"delay_h": {"dist": "fixed", "value": 0.2}},
}


def _scenario(replications: int) -> Scenario:
    return Scenario.model_validate(SMALL | {"replications": replications})


def _half_width(run: Any, outcome: str) -> float:
    low, high = run.summary["replications"]["outcomes"][outcome]["ci95"]
    return float(high - low) / 2


def test_the_first_runs_are_the_same_however_many_are_asked_for() -> None:
    few, more = replication_seeds(_scenario(3)), replication_seeds(_scenario(8))
    assert few == more[:3]
    assert few[0] == 5  # the first run is the root seed's
    assert len(set(more)) == 8


def test_intervals_shrink_as_replications_grow() -> None:
    few, many = replicate(_scenario(3)), replicate(_scenario(24))
    for outcome in ("flight.capture", "flight.arrival", "flight.median_h_to_asylum"):
        assert _half_width(many, outcome) < _half_width(few, outcome) / 2, outcome
    block = many.summary["replications"]["outcomes"]["flight.capture"]
    assert block["ci95"][0] <= block["mean"] <= block["ci95"][1]
    assert block["min"] <= block["mean"] <= block["max"]
    assert len(many.replications) == 24  # one row per replication


def test_one_replication_has_a_mean_and_no_interval() -> None:
    run = replicate(_scenario(1))
    block = run.summary["replications"]
    assert block["n"] == 1 and block["outcomes"]["flight.capture"]["ci95"] is None


def test_run_prints_the_intervals_and_writes_the_replications_deterministically(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    path = tmp_path / "small.json"
    path.write_text(json.dumps(SMALL | {"replications": 4}))
    first, again = tmp_path / "a", tmp_path / "b"
    result = run_cli("run", path, "--out", first)
    assert result.code == 0, result.err
    assert "Outcomes across 4 replications" in result.out
    assert "95% interval" in result.out
    assert "Assumptions used" in result.out and "avenger.give_up_per_day" in result.out
    assert run_cli("run", path, "--out", again).code == 0
    for name in ("summary.json", "replications.parquet", "events.parquet"):
        assert (first / name).read_bytes() == (again / name).read_bytes(), name
    back = read_run(first)
    assert back.replications is not None
    pd.testing.assert_series_equal(
        back.replications["seed"], pd.Series(replication_seeds(_scenario(4)), name="seed")
    )
    parameters = {row["name"]: row for row in back.summary["parameters"]}
    assert parameters["avenger.give_up_per_day"]["provenance"] == "assumption"


@pytest.mark.parametrize("name", ["exile_whole_life", "priest_dies_early"])
def test_a_replications_headline_without_its_tables_is_that_of_its_full_run(name: str) -> None:
    # `replicate` reads the runs after the first from their flight and exile alone (no tables,
    # only the summary blocks it needs): the same row as the full run's
    scenario = load_scenario(SCENARIOS / f"{name}.yaml")
    for seed in replication_seeds(scenario.model_copy(update={"replications": 3})):
        alone = replication_headline(scenario, seed, fly(scenario, build_world(scenario, seed)))
        full = headline(simulate(scenario, seed))
        assert any(k.startswith("exile.") and v > 0 for k, v in full.items()), full
        assert math.isfinite(full[RELEASE]) or full[RELEASE] == math.inf
        assert list(alone) == list(full)
        np.testing.assert_equal(alone, full)


@pytest.mark.parametrize("name", ["exile_whole_life", "priest_dies_early"])
def test_replications_whose_exiles_are_lived_as_one_have_the_headlines_of_their_full_runs(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `replicate` lives the exiles of a stack's runs after the first as one (each run with its
    # own streams and priests): each row is still that of the run simulated alone, and no
    # verdict's text is made for their events, which nobody reads
    scenario = load_scenario(SCENARIOS / f"{name}.yaml")
    seeds = replication_seeds(scenario.model_copy(update={"replications": 4}))
    alone = [headline(simulate(scenario, seed)) for seed in seeds]
    flights = fly_stacked(scenario, [build_world(scenario, seed) for seed in seeds])
    for texts in ("verdict_texts", "home_rule"):
        monkeypatch.setattr(trial, texts, _unread(texts))
    together = replication_headlines(scenario, seeds, flights)
    assert len({json.dumps(row, sort_keys=True) for row in alone}) == len(seeds)  # runs differ
    for row, full in zip(together, alone, strict=True):
        assert list(row) == list(full)
        np.testing.assert_equal(row, full)


def _unread(texts: str) -> Callable[..., Any]:
    """A stand-in for a maker of event texts that fails the test that calls it."""

    def made(*args: Any) -> Any:
        raise AssertionError(f"{texts} made texts for a log that keeps none")

    return made


def test_intervals_are_clipped_to_what_the_outcome_can_be() -> None:
    # three runs, one capture among them: the unclipped interval of the share reaches below 0
    shares = pd.Series([0.0, 0.0, 0.04])
    wide = interval(shares)
    assert wide["ci95"][0] < 0
    clipped = interval(shares, within=bounds("flight.capture"))
    assert clipped["ci95"][0] == 0.0 and clipped["ci95"][1] == wide["ci95"][1]
    near_one = interval(pd.Series([1.0, 1.0, 0.96]), within=bounds("flight.arrival"))
    assert near_one["ci95"][1] == 1.0 and near_one["ci95"][0] < 1.0
    hours = interval(pd.Series([0.0, 0.0, 3.0]), within=bounds("flight.median_h_to_asylum"))
    assert hours["ci95"][0] == 0.0 and hours["ci95"][1] > 3.0  # no upper bound on hours
    assert bounds("exile.median_years.released") == (0.0, math.inf)
    assert bounds("exile.released") == (0.0, 1.0)


def test_the_summary_says_how_its_intervals_are_clipped() -> None:
    block = replicate(_scenario(3)).summary["replications"]
    assert "clipped to [0, 1] for shares" in block["interval"]
    for name, stats in block["outcomes"].items():
        if stats["ci95"] is not None:
            low, high = bounds(name)
            assert low <= stats["ci95"][0] <= stats["ci95"][1] <= high, name


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_rank_correlation_is_the_one_pandas_computes(seed: int) -> None:
    # ties, an infinite release year (ranks last) and missing values among the runs
    rng = np.random.default_rng(seed)
    release = rng.choice([1.0, 2.5, 4.0, 7.0, np.inf, np.nan], size=40)
    share = rng.choice([0.0, 0.1, 0.2, 0.3, np.nan], size=40)
    both = pd.DataFrame({"x": release, "y": share}).replace(np.inf, np.finfo(float).max)
    both = both.dropna()
    expected = round(float(both["x"].corr(both["y"], method="spearman") ** 2), 4)
    assert _r2(release, share) == expected


def test_the_t_quantiles_are_scipys_to_the_last_bit() -> None:
    from scipy import special

    table = [float(special.stdtrit(df, 0.975)) for df in range(1, len(T975) + 1)]
    assert list(T975) == table  # == on floats: bit for bit (none is NaN)
    for df in (1, len(T975), len(T975) + 1, 999):  # the table's ends and scipy's beyond
        assert t975(df) == float(special.stdtrit(df, 0.975)), df
    with pytest.raises(ValueError, match="at least 1"):
        t975(0)


def test_the_intervals_import_no_scipy_special() -> None:
    code = (
        "import sys, pandas as pd; from refuge_map.simulation.replications import interval; "
        "interval(pd.Series([0.1, 0.4, 0.3])); print('scipy.special' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False"]
