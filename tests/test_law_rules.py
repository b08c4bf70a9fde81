"""Each rule of `refuge_map.law.rules` on its own, the case validators and the dispute registry."""

from __future__ import annotations

import re
import subprocess
import sys
import typing

import pytest
from pydantic import BaseModel, ValidationError

from refuge_map.errors import RefugeError
from refuge_map.law import DISPUTES, Case, ContradictoryFactsError, Opinions, judge
from refuge_map.law import rules as r
from refuge_map.law.casefiles import parse_opinions, shipped_cases

NOT_APPLICABLE = "not applicable"
CONTINUES = None


def _case(**facts: object) -> Case:
    return Case.model_validate({"act": "lowering_cask", **facts})


def _leaf_paths(model: type[BaseModel], prefix: str = "") -> set[str]:
    paths = set()
    for name, info in model.model_fields.items():
        nested = info.annotation
        if isinstance(nested, type) and issubclass(nested, BaseModel):
            paths |= _leaf_paths(nested, f"{prefix}{name}.")
        else:
            paths.add(f"{prefix}{name}")
    return paths


CASE_PATHS = _leaf_paths(Case)
STRIKE = {"act": "striking", "intent": "strike"}
KILL = {"act": "striking", "intent": "kill_victim"}
AIMED = {**STRIKE, "aimed_at": "loins", "landed_on": "heart"}
ERROR = {"intent": "none"}
ASKS = "undetermined"

