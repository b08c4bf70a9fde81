"""Judge a case: run the rules in order under a set of opinions and gather the ruling."""

from __future__ import annotations

import itertools

from refuge_map.law.case import Case
from refuge_map.law.opinions import DISPUTES, Opinions
from refuge_map.law.rules import VERDICT_RULES, exile_for_life, place_of_exile
from refuge_map.law.ruling import Consequences, Ruling, TraceStep


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
        and for exile the consequences.
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
    return Ruling(
        verdict=decided.decides or "undetermined",
        reason=decided.finding,
        trace=tuple(trace),
        opinions=opinions.model_dump(),
        opinions_bearing=tuple(step.dispute for step in trace if step.dispute),
        consequences=consequences,
    )


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
    """
    bearing: tuple[str, ...] = ()
    while True:
        found = {
            key for _, ruling in _rulings_over(case, bearing) for key in ruling.opinions_bearing
        }
        widened = tuple(key for key in DISPUTES if key in found or key in bearing)
        if widened == bearing:
            return bearing
        bearing = widened


def rulings_across_opinions(case: Case) -> list[tuple[dict[str, str], Ruling]]:
    """Judge the case under every combination of the disputes that bear on it.

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
