"""Judge a case: run the rules in order under a set of opinions and gather the ruling."""

from __future__ import annotations

import itertools
import types
import typing
from typing import Any

from pydantic import ValidationError

from refuge_map.law.case import Case
from refuge_map.law.opinions import DISPUTES, NOT_JUDGED, Opinions
from refuge_map.law.rules import VERDICT_RULES, describe, exile_for_life, place_of_exile
from refuge_map.law.ruling import Alternative, Consequences, Ruling, TraceStep


def judge(case: Case, opinions: Opinions | None = None) -> Ruling:
    """Decide whether the killer goes into exile, is a murderer, or neither.

    Parameters
    ----------
    case
        The facts of the killing.
    opinions
        The sage followed in each dispute; the documented defaults when omitted.

    Returns
    -------
    Ruling
        The verdict, the ordered trace of the rules consulted (each with its citation, the
        opinion it used and the fields it read), every opinion and those that bore on the case,
        and for exile the consequences. When a rule needs a fact the case does not state, the
        verdict is ``undetermined``, ``asks`` names the fact(s) and ``alternatives`` gives the
        verdict under every answer (the case judged again with each value).
    """
    opinions = opinions or Opinions()
    trace: list[TraceStep] = []
    for rule in VERDICT_RULES:
        step = rule(case, opinions)
        if step is None:
            continue
        trace.append(step)
        if step.decides is not None:
            break
    decided = trace[-1]
    consequences = None
    if decided.decides == "exile":
        consequences, steps = _consequences(case)
        trace.extend(steps)
    bearing = [step.dispute for step in trace if step.dispute]
    asks: tuple[str, ...] = ()
    alternatives: tuple[Alternative, ...] = ()
    also_reads: set[str] = set()
    reason = decided.finding
    if decided.asks:
        answers = _answers(case, decided.asks, opinions)
        alternatives = tuple(alt for alt, _ in answers)
        asks = tuple(dict.fromkeys(key for alt in alternatives for key in alt.facts))
        for _, sub in answers:
            bearing.extend(sub.opinions_bearing)
            also_reads |= sub.reads
        reason += "; " + "; ".join(
            f"{', '.join(f'{k}: {describe(v)}' for k, v in alt.facts.items())} -> {alt.verdict}"
            for alt in alternatives
        )
    return Ruling(
        verdict=decided.decides or "undetermined",
        reason=reason,
        trace=tuple(trace),
        opinions=opinions.model_dump(),
        opinions_bearing=tuple(dict.fromkeys(bearing)),
        consequences=consequences,
        asks=asks,
        alternatives=alternatives,
        also_reads=tuple(sorted(also_reads)),
    )


def _answers(case: Case, field: str, opinions: Opinions) -> list[tuple[Alternative, Ruling]]:
    """The case judged with each value the unstated `field` can take (contradictions skipped)."""
    answers = []
    for value in _field_values(field):
        try:
            answered = Case.model_validate({**case.model_dump(), field: value})
        except ValidationError:
            continue
        ruling = judge(answered, opinions)
        nested = ruling.alternatives or (
            Alternative(facts={}, verdict=ruling.verdict, reason=ruling.reason),
        )
        for alt in nested:
            facts = {field: value, **alt.facts}
            answers.append((alt.model_copy(update={"facts": facts}), ruling))
    return answers


def _field_values(field: str) -> list[Any]:
    """Every stated value of a top-level case field: its Literal choices, or true and false."""
    annotation = Case.model_fields[field].annotation
    union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    args = typing.get_args(annotation) if union else (annotation,)
    values: list[Any] = []
    for arg in args:
        if typing.get_origin(arg) is typing.Literal:
            values.extend(v for v in typing.get_args(arg) if v != "not_stated")
        elif arg is bool:
            values.extend((True, False))
    return values


def _consequences(case: Case) -> tuple[Consequences, tuple[TraceStep, ...]]:
    """What exile entails: for life or until the high priest dies, and where (Makkot 2:7)."""
    life, life_reason = exile_for_life(case)
    where, within = place_of_exile(case)
    citations = dict.fromkeys(part for step in (life, where) for part in step.citation.split("; "))
    consequences = Consequences(
        life_exile=life_reason is not None,
        life_exile_reason=life_reason,
        exile_within=within,
        citation="; ".join(citations),
    )
    return consequences, (life, where)


def bearing_disputes(case: Case) -> tuple[str, ...]:
    """Every dispute that bears on the case under some combination of the other opinions.

    A dispute bears when a rule consults it; the search widens until no new dispute appears.

    Parameters
    ----------
    case
        The facts of the case.

    Returns
    -------
    tuple of str
        Dispute keys, in the order they were first consulted.
    """
    bearing: tuple[str, ...] = ()
    while True:  # the disputes no verdict rule reads never bear
        found = {
            key for _, ruling in _rulings_over(case, bearing) for key in ruling.opinions_bearing
        }
        widened = tuple(
            key for key in DISPUTES if (key in found or key in bearing) and key not in NOT_JUDGED
        )
        if widened == bearing:
            return bearing
        bearing = widened


def rulings_across_opinions(case: Case) -> list[tuple[dict[str, str], Ruling]]:
    """Judge the case under every combination of the disputes that bear on it.

    Parameters
    ----------
    case
        The facts of the case.

    Returns
    -------
    list of (dict, Ruling)
        The opinions set on the bearing disputes (defaults first) and the ruling under them; the
        other disputes keep their defaults.
    """
    return _rulings_over(case, bearing_disputes(case))


def _rulings_over(case: Case, keys: tuple[str, ...]) -> list[tuple[dict[str, str], Ruling]]:
    rulings = []
    for sages in itertools.product(*(DISPUTES[key].sages for key in keys)):
        chosen = dict(zip(keys, sages, strict=True))
        rulings.append((chosen, judge(case, Opinions.model_validate(chosen))))
    return rulings