# (rule, facts, opinions, what the rule decides: a verdict, CONTINUES or NOT_APPLICABLE)
RULE_CASES = [
    (r.intent_of_the_act, {}, {}, ASKS),
    (r.intent_of_the_act, ERROR, {}, CONTINUES),
    (r.intent_of_the_act, STRIKE, {}, CONTINUES),
    (r.meant_for_exempt_target, {**STRIKE, "intent": "kill_animal"}, {}, CONTINUES),
    (r.meant_for_exempt_target, STRIKE, {}, NOT_APPLICABLE),
    (r.meant_for_another_person, {**STRIKE, "intent": "kill_another_person"}, {}, CONTINUES),
    (
        r.meant_for_another_person,
        {**KILL, "intent": "kill_another_person"},
        {"other_victim": "shimon"},
        CONTINUES,
    ),
    (r.meant_for_another_person, STRIKE, {}, CONTINUES),
    (r.meant_for_another_person, AIMED, {}, CONTINUES),
    (r.meant_for_another_person, ERROR, {}, NOT_APPLICABLE),
    (r.blow_of_duty, STRIKE, {}, CONTINUES),
    (r.blow_of_duty, {**STRIKE, "purpose": "court_agent_lashing"}, {}, CONTINUES),
    (r.blow_of_duty, ERROR, {}, NOT_APPLICABLE),
    (
        r.hatred_or_lying_in_wait,
        {"act": "pushing_person", "intent": "strike", "enmity": True},
        {},
        "capital",
    ),
    (
        r.hatred_or_lying_in_wait,
        {"act": "hurling", "intent": "strike", "lying_in_wait": True},
        {},
        "capital",
    ),
    (r.hatred_or_lying_in_wait, {"act": "hurling", "intent": "strike"}, {}, CONTINUES),
    (r.hatred_or_lying_in_wait, ERROR, {}, NOT_APPLICABLE),
    (r.murderer_by_measure, {**STRIKE, "instrument": "iron"}, {}, "capital"),
    (
        r.murderer_by_measure,
        {**STRIKE, "instrument": "stone", "instrument_could_kill": True},
        {},
        "capital",
    ),
    (
        r.murderer_by_measure,
        {**STRIKE, "instrument": "wood", "instrument_could_kill": False},
        {},
        CONTINUES,
    ),
    (r.murderer_by_measure, {**STRIKE, "instrument": "stone"}, {}, ASKS),
    (r.murderer_by_measure, STRIKE, {}, ASKS),
    (r.murderer_by_measure, KILL, {}, "capital"),
    (
        r.murderer_by_measure,
        {"act": "throwing_stone", "intent": "kill_victim", "instrument_could_kill": True},
        {},
        "capital",
    ),
    (
        r.murderer_by_measure,
        {"act": "hurling", "intent": "kill_victim", "instrument": "iron"},
        {},
        "capital",
    ),
    (r.murderer_by_measure, {**AIMED, "force_could_kill_where_aimed": True}, {}, "capital"),
    (
        r.murderer_by_measure,
        {**AIMED, "act": "throwing_stone", "force_could_kill_where_aimed": True},
        {},
        "capital",
    ),
    (r.murderer_by_measure, {**AIMED, "force_could_kill_where_aimed": False}, {}, ASKS),
    (
        r.murderer_by_measure,
        {**AIMED, "force_could_kill_where_aimed": False, "force_could_kill_where_landed": True},
        {},
        CONTINUES,
    ),
    (
        r.murderer_by_measure,
        {**AIMED, "aimed_at": "heart", "landed_on": "loins", "force_could_kill_where_aimed": True},
        {},
        ASKS,
    ),
    (
        r.murderer_by_measure,
        {**AIMED, "aimed_at": "heart", "landed_on": "loins", "force_could_kill_where_aimed": False},
        {},
        CONTINUES,
    ),
    (
        r.murderer_by_measure,
        {**AIMED, "landed_on": "loins", "force_could_kill_where_aimed": True},
        {},
        "capital",
    ),
    (r.murderer_by_measure, {**AIMED, "landed_on": "loins"}, {}, ASKS),
    (r.murderer_by_measure, {**STRIKE, "purpose": "court_agent_lashing"}, {}, NOT_APPLICABLE),
    (r.murderer_by_measure, ERROR, {}, NOT_APPLICABLE),
    (r.enemy, ERROR, {}, CONTINUES),
    (r.enemy, {**ERROR, "enmity": True}, {}, "no_exile"),
    (r.enemy, {**ERROR, "enmity": True}, {"enemy": "yose_bar_judah"}, "capital"),
    (r.enemy, {**ERROR, "enmity": True}, {"enemy": "shimon"}, "no_exile"),
    (r.enemy, {**ERROR, "enmity": True, "clearly_unwitting": True}, {"enemy": "shimon"}, CONTINUES),
    (r.israelite_and_resident_alien, ERROR, {}, CONTINUES),
    (
        r.israelite_and_resident_alien,
        {"killer": {"status": "resident_alien"}, "victim": {"status": "resident_alien"}},
        {},
        CONTINUES,
    ),
    (r.israelite_and_resident_alien, {"killer": {"status": "resident_alien"}}, {}, "no_exile"),
    (r.israelite_and_resident_alien, {"victim": {"status": "resident_alien"}}, {}, "no_exile"),
    (r.exile_left_open, {**STRIKE, "intent": "kill_animal"}, {}, "undetermined"),
    (r.exile_left_open, STRIKE, {"exempt_exile": "maimonides"}, "no_exile"),
    (r.exile_left_open, ERROR, {}, NOT_APPLICABLE),
    (r.downward_movement, {**ERROR, "act": "descending_ladder"}, {}, CONTINUES),
    (r.downward_movement, {**ERROR, "act": "raising_cask"}, {}, "no_exile"),
    (r.downward_movement, {**ERROR, "act": "other_movement", "movement": "level"}, {}, "no_exile"),
    (r.downward_movement, {**ERROR, "act": "throwing_stone", "movement": "upward"}, {}, "no_exile"),
    (r.downward_movement, {**ERROR, "act": "striking", "movement": "upward"}, {}, "no_exile"),
    (r.downward_movement, {**ERROR, "act": "throwing_stone"}, {}, ASKS),
    (r.downward_movement, {**ERROR, "act": "blade_slipped"}, {}, NOT_APPLICABLE),
    (r.stone_whereby_a_man_may_die, {**ERROR, "act": "throwing_stone"}, {}, ASKS),
    (
        r.stone_whereby_a_man_may_die,
        {**ERROR, "act": "throwing_stone", "instrument_could_kill": False},
        {},
        "no_exile",
    ),
    (
        r.stone_whereby_a_man_may_die,
        {**ERROR, "act": "throwing_stone", "instrument_could_kill": True},
        {},
        CONTINUES,
    ),
    (r.stone_whereby_a_man_may_die, ERROR, {}, NOT_APPLICABLE),
    (r.blade_slipped, {"act": "blade_slipped"}, {}, CONTINUES),
    (r.blade_slipped, {"act": "blade_slipped"}, {"blade": "rabbi"}, "no_exile"),
    (r.chip_flew, {"act": "chip_flew"}, {}, "no_exile"),
    (r.chip_flew, {"act": "chip_flew"}, {"chip": "rabbi"}, CONTINUES),
    (r.chip_flew, {"act": "blade_slipped"}, {}, NOT_APPLICABLE),
    (r.head_put_out, {"act": "throwing_stone"}, {}, CONTINUES),
    (r.head_put_out, {"act": "throwing_stone"}, {"head_out": "eliezer_ben_jacob"}, ASKS),
    (
        r.head_put_out,
        {"act": "throwing_stone", "victim_put_head_out_after_throw": True},
        {"head_out": "eliezer_ben_jacob"},
        "no_exile",
    ),
    (r.head_put_out, {}, {}, NOT_APPLICABLE),
    (r.right_of_entry, {}, {}, CONTINUES),
    (r.right_of_entry, {"place": "forest"}, {}, CONTINUES),
    (r.right_of_entry, {"place": "own_courtyard"}, {}, ASKS),
    (
        r.right_of_entry,
        {"place": "another_courtyard", "victim_right_of_entry": True},
        {},
        CONTINUES,
    ),
    (r.right_of_entry, {"place": "own_courtyard", "victim_right_of_entry": False}, {}, "no_exile"),
    (r.right_of_entry, {"place": "neither_may_enter"}, {}, "no_exile"),
    (r.optional_act, {}, {}, CONTINUES),
    (r.optional_act, {"purpose": "court_agent_lashing"}, {}, CONTINUES),
    (r.optional_act, {"purpose": "court_agent_lashing"}, {"duty": "abba_shaul"}, "no_exile"),
    (r.father_and_son, {"relation": "son_of_victim"}, {}, CONTINUES),
    (r.father_and_son, {"relation": "teacher_of_victim"}, {}, CONTINUES),
    (r.father_and_son, {}, {}, CONTINUES),
    (r.blind_killer, {}, {}, CONTINUES),
    (r.blind_killer, {"killer": {"blind": True}}, {}, "no_exile"),
    (r.blind_killer, {"killer": {"blind": True}}, {"blind": "meir"}, CONTINUES),
    (r.seeing_him_not, {**ERROR, "killer_saw_victim": True}, {}, "undetermined"),
    (r.seeing_him_not, {**ERROR, "killer_saw_victim": False}, {}, CONTINUES),
    (r.seeing_him_not, STRIKE, {}, NOT_APPLICABLE),
    (r.manslayer_goes_into_exile, {}, {}, "exile"),
]


