"""The named disputes of the law of exile: one parameter per dispute, with a documented default."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field


def _dispute(default: str, *, question: str, holds: dict[str, str], why: str, citation: str) -> Any:
    return Field(
        default,
        description=question,
        json_schema_extra={"holds": holds, "why_default": why, "citation": citation},
    )


class Opinions(BaseModel):
    """Which sage to follow in each named dispute; the defaults follow the anonymous Mishnah or
    the majority where there is one (see `DISPUTES` for each reason)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    blade: Literal["sages", "rabbi"] = _dispute(
        "sages",
        question="The iron slipped from its handle and killed: is he exiled?",
        holds={"rabbi": "he is not exiled", "sages": "he is exiled"},
        why="The Sages are the majority against Rabbi, a single sage.",
        citation="Mishnah Makkot 2:1",
    )
    chip: Literal["sages", "rabbi"] = _dispute(
        "sages",
        question="A chip flew from the log being split and killed: is he exiled?",
        holds={"rabbi": "he is exiled", "sages": "he is not exiled"},
        why="The Sages are the majority against Rabbi, a single sage.",
        citation="Mishnah Makkot 2:1",
    )
    head_out: Literal["first_tanna", "eliezer_ben_jacob"] = _dispute(
        "first_tanna",
        question="The victim put his head out after the stone left the hand: is the thrower "
        "exiled?",
        holds={
            "first_tanna": "he is exiled: the anonymous clause exiles whoever throws a stone "
            "into the public domain and kills, with no exception",
            "eliezer_ben_jacob": "the thrower is exempt",
        },
        why="The anonymous Mishnah states the rule without R. Eliezer ben Jacob's exception. "
        "The seeds record no ruling between them (later codes are said to follow R. Eliezer ben "
        "Jacob; not in the seeds, unverified).",
        citation="Mishnah Makkot 2:2",
    )
    duty: Literal["first_tanna", "abba_shaul"] = _dispute(
        "first_tanna",
        question="A father disciplining his son, a teacher his pupil, an agent of the court "
        "giving lashes: is he exiled?",
        holds={
            "first_tanna": "he is exiled: the anonymous Mishnah exiles a father for his son "
            "and knows no exception for a duty",
            "abba_shaul": "he is not exiled: like hewing wood, only an optional act exiles",
        },
        why="The anonymous Mishnah (2:3: 'the father goes into banishment for his son') states "
        "no exception for a duty. The seeds record no ruling (later codes are said to follow "
        "Abba Shaul; not in the seeds, unverified).",
        citation="Mishnah Makkot 2:2",
    )
    blind: Literal["judah", "meir"] = _dispute(
        "judah",
        question="A blind killer: is he exiled?",
        holds={"judah": "he is not exiled", "meir": "he is exiled"},
        why="There is no anonymous opinion and no majority: two single sages. The Talmud's rule "
        "of decision between R. Meir and R. Judah follows R. Judah (Eruvin 46b; not in the "
        "seeds, unverified).",
        citation="Mishnah Makkot 2:3",
    )
    enemy: Literal["first_tanna", "yose_bar_judah", "shimon"] = _dispute(
        "first_tanna",
        question="An enemy who killed by accident: is he exiled, or executed?",
        holds={
            "first_tanna": "he is not exiled",
            "yose_bar_judah": "he is executed, for he is as one forewarned",
            "shimon": "he is exiled only where it is clear he killed unwittingly",
        },
        why="The anonymous Mishnah ('an enemy does not go into banishment') against two single "
        "sages.",
        citation="Mishnah Makkot 2:3",
    )
    other_victim: Literal["first_tanna", "shimon"] = _dispute(
        "first_tanna",
        question="He meant to kill this one and killed that one: is he liable to death?",
        holds={
            "first_tanna": "he is liable, as when a blow meant for an adult kills a minor",
            "shimon": "he is exempt",
        },
        why="The anonymous Mishnah holds liable one whose blow meant for an adult killed a "
        "minor; R. Shimon is a single sage.",
        citation="Mishnah Sanhedrin 9:2",
    )


@dataclass(frozen=True)
class Dispute:
    """One named dispute: its key, the sages and what each holds, the default and why."""

    key: str
    question: str
    holds: dict[str, str]
    default: str
    why_default: str
    citation: str

    @property
    def sages(self) -> tuple[str, ...]:
        """The sage names accepted for this dispute, default first."""
        return (self.default, *(sage for sage in self.holds if sage != self.default))


def _registry() -> dict[str, Dispute]:
    disputes = {}
    for key, info in Opinions.model_fields.items():
        extra = info.json_schema_extra
        assert isinstance(extra, dict)
        holds = extra["holds"]
        assert isinstance(holds, dict) and set(holds) == set(get_args(info.annotation))
        disputes[key] = Dispute(
            key=key,
            question=str(info.description),
            holds={str(sage): str(view) for sage, view in holds.items()},
            default=str(info.default),
            why_default=str(extra["why_default"]),
            citation=str(extra["citation"]),
        )
    return disputes


DISPUTES: dict[str, Dispute] = _registry()
