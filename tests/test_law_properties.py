"""Properties of `judge`: a verdict rests only on the facts read and the opinions consulted."""

from __future__ import annotations

import types
import typing
from typing import Any

from hypothesis import HealthCheck, assume, given, reject, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from refuge_map.law import DISPUTES, Case, Opinions, judge, rulings_across_opinions
from refuge_map.law.case import BLOWS, MOVEMENT_OF_ACT, THROWS

PROPERTY_SETTINGS = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.filter_too_much]
)


def _values(annotation: Any) -> list[Any]:
    """Every value a leaf field of the case can take."""
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return list(typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        return [value for arg in typing.get_args(annotation) for value in _values(arg)]
    return {bool: [True, False], type(None): [None]}[annotation]


def _leaves(model: type[BaseModel], prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], list]:
    leaves = {}
    for name, info in model.model_fields.items():
        nested = info.annotation
        if isinstance(nested, type) and issubclass(nested, BaseModel):
            leaves |= _leaves(nested, (*prefix, name))
        else:
            leaves[(*prefix, name)] = _values(nested)
    return leaves


LEAVES = _leaves(Case)


def _with(data: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    if len(path) == 1:
        return {**data, path[0]: value}
    return {**data, path[0]: _with(data.get(path[0], {}), path[1:], value)}


def _valid(data: dict[str, Any]) -> Case:
    try:
        return Case.model_validate(data)
    except ValidationError:
        reject()


@st.composite
def case_data(draw: st.DrawFn) -> dict[str, Any]:
    """Facts drawn leaf by leaf, steered towards consistent cases (the rest are rejected)."""
    data: dict[str, Any] = {}
    plain = Case(act="lowering_cask").model_dump()
    for path, values in LEAVES.items():
        default = plain
        for part in path:
            default = default[part]
        # Lean on the plain facts half the time, so that many cases reach the last rules.
        data = _with(data, path, draw(st.sampled_from([default, *values])))
    if data["act"] not in BLOWS or draw(st.booleans()):
        data["intended_target"] = "nobody"
    if data["intended_target"] == "nobody" or draw(st.booleans()):
        data |= {"aimed_at": None, "landed_on": None, "lying_in_wait": False}
    if data["act"] in MOVEMENT_OF_ACT:
        data["movement"] = None
    if data["act"] == "other_movement":
        data["movement"] = draw(st.sampled_from([m for m in LEAVES[("movement",)] if m]))
    if data["place"] != "own_courtyard":
        data["victim_right_of_entry"] = None
    elif data["victim_right_of_entry"] is None:
        data["victim_right_of_entry"] = draw(st.booleans())
    if data["act"] not in THROWS:
        data["victim_put_head_out_after_throw"] = False
    if data["killer"]["blind"]:
        data["killer_saw_victim"] = draw(st.sampled_from([False, None]))
    if data["victim"]["status"] == "resident_alien":
        data["victim"]["high_priest"] = False
    if data["purpose"] in ("father_disciplining_son", "teacher_disciplining_pupil"):
        data["relation"] = {"father_disciplining_son": "father_of_victim"}.get(
            data["purpose"], "teacher_of_victim"
        )
    if data["killer"]["status"] == "resident_alien" or draw(st.booleans()):
        data["killer"] |= {"high_priest": False, "levite": False}
    return data


opinions = st.fixed_dictionaries({key: st.sampled_from(d.sages) for key, d in DISPUTES.items()})


@PROPERTY_SETTINGS
@given(data=case_data(), chosen=opinions)
def test_verdict_never_depends_on_a_fact_no_fired_rule_read(data, chosen):
    case, under = _valid(data), Opinions.model_validate(chosen)
    ruling = judge(case, under)
    facts = case.model_dump()
    for path, values in LEAVES.items():
        if ".".join(path) in ruling.reads:
            continue
        for other in values:
            try:
                changed = judge(Case.model_validate(_with(facts, path, other)), under)
            except ValidationError:
                continue  # the change contradicts another fact
            assert (changed.verdict, changed.consequences) == (
                ruling.verdict,
                ruling.consequences,
            ), f"{'.'.join(path)}={other!r}"


@PROPERTY_SETTINGS
@given(data=case_data(), chosen=opinions, pick=st.data())
def test_an_opinion_that_does_not_bear_never_changes_the_verdict(data, chosen, pick):
    case = _valid(data)
    ruling = judge(case, Opinions.model_validate(chosen))
    idle = [key for key in DISPUTES if key not in ruling.opinions_bearing]
    assume(idle)
    key = pick.draw(st.sampled_from(idle))
    sage = pick.draw(st.sampled_from([s for s in DISPUTES[key].sages if s != chosen[key]]))
    changed = judge(case, Opinions.model_validate({**chosen, key: sage}))
    assert changed.verdict == ruling.verdict
    assert changed.trace == ruling.trace


@PROPERTY_SETTINGS
@given(data=case_data(), chosen=opinions)
def test_ruling_is_well_formed(data, chosen):
    ruling = judge(_valid(data), Opinions.model_validate(chosen))
    assert ruling.opinions == chosen
    assert (ruling.consequences is not None) == (ruling.verdict == "exile")
    deciding = [step for step in ruling.trace if step.decides]
    assert len(deciding) == 1 and deciding[0].decides == ruling.verdict
    assert all(step.citation and step.finding for step in ruling.trace)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=case_data())
def test_all_opinions_covers_every_verdict_a_single_opinion_can_give(data):
    case = _valid(data)
    across = {ruling.verdict for _, ruling in rulings_across_opinions(case)}
    for key, dispute in DISPUTES.items():
        for sage in dispute.sages:
            assert judge(case, Opinions.model_validate({key: sage})).verdict in across