@pytest.mark.parametrize(
    ("rule", "facts", "chosen", "outcome"),
    RULE_CASES,
    ids=[f"{rule.__name__}-{n}" for n, (rule, *_) in enumerate(RULE_CASES)],
)
def test_rule(rule, facts, chosen, outcome):
    opinions = Opinions.model_validate(chosen)
    step = rule(_case(**facts), opinions)
    if outcome == NOT_APPLICABLE:
        assert step is None
        return
    assert step is not None
    assert step.decides == outcome
    assert step.rule == rule.__name__
    assert re.fullmatch(
        r"(Numbers 35|Mishnah (Makkot 2|Sanhedrin 9)|Rambam, Hilchot Rotzeach 4)"
        r":[0-9-]+(; .+| .+)?",
        step.citation,
    )
    # A step that followed a sage names the dispute and the sage actually set.
    if step.dispute:
        assert step.opinion == getattr(opinions, step.dispute)
    if chosen:
        assert step.dispute in chosen


def test_every_rule_is_tested():
    assert {rule.__name__ for rule, *_ in RULE_CASES} == {rule.__name__ for rule in r.VERDICT_RULES}


@pytest.mark.parametrize("rule", r.VERDICT_RULES, ids=lambda rule: rule.__name__)
def test_rule_reads_real_fields_and_cites_itself(rule):
    for _, shipped in shipped_cases():
        step = rule(shipped.case, Opinions())
        if step is not None:
            assert set(step.reads) <= CASE_PATHS
            assert step.rule == rule.__name__ and step.finding


