"""The rules of exile as small named units, each citing its source and naming what it read.

A verdict rule takes the case and the opinions and returns a `TraceStep`, or ``None`` when it
does not apply. A rule may decide not to apply only on ``act`` or ``intended_target``, which the
first rule, `kind_of_killing`, always reads; any other fact it looks at must appear in its
``reads``. A step with ``decides`` set ends the judgment.
"""

from __future__ import annotations

from collections.abc import Callable

from refuge_map.law.case import BLOWS, MOVEMENT_OF_ACT, THROWS, VULNERABILITY, Case
from refuge_map.law.opinions import Opinions
from refuge_map.law.ruling import ExileWithin, TraceStep, Verdict

VerdictRule = Callable[[Case, Opinions], TraceStep | None]

NOT_IN_SEEDS = "the seeds do not say whether he goes into exile"
EXEMPT_TARGETS = {
    "an_animal": "an animal",
    "a_gentile": "a gentile",
    "a_nonviable_infant": "a non-viable infant",
}
STATUS_NOUNS = {"israelite": "an Israelite", "resident_alien": "a resident alien"}
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
) -> TraceStep:
    return TraceStep(
        rule=rule,
        citation=citation,
        dispute=dispute,
        opinion=opinion,
        finding=finding,
        reads=reads,
        decides=decides,
    )


# --- Is he a manslayer at all? (Numbers 35:16-23; Mishnah Sanhedrin 9:2) -------------------


def kind_of_killing(case: Case, opinions: Opinions) -> TraceStep:
    """Say whether the death came from an accident or from a blow meant for someone."""
    act = ACT_PHRASES[case.act]
    if case.intended_target == "nobody":
        # Numbers 35:11: a city of refuge for one who kills someone by accident.
        return _step(
            "kind_of_killing", "Numbers 35:11", f"an accident: {act}", ("act", "intended_target")
        )
    # Numbers 35:16-23: a blow, push or throw that was meant for someone.
    target = case.intended_target.replace("_", " ")
    return _step(
        "kind_of_killing",
        "Numbers 35:16-23",
        f"a deliberate act ({act}) meant for {target}",
        ("act", "intended_target"),
    )


def meant_for_exempt_target(case: Case, opinions: Opinions) -> TraceStep | None:
    """A blow meant for an animal, a gentile or a non-viable infant that killed a person."""
    # Mishnah Sanhedrin 9:2: he intended to kill an animal and killed a person... he is exempt.
    target = EXEMPT_TARGETS.get(case.intended_target)
    if target is None:
        return None
    return _step(
        "meant_for_exempt_target",
        "Mishnah Sanhedrin 9:2",
        f"he meant to kill {target} and killed a person: exempt from death; {NOT_IN_SEEDS}",
        ("intended_target",),
        decides="undetermined",
    )


def meant_for_another_person(case: Case, opinions: Opinions) -> TraceStep | None:
    """A blow meant for one person that killed another (R. Shimon's dispute)."""
    # Mishnah Sanhedrin 9:2: R. Shimon says, even if he intended this one and killed that one,
    # he is exempt.
    if case.intended_target != "another_person":
        return None
    sage = opinions.other_victim
    exempt = sage == "shimon"
    finding = (
        f"he meant this one and killed that one: exempt from death; {NOT_IN_SEEDS}"
        if exempt
        else "he meant this one and killed that one: judged as if he had meant his victim"
    )
    return _step(
        "meant_for_another_person",
        "Mishnah Sanhedrin 9:2",
        finding,
        ("intended_target",),
        decides="undetermined" if exempt else None,
        dispute="other_victim",
        opinion=sage,
    )


def _force_where_landed(case: Case) -> bool | None:
    """The force where the blow landed, as stated or as follows from where it was aimed."""
    if case.force_could_kill_where_landed is not None:
        return case.force_could_kill_where_landed
    aimed, landed = VULNERABILITY[str(case.aimed_at)][1], VULNERABILITY[str(case.landed_on)][1]
    # Mishnah Sanhedrin 9:2: enough to kill at the loins is enough at the heart (adult, minor).
    return True if case.force_could_kill_where_aimed and landed >= aimed else None


