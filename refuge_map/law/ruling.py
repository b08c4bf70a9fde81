"""What the court decides: the verdict, the trace of the rules behind it, what exile entails."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Verdict = Literal["exile", "no_exile", "capital", "undetermined"]
ExileWithin = Literal["city_of_refuge", "neighbourhood", "another_city"]


class _Frozen(BaseModel):
    # built at the first validation, not at import (`refuge_map._strict.Strict`)
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class TraceStep(_Frozen):
    """One rule that was consulted, what it found, and what it read to find it."""

    rule: str = Field(description="Stable snake_case name of the rule.")
    citation: str = Field(description="Where the rule lives, e.g. 'Mishnah Makkot 2:1'.")
    dispute: str | None = Field(None, description="The dispute key the rule consulted, if any.")
    opinion: str | None = Field(None, description="The sage followed in that dispute, if any.")
    finding: str = Field(description="What the rule found, in one line.")
    reads: tuple[str, ...] = Field(description="Dotted paths of the case fields the rule read.")
    decides: Verdict | None = Field(None, description="The verdict this step settled, if any.")
    asks: str | None = Field(
        None,
        description="The unstated fact this step needs (its verdict is then undetermined and "
        "the ruling's alternatives answer it).",
    )


class Alternative(_Frozen):
    """One answer to the facts an undetermined ruling asks, and the verdict it leads to.

    Attributes
    ----------
    verdict
        The verdict these facts lead to (`Verdict`).
    """

    facts: dict[str, Any] = Field(description="Each asked fact and the value given to it.")
    verdict: Verdict
    reason: str = Field(description="The finding that settles the verdict under these facts.")


class Consequences(_Frozen):
    """What an exile verdict entails for the simulation.

    ``life_exile`` is false when the manslayer stays until the high priest's death (Numbers
    35:25). One more cause of life exile is a fact of the simulation, not of the case: a trial
    that concludes when no high priest is in office (Mishnah Makkot 2:7); the simulation must set
    it itself.
    """

    life_exile: bool = Field(description="He never leaves the place of refuge.")
    life_exile_reason: str | None = Field(description="Why he never leaves, if he never does.")
    exile_within: ExileWithin = Field(
        description="city_of_refuge (flee to one of the cities), neighbourhood (he killed inside "
        "a city of refuge: from one neighbourhood to another), another_city (a Levite who killed "
        "inside his city of refuge: from one city to another)."
    )
    citation: str = Field(description="The sources of these consequences.")


class Ruling(_Frozen):
    """The verdict on one case under one set of opinions, with the reasons.

    Attributes
    ----------
    verdict
        ``exile``, ``no_exile``, ``capital`` or ``undetermined`` (`Verdict`).
    trace
        Every rule applied, in order, each with its citation and finding.
    """

    verdict: Verdict
    reason: str = Field(description="The finding of the step that settled the verdict.")
    trace: tuple[TraceStep, ...]
    opinions: dict[str, str] = Field(description="Every dispute and the sage followed.")
    opinions_bearing: tuple[str, ...] = Field(
        description="The disputes consulted on this case, in trace order."
    )
    consequences: Consequences | None = Field(
        None, description="Present exactly when the verdict is exile."
    )
    asks: tuple[str, ...] = Field(
        (), description="The unstated facts the verdict turns on, in the order they are asked."
    )
    alternatives: tuple[Alternative, ...] = Field(
        (), description="For an undetermined ruling, the verdict under each answer to `asks`."
    )
    also_reads: tuple[str, ...] = Field(
        (), description="Case fields the rules read under the alternatives."
    )

    @property
    def reads(self) -> frozenset[str]:
        """Every case field the consulted rules read."""
        return frozenset((*(path for step in self.trace for path in step.reads), *self.also_reads))

    def to_json_dict(self) -> dict[str, Any]:
        """The stable JSON form: verdict, reason, trace, opinions, opinions_bearing, consequences,
        asks, alternatives, also_reads.

        Returns
        -------
        dict
            Plain JSON types; the keys never change between versions of this model.
        """
        return self.model_dump(mode="json")