def test_a_disputed_step_names_the_sage_it_followed():
    step = r.blade_slipped(_case(act="blade_slipped"), Opinions(blade="rabbi"))
    assert (step.dispute, step.opinion) == ("blade", "rabbi")


def test_undisputed_step_names_no_sage():
    step = r.blind_killer(_case(), Opinions(blind="meir"))
    assert (step.dispute, step.opinion) == (None, None)


@pytest.mark.parametrize(
    ("killer", "victim", "reason"),
    [
        ({}, {}, None),
        ({"high_priest": True}, {}, "a high priest killed"),
        ({}, {"high_priest": True}, "he killed a high priest"),
    ],
)
def test_exile_for_life(killer, victim, reason):
    step, life_reason = r.exile_for_life(_case(killer=killer, victim=victim))
    assert life_reason == reason
    assert step.citation == ("Numbers 35:25" if reason is None else "Mishnah Makkot 2:7")


@pytest.mark.parametrize(
    ("inside", "levite", "within"),
    [
        (False, False, "city_of_refuge"),
        (False, True, "city_of_refuge"),
        (True, False, "neighbourhood"),
        (True, True, "another_city"),
    ],
)
def test_place_of_exile(inside, levite, within):
    step, found = r.place_of_exile(_case(inside_city_of_refuge=inside, killer={"levite": levite}))
    assert found == within
    assert set(step.reads) == {"inside_city_of_refuge", "killer.levite"}
    assert ("Levite" in step.finding) == levite


@pytest.mark.parametrize(
    ("facts", "field"),
    [
        ({"movement": "upward"}, "movement"),
        ({"act": "blade_slipped", "movement": "downward"}, "movement"),
        ({"place": "forest", "victim_right_of_entry": False}, "victim_right_of_entry"),
        ({"place": "neither_may_enter", "victim_right_of_entry": True}, "victim_right_of_entry"),
        ({"act": "throwing_stone", "instrument": "iron"}, "instrument"),
        ({"lying_in_wait": True}, "lying_in_wait"),
        ({"victim_put_head_out_after_throw": False}, "victim_put_head_out_after_throw"),
        ({"purpose": "father_disciplining_son"}, "relation"),
        ({"killer": {"blind": True}, "killer_saw_victim": True}, "killer_saw_victim"),
        ({**STRIKE, "aimed_at": "loins"}, "landed_on"),
        ({"act": "striking", "aimed_at": "loins", "landed_on": "heart"}, "aimed_at"),
        ({**STRIKE, "aimed_at": "loins", "landed_on": "minor"}, "landed_on"),
        (
            {**AIMED, "force_could_kill_where_aimed": True, "force_could_kill_where_landed": False},
            "force_could_kill_where_landed",
        ),
        ({"killer": {"high_priest": True, "levite": True}}, "levite"),
        ({"victim": {"status": "resident_alien", "high_priest": True}}, "high_priest"),
    ],
)
def test_contradictory_facts_name_the_field(facts, field):
    with pytest.raises(ValidationError) as caught:
        _case(**facts)
    error = caught.value.errors()[0]["ctx"]["error"]
    assert isinstance(error, ContradictoryFactsError)
    assert error.field == field


def test_registry_matches_the_opinions_model():
    assert list(DISPUTES) == list(Opinions.model_fields)
    for key, dispute in DISPUTES.items():
        assert set(dispute.sages) == set(typing.get_args(Opinions.model_fields[key].annotation))
        assert getattr(Opinions(), key) == dispute.default == dispute.sages[0]
        assert dispute.why_default and dispute.citation.startswith("Mishnah")


def test_parse_opinions_sets_only_what_it_is_given():
    parsed = parse_opinions(["blade=rabbi", "enemy = shimon"])
    assert (parsed.blade, parsed.enemy) == ("rabbi", "shimon")
    assert parsed.chip == DISPUTES["chip"].default


