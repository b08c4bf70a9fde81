"""The facts of a killing: the vocabulary every rule of the law of exile reads."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

Act = Literal[
    "pushing_roller",
    "pulling_up_roller",
    "lowering_cask",
    "raising_cask",
    "descending_ladder",
    "climbing_ladder",
    "blade_slipped",
    "chip_flew",
    "throwing_stone",
    "striking",
    "pushing_person",
    "hurling",
    "other_movement",
]
Movement = Literal["downward", "upward", "level"]
Place = Literal[
    "public_domain", "forest", "own_courtyard", "another_courtyard", "neither_may_enter"
]
Purpose = Literal[
    "optional", "father_disciplining_son", "teacher_disciplining_pupil", "court_agent_lashing"
]
Relation = Literal["none", "father_of_victim", "son_of_victim", "teacher_of_victim"]
Instrument = Literal["not_stated", "iron", "stone", "wood", "hand", "other"]
Intent = Literal[
    "kill_victim",
    "kill_another_person",
    "kill_animal",
    "kill_gentile",
    "kill_nonviable_fetus",
    "strike",
    "none",
]
Spot = Literal["loins", "heart", "adult", "minor"]
Status = Literal["israelite", "resident_alien"]

# Mishnah Makkot 2:1: each work accident named there is a movement down or up.
MOVEMENT_OF_ACT: dict[str, Movement] = {
    "pushing_roller": "downward",
    "pulling_up_roller": "upward",
    "lowering_cask": "downward",
    "raising_cask": "upward",
    "descending_ladder": "downward",
    "climbing_ladder": "upward",
}
# Mishnah Makkot 2:1's general principle reaches every act that has a direction; these have one
# that the case must state (a throw, a blow, a hurl, any other movement). A push of a person is
# not among them: Numbers 35:22 exiles the sudden push without asking its direction.
DIRECTED_ACTS: frozenset[str] = frozenset(
    {"throwing_stone", "striking", "hurling", "other_movement"}
)
# Numbers 35:16-23: the acts by which one person's blow or throw reaches another.
BLOWS: frozenset[str] = frozenset({"throwing_stone", "striking", "pushing_person", "hurling"})
THROWS: frozenset[str] = frozenset({"throwing_stone", "hurling"})
# Places every person may enter (Mishnah Makkot 2:2: "like the forest").
OPEN_PLACES: frozenset[str] = frozenset({"public_domain", "forest"})
COURTYARDS: frozenset[str] = frozenset({"own_courtyard", "another_courtyard"})
# Intents of one who meant to kill or strike someone (Numbers 35:16-21; Mishnah Sanhedrin 9:2).
DELIBERATE: frozenset[str] = frozenset({"kill_victim", "kill_another_person", "strike"})
# Mishnah Sanhedrin 9:2: he meant to kill one whose killing is not murder, and killed a person.
EXEMPT_TARGETS: dict[str, str] = {
    "kill_animal": "an animal",
    "kill_gentile": "a gentile",
    "kill_nonviable_fetus": "a non-viable fetus",
}
# Mishnah Sanhedrin 9:2: the heart dies of a lighter blow than the loins, a minor than an adult.
VULNERABILITY: dict[str, tuple[str, int]] = {
    "loins": ("body", 0),
    "heart": ("body", 1),
    "adult": ("age", 0),
    "minor": ("age", 1),
}
DUTY_RELATION: dict[str, str] = {
    "father_disciplining_son": "father_of_victim",
    "teacher_disciplining_pupil": "teacher_of_victim",
}


class ContradictoryFactsError(ValueError):
    """Two facts of a case that cannot both be true; names the field that breaks the pair.

    Parameters
    ----------
    field
        Dotted path of the field whose value contradicts another fact.
    value
        That field's value.
    message
        What contradicts what, in one line.
    """

    def __init__(self, field: str, value: Any, message: str) -> None:
        self.field = field
        self.value = value
        super().__init__(message)


class _Facts(BaseModel):
    # built at the first validation, not at import (`refuge_map._strict.Strict`)
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class _Person(_Facts):
    """The facts the killer and the victim share."""

    status: Status = Field(
        "israelite", description="Israelite or resident alien (ger toshav), Mishnah Makkot 2:3."
    )


class Killer(_Person):
    """Who the killer is (Mishnah Makkot 2:3 and 2:7)."""

    blind: bool = Field(False, description="The killer is blind (Mishnah Makkot 2:3).")
    high_priest: bool = Field(
        False, description="The killer is the high priest: exile for life (Mishnah Makkot 2:7)."
    )
    levite: bool = Field(
        False,
        description="The killer is a Levite of a city of refuge: he is exiled from city to city "
        "when he kills inside it (Mishnah Makkot 2:7).",
    )

    @model_validator(mode="after")
    def _one_lineage(self) -> Killer:
        if self.high_priest and self.levite:
            raise ContradictoryFactsError("levite", True, "a high priest is a priest, not a Levite")
        if self.status == "resident_alien" and (self.high_priest or self.levite):
            role = "high_priest" if self.high_priest else "levite"
            raise ContradictoryFactsError(role, True, f"a resident alien cannot be {role}")
        return self


class Victim(_Person):
    """Who was killed (Mishnah Makkot 2:3 and 2:7)."""

    high_priest: bool = Field(
        False,
        description="The victim is the high priest: the killer is exiled for life "
        "(Mishnah Makkot 2:7).",
    )

    @model_validator(mode="after")
    def _israelite_high_priest(self) -> Victim:
        if self.high_priest and self.status == "resident_alien":
            raise ContradictoryFactsError(
                "high_priest", True, "a resident alien cannot be high priest"
            )
        return self


class Case(_Facts):
    """The facts of one killing, as the Mishnah and the Torah state them.

    Two kinds of fact. *Questions* default to ``null`` (not stated): ``intent``, ``movement``
    for an act with a direction, ``victim_right_of_entry`` in a courtyard, the instrument and the
    force; where the verdict turns on one, the ruling is ``undetermined`` and names it with the
    verdict each answer gives. *Presumptions* are facts the Mishnah itself rules without stating,
    naming the other value as an exception ("except for a resident alien", "a blind person",
    "an enemy", "his own courtyard"): the killer and victim are Israelites, not blind, no
    enemies, no relatives, in the course of an optional act, in a place the victim may enter. A
    trace line on a presumption says "not stated", never the fact. Contradictory facts raise
    `ContradictoryFactsError` (wrapped by pydantic in a `ValidationError`).
    """

    act: Act = Field(
        description="What the killer was doing (Mishnah Makkot 2:1-2:2, Numbers 35:16-23): "
        "pushing_roller / pulling_up_roller (a roof roller), lowering_cask / raising_cask, "
        "descending_ladder / climbing_ladder, blade_slipped (the iron slipped from its handle), "
        "chip_flew (a chip flew from the log being split), throwing_stone, striking, "
        "pushing_person, hurling, or other_movement (any other act)."
    )
    intent: Intent | None = Field(
        None,
        description="What he meant (a question: null when not stated): kill_victim, "
        "kill_another_person (R. Shimon's 'this one and killed that one'), kill_animal, "
        "kill_gentile, kill_nonviable_fetus (Mishnah Sanhedrin 9:2), strike (a blow meant to "
        "strike, not to kill: Sanhedrin 9:2's 'intended to strike', a father's or teacher's "
        "discipline), or none (Numbers 35:22-23: suddenly, without enmity, without lying in "
        "wait, seeing him not; Mishnah Makkot 2:1: 'one who kills in error').",
    )
    movement: Movement | None = Field(
        None,
        description="Direction of the movement that caused the death (Mishnah Makkot 2:1's "
        "general principle). Implied by the roller, cask and ladder acts; a question for a "
        "throw, a blow, a hurl or any other movement (not for a push: Numbers 35:22).",
    )
    place: Place | None = Field(
        None,
        description="Where the victim was struck (Mishnah Makkot 2:2): public_domain, forest "
        "(open to both, Deut 19:5), own_courtyard (the killer's), another_courtyard (someone "
        "else's), neither_may_enter (the Hebrew's 'where neither victim nor slayer may enter'). "
        "Null: not stated, presumed a place the victim may enter (Mishnah Makkot 2:1 rules "
        "without naming one).",
    )
    victim_right_of_entry: bool | None = Field(
        None,
        description="The victim had a right to be where he was struck (Mishnah Makkot 2:2): "
        "implied for the public domain and the forest, false where neither may enter, a "
        "question in a courtyard.",
    )
    victim_put_head_out_after_throw: bool | None = Field(
        None,
        description="The victim put his head out only after the stone had left the thrower's "
        "hand (R. Eliezer ben Jacob, Mishnah Makkot 2:2); a question under his opinion only.",
    )
    purpose: Purpose = Field(
        "optional",
        description="Whether the act was optional (like hewing wood) or a duty: a father "
        "disciplining his son, a teacher his pupil, an agent of the court giving lashes "
        "(Abba Shaul, Mishnah Makkot 2:2). Presumed optional.",
    )
    relation: Relation = Field(
        "none",
        description="How the killer was related to the victim (Mishnah Makkot 2:2-2:3).",
    )
    instrument: Instrument = Field(
        "not_stated",
        description="What the blow or throw was made with: iron, stone, wood, hand, other "
        "(Numbers 35:16-18, 21, 23); a throwing_stone act is of stone.",
    )
    instrument_could_kill: bool | None = Field(
        None,
        description="The stone, wood or other instrument is one 'whereby a man may die' "
        "(Numbers 35:17-18 for a deliberate blow, 35:23 for a stone cast in error); unread for "
        "iron (35:16) and the hand (35:21).",
    )
    enmity: bool = Field(
        False,
        description="The killer was the victim's enemy (Numbers 35:20-23; Mishnah Makkot 2:3). "
        "Presumed not: the Mishnah names the enemy as an exception.",
    )
    lying_in_wait: bool = Field(
        False, description="The killer lay in wait for the victim (Numbers 35:20, 22)."
    )
    clearly_unwitting: bool = Field(
        False,
        description="It is clear that the enemy killed unwittingly; otherwise it can be said he "
        "killed wittingly (R. Shimon, Mishnah Makkot 2:3).",
    )
    killer_saw_victim: bool | None = Field(
        None,
        description="The killer saw the victim before the accident; null when the source does "
        "not say (Numbers 35:23, 'seeing him not').",
    )
    aimed_at: Spot | None = Field(
        None,
        description="Where or whom the blow or throw was aimed at: loins or heart of the same "
        "person, an adult or a minor (Mishnah Sanhedrin 9:2).",
    )
    landed_on: Spot | None = Field(
        None, description="Where or whom it landed (Mishnah Sanhedrin 9:2)."
    )
    force_could_kill_where_aimed: bool | None = Field(
        None,
        description="It had enough strength to kill where or whom it was aimed at "
        "(Mishnah Sanhedrin 9:2).",
    )
    force_could_kill_where_landed: bool | None = Field(
        None,
        description="It had enough strength to kill where or whom it landed (derived where the "
        "landing spot is as vulnerable or more, Mishnah Sanhedrin 9:2); for a push or a blow of "
        "the hand, whether its force could kill.",
    )
    inside_city_of_refuge: bool = Field(
        False,
        description="The killing happened inside a city of refuge, where the killer lived "
        "(Mishnah Makkot 2:7).",
    )
    killer: Killer = Field(default_factory=Killer, description="Who the killer is.")
    victim: Victim = Field(default_factory=Victim, description="Who was killed.")

    @property
    def direction(self) -> Movement | None:
        """The movement the act implies (Mishnah Makkot 2:1), or the one the case states."""
        return MOVEMENT_OF_ACT.get(self.act, self.movement)

    @property
    def entry(self) -> bool | None:
        """Whether the victim had a right to be where he was struck (Mishnah Makkot 2:2)."""
        if self.place is None or self.place in OPEN_PLACES:
            return True
        if self.place == "neither_may_enter":
            return False
        return self.victim_right_of_entry

    @property
    def weapon(self) -> str:
        """The instrument, a stone for a throwing_stone act."""
        return "stone" if self.act == "throwing_stone" else self.instrument

    @model_validator(mode="after")
    def _consistent(self) -> Case:
        for check in _CONSISTENCY_CHECKS:
            check(self)
        return self


def _movement_matches_act(case: Case) -> None:
    implied = MOVEMENT_OF_ACT.get(case.act)
    if implied and case.movement not in (None, implied):
        raise ContradictoryFactsError(
            "movement",
            case.movement,
            f"contradictory facts: act {case.act!r} is a {implied} movement, not {case.movement}",
        )
    if case.movement is not None and not implied and case.act not in DIRECTED_ACTS:
        raise ContradictoryFactsError(
            "movement",
            case.movement,
            f"act {case.act!r} takes no movement; the acts with one: "
            f"{_choices(sorted(DIRECTED_ACTS))}",
        )


def _entry_matches_place(case: Case) -> None:
    entry = case.victim_right_of_entry
    if case.place in OPEN_PLACES and entry is False:
        raise ContradictoryFactsError(
            "victim_right_of_entry",
            False,
            f"contradictory facts: everyone has a right of entry to the {case.place}",
        )
    if case.place == "neither_may_enter" and entry is True:
        raise ContradictoryFactsError(
            "victim_right_of_entry", True, "contradictory facts: a place neither may enter"
        )
    if case.place is None and entry is not None:
        raise ContradictoryFactsError(
            "victim_right_of_entry", entry, "a right of entry needs a place"
        )


def _intent_matches_act(case: Case) -> None:
    if case.lying_in_wait and case.intent in ("none", None):
        raise ContradictoryFactsError(
            "lying_in_wait", True, "contradictory facts: one who lies in wait means the blow"
        )
    if case.victim_put_head_out_after_throw is not None and case.act not in THROWS:
        raise ContradictoryFactsError(
            "victim_put_head_out_after_throw",
            case.victim_put_head_out_after_throw,
            f"contradictory facts: nothing left the hand of one who was {case.act!r}",
        )
    if case.act == "throwing_stone" and case.instrument not in ("not_stated", "stone"):
        raise ContradictoryFactsError(
            "instrument", case.instrument, "contradictory facts: a thrown stone is a stone"
        )


def _duty_matches_relation(case: Case) -> None:
    needed = DUTY_RELATION.get(case.purpose)
    if needed and case.relation != needed:
        raise ContradictoryFactsError(
            "relation",
            case.relation,
            f"contradictory facts: purpose {case.purpose!r} needs relation {needed!r}",
        )


def _blind_did_not_see(case: Case) -> None:
    if case.killer.blind and case.killer_saw_victim:
        raise ContradictoryFactsError(
            "killer_saw_victim", True, "contradictory facts: a blind killer did not see the victim"
        )


def _aim_is_consistent(case: Case) -> None:
    aimed, landed = case.aimed_at, case.landed_on
    if aimed is None and landed is None:
        return
    if aimed is None or landed is None:
        missing = "aimed_at" if aimed is None else "landed_on"
        raise ContradictoryFactsError(missing, None, "aimed_at and landed_on go together")
    if case.intent not in DELIBERATE:
        raise ContradictoryFactsError(
            "aimed_at",
            aimed,
            f"contradictory facts: a blow aimed somewhere was meant: intent one of "
            f"{_choices(sorted(DELIBERATE))}",
        )
    (kind_aimed, rank_aimed), (kind_landed, rank_landed) = (
        VULNERABILITY[aimed],
        VULNERABILITY[landed],
    )
    if kind_aimed != kind_landed:
        raise ContradictoryFactsError(
            "landed_on", landed, f"contradictory facts: aimed at {aimed} but landed on {landed}"
        )
    where_aimed, where_landed = (
        case.force_could_kill_where_aimed,
        case.force_could_kill_where_landed,
    )
    if (where_aimed is True and where_landed is False and rank_landed >= rank_aimed) or (
        where_aimed is False and where_landed is True and rank_landed <= rank_aimed
    ):
        raise ContradictoryFactsError(
            "force_could_kill_where_landed",
            where_landed,
            f"contradictory facts: a blow that {'could' if where_aimed else 'could not'} kill "
            f"at the {aimed} {'could' if where_aimed else 'could not'} kill at the {landed}",
        )


_CONSISTENCY_CHECKS: tuple[Callable[[Case], None], ...] = (
    _movement_matches_act,
    _entry_matches_place,
    _intent_matches_act,
    _duty_matches_relation,
    _blind_did_not_see,
    _aim_is_consistent,
)


def _choices(literal_or_names: Any) -> str:
    names = get_args(literal_or_names) or tuple(literal_or_names)
    return ", ".join(str(name) for name in names)