def _force_of_aimed_blow(case: Case) -> tuple[bool | None, str, tuple[str, ...], str]:
    """Whether a blow aimed at one spot and landing on another could kill (Sanhedrin 9:2)."""
    reads = (
        "aimed_at",
        "landed_on",
        "force_could_kill_where_aimed",
        "force_could_kill_where_landed",
    )
    where_aimed, where_landed = case.force_could_kill_where_aimed, _force_where_landed(case)
    if where_aimed is None or where_landed is None:
        spot = case.aimed_at if where_aimed is None else case.landed_on
        said = f"the case does not say whether the blow could kill at the {spot}"
        return None, said, reads, "Mishnah Sanhedrin 9:2"
    said = f"aimed at the {case.aimed_at} with{'' if where_aimed else 'out'} enough strength to "
    said += f"kill there, landed on the {case.landed_on} with{'' if where_landed else 'out'} enough"
    return where_aimed and where_landed, said, reads, "Mishnah Sanhedrin 9:2"


def _force_of_instrument(case: Case) -> tuple[bool | None, str, tuple[str, ...], str]:
    """Whether the instrument of a deliberate blow could kill (Numbers 35:16-18, 21)."""
    if case.instrument == "iron":
        # Numbers 35:16: an instrument of iron; the verse sets no test of its size.
        return True, "he struck him with an instrument of iron", ("instrument",), "Numbers 35:16"
    if case.instrument == "hand" and case.enmity:
        # Numbers 35:21: or in enmity struck him with his hand, that he died.
        said = "in enmity he struck him with his hand"
        return True, said, ("instrument", "enmity"), "Numbers 35:21"
    reads = ("instrument", "instrument_could_kill")
    what = "a blow" if case.instrument == "not_stated" else f"a blow of {case.instrument}"
    # Numbers 35:17-18: a stone, or a weapon of wood, "whereby a man may die".
    citation = "Numbers 35:17-18"
    if case.instrument_could_kill is None:
        return None, f"the case does not say whether {what} could kill", reads, citation
    could = "could" if case.instrument_could_kill else "could not"
    return case.instrument_could_kill, f"{what} that {could} kill", reads, citation


def murderer_by_blow(case: Case, opinions: Opinions) -> TraceStep | None:
    """A deliberate blow that could kill makes a murderer; one that could not is not murder."""
    if case.act != "striking" or case.intended_target == "nobody":
        return None
    measure = _force_of_aimed_blow if case.aimed_at else _force_of_instrument
    lethal, said, measured, citation = measure(case)
    reads = tuple(dict.fromkeys(("aimed_at", *measured)))
    if lethal is None:
        return _step("murderer_by_blow", citation, said, reads, decides="undetermined")
    if not lethal:
        return _step(
            "murderer_by_blow",
            citation,
            f"{said}: exempt from death; {NOT_IN_SEEDS}",
            reads,
            decides="undetermined",
        )
    return _step(
        "murderer_by_blow",
        citation,
        f"{said}, and he died: a murderer, he shall surely be put to death",
        reads,
        decides="capital",
    )


def hatred_or_lying_in_wait(case: Case, opinions: Opinions) -> TraceStep | None:
    """A push or a throw at someone: murder out of hatred or lying in wait, else manslaughter."""
    if case.act not in BLOWS - {"striking"} or case.intended_target == "nobody":
        return None
    reads = ("enmity", "lying_in_wait")
    if case.enmity or case.lying_in_wait:
        # Numbers 35:20-21: if he pushed him out of hatred, or hurled at him lying in wait.
        how = "out of hatred" if case.enmity else "lying in wait"
        return _step(
            "hatred_or_lying_in_wait",
            "Numbers 35:20-21",
            f"he did it {how}, and he died: a murderer, he shall surely be put to death",
            reads,
            decides="capital",
        )
    # Numbers 35:22: but if he pushed him suddenly without enmity, or hurled without lying in wait.
    return _step(
        "hatred_or_lying_in_wait",
        "Numbers 35:22",
        "suddenly, without enmity and without lying in wait: a manslayer",
        reads,
    )