@pytest.mark.parametrize(
    ("setting", "needle"),
    [
        ("blades=rabbi", "valid: blade, chip"),
        ("blade=rabi", "valid: sages, rabbi"),
        ("blade", "RULE=SAGE"),
    ],
)
def test_parse_opinions_rejects_unknown_keys_and_sages(setting, needle):
    with pytest.raises(RefugeError, match=needle):
        parse_opinions([setting])


def test_the_law_imports_no_geometry():
    probe = "import sys, refuge_map.law; print(sorted(m for m in sys.modules if 'geo' == m[:3]))"
    found = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert found.stdout.strip() == "[]"


# One test per defect of issue 12: the verdict the cited text gives.
DEFECTS = [
    # Numbers 35:17: a stone whereby a man may die, thrown at him to kill: a murderer.
    (
        {"act": "throwing_stone", "intent": "kill_victim", "instrument_could_kill": True},
        {},
        "capital",
    ),
    # Numbers 35:16: iron hurled at him to kill: a murderer.
    ({"act": "hurling", "intent": "kill_victim", "instrument": "iron"}, {}, "capital"),
    # Mishnah Sanhedrin 9:2: a thrown blow at the loins with force to kill there, on the heart.
    ({**AIMED, "act": "throwing_stone", "force_could_kill_where_aimed": True}, {}, "capital"),
    # An unstated intent is asked, not defaulted.
    ({"act": "striking", "instrument": "iron"}, {}, "undetermined"),
    # Mishnah Makkot 2:1's general principle: not downward, no exile.
    ({"act": "throwing_stone", "intent": "none", "movement": "upward"}, {}, "no_exile"),
    ({"act": "striking", "intent": "none", "movement": "upward"}, {}, "no_exile"),
    # Mishnah Makkot 2:3: R. Yose bar Judah's enemy is executed however the death came about.
    (
        {"act": "pulling_up_roller", "intent": "none", "enmity": True},
        {"enemy": "yose_bar_judah"},
        "capital",
    ),
    (
        {
            "act": "lowering_cask",
            "intent": "none",
            "enmity": True,
            "place": "own_courtyard",
            "victim_right_of_entry": False,
        },
        {"enemy": "yose_bar_judah"},
        "capital",
    ),
    # Numbers 35:23: "with any stone, whereby a man may die".
    (
        {
            "act": "throwing_stone",
            "intent": "none",
            "movement": "downward",
            "instrument_could_kill": False,
        },
        {},
        "no_exile",
    ),
    # Mishnah Makkot 2:3: "except for a resident alien".
    (
        {"act": "striking", "intent": "kill_animal", "victim": {"status": "resident_alien"}},
        {},
        "no_exile",
    ),
    # Mishnah Sanhedrin 9:2: "intended to kill this one and killed that one" needs no instrument.
    ({"act": "striking", "intent": "kill_another_person"}, {}, "capital"),
    (
        {"act": "striking", "intent": "kill_another_person"},
        {"other_victim": "shimon"},
        "undetermined",
    ),
]


@pytest.mark.parametrize(("facts", "chosen", "verdict"), DEFECTS)
def test_issue_examples_give_the_verdict_of_the_text(facts, chosen, verdict):
    from refuge_map.law import judge

    ruling = judge(Case.model_validate(facts), Opinions.model_validate(chosen))
    assert ruling.verdict == verdict, ruling.reason


def test_unstated_sight_is_not_asserted():
    from refuge_map.law import judge

    ruling = judge(_case(intent="none"))
    findings = [step.finding for step in ruling.trace]
    assert "the case does not say he saw the victim" in findings
    assert not any(f == "he did not see the victim" for f in findings)


def test_a_rule_that_does_not_apply_on_a_fact_records_the_read():
    # A blow of duty, aimed at an adult and landing on a minor (exempt under R. Shimon): the
    # verdict turns on the purpose, so the trace must show it was read.
    from refuge_map.law import judge

    facts = {
        "act": "blade_slipped",
        "intent": "strike",
        "purpose": "father_disciplining_son",
        "relation": "father_of_victim",
        "aimed_at": "adult",
        "landed_on": "minor",
    }
    under = Opinions(blade="rabbi", other_victim="shimon")
    duty = judge(Case.model_validate(facts), under)
    optional = judge(Case.model_validate({**facts, "purpose": "optional"}), under)
    assert (duty.verdict, optional.verdict) == ("no_exile", "undetermined")
    assert "purpose" in duty.reads
    duty_step = next(step for step in duty.trace if step.rule == "blow_of_duty")
    assert "purpose" in duty_step.reads and "father disciplining son" in duty_step.finding


