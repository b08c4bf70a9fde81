"""Tests of sweep files and plans: axes checked against the scenario, seeds spawned, manifest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from refuge_map.errors import RefugeError
from refuge_map.sweep import load_sweep, plan_sweep
from refuge_map.sweep.manifest import Manifest, header_record
from refuge_map.sweep.plan import scenario_of
from refuge_map.sweep.report import wilson
from refuge_map.sweep.spec import SweepSpec, check_axes

BASE: dict[str, Any] = {"name": "base", "generate": {"n": 2}, "horizon_h": 6}
SHIPPED = Path(__file__).resolve().parents[1] / "data" / "sweeps"


def spec(**axes: Any) -> SweepSpec:
    fields = {"replications": axes.pop("replications", 1), "seed": axes.pop("seed", 3)}
    made = SweepSpec.model_validate({"name": "s", "base": BASE, "axes": axes, **fields})
    check_axes(made)
    return made


def test_grid_crossed_with_lhs_and_replications() -> None:
    plan = plan_sweep(
        spec(
            grid={"escorts.enabled": [False, True], "network.cubit": ["naeh", "chazon_ish"]},
            lhs={"avenger.delay_h.median": {"low": 0.5, "high": 6.0}},
            samples=5,
            replications=3,
        )
    ).runs
    assert len(plan) == 2 * 2 * 5 * 3
    assert plan["avenger.delay_h.median"].between(0.5, 6.0).all()
    # a Latin hypercube: one sample in each fifth of the range
    samples = np.sort(plan["avenger.delay_h.median"].unique())
    np.testing.assert_array_equal(np.floor((samples - 0.5) / 1.1), np.arange(5))
    assert plan["seed"].is_unique


def test_seeds_are_reproducible_and_the_run_stands_alone() -> None:
    sweep = spec(grid={"avenger.knows": ["nearest_city", "destination"]}, replications=2)
    first, again = plan_sweep(sweep), plan_sweep(sweep)
    assert first.runs.equals(again.runs)
    scenario = first.scenario(3)
    assert scenario.seed == first.runs.at[3, "seed"] and scenario.avenger.knows == "destination"
    assert scenario.key == first.runs.at[3, "scenario_hash"]
    other = plan_sweep(spec(grid={"avenger.knows": ["nearest_city", "destination"]}, seed=4))
    assert not set(other.runs["seed"]) & set(first.runs["seed"])


def test_the_spec_hash_sees_the_base_scenario() -> None:
    one = spec(grid={"escorts.enabled": [True]})
    two = SweepSpec.model_validate(one.model_dump() | {"base": BASE | {"horizon_h": 7}})
    assert one.spec_hash != two.spec_hash


@pytest.mark.parametrize(
    ("axes", "message"),
    [
        ({"grid": {"avenger.sped": [1]}}, "unknown axis: avenger has no field 'sped'"),
        ({"grid": {"escorts.enabled": []}}, "grid axis 'escorts.enabled' has no values"),
        (
            {"lhs": {"avenger.delay_h.median": {"low": 3, "high": 3}}, "samples": 2},
            "empty range",
        ),
        ({"lhs": {"avenger.delay_h.median": {"low": 1, "high": 3}}}, "need `samples` >= 1"),
        ({"grid": {"network.cubit": ["naeh", "cubit_of_og"]}}, "the scenario refuses"),
        ({"grid": {"seed": [1, 2]}}, "the sweep owns 'seed'"),
        ({"grid": {"avenger.delay_h.value": [1.0]}}, "delay_h has no field 'value'"),
    ],
)
def test_bad_axes_are_named(tmp_path: Path, axes: dict[str, Any], message: str) -> None:
    import yaml

    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump({"name": "bad", "base": BASE, "axes": axes}))
    with pytest.raises(RefugeError, match=r"sweep\.yaml") as caught:
        load_sweep(path)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_base_scenario_by_path(tmp_path: Path) -> None:
    import yaml

    (tmp_path / "base.yaml").write_text(yaml.safe_dump(BASE))
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump({"name": "p", "base": "base.yaml"}))
    assert load_sweep(path).base["horizon_h"] == 6
    (tmp_path / "base.yaml").write_text(yaml.safe_dump(BASE | {"horizon_h": -1}))
    with pytest.raises(RefugeError, match=r"base\.yaml: field 'horizon_h'"):
        load_sweep(path)


def test_shipped_sweep_files_are_valid() -> None:
    for path in SHIPPED.glob("*.yaml"):
        assert len(plan_sweep(load_sweep(path)).runs) > 0


def test_a_concrete_scenario_is_one_run() -> None:
    scenario = scenario_of(spec().base, {"escorts.enabled": True}, 42)
    assert (scenario.seed, scenario.replications, scenario.escorts.enabled) == (42, 1, True)


def test_manifest_cuts_a_torn_line_and_refuses_another_sweep(tmp_path: Path) -> None:
    header = header_record(sweep="s", spec_hash="abc", version="0", n_runs=3, batch_runs=1, axes=[])
    manifest = Manifest.open(tmp_path, header, resume=False)
    manifest.record([{"run": 0, "status": "done"}, {"run": 1, "status": "done"}])
    assert manifest.record([{"run": 1, "status": "done"}]) == []  # never recorded twice
    with open(manifest.path, "ab") as file:
        file.write(b'{"kind": "run", "run": 2, "sta')  # kill -9 in the middle of a write
    again = Manifest.open(tmp_path, header, resume=True)
    assert sorted(again.runs) == [0, 1]
    assert manifest.path.read_bytes().endswith(b"\n")
    with pytest.raises(RefugeError, match="another sweep's manifest"):
        Manifest.open(tmp_path, header | {"spec_hash": "xyz"}, resume=True)
    with pytest.raises(RefugeError, match="pass --resume"):
        Manifest.open(tmp_path, header, resume=False)


def test_wilson_interval() -> None:
    rate, low, high = wilson(np.array([0, 5, 10]), np.array([10, 10, 10]))
    np.testing.assert_allclose(rate, [0.0, 0.5, 1.0])
    np.testing.assert_allclose(low, [0.0, 0.2366, 0.7225], atol=1e-4)
    np.testing.assert_allclose(high, [0.2775, 0.7634, 1.0], atol=1e-4)
