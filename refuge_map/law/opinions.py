"""The named disputes of the law of exile: one parameter per dispute, with a documented default."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

from pydantic import BaseModel, ConfigDict, Field

OUTSIDE = "outside the shipped texts"
PRESETS: dict[str, str] = {
    "mishnah": "the anonymous Mishnah (or, where it has no anonymous voice, the documented "
    "default)",
    "codified": "the rulings of Maimonides, Mishneh Torah, Hilchot Rotzeach, where documented "
    f"here with their source ({OUTSIDE}); elsewhere the anonymous Mishnah",
}


def _dispute(
    default: str,
    *,
    question: str,
    holds: dict[str, str],
    why: str,
    citation: str,
    codified: tuple[str, str] | None = None,
) -> Any:
    """One dispute's field; ``codified`` is Maimonides' sage and where he rules so."""
    sage, source = codified or (default, "no ruling of Maimonides documented here")
    return Field(
        default,
        description=question,
        json_schema_extra={
            "holds": dict(holds),
            "why_default": why,
            "citation": citation,
            "presets": {"mishnah": default, "codified": sage},
            "codified_source": source,
        },
    )


class Opinions(BaseModel):
    """Which sage to follow in each named dispute; the defaults follow the anonymous Mishnah or
    the majority where there is one (see `DISPUTES` for each reason)."""

    # built at the first validation, not at import (`refuge_map._strict.Strict`)
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

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
        why="The anonymous Mishnah states the rule without R. Eliezer ben Jacob's exception; "
        "the shipped texts record no ruling between them (later codes are said to follow R. "
        f"Eliezer ben Jacob; {OUTSIDE}, unverified).",
        citation="Mishnah Makkot 2:2",
    )
    duty: Literal["first_tanna", "abba_shaul"] = _dispute(
        "first_tanna",
        question="A father disciplining his son, a teacher his pupil, an agent of the court "
        "giving lashes: is he exiled?",
        holds={
            "first_tanna": "he is exiled (a construction: the anonymous Mishnah says nothing "
            "of a duty; the only voice on it is Abba Shaul's, and 2:3's 'the father goes into "
            "banishment for his son' is read as knowing no exception)",
            "abba_shaul": "he is not exiled: like hewing wood, only an optional act exiles",
        },
        why="A construction, said so: the anonymous Mishnah does not speak of a duty, and the "
        "default reads its 'the father goes into banishment for his son' (2:3) as unqualified. "
        "Abba Shaul is a single named sage; the shipped texts record no ruling (later codes "
        f"are said to follow Abba Shaul; {OUTSIDE}, unverified).",
        citation="Mishnah Makkot 2:2",
    )
    blind: Literal["judah", "meir"] = _dispute(
        "judah",
        question="A blind killer: is he exiled?",
        holds={"judah": "he is not exiled", "meir": "he is exiled"},
        why="There is no anonymous opinion and no majority: two single sages. The Talmud's rule "
        f"of decision between R. Meir and R. Judah follows R. Judah (Eruvin 46b; {OUTSIDE}, "
        "unverified).",
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
        "sages. R. Yose bar Judah's reason (he is as one forewarned) is presumed intent, so under "
        "him the enemy is judged before the manner of the death.",
        citation="Mishnah Makkot 2:3",
        codified=(
            "first_tanna",
            "Rambam, Hilchot Rotzeach 6 (opening halakhot): a killing close to deliberate, such "
            f"as an enemy's, gets no refuge and no exile; {OUTSIDE}",
        ),
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
        codified=(
            "shimon",
            "Rambam, Hilchot Rotzeach 4:1: one who intended to kill one person and killed "
            f"another is not liable to execution, payment or exile; {OUTSIDE}",
        ),
    )
    exempt_exile: Literal["open", "maimonides"] = _dispute(
        "open",
        question="He meant to kill or strike a person and is exempt from death (Mishnah "
        "Sanhedrin 9:2's 'exempt', a blow that could not kill): is he exiled?",
        holds={
            "open": "the shipped texts do not say: Sanhedrin 9:2's 'exempt' frees him from "
            "death, and Mishnah Makkot 2:1 exiles only 'one who kills in error' (undetermined)",
            "maimonides": "he is not exiled, for one who kills intentionally is never exiled",
        },
        why="The Mishnah says 'exempt' and no more; the shipped texts leave exile open, so the "
        f"default says so. Maimonides' answer is {OUTSIDE}.",
        citation="Mishnah Sanhedrin 9:2; Mishnah Makkot 2:1",
        codified=(
            "maimonides",
            "Rambam, Hilchot Rotzeach 4:1-2: 'nor is he exiled, because a person who kills "
            f"intentionally is never exiled'; {OUTSIDE}",
        ),
    )
    plead: Literal["first_tanna", "meir"] = _dispute(
        "first_tanna",
        question="On the road to the city, who speaks to the avenger for the manslayer?",
        holds={
            "first_tanna": "the two disciples of the Sages the court sends with him speak to "
            "the avenger",
            "meir": "he may also plead his cause himself ('and this is the word of the "
            "manslayer', Deut 19:4)",
        },
        why="The anonymous Mishnah names the escorts; R. Meir is a single sage. The law's "
        "verdict never reads this dispute: the simulation of the road does.",
        citation="Mishnah Makkot 2:5",
    )


@dataclass(frozen=True)
class Dispute:
    """One named dispute: its key, the sages and what each holds, the default and why.

    Attributes
    ----------
    key
        The field of `Opinions` that chooses it.
    question
        What the sages dispute.
    holds
        Each sage and what he holds.
    default
        The sage followed unless told otherwise.
    why_default
        Why that one is the default.
    citation
        Where the dispute is recorded.
    presets
        The sage under each named preset (`PRESETS`).
    codified_source
        Where Maimonides rules on it (or that no ruling is documented).
    """

    key: str
    question: str
    holds: dict[str, str]
    default: str
    why_default: str
    citation: str
    presets: dict[str, str]
    codified_source: str

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
            presets=cast(dict[str, str], extra["presets"]),
            codified_source=str(extra["codified_source"]),
        )
    return disputes


DISPUTES: dict[str, Dispute] = _registry()
# The disputes no verdict rule reads: they are the simulation's (Mishnah Makkot 2:5's escorts).
NOT_JUDGED: frozenset[str] = frozenset({"plead"})


def preset(name: str) -> dict[str, str]:
    """The sage of every dispute under a named preset (`PRESETS`).

    Parameters
    ----------
    name
        A preset of `PRESETS` (``mishnah`` or ``codified``).

    Returns
    -------
    dict
        Dispute key to the sage followed.

    Raises
    ------
    KeyError
        If `name` is not a preset.
    """
    if name not in PRESETS:
        raise KeyError(name)
    return {key: dispute.presets[name] for key, dispute in DISPUTES.items()}
