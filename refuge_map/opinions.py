"""The one registry of opinions: every dispute the package knows, described once.

Each `Dispute` is keyed by the scenario path that chooses it (a sweep axis): the geometric
readings (``network.*``, from `geo.readings`), the law's disputes (``exile.law.*``, read from
the fields of `refuge_map.law.Opinions`), the exile's (``exile.*``) and the cities' (``cities.*``:
what a city of refuge must be). Every layer above `geo`
may import this module: it loads no geometry and no simulation. The scenario schema, the sweep's
dispute axes, `refuge_map.analysis.disputes` and the exile's rule texts all read it.

Adding a dispute is one entry here (or one field of `Opinions`, or of `geo.readings`) and the
rule that reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import GetPydanticSchema

from geo.readings import GEO_READINGS
from refuge_map._strict import validated_as
from refuge_map.law.opinions import Opinions


@dataclass(frozen=True)
class Dispute:
    """One named dispute: where a scenario chooses it, the question, what each choice holds,
    the default and why, and the citation.

    Attributes
    ----------
    path
        The dotted scenario path of the choice (``exile.boundary.opinion``).
    question
        What the Sages (or the readings) disagree about.
    holds
        Each choice's name and what it holds, default first.
    default
        The choice made when a scenario names none.
    why_default
        Why that one.
    citation
        Where the dispute is.
    """

    path: str
    question: str
    holds: dict[str, str]
    default: str
    why_default: str
    citation: str

    @property
    def choices(self) -> tuple[str, ...]:
        """The choices, default first."""
        return (self.default, *(name for name in self.holds if name != self.default))

    @property
    def literal(self) -> Any:
        """The choices as a `typing.Literal` (in the order of `holds`), for a schema field."""
        return Literal[tuple(self.holds)]  # built at run time

    @property
    def choice(self) -> GetPydanticSchema:
        """A schema field's word that must be one of the choices: ``Annotated[str,
        dispute.choice]`` is a `str` to mypy (which cannot read a `literal` built at run time)
        and validates, and has the JSON schema and the errors of, the `literal` to pydantic."""
        return validated_as(self.literal)

    @property
    def source(self) -> str:
        """The citation with what each choice holds, for a table of effects."""
        return f"{self.citation} (" + "; ".join(self.holds.values()) + ")"


def _dispute(path: str, entry: dict[str, Any]) -> Dispute:
    return Dispute(
        path=path,
        question=str(entry["question"]),
        holds={str(k): str(v) for k, v in entry["holds"].items()},
        default=str(entry["default"]),
        why_default=str(entry["why_default"]),
        citation=str(entry["citation"]),
    )


def _law_disputes() -> dict[str, Dispute]:
    """The law's disputes, one per field of `Opinions` (its ``json_schema_extra``)."""
    disputes = {}
    for key, info in Opinions.model_fields.items():
        extra = info.json_schema_extra
        if not isinstance(extra, dict):
            raise TypeError(f"Opinions.{key} does not describe its dispute")
        entry = {**extra, "question": info.description, "default": info.default}
        disputes[f"exile.law.{key}"] = _dispute(f"exile.law.{key}", entry)
    return disputes


#: The exile's disputes (Simulation II), by scenario path.
_EXILE_READINGS: dict[str, dict[str, Any]] = {
    "exile.boundary.opinion": {
        "question": "He went out beyond the boundary and the avenger found him: must the "
        "avenger kill him, or may he?",
        "holds": {
            "yose_hagelili": "R. Yose the Galilean: for the avenger it is a duty to kill him, for "
            "anyone else an option",
            "akiva": "R. Akiva: for the avenger it is an option, and anyone else who kills him "
            "is not liable",
        },
        "default": "akiva",
        "why_default": "The halakha follows R. Akiva against a colleague, and Rambam, Rotzeach "
        "5:10 rules so.",
        "citation": "Mishnah Makkot 2:7",
    },
    "exile.priesthood.war_priest": {
        "question": "Does the death of the priest anointed for war release the manslayer?",
        "holds": {
            "first_tanna": "the high priest anointed with oil, the one installed by the many "
            "garments, and one who stood down release him; not the priest anointed for war "
            "(Mishnah Makkot 2:6; so Rambam, Rotzeach 7:9)",
            "judah": "R. Judah: the priest anointed for war releases him too (Mishnah Makkot 2:6)",
        },
        "default": "first_tanna",
        "why_default": "The anonymous Mishnah against R. Judah, a single sage; Rambam, Rotzeach "
        "7:9 rules so.",
        "citation": "Mishnah Makkot 2:6",
    },
    "exile.office": {
        "question": "Released, does he return to the office he formerly held?",
        "holds": {
            "meir": "R. Meir: he returns to the office he formerly held",
            "judah": "R. Judah: he does not return to the office he formerly held (so Rambam, "
            "Rotzeach 7:14)",
        },
        "default": "judah",
        "why_default": "Rambam, Rotzeach 7:14 rules with R. Judah.",
        "citation": "Mishnah Makkot 2:8",
    },
    "exile.rent": {
        "question": "Did the manslayers pay rent to the Levites?",
        "holds": {
            "judah": "R. Judah: they used to pay rent to the Levites",
            "meir": "R. Meir: they did not pay them rent (so Rambam, Rotzeach 8:10, for the six "
            "cities)",
        },
        "default": "meir",
        "why_default": "Rambam, Rotzeach 8:10 rules with R. Meir for the six cities.",
        "citation": "Mishnah Makkot 2:8",
    },
}


#: The disputes of what a city of refuge must be (the scenario's ``cities:``), by path.
_CITY_READINGS: dict[str, dict[str, Any]] = {
    "cities.no_elders": {
        "question": "Does a city with no elders in it take a manslayer in?",
        "holds": {
            "not_received": "one of R. Ami and R. Asi: it does not receive him (so Rambam, "
            "Rotzeach 7:6)",
            "received": "the other of R. Ami and R. Asi: it receives him",
        },
        "default": "not_received",
        "why_default": "Rambam, Rotzeach 7:6 rules that it does not receive.",
        "citation": "Makkot 10b; Rambam, Rotzeach 7:6",
    },
}


def _registry() -> dict[str, Dispute]:
    geo = {f"network.{key}": _dispute(f"network.{key}", e) for key, e in GEO_READINGS.items()}
    exile = {path: _dispute(path, entry) for path, entry in _EXILE_READINGS.items()}
    cities = {path: _dispute(path, entry) for path, entry in _CITY_READINGS.items()}
    return {**geo, **_law_disputes(), **exile, **cities}


#: Every dispute of the package, by the scenario path that chooses it.
DISPUTES: dict[str, Dispute] = _registry()