def test_one_spot_does_not_assert_the_force_where_it_landed():
    from refuge_map.law import judge

    ruling = judge(
        Case(
            act="throwing_stone",
            intent="kill_victim",
            aimed_at="loins",
            landed_on="loins",
            force_could_kill_where_aimed=True,
        )
    )
    measure = next(step for step in ruling.trace if step.rule == "murderer_by_measure")
    assert ruling.verdict == "capital"
    assert "the same spot, the loins, with enough strength" in measure.finding
    assert "force_could_kill_where_landed" not in measure.reads


def test_a_derived_force_says_it_is_not_stated():
    from refuge_map.law import judge

    ruling = judge(
        Case(
            act="striking",
            intent="strike",
            aimed_at="heart",
            landed_on="loins",
            force_could_kill_where_aimed=False,
        )
    )
    measure = next(step for step in ruling.trace if step.rule == "murderer_by_measure")
    assert not ruling.asks and ruling.verdict != "capital"
    assert "landed on the loins where a blow that could not kill at the heart could not kill" in (
        measure.finding
    )
    assert "the case does not state the force there" in measure.finding


def test_unstated_intent_names_it_with_each_verdict():
    from refuge_map.law import judge

    ruling = judge(Case(act="striking", instrument="iron"))
    assert ruling.asks[0] == "intent"
    verdicts = {
        alt.facts["intent"]: alt.verdict for alt in ruling.alternatives if len(alt.facts) == 1
    }
    assert verdicts["kill_victim"] == "capital" and verdicts["strike"] == "capital"


def test_presets_set_every_dispute():
    mishnah = parse_opinions(["preset=mishnah"])
    codified = parse_opinions(["preset=codified", "blind=meir"])
    assert mishnah == Opinions()
    assert (codified.other_victim, codified.exempt_exile, codified.blind) == (
        "shimon",
        "maimonides",
        "meir",
    )
    with pytest.raises(RefugeError, match="unknown preset"):
        parse_opinions(["preset=bavli"])


def test_every_codified_reading_names_its_source_outside_the_texts():
    for dispute in DISPUTES.values():
        if dispute.presets["codified"] != dispute.presets["mishnah"]:
            assert "Rambam" in dispute.codified_source
            assert "outside the shipped texts" in dispute.codified_source


def test_exile_rules_cite_the_mishnah():
    from refuge_map.law.exile_rules import EXILE_RULES

    names = {rule.name for rule in EXILE_RULES}
    assert {"pleads_himself", "honour_refused", "no_going_out_even_for_yoav"} <= names
    assert all(
        re.match(r"(Mishnah Makkot 2:[5-8]|Numbers 35:15)", rule.citation) for rule in EXILE_RULES
    )


def test_a_father_who_meant_to_kill_is_not_shielded_by_discipline():
    # Mishnah Makkot 2:2 speaks of the disciplining blow; Numbers 35:18 of wood whereby a man
    # may die. Meant to kill: a murderer. Meant to strike: judged for exile.
    facts = {
        "act": "striking",
        "purpose": "father_disciplining_son",
        "relation": "father_of_victim",
        "instrument": "wood",
        "instrument_could_kill": True,
    }
    meant = judge(Case.model_validate({**facts, "intent": "kill_victim"}))
    assert meant.verdict == "capital"
    assert any("covers a blow, not a killing he meant" in s.finding for s in meant.trace)
    assert judge(Case.model_validate({**facts, "intent": "strike"})).verdict == "exile"


@pytest.mark.parametrize(
    ("value", "written"),
    [
        (True, "true"),
        (False, "false"),
        (None, "null"),
        (1, "1"),
        (0, "0"),
        (1.0, "1.0"),
        ("x", "x"),
    ],
)
def test_a_fact_is_described_as_a_case_file_writes_it(value: object, written: str) -> None:
    # 1 and 0 compare equal to True and False: a lookup by equality would write them "true"
    assert r.describe(value) == written
