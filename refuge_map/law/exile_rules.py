"""What the texts say of the exile's life in the city, named for the simulation to apply.

The law's verdict reads none of these; they are the rules of the years in the city and of the
road, each with its citation and its words (Mishnah Makkot 2:5-2:8, Numbers 35:15).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ExileRule:
    """One rule of the exile's life: a stable name, its source, and what it says."""

    name: str
    citation: str
    text: str


# Mishnah Makkot 2:5; the dispute `plead` of `refuge_map.law.Opinions` chooses between them.
ESCORTS_SPEAK = ExileRule(
    "escorts_speak",
    "Mishnah Makkot 2:5",
    "two disciples of the Sages escort him, in case anyone attempts to slay him on the way, "
    "and speak to the avenger",
)
PLEADS_HIMSELF = ExileRule(
    "pleads_himself",
    "Mishnah Makkot 2:5; Deut 19:4",
    "R. Meir: he may plead his cause himself ('and this is the word of the manslayer')",
)
# Mishnah Makkot 2:8: the honour refused, and accepted if they insist.
HONOUR_REFUSED = ExileRule(
    "honour_refused",
    "Mishnah Makkot 2:8",
    "when the men of the city wish to honour him he says 'I am a manslayer'; if they say "
    "'nevertheless', he accepts",
)
# Mishnah Makkot 2:7 in Sefaria's numbering (RULES.md's; some editions number it 2:6).
NO_GOING_OUT_TO_TESTIFY = ExileRule(
    "no_going_out_to_testify",
    "Mishnah Makkot 2:7",
    "he may not go out to bear witness, in a matter of a commandment, a monetary suit or a "
    "capital case",
)
NO_GOING_OUT_EVEN_FOR_YOAV = ExileRule(
    "no_going_out_even_for_yoav",
    "Mishnah Makkot 2:7",
    "even should all Israel need him, even a general like Yoav son of Zeruiah, he never goes "
    "out: 'there' his abode, 'there' his death, 'there' his burial",
)
# Numbers 35:15 opens the cities to the stranger and the settler; Mishnah Makkot 2:3 narrows it.
STRANGER_AND_SETTLER = ExileRule(
    "stranger_and_settler",
    "Numbers 35:15; Mishnah Makkot 2:3",
    "the six cities are for the children of Israel and for the stranger and the settler; a "
    "resident alien is exiled only for a resident alien",
)

EXILE_RULES: tuple[ExileRule, ...] = (
    ESCORTS_SPEAK,
    PLEADS_HIMSELF,
    HONOUR_REFUSED,
    NO_GOING_OUT_TO_TESTIFY,
    NO_GOING_OUT_EVEN_FOR_YOAV,
    STRANGER_AND_SETTLER,
)