# --- Does the manslayer go into exile? (Mishnah Makkot 2:1-2:3) -----------------------------


def downward_movement(case: Case, opinions: Opinions) -> TraceStep | None:
    """Only a death in the course of a downward movement exiles."""
    if case.act not in MOVEMENT_OF_ACT and case.act != "other_movement":
        return None
    reads = ("act", "movement")
    # Mishnah Makkot 2:1: whenever the death was caused in the course of a downward movement,
    # he goes into banishment; not in the course of a downward movement, he does not.
    if case.direction == "downward":
        return _step(
            "downward_movement",
            "Mishnah Makkot 2:1",
            "in the course of a downward movement",
            reads,
        )
    return _step(
        "downward_movement",
        "Mishnah Makkot 2:1",
        f"not in the course of a downward movement ({case.direction})",
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
    reads = ("victim_put_head_out_after_throw",)
    if not case.victim_put_head_out_after_throw:
        return _step(
            "head_put_out",
            "Mishnah Makkot 2:2",
            "the victim was in the way before the throw",
            reads,
        )
    # Mishnah Makkot 2:2: R. Eliezer ben Jacob says, if after the stone had left his hand another
    # put out his head and caught it, the thrower is exempt.
    sage = opinions.head_out
    return _by_opinion(
        "head_put_out",
        "head_out",
        sage,
        sage == "first_tanna",
        "the victim put his head out after the stone left the hand",
        reads,
        citation="Mishnah Makkot 2:2",
    )


def right_of_entry(case: Case, opinions: Opinions) -> TraceStep:
    """Only where the victim had a right to be, like the forest, does the killer go into exile."""
    # Mishnah Makkot 2:2; Deut 19:5: the forest is open to victim and slayer alike; this excludes
    # the householder's courtyard where the victim has no right of entry.
    if case.place != "own_courtyard":
        where = case.place.replace("_", " ")
        return _step(
            "right_of_entry", "Mishnah Makkot 2:2", f"the {where} is open to all", ("place",)
        )
    reads = ("place", "victim_right_of_entry")
    if case.victim_right_of_entry:
        return _step(
            "right_of_entry",
            "Mishnah Makkot 2:2",
            "in his own courtyard, where the victim had a right of entry",
            reads,
        )
    return _step(
        "right_of_entry",
        "Mishnah Makkot 2:2",
        "in his own courtyard, where the victim had no right of entry",
        reads,
        decides="no_exile",
    )


def optional_act(case: Case, opinions: Opinions) -> TraceStep:
    """Only an optional act, like hewing wood, exiles (Abba Shaul)."""
    reads = ("purpose",)
    if case.purpose == "optional":
        return _step("optional_act", "Mishnah Makkot 2:2", "an optional act", reads)
    # Mishnah Makkot 2:2: Abba Shaul says, hewing wood is optional; this excludes a father
    # beating his son, a master disciplining his pupil, an agent of the court.
    sage = opinions.duty
    duty = case.purpose.replace("_", " ")
    return _by_opinion(
        "optional_act",
        "duty",
        sage,
        sage == "first_tanna",
        f"a duty ({duty})",
        reads,
        citation="Mishnah Makkot 2:2",
    )


def father_and_son(case: Case, opinions: Opinions) -> TraceStep | None:
    """A father is exiled for his son and a son for his father."""
    # Mishnah Makkot 2:3: the father goes into banishment for his son, and the son for his father.
    if case.relation not in ("father_of_victim", "son_of_victim"):
        return None
    who = "a father for his son" if case.relation == "father_of_victim" else "a son for his father"
    return _step(
        "father_and_son", "Mishnah Makkot 2:3", f"{who} goes into banishment", ("relation",)
    )


def israelite_and_resident_alien(case: Case, opinions: Opinions) -> TraceStep:
    """Israelites are exiled for each other; a resident alien only for a resident alien."""
    # Mishnah Makkot 2:3: all go into banishment for an Israelite, and Israelites on their
    # account, except for a resident alien; a resident alien only for another resident alien.
    killer, victim = case.killer.status, case.victim.status
    reads = ("killer.status", "victim.status")
    if killer == victim:
        who = STATUS_NOUNS[killer]
        return _step(
            "israelite_and_resident_alien",
            "Mishnah Makkot 2:3",
            f"{who} goes into banishment for {who}",
            reads,
        )
    finding = (
        "a resident alien goes into banishment only for a resident alien"
        if killer == "resident_alien"
        else "Israelites do not go into banishment for a resident alien"
    )
    return _step(
        "israelite_and_resident_alien",
        "Mishnah Makkot 2:3",
        finding,
        reads,
        decides="no_exile",
    )


def blind_killer(case: Case, opinions: Opinions) -> TraceStep:
    """A blind killer (R. Judah against R. Meir)."""
    reads = ("killer.blind",)
    if not case.killer.blind:
        return _step("blind_killer", "Mishnah Makkot 2:3", "the killer is not blind", reads)
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
    if case.intended_target != "nobody":
        return None
    reads = ("killer_saw_victim",)
    # Numbers 35:23: or with any stone, whereby a man may die, seeing him not.
    if case.killer_saw_victim:
        return _step(
            "seeing_him_not",
            "Numbers 35:23",
            f"he saw the victim, and the verse speaks of one 'seeing him not'; {NOT_IN_SEEDS}",
            reads,
            decides="undetermined",
        )
    return _step("seeing_him_not", "Numbers 35:23", "he did not see the victim", reads)


def enemy(case: Case, opinions: Opinions) -> TraceStep:
    """An enemy who killed by accident (the first Tanna, R. Yose bar Judah, R. Shimon)."""
    if not case.enmity:
        # Numbers 35:23: and he was not his enemy, neither sought his harm.
        return _step("enemy", "Numbers 35:23", "he was not the victim's enemy", ("enmity",))
    # Mishnah Makkot 2:3: an enemy does not go into banishment. R. Yose bar Judah: an enemy is
    # executed, as one forewarned. R. Shimon: where it can be said he killed wittingly, he is not
    # banished; where he killed unwittingly, he is.
    sage = opinions.enemy
    if sage == "yose_bar_judah":
        return _step(
            "enemy",
            "Mishnah Makkot 2:3",
            "an enemy is executed, for he is as one forewarned",
            ("enmity",),
            decides="capital",
            dispute="enemy",
            opinion=sage,
        )
    if sage == "first_tanna":
        return _by_opinion(
            "enemy", "enemy", sage, False, "an enemy", ("enmity",), citation="Mishnah Makkot 2:3"
        )
    unwitting = case.clearly_unwitting
    how = "it is clear he killed unwittingly" if unwitting else "it can be said he killed wittingly"
    return _by_opinion(
        "enemy",
        "enemy",
        sage,
        unwitting,
        f"an enemy of whom {how}",
        ("enmity", "clearly_unwitting"),
        citation="Mishnah Makkot 2:3",
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
    kind_of_killing,
    meant_for_exempt_target,
    meant_for_another_person,
    murderer_by_blow,
    hatred_or_lying_in_wait,
    downward_movement,
    blade_slipped,
    chip_flew,
    head_put_out,
    right_of_entry,
    optional_act,
    father_and_son,
    israelite_and_resident_alien,
    blind_killer,
    seeing_him_not,
    enemy,
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
    if not case.inside_city_of_refuge:
        step = _step(
            "place_of_exile",
            "Numbers 35:11",
            "he flees to a city of refuge",
            ("inside_city_of_refuge",),
        )
        return step, "city_of_refuge"
    reads = ("inside_city_of_refuge", "killer.levite")
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
