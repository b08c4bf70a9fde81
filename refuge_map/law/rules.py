"""The rules of exile as small named units, each citing its source and naming what it read.

A verdict rule takes the case and the opinions and returns a `TraceStep`, or ``None`` when it
does not apply. A rule may return ``None`` only on ``act`` or ``intent``, which the first
rule, `intent_of_the_act`, always reads, or on a fact (or opinion) that an earlier rule always
reads and records when it bears (the exemption of Mishnah Sanhedrin 9:2 in
`meant_for_exempt_target` and `meant_for_another_person`, the duty in `blow_of_duty`). A rule
that looks at any other fact, even only to find that it does not apply, returns a step that
decides nothing, says why, and names that fact in its ``reads``: a verdict never turns on a
fact the trace does not show was read (a property test holds every rule to this). A step
with ``decides`` set ends the judgment; a step with ``asks`` set names the unstated fact it
needs, and the judge answers it every way (`refuge_map.law.judge`).

The order follows the sources: first the capital rules (Numbers 35:16-21, Mishnah Sanhedrin
9:2), then the enemy (under R. Yose bar Judah he is executed whatever the manner of the death),
the resident alien (Mishnah Makkot 2:3) and the rules of the act, the place and the person
(Mishnah Makkot 2:1-2:3, Numbers 35:23), and last the exile itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from refuge_map.law.case import (
    DELIBERATE,
    DIRECTED_ACTS,
    EXEMPT_TARGETS,
    MOVEMENT_OF_ACT,
    THROWS,
    VULNERABILITY,
    Case,
)
from refuge_map.law.opinions import Opinions
from refuge_map.law.ruling import ExileWithin, TraceStep, Verdict

VerdictRule = Callable[[Case, Opinions], TraceStep | None]

NOT_SAID = "the shipped texts do not say whether he goes into exile"
MURDERER = "a murderer, 'the murderer shall surely be put to death'"
STATUS_NOUNS = {"israelite": "an Israelite", "resident_alien": "a resident alien"}
INTENT_PHRASES = {
    "kill_victim": "meant to kill the one he killed",
    "kill_another_person": "meant to kill another person",
    "kill_animal": "meant to kill an animal",
    "kill_gentile": "meant to kill a gentile",
    "kill_nonviable_fetus": "meant to kill a non-viable fetus",
    "strike": "meant to strike, not to kill",
}
ACT_PHRASES = {
    "pushing_roller": "pushing a roller, it fell",
    "pulling_up_roller": "pulling up a roller, it fell back",
    "lowering_cask": "lowering a cask, it fell",
    "raising_cask": "raising a cask, it fell",
    "descending_ladder": "coming down a ladder, he fell",
    "climbing_ladder": "going up a ladder, he fell",
    "blade_slipped": "the iron slipped from its handle",
    "chip_flew": "a chip flew from the log being split",
    "throwing_stone": "throwing a stone",
    "striking": "a blow",
    "pushing_person": "pushing",
    "hurling": "hurling something",
    "other_movement": "an act of another kind",
}


def _step(
    rule: str,
    citation: str,
    finding: str,
    reads: tuple[str, ...],
    *,
    decides: Verdict | None = None,
    dispute: str | None = None,
    opinion: str | None = None,
    asks: str | None = None,
) -> TraceStep:
    return TraceStep(
        rule=rule,
        citation=citation,
        dispute=dispute,
        opinion=opinion,
        finding=finding,
        reads=reads,
        decides="undetermined" if asks else decides,
        asks=asks,
    )


def _ask(rule: str, citation: str, field: str, why: str, reads: tuple[str, ...]) -> TraceStep:
    """A step that needs a fact the case does not state."""
    return _step(rule, citation, f"the case does not say {why}", reads, asks=field)


def _exempt_from_death(case: Case, opinions: Opinions) -> str | None:
    """Why he is exempt from death though he meant a blow, or None (Mishnah Sanhedrin 9:2)."""
    if case.intent in EXEMPT_TARGETS:
        return f"he meant to kill {EXEMPT_TARGETS[case.intent]}"
    ages = case.aimed_at in ("adult", "minor") and case.aimed_at != case.landed_on
    if (case.intent == "kill_another_person" or ages) and opinions.other_victim == "shimon":
        return "it was meant for another person (R. Shimon)"
    return None


# --- Is he a murderer? (Numbers 35:16-21; Mishnah Sanhedrin 9:2) ---------------------------


def intent_of_the_act(case: Case, opinions: Opinions) -> TraceStep:
    """Say what he meant: nothing (an accident), to strike, or to kill someone."""
    act, reads = ACT_PHRASES[case.act], ("act", "intent")
    if case.intent is None:
        return _ask(
            "intent_of_the_act",
            "Numbers 35:16-23",
            "intent",
            f"what he meant ({act}): whether he meant to kill or strike, or nothing",
            reads,
        )
    if case.intent == "none":
        # Numbers 35:22-23: suddenly, without enmity... seeing him not; Mishnah Makkot 2:1:
        # the following go into banishment: one who kills in error.
        return _step(
            "intent_of_the_act",
            "Numbers 35:22-23; Mishnah Makkot 2:1",
            f"in error, meaning no one harm: {act}",
            reads,
        )
    return _step(
        "intent_of_the_act",
        "Numbers 35:16-21; Mishnah Sanhedrin 9:2",
        f"{act}: he {INTENT_PHRASES[case.intent]}",
        reads,
    )


def meant_for_exempt_target(case: Case, opinions: Opinions) -> TraceStep | None:
    """A blow meant for an animal, a gentile or a non-viable fetus that killed a person."""
    # Mishnah Sanhedrin 9:2: he intended to kill an animal and killed a person... he is exempt.
    target = EXEMPT_TARGETS.get(str(case.intent))
    if target is None:
        return None
    return _step(
        "meant_for_exempt_target",
        "Mishnah Sanhedrin 9:2",
        f"he meant to kill {target} and killed a person: exempt from death",
        ("intent",),
    )


def meant_for_another_person(case: Case, opinions: Opinions) -> TraceStep | None:
    """A blow meant for one person that killed another (R. Shimon's dispute)."""
    if case.intent not in DELIBERATE:
        return None
    reads = ("intent", "aimed_at", "landed_on")
    ages = case.aimed_at in ("adult", "minor") and case.aimed_at != case.landed_on
    if case.intent != "kill_another_person" and not ages:
        where = (
            f"aimed at the {case.aimed_at}, landed on the {case.landed_on}"
            if case.aimed_at
            else "the case names no spot or person he aimed at"
        )
        return _step(
            "meant_for_another_person",
            "Mishnah Sanhedrin 9:2",
            f"{where}: not meant for another person",
            reads,
        )
    # Mishnah Sanhedrin 9:2: R. Shimon says, even if he intended this one and killed that one,
    # he is exempt.
    sage = opinions.other_victim
    finding = (
        "it was meant for one person and killed another: exempt from death"
        if sage == "shimon"
        else "it was meant for one person and killed another: judged as if meant for his victim"
    )
    return _step(
        "meant_for_another_person",
        "Mishnah Sanhedrin 9:2",
        finding,
        reads,
        dispute="other_victim",
        opinion=sage,
    )


def _is_blow_of_duty(case: Case) -> bool:
    """A blow meant to strike, not to kill, given as a duty (Mishnah Makkot 2:2)."""
    return case.intent == "strike" and case.purpose != "optional"


def blow_of_duty(case: Case, opinions: Opinions) -> TraceStep | None:
    """A deliberate blow given as a duty (discipline, the court's lashes) is not murder."""
    if case.intent not in DELIBERATE:
        return None
    reads = ("intent", "purpose")
    if case.purpose == "optional":
        said = "no duty is stated: the blow is judged by the rules of murder"
        return _step("blow_of_duty", "Mishnah Makkot 2:2", said, reads)
    duty = case.purpose.replace("_", " ")
    if not _is_blow_of_duty(case):
        # Mishnah Makkot 2:2 speaks of the disciplining blow; one who meant to kill was not
        # disciplining: a construction, said so.
        said = (
            f"he meant to kill: a duty ({duty}) covers a blow, not a killing he meant, so it is "
            "judged by the rules of murder (a construction)"
        )
        return _step("blow_of_duty", "Mishnah Makkot 2:2; Numbers 35:16-21", said, reads)
    # Mishnah Makkot 2:2: the disciplining blow is judged for exile (Abba Shaul excludes it from
    # exile only), so it is not the murderer's blow: a construction, said so.
    return _step(
        "blow_of_duty",
        "Mishnah Makkot 2:2",
        f"a blow of duty ({duty}), judged for exile and not as murder (a construction)",
        reads,
    )


def hatred_or_lying_in_wait(case: Case, opinions: Opinions) -> TraceStep | None:
    """A deliberate push, throw or blow out of hatred or lying in wait makes a murderer."""
    # Skipped on facts earlier steps read: the intent, the exemption, the duty.
    if case.intent not in DELIBERATE or _exempt_from_death(case, opinions):
        return None
    if _is_blow_of_duty(case):
        return None
    reads = ("intent", "enmity", "lying_in_wait")
    if not (case.enmity or case.lying_in_wait):
        return _step(
            "hatred_or_lying_in_wait",
            "Numbers 35:20-21",
            "no enmity and no lying in wait is stated",
            reads,
        )
    # Numbers 35:20-21: if he pushed him out of hatred, or hurled at him any thing, lying in
    # wait... or in enmity struck him with his hand... he is a murderer; Numbers 35:19, 21: the
    # avenger of blood shall put the murderer to death.
    how = "out of hatred" if case.enmity else "lying in wait"
    return _step(
        "hatred_or_lying_in_wait",
        "Numbers 35:20-21",
        f"he did it {how}, and he died: a murderer; the avenger of blood puts him to death "
        "(Numbers 35:19, 21)",
        reads,
        decides="capital",
    )


def _spot_measure(case: Case) -> tuple[bool | None, str, tuple[str, ...], str]:
    """Whether a blow aimed at one spot and landing on another could kill (Sanhedrin 9:2)."""
    aimed, landed = case.aimed_at, case.landed_on
    where_aimed, where_landed = (
        case.force_could_kill_where_aimed,
        case.force_could_kill_where_landed,
    )
    if aimed == landed:  # one spot: its force is the force where aimed, or where landed
        force = where_landed if where_aimed is None else where_aimed
        reads: tuple[str, ...] = ("aimed_at", "landed_on", "force_could_kill_where_aimed")
        if where_aimed is None:
            reads += ("force_could_kill_where_landed",)
        if force is None:
            return None, "force_could_kill_where_aimed", reads, f"at the {aimed}"
        said = f"aimed at and landed on the same spot, the {aimed}, with"
        said += f"{'' if force else 'out'} enough strength to kill there"
        if where_aimed is None:
            said += " (stated of where it landed, not of where it was aimed: the same spot)"
        return force, said, reads, "Mishnah Sanhedrin 9:2"
    reads = (
        "aimed_at",
        "landed_on",
        "force_could_kill_where_aimed",
        "force_could_kill_where_landed",
    )
    if where_aimed is None:
        return None, "force_could_kill_where_aimed", reads, f"at the {aimed}"
    landed_said = f"with{'' if where_landed else 'out'} enough"
    if where_landed is None:
        # Mishnah Sanhedrin 9:2: the heart dies of a lighter blow than the loins, a minor than an
        # adult; so enough at the loins is enough at the heart, too little at the heart too
        # little at the loins (the order the case validator also holds).
        more_vulnerable = VULNERABILITY[str(landed)][1] > VULNERABILITY[str(aimed)][1]
        if more_vulnerable != where_aimed:
            return None, "force_could_kill_where_landed", reads, f"at the {landed}"
        where_landed = where_aimed
        landed_said = (
            f"where a blow that {'could' if where_aimed else 'could not'} kill at the {aimed} "
            f"{'could' if where_aimed else 'could not'} kill (the case does not state the force "
            "there)"
        )
    said = f"aimed at the {aimed} with{'' if where_aimed else 'out'} enough strength to kill "
    said += f"there, landed on the {landed} {landed_said}"
    return where_aimed and where_landed, said, reads, "Mishnah Sanhedrin 9:2"


def _instrument_measure(case: Case) -> tuple[bool | None, str, tuple[str, ...], str]:
    """Whether the instrument of a deliberate act could kill (Numbers 35:16-18, 21)."""
    weapon = case.weapon
    if weapon == "iron":
        # Numbers 35:16: an instrument of iron; the verse sets no test of its size.
        return True, "with an instrument of iron", ("instrument",), "Numbers 35:16"
    if weapon in ("hand", "not_stated") and case.act in ("pushing_person", "striking"):
        reads = ("instrument", "force_could_kill_where_landed")
        if weapon == "not_stated" and case.act == "striking":
            return None, "instrument", ("instrument",), "what the blow was struck with"
        force = case.force_could_kill_where_landed
        if force is None:
            return None, "force_could_kill_where_landed", reads, "whether its force could kill"
        could = "could" if force else "could not"
        return force, f"with a force that {could} kill", reads, "Mishnah Sanhedrin 9:2"
    if weapon == "not_stated":
        return None, "instrument", ("instrument",), "what he hurled"
    # Numbers 35:17-18: a stone, or a weapon of wood, in the hand, "whereby a man may die".
    reads = ("instrument", "instrument_could_kill")
    if case.instrument_could_kill is None:
        return None, "instrument_could_kill", reads, f"whether the {weapon} could kill"
    could = "could" if case.instrument_could_kill else "could not"
    return case.instrument_could_kill, f"with {weapon} that {could} kill", reads, "Numbers 35:17-18"


def murderer_by_measure(case: Case, opinions: Opinions) -> TraceStep | None:
    """A deliberate act whose instrument or force could kill makes a murderer."""
    # Skipped on facts earlier steps read: the intent, the exemption, the duty.
    if case.intent not in DELIBERATE or _exempt_from_death(case, opinions):
        return None
    if _is_blow_of_duty(case):
        return None
    reads: tuple[str, ...] = ("intent",)
    if case.intent != "strike" and case.aimed_at is None and case.weapon == "not_stated":
        # Mishnah Sanhedrin 9:2: one who meant to kill and killed is liable (R. Shimon disputes
        # only the other person); the verses measure only a named instrument.
        return _step(
            "murderer_by_measure",
            "Mishnah Sanhedrin 9:2; Numbers 35:19",
            "he meant to kill and he killed, and no instrument is named to be measured: "
            "liable, a murderer; the avenger of blood puts him to death (Numbers 35:19)",
            (*reads, "aimed_at", "instrument"),
            decides="capital",
        )
    measure = _spot_measure if case.aimed_at else _instrument_measure
    lethal, said, measured, citation = measure(case)
    reads = tuple(dict.fromkeys((*reads, "aimed_at", *measured)))
    if lethal is None:
        return _ask(
            "murderer_by_measure", "Numbers 35:16-18; Mishnah Sanhedrin 9:2", said, citation, reads
        )
    if case.aimed_at is None:  # the measure read that no spot was named: say so, assert nothing
        said = f"(the case names no spot he aimed at) {said}"
    if not lethal:
        return _step("murderer_by_measure", citation, f"{said}: exempt from death", reads)
    return _step(
        "murderer_by_measure",
        citation,
        f"{said}, and he died: {MURDERER}; the avenger of blood puts him to death (Numbers 35:19)",
        reads,
        decides="capital",
    )


# --- Is the manslayer exiled? (Mishnah Makkot 2:1-2:3; Numbers 35:15, 23) ------------------


def enemy(case: Case, opinions: Opinions) -> TraceStep:
    """An enemy (the first Tanna, R. Yose bar Judah, R. Shimon), before the manner of death."""
    if not case.enmity:
        return _step("enemy", "Mishnah Makkot 2:3", "no enmity is stated", ("enmity",))
    # Mishnah Makkot 2:3: an enemy does not go into banishment. R. Yose bar Judah: an enemy is
    # executed, for it is as if he has been warned. R. Shimon: where it can be said he killed
    # wittingly, he is not banished; where he killed unwittingly, he is.
    sage = opinions.enemy
    common = {"dispute": "enemy", "opinion": sage}
    if sage == "yose_bar_judah":
        return _step(
            "enemy",
            "Mishnah Makkot 2:3",
            "an enemy is executed, for it is as if he has been warned (his intent is presumed, "
            "however the death came about)",
            ("enmity",),
            decides="capital",
            **common,
        )
    if sage == "first_tanna":
        return _step(
            "enemy",
            "Mishnah Makkot 2:3",
            "an enemy does not go into banishment",
            ("enmity",),
            decides="no_exile",
            **common,
        )
    unwitting = case.clearly_unwitting
    how = "it is clear he killed unwittingly" if unwitting else "it is not stated to be clear "
    how += "" if unwitting else "that he killed unwittingly, so it can be said he killed wittingly"
    return _step(
        "enemy",
        "Mishnah Makkot 2:3",
        f"an enemy of whom {how}: he {'goes' if unwitting else 'does not go'} into banishment",
        ("enmity", "clearly_unwitting"),
        decides=None if unwitting else "no_exile",
        **common,
    )


def israelite_and_resident_alien(case: Case, opinions: Opinions) -> TraceStep:
    """Israelites are exiled for each other; a resident alien only for a resident alien."""
    # Numbers 35:15: for the children of Israel, and for the stranger and for the settler among
    # them; narrowed by Mishnah Makkot 2:3: all go into banishment for an Israelite, and
    # Israelites on their account, except for a resident alien; and a resident alien does not
    # go into banishment except for another resident alien.
    killer, victim = case.killer.status, case.victim.status
    reads = ("killer.status", "victim.status")
    citation = "Mishnah Makkot 2:3; Numbers 35:15"
    if killer == victim:
        who = STATUS_NOUNS[killer]
        said = "neither is stated to be a resident alien" if killer == "israelite" else ""
        finding = said or f"{who} goes into banishment for {who}"
        return _step("israelite_and_resident_alien", citation, finding, reads)
    finding = (
        "a resident alien goes into banishment only for a resident alien"
        if killer == "resident_alien"
        else "Israelites do not go into banishment for a resident alien"
    )
    return _step("israelite_and_resident_alien", citation, finding, reads, decides="no_exile")


def downward_movement(case: Case, opinions: Opinions) -> TraceStep | None:
    """Only a death in the course of a downward movement exiles (every act with a direction).

    The general principle is said of deaths in error; a blow meant to strike (a duty) is judged
    by Mishnah Makkot 2:2 without it.
    """
    if case.intent != "none" or (case.act not in MOVEMENT_OF_ACT and case.act not in DIRECTED_ACTS):
        return None
    reads = ("act", "movement")
    # Mishnah Makkot 2:1: this is the general principle: whenever the death was caused in the
    # course of a downward movement, he goes into banishment; not downward, he does not.
    if case.direction is None:
        return _ask(
            "downward_movement",
            "Mishnah Makkot 2:1",
            "movement",
            "whether the death came in the course of a downward movement",
            reads,
        )
    if case.direction == "downward":
        return _step(
            "downward_movement", "Mishnah Makkot 2:1", "in the course of a downward movement", reads
        )
    return _step(
        "downward_movement",
        "Mishnah Makkot 2:1",
        f"not in the course of a downward movement ({case.direction}): he does not go into "
        "banishment",
        reads,
        decides="no_exile",
    )


def stone_whereby_a_man_may_die(case: Case, opinions: Opinions) -> TraceStep | None:
    """A stone cast in error exiles only if it is one 'whereby a man may die'."""
    if case.intent != "none" or case.act != "throwing_stone":
        return None
    reads = ("act", "instrument_could_kill")
    # Numbers 35:23: or with any stone, whereby a man may die, seeing him not, and cast it.
    if case.instrument_could_kill is None:
        return _ask(
            "stone_whereby_a_man_may_die",
            "Numbers 35:23",
            "instrument_could_kill",
            "whether the stone was one 'whereby a man may die'",
            reads,
        )
    if case.instrument_could_kill:
        return _step(
            "stone_whereby_a_man_may_die",
            "Numbers 35:23",
            "a stone 'whereby a man may die'",
            reads,
        )
    return _step(
        "stone_whereby_a_man_may_die",
        "Numbers 35:23",
        "a stone that could not kill is not the verse's 'any stone, whereby a man may die': "
        "he is not the manslayer it sends to the city",
        reads,
        decides="no_exile",
    )


def _by_opinion(
    rule: str,
    dispute: str,
    sage: str,
    exiles: bool,
    finding: str,
    reads: tuple[str, ...],
    citation: str = "Mishnah Makkot 2:1",
) -> TraceStep:
    """A step decided by one sage's view: exile continues, no exile ends the judgment."""
    verdict_text = "he goes into banishment" if exiles else "he does not go into banishment"
    return _step(
        rule,
        citation,
        f"{finding}: {verdict_text}",
        reads,
        decides=None if exiles else "no_exile",
        dispute=dispute,
        opinion=sage,
    )


def blade_slipped(case: Case, opinions: Opinions) -> TraceStep | None:
    """The iron slipped from its handle and killed (Rabbi against the Sages)."""
    # Mishnah Makkot 2:1: Rabbi says he does not go into banishment; the Sages say he does.
    if case.act != "blade_slipped":
        return None
    sage = opinions.blade
    return _by_opinion(
        "blade_slipped", "blade", sage, sage == "sages", "the iron slipped from its handle", ()
    )


def chip_flew(case: Case, opinions: Opinions) -> TraceStep | None:
    """A chip flew from the log being split and killed (Rabbi against the Sages)."""
    # Mishnah Makkot 2:1: Rabbi says he goes into banishment; the Sages say he does not.
    if case.act != "chip_flew":
        return None
    sage = opinions.chip
    return _by_opinion(
        "chip_flew", "chip", sage, sage == "rabbi", "it flew from the log being split", ()
    )


def head_put_out(case: Case, opinions: Opinions) -> TraceStep | None:
    """The victim put his head out after the stone had left the hand (R. Eliezer ben Jacob)."""
    if case.act not in THROWS:
        return None
    sage = opinions.head_out
    if sage == "first_tanna":
        # Mishnah Makkot 2:2: if a man threw a stone into the public domain and killed, he goes
        # into banishment: the anonymous clause asks nothing of when the victim came.
        return _step(
            "head_put_out",
            "Mishnah Makkot 2:2",
            "the anonymous Mishnah exiles the thrower without asking when the victim came",
            (),
            dispute="head_out",
            opinion=sage,
        )
    reads = ("victim_put_head_out_after_throw",)
    # Mishnah Makkot 2:2: R. Eliezer ben Jacob says, if after the stone had left his hand another
    # put out his head and caught it, the thrower is exempt.
    if case.victim_put_head_out_after_throw is None:
        step = _ask(
            "head_put_out",
            "Mishnah Makkot 2:2",
            "victim_put_head_out_after_throw",
            "whether the victim put his head out after the throw",
            reads,
        )
        return step.model_copy(update={"dispute": "head_out", "opinion": sage})
    put_out = case.victim_put_head_out_after_throw
    return _by_opinion(
        "head_put_out",
        "head_out",
        sage,
        not put_out,
        "the victim put his head out after the stone left the hand"
        if put_out
        else "the victim was in the way before the throw",
        reads,
        citation="Mishnah Makkot 2:2",
    )


def right_of_entry(case: Case, opinions: Opinions) -> TraceStep:
    """Only where the victim had a right to be, like the forest, does the killer go into exile."""
    # Mishnah Makkot 2:2; Deut 19:5: like the forest, a place victim and slayer may both enter;
    # this excludes the householder's courtyard, where they may not.
    reads = ("place", "victim_right_of_entry")
    citation = "Mishnah Makkot 2:2"
    where = (case.place or "").replace("_", " ")
    if case.place is None:
        return _step(
            "right_of_entry", citation, "no place the victim could not enter is stated", ("place",)
        )
    if case.entry is None:
        return _ask(
            "right_of_entry",
            citation,
            "victim_right_of_entry",
            f"whether the victim had a right to enter the {where}",
            reads,
        )
    if case.entry:
        return _step(
            "right_of_entry", citation, f"the victim had a right to be in the {where}", reads
        )
    return _step(
        "right_of_entry",
        citation,
        f"the victim had no right to be in the {where}: he does not go into banishment",
        reads,
        decides="no_exile",
    )


def optional_act(case: Case, opinions: Opinions) -> TraceStep:
    """Only an optional act, like hewing wood, exiles (Abba Shaul)."""
    reads = ("purpose",)
    if case.purpose == "optional":
        return _step("optional_act", "Mishnah Makkot 2:2", "no duty is stated", reads)
    # Mishnah Makkot 2:2: Abba Shaul says, hewing wood is optional; this excludes a father
    # beating his son, a master disciplining his pupil, an agent of the court.
    sage = opinions.duty
    return _by_opinion(
        "optional_act",
        "duty",
        sage,
        sage == "first_tanna",
        f"a duty ({case.purpose.replace('_', ' ')})",
        reads,
        citation="Mishnah Makkot 2:2",
    )


def father_and_son(case: Case, opinions: Opinions) -> TraceStep | None:
    """A father is exiled for his son and a son for his father."""
    # Mishnah Makkot 2:3: the father goes into banishment for his son, and the son for his father.
    if case.relation not in ("father_of_victim", "son_of_victim"):
        said = "the killer is not stated to be the victim's father or son"
        return _step("father_and_son", "Mishnah Makkot 2:3", said, ("relation",))
    who = "a father for his son" if case.relation == "father_of_victim" else "a son for his father"
    return _step(
        "father_and_son", "Mishnah Makkot 2:3", f"{who} goes into banishment", ("relation",)
    )


def blind_killer(case: Case, opinions: Opinions) -> TraceStep:
    """A blind killer (R. Judah against R. Meir)."""
    reads = ("killer.blind",)
    if not case.killer.blind:
        return _step(
            "blind_killer", "Mishnah Makkot 2:3", "the killer is not said to be blind", reads
        )
    # Mishnah Makkot 2:3: a blind person does not go into banishment (R. Judah); R. Meir: he does.
    sage = opinions.blind
    return _by_opinion(
        "blind_killer",
        "blind",
        sage,
        sage == "meir",
        "the killer is blind",
        reads,
        citation="Mishnah Makkot 2:3",
    )


def seeing_him_not(case: Case, opinions: Opinions) -> TraceStep | None:
    """An accident by one who saw his victim is not the verse's 'seeing him not'."""
    if case.intent != "none":
        return None
    reads = ("killer_saw_victim",)
    # Numbers 35:23: or with any stone, whereby a man may die, seeing him not.
    if case.killer_saw_victim:
        return _step(
            "seeing_him_not",
            "Numbers 35:23",
            f"he saw the victim, and the verse speaks of one 'seeing him not'; {NOT_SAID}",
            reads,
            decides="undetermined",
        )
    said = (
        "he did not see the victim"
        if case.killer_saw_victim is False
        else ("the case does not say he saw the victim")
    )
    return _step("seeing_him_not", "Numbers 35:23", said, reads)


def exile_left_open(case: Case, opinions: Opinions) -> TraceStep | None:
    """Sanhedrin 9:2's 'exempt' frees him from death; what it leaves open about exile."""
    if case.intent not in DELIBERATE and case.intent not in EXEMPT_TARGETS:
        return None
    if _is_blow_of_duty(case):
        return None  # a blow of duty (read by blow_of_duty): Mishnah Makkot 2:2 judges it
    why = _exempt_from_death(case, opinions) or "his blow could not kill"
    reads = ("intent", "purpose") if case.intent == "strike" else ("intent",)
    sage = opinions.exempt_exile
    # Mishnah Sanhedrin 9:2 says 'exempt' (from death) and no more; Mishnah Makkot 2:1 exiles
    # 'one who kills in error'. Maimonides (Hilchot Rotzeach 4:1-2, outside the shipped texts):
    # one who kills intentionally is never exiled.
    if sage == "maimonides" and case.intent in DELIBERATE:
        return _step(
            "exile_left_open",
            "Rambam, Hilchot Rotzeach 4:1-2 (outside the shipped texts)",
            f"{why}: exempt from death, and not exiled, for one who kills intentionally is "
            "never exiled",
            reads,
            decides="no_exile",
            dispute="exempt_exile",
            opinion=sage,
        )
    return _step(
        "exile_left_open",
        "Mishnah Sanhedrin 9:2; Mishnah Makkot 2:1",
        f"{why}: Sanhedrin 9:2 frees him from death; Makkot 2:1 exiles 'one who kills in "
        f"error', and {NOT_SAID}",
        reads,
        decides="undetermined",
        dispute="exempt_exile" if case.intent in DELIBERATE else None,
        opinion=sage if case.intent in DELIBERATE else None,
    )


def manslayer_goes_into_exile(case: Case, opinions: Opinions) -> TraceStep:
    """Whoever passed every rule killed in error and goes into banishment."""
    # Mishnah Makkot 2:1: the following go into banishment: one who kills in error.
    # Numbers 35:25: he shall dwell there until the death of the high priest.
    return _step(
        "manslayer_goes_into_exile",
        "Mishnah Makkot 2:1; Numbers 35:25",
        "he killed in error: he goes into banishment",
        (),
        decides="exile",
    )


VERDICT_RULES: tuple[VerdictRule, ...] = (
    intent_of_the_act,
    meant_for_exempt_target,
    meant_for_another_person,
    blow_of_duty,
    hatred_or_lying_in_wait,
    murderer_by_measure,
    enemy,
    israelite_and_resident_alien,
    exile_left_open,
    downward_movement,
    stone_whereby_a_man_may_die,
    blade_slipped,
    chip_flew,
    head_put_out,
    right_of_entry,
    optional_act,
    father_and_son,
    blind_killer,
    seeing_him_not,
    manslayer_goes_into_exile,
)


# --- What exile entails (Mishnah Makkot 2:7) ------------------------------------------------


def exile_for_life(case: Case) -> tuple[TraceStep, str | None]:
    """Return the step and the reason he never leaves, if he never does."""
    reads = ("killer.high_priest", "victim.high_priest")
    # Mishnah Makkot 2:7: one who kills a high priest, or a high priest who kills, can never come
    # away from that place.
    if case.victim.high_priest or case.killer.high_priest:
        reason = "he killed a high priest" if case.victim.high_priest else "a high priest killed"
        step = _step("exile_for_life", "Mishnah Makkot 2:7", f"{reason}: exile for life", reads)
        return step, reason
    # Numbers 35:25: he shall dwell there until the death of the high priest.
    step = _step("exile_for_life", "Numbers 35:25", "until the death of the high priest", reads)
    return step, None


def place_of_exile(case: Case) -> tuple[TraceStep, ExileWithin]:
    """Return the step and where he is exiled: to a city, within it, or to another city."""
    reads = ("inside_city_of_refuge", "killer.levite")
    if not case.inside_city_of_refuge:
        # Numbers 35:11; Mishnah Makkot 2:7 speaks of the Levite only after a killing "in that
        # city", so a Levite who killed elsewhere flees like anyone else.
        who = "a Levite who killed outside his city" if case.killer.levite else "he"
        step = _step("place_of_exile", "Numbers 35:11", f"{who} flees to a city of refuge", reads)
        return step, "city_of_refuge"
    # Mishnah Makkot 2:7: if he slew in that city he is banished from one neighbourhood to
    # another; and a Levite is banished from one city to another.
    if case.killer.levite:
        step = _step(
            "place_of_exile",
            "Mishnah Makkot 2:7",
            "a Levite who killed in his city is banished from one city to another",
            reads,
        )
        return step, "another_city"
    step = _step(
        "place_of_exile",
        "Mishnah Makkot 2:7",
        "he killed inside a city of refuge: banished from one neighbourhood to another",
        reads,
    )
    return step, "neighbourhood"


def describe(value: Any) -> str:
    """A fact's value as a case file writes it (by identity: 1 and 0 are numbers, not true and
    false, though they compare equal to them)."""
    if value is None:
        return "null"
    if value is True or value is False:
        return str(value).lower()
    return str(value)
