"""Sweep files: a base scenario, the axes to vary over it, replications and one root seed."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import (
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from refuge_map._loading import Problem, load_model, problems_error, read_mapping, validation_error
from refuge_map._strict import Strict
from refuge_map.simulation.scenario import MAX_SEED, Scenario

#: Scenario fields the sweep owns: each run's seed is spawned, replications are the sweep's.
RESERVED_AXES = ("name", "seed", "replications")


class Range(Strict):
    """A continuous range for Latin-hypercube sampling."""

    low: float = Field(description="Lower end.")
    high: float = Field(description="Upper end; must exceed `low`.")

    @model_validator(mode="after")
    def _not_empty(self) -> Range:
        if not self.high > self.low:
            raise ValueError(f"empty range: high ({self.high}) must exceed low ({self.low})")
        return self


class Axes(Strict):
    """What varies: a full grid over discrete choices, crossed with a Latin hypercube over
    continuous ranges, crossed with explicit design points (a Morris or Sobol sample: `refuge
    sensitivity`). Axis names are dotted paths into the scenario (``escorts.enabled``,
    ``network.bough_opinion``, ``avenger.delay_h.median``, ``exile.cases.0.weight``)."""

    grid: dict[str, list[Any]] = Field(
        default_factory=dict, description="Axis -> the values to try (every combination)."
    )
    lhs: dict[str, Range] = Field(
        default_factory=dict, description="Axis -> {low, high}, sampled by a Latin hypercube."
    )
    samples: int = Field(0, ge=0, le=100_000, description="Latin-hypercube samples.")
    points: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Explicit design points, each axis -> value (the same axes in every point).",
    )

    @model_validator(mode="after")
    def _consistent(self) -> Axes:
        empty = [name for name, values in self.grid.items() if not values]
        if empty:
            raise ValueError(f"grid axis {empty[0]!r} has no values")
        if self.lhs and self.samples < 1:
            raise ValueError("lhs ranges need `samples` >= 1")
        if self.samples and not self.lhs:
            raise ValueError("`samples` given without lhs ranges")
        both = sorted(set(self.grid) & set(self.lhs))
        if both:
            raise ValueError(f"axis {both[0]!r} is both a grid and an lhs axis")
        keys = list(self.points[0]) if self.points else []
        for i, point in enumerate(self.points):
            if list(point) != keys:
                raise ValueError(f"points.{i} has axes {list(point)}; points.0 has {keys}")
        twice = sorted(set(keys) & set(self.grid) | set(keys) & set(self.lhs))
        if twice:
            raise ValueError(f"axis {twice[0]!r} is both a point axis and a grid or lhs axis")
        return self

    @property
    def names(self) -> list[str]:
        """All axis names, grid axes first, then lhs axes, then point axes, in file order."""
        return [*self.grid, *self.lhs, *(self.points[0] if self.points else [])]


class SweepSpec(Strict):
    """A Monte Carlo sweep over a base scenario.

    Attributes
    ----------
    axes
        The swept parameters (ranges, grids, opinion choices), each checked against the base
        scenario.
    """

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$", description="Short id of the sweep.")
    description: str = Field("", description="The question the sweep asks.")
    base: dict[str, Any] = Field(
        description="The base scenario: inline, or a path to a scenario file (relative to the "
        "sweep file)."
    )
    axes: Axes = Field(default_factory=Axes)
    replications: int = Field(1, ge=1, le=100_000, description="Runs per design point.")
    seed: int = Field(
        0, ge=0, le=MAX_SEED, description="Root seed: every run's seed is spawned from it."
    )
    common_seeds: bool = Field(
        False,
        description="Every design point runs the same seeds (replication r's seed shared by "
        "all points: common random numbers), so that points differ by their axes alone.",
    )
    batch_runs: int | None = Field(
        None,
        ge=1,
        le=10_000,
        description="Runs per task (default: measured: after a pilot batch of 4 runs, as many "
        "as fill a task of about 5 s, and at least 2 tasks a worker).",
    )

    @field_validator("base")
    @classmethod
    def _whole_scenario(cls, value: dict[str, Any]) -> dict[str, Any]:
        """The base as a valid scenario with every default written out (axes point into it)."""
        return Scenario.model_validate(value).model_dump(mode="json")

    @property
    def spec_hash(self) -> str:
        """A stable hash of everything that decides the runs (base scenario content included)."""
        text = json.dumps(self.model_dump(mode="json"), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def _base_mapping(value: Any, folder: Path) -> Any:
    """A `base` given as a path is replaced by the scenario file's content."""
    if isinstance(value, str):
        path = Path(value) if Path(value).is_absolute() else folder / value
        load_model(Scenario, path)  # one-line error naming the scenario file
        return read_mapping(path)
    return value


