"""The one registry of opinions: every dispute described once and read by every layer."""

from __future__ import annotations

import typing

import pytest

from geo.readings import GEO_READINGS
from refuge_map.analysis.disputes import DISPUTE_SOURCES
from refuge_map.law import Opinions
from refuge_map.opinions import DISPUTES
from refuge_map.simulation import Scenario, scenario_schema
from refuge_map.simulation.exile import exile_opinions
from refuge_map.simulation.scenario_exile import ExileOptions
from refuge_map.sweep.spec import SweepSpec, check_axes

BASE = {
    "name": "t",
    "incidents": [{"place": [35.2, 32.0]}],
    "exile": {"cases": [{"file": "002_lowering_cask"}]},
}


def _field(path: str) -> typing.Any:
    """The pydantic field of the scenario at a dotted path."""
    model: typing.Any = Scenario
    for part in path.split("."):
        info = model.model_fields[part]
        model = info.annotation
        if part != path.split(".")[-1]:
            model = next(a for a in (model, *typing.get_args(model)) if hasattr(a, "model_fields"))
    return info


def test_every_dispute_of_every_layer_is_registered() -> None:
    paths = set(DISPUTES)
    assert {f"exile.law.{key}" for key in Opinions.model_fields} <= paths
    assert {f"network.{key}" for key in GEO_READINGS} <= paths
    assert {
        "exile.boundary.opinion",
        "exile.priesthood.war_priest",
        "exile.office",
        "exile.rent",
    } <= paths


def test_each_dispute_has_holders_a_default_a_reason_and_a_citation() -> None:
    for path, dispute in DISPUTES.items():
        assert len(dispute.holds) >= 2, path
        assert dispute.default in dispute.holds, path
        assert dispute.why_default.strip() and dispute.citation.strip(), path
        assert all(text.strip() for text in dispute.holds.values()), path


def test_the_scenario_schema_offers_exactly_the_registered_choices() -> None:
    for path, dispute in DISPUTES.items():
        info = _field(path)
        assert info.default == dispute.default, path
        schema = str(scenario_schema())
        for choice in dispute.holds:
            assert f"'{choice}'" in schema, (path, choice)


def test_every_dispute_is_a_sweep_axis_with_a_source() -> None:
    for path, dispute in DISPUTES.items():
        assert DISPUTE_SOURCES[path].startswith(dispute.citation), path
        spec = SweepSpec.model_validate(
            {"name": "s", "base": BASE, "axes": {"grid": {path: list(dispute.holds)}}}
        )
        check_axes(spec)  # every choice is a valid value of the axis


def test_an_unregistered_choice_is_refused_by_the_schema() -> None:
    bad = {**BASE, "exile": {**BASE["exile"], "rent": "hillel"}}
    with pytest.raises(ValueError, match="rent"):
        Scenario.model_validate(bad)


def test_the_exile_records_what_each_opinion_it_follows_holds() -> None:
    options = ExileOptions.model_validate(
        {"cases": [{"file": "002_lowering_cask"}], "rent": "judah"}
    )
    recorded = exile_opinions(options, "rava")
    assert recorded["rent"] == {"judah": DISPUTES["exile.rent"].holds["judah"]}
    assert recorded["war_priest"] == {
        "first_tanna": DISPUTES["exile.priesthood.war_priest"].holds["first_tanna"]
    }
    assert recorded["bough"] == {"rava": DISPUTES["network.bough_opinion"].holds["rava"]}
