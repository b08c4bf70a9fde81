"""Every number of a scenario declares where it comes from (refuge_map/simulation/provenance.py)."""

from __future__ import annotations

from typing import Any

import pytest

from refuge_map.simulation import scenario_schema
from refuge_map.simulation.provenance import PROVENANCE_KINDS, assumed, parameters
from refuge_map.simulation.scenario import Scenario


def _is_distribution(schema: dict[str, Any], ref: str) -> bool:
    """A `{dist: ...}` variant: its parts share the provenance of the field that holds it."""
    return "dist" in schema["$defs"][ref.split("/")[-1]].get("properties", {})


def _numeric(schema: dict[str, Any], prop: dict[str, Any]) -> bool:
    if prop.get("type") in ("number", "integer"):
        return True
    if prop.get("type") == "array" and "prefixItems" in prop:
        return all(_numeric(schema, item) for item in prop["prefixItems"])
    options = prop.get("anyOf", []) + prop.get("oneOf", [])
    return any(
        _numeric(schema, o) or ("$ref" in o and _is_distribution(schema, o["$ref"]))
        for o in options
    )


def _numeric_fields(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    models = [("Scenario", schema), *schema["$defs"].items()]
    return [
        (model, name, prop)
        for model, definition in models
        if "dist" not in definition.get("properties", {})
        for name, prop in definition.get("properties", {}).items()
        if _numeric(schema, prop)
    ]


def test_every_numeric_field_of_the_schema_declares_its_provenance() -> None:
    fields = _numeric_fields(scenario_schema())
    assert len(fields) > 30  # the walk finds the numbers (speeds, rates, spans, coordinates)
    missing = [f"{m}.{n}" for m, n, p in fields if p.get("provenance") not in PROVENANCE_KINDS]
    assert missing == []


def test_sources_cite_and_assumptions_give_a_rationale_and_an_ordered_range() -> None:
    for model, name, prop in _numeric_fields(scenario_schema()):
        where = f"{model}.{name}"
        assert prop["unit"], where
        if prop["provenance"] == "source":
            assert len(prop["source"]) > 10, where
        else:
            assert len(prop["rationale"]) > 10, where
        if prop["provenance"] == "assumption":
            low, high = prop["range"]
            assert low <= high, where
            assert "minimum" not in prop or prop["minimum"] <= low, where
            assert "maximum" not in prop or high <= prop["maximum"], where


def test_an_unordered_range_is_refused() -> None:
    with pytest.raises(ValueError, match="ordered"):
        assumed("why", unit="h", low=2.0, high=1.0)


def test_the_parameters_table_lists_the_values_a_scenario_uses() -> None:
    scenario = Scenario.model_validate(
        {
            "name": "t",
            "incidents": [{"place": "jerusalem"}],
            "avenger": {"give_up_per_day": 0.7, "capture_m": 33},
        }
    )
    rows = {row["name"]: row for row in parameters(scenario)}
    assert rows["avenger.give_up_per_day"]["value"] == 0.7
    assert rows["avenger.capture_m"]["provenance"] == "assumption"
    assert rows["avenger.capture_m"]["range"] == [5.0, 50.0]
    assert rows["fugitive.speed_road_kmh"]["value"]["median"] == 6.0
    assert rows["seed"]["provenance"] == "setting"
    assert "incidents.0.time_h" in rows
    assert "exile" not in {name.split(".")[0] for name in rows}  # no exile section, no rows