def load_sweep(path: str | Path) -> SweepSpec:
    """Read a sweep file, resolve its base scenario and check every axis against it.

    Parameters
    ----------
    path
        The sweep file (YAML or JSON).

    Returns
    -------
    SweepSpec
        The checked sweep, its base scenario resolved.

    Raises
    ------
    RefugeError
        One line naming the file, the field and the value: unknown fields, an empty range or
        grid, an unknown axis (naming it), a value the scenario refuses, a bad base scenario.
    """
    source = str(path)
    data = read_mapping(path)
    if "base" in data:
        data["base"] = _base_mapping(data["base"], Path(path).parent)
    try:
        spec = SweepSpec.model_validate(data)
    except ValidationError as err:
        raise validation_error(err, source) from None
    check_axes(spec, source=source)
    return spec


def check_axes(spec: SweepSpec, *, source: str = "sweep") -> None:
    """Check that every axis names a scenario field and that every value is valid there.

    Raises
    ------
    RefugeError
        Naming the axis (and the value) of every problem found.
    """
    base = spec.base
    paths = {name: _path_problem(base, name) for name in spec.axes.names}
    problems = list(paths.values())
    for name, values in spec.axes.grid.items():
        if paths.get(name) is None:  # values of an unknown axis cannot be checked
            problems += [
                _value_problem(base, name, value, f"axes.grid.{name}[{i}]")
                for i, value in enumerate(values)
            ]
    for name, span in spec.axes.lhs.items():
        if paths.get(name) is None:
            problems += [
                _value_problem(base, name, getattr(span, end), f"axes.lhs.{name}.{end}")
                for end in ("low", "high")
            ]
    problems += [_point_problem(base, point, i) for i, point in enumerate(spec.axes.points)]
    found = [problem for problem in problems if problem is not None]
    if found:
        raise problems_error(found, source)


def _path_problem(base: dict[str, Any], name: str) -> Problem | None:
    parts = name.split(".")
    if parts[0] in RESERVED_AXES:
        return (
            f"axes.{name}",
            f"the sweep owns {parts[0]!r} (seeds are spawned from its root seed); not an axis",
            None,
        )
    node: Any = base
    for depth, part in enumerate(parts):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]  # a number indexes a list: exile.cases.0.weight
            continue
        if not isinstance(node, dict) or part not in node:
            where = ".".join(parts[:depth]) or "the scenario"
            known = sorted(node) if isinstance(node, dict) else list(range(len(node)))
            return (
                f"axes.{name}",
                f"unknown axis: {where} has no field {part!r}; known: {known}",
                None,
            )
        node = node[part]
    return None


def _point_problem(base: dict[str, Any], point: dict[str, Any], i: int) -> Problem | None:
    """A design point the scenario refuses (every axis of it set at once)."""
    try:
        Scenario.model_validate(apply_axes(base, point))
    except ValidationError as err:
        return (
            f"axes.points.{i}",
            f"the scenario refuses this point: {err.errors()[0]['msg']}",
            None,
        )
    return None


def apply_axes(base: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """A copy of a scenario mapping with each dotted path set to its value (a number in the
    path indexes a list: ``exile.cases.0.weight``)."""
    scenario = json.loads(json.dumps(base))
    for name, value in values.items():
        *parents, leaf = name.split(".")
        node = scenario
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            node[int(leaf)] = value
        else:
            node[leaf] = value
    return scenario


def _value_problem(base: dict[str, Any], name: str, value: Any, field: str) -> Problem | None:
    try:
        Scenario.model_validate(apply_axes(base, {name: value}))
    except ValidationError as err:
        first = err.errors()[0]
        at = ".".join(str(part) for part in first["loc"])
        return field, f"the scenario refuses this value: {first['msg']} (at {at})", value
    return None
