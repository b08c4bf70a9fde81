"""Read the law's inputs: case files, shipped cases with their expected verdicts, opinions."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import ErrorDetails

from refuge_data import data_dir
from refuge_map._loading import Problem, describe_problem, read_mapping, validation_error
from refuge_map.errors import RefugeError
from refuge_map.law.case import Case, ContradictoryFactsError
from refuge_map.law.opinions import DISPUTES, PRESETS, Opinions, preset
from refuge_map.law.ruling import ExileWithin, Verdict

DEFAULT_KEY = "default"
PRESET_KEY = "preset"


def cases_dir() -> Path:
    """The folder of shipped cases, ``<data>/cases`` (``$REFUGE_MAP_DATA`` moves the data)."""
    return data_dir() / "cases"


class _Frozen(BaseModel):
    # built at the first validation, not at import (`refuge_map._strict.Strict`)
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class SeedQuote(_Frozen):
    """Where a shipped case comes from: a seed file and the sentence quoted from it."""

    file: str = Field(description="File name in the seeds folder.")
    quote: str = Field(description="The sentence of the seed the case writes down, verbatim.")


class ExpectedConsequences(_Frozen):
    """What exile entails under the default opinions, where the seed says so."""

    life_exile: bool
    exile_within: ExileWithin


class ShippedCase(_Frozen):
    """One case of the seeds, its facts, and the verdict expected under each opinion setting.

    ``expected`` maps ``default`` and settings such as ``blade=rabbi`` or
    ``enemy=shimon, head_out=eliezer_ben_jacob`` (other disputes at their defaults) to verdicts.
    """

    title: str
    seed: SeedQuote
    context: SeedQuote | None = Field(
        None,
        description="A sentence of the sources that frames the quote and states a fact it "
        "presupposes, e.g. Mishnah Makkot 2:1's 'one who kills in error' (intent: none).",
    )
    case: Case
    expected: dict[str, Verdict]
    consequences: ExpectedConsequences | None = None

    @field_validator("expected")
    @classmethod
    def _settings_are_known(cls, expected: dict[str, Verdict]) -> dict[str, Verdict]:
        if DEFAULT_KEY not in expected:
            raise ValueError(f"expected needs a {DEFAULT_KEY!r} verdict")
        for setting in expected:
            opinion_settings(setting)
        return expected

    def expectations(self) -> list[tuple[dict[str, str], Verdict]]:
        """Each opinion setting (dispute key to sage) with the verdict expected under it."""
        return [(opinion_settings(key), verdict) for key, verdict in self.expected.items()]


def opinion_settings(setting: str) -> dict[str, str]:
    """Parse ``default`` or ``key=sage, key=sage`` into a mapping, checking keys and sages.

    Raises
    ------
    RefugeError
        On a malformed setting, an unknown dispute key or an unknown sage.
    """
    if setting == DEFAULT_KEY:
        return {}
    chosen = dict(part.strip().partition("=")[::2] for part in setting.split(","))
    opinions_from(chosen, source=None)
    return chosen


def load_case_file(path: str | Path) -> tuple[Case, ShippedCase | None]:
    """Read a case file: bare facts, or a shipped case (with ``title``, ``seed``, ``case``).

    Raises
    ------
    RefugeError
        With the file, the field path, the value and, where useful, the valid choices of the
        first problem found (unknown field, wrong type, contradictory facts).
    """
    data = read_mapping(path)
    model: type[BaseModel] = ShippedCase if "case" in data else Case
    try:
        parsed = model.model_validate(data)
    except ValidationError as err:
        raise _case_error(err, model, str(path)) from None
    if isinstance(parsed, ShippedCase):
        return parsed.case, parsed
    assert isinstance(parsed, Case)
    return parsed, None


def shipped_cases() -> list[tuple[Path, ShippedCase]]:
    """Every shipped case, in file-name order.

    Raises
    ------
    RefugeError
        If a shipped case file is invalid.
    """
    found = []
    for path in sorted(cases_dir().glob("*.yaml")):
        _, shipped = load_case_file(path)
        if shipped is None:
            raise RefugeError(
                "a shipped case needs title, seed, case and expected", source=str(path)
            )
        found.append((path, shipped))
    return found


def _case_error(err: ValidationError, model: type[BaseModel], source: str) -> RefugeError:
    """One line naming every problem: its field, value and, where useful, the valid choices."""
    return validation_error(err, source, describe=lambda problem: _case_problem(problem, model))


def _case_problem(problem: ErrorDetails, model: type[BaseModel]) -> Problem:
    loc = tuple(str(part) for part in problem["loc"])
    contradiction = problem.get("ctx", {}).get("error")
    if isinstance(contradiction, ContradictoryFactsError):
        return ".".join((*loc, contradiction.field)), str(contradiction), contradiction.value
    if problem["type"] == "value_error" and isinstance(contradiction, RefugeError):
        return ".".join(loc), str(contradiction), None
    if problem["type"] in ("bool_parsing", "bool_type"):
        return ".".join(loc), f"{problem['msg']}; valid: true, false", problem.get("input")
    if problem["type"] == "extra_forbidden":
        owner = _model_at(model, loc[:-1])
        valid = ", ".join(owner.model_fields) if owner else "see `refuge judge --schema`"
        return ".".join(loc), f"unknown field; valid fields: {valid}", None
    return describe_problem(problem)


def _model_at(model: type[BaseModel], loc: tuple[str, ...]) -> type[BaseModel] | None:
    """The nested model that holds the field at `loc`, or None past a non-model field."""
    current: Any = model
    for part in loc:
        field = current.model_fields.get(part)
        current = field.annotation if field else None
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return None
    return current


def parse_opinions(settings: Iterable[str], *, source: str = "--opinion") -> Opinions:
    """Read `RULE=SAGE` settings (e.g. ``blade=rabbi``, ``preset=codified``) over the defaults.

    A ``preset=NAME`` setting sets every dispute at once (`PRESETS`); settings after it override.

    Raises
    ------
    RefugeError
        On a setting without ``=``, an unknown dispute key or an unknown sage, naming the valid
        choices.
    """
    chosen: dict[str, str] = {}
    for setting in settings:
        key, sep, sage = (part.strip() for part in setting.partition("="))
        if not sep:
            raise RefugeError("expected RULE=SAGE", source=source, value=setting)
        chosen[key] = sage
    return opinions_from(chosen, source=source)


def opinions_from(chosen: dict[str, str], *, source: str | None) -> Opinions:
    """Build `Opinions` from a mapping of dispute key to sage (or ``preset``), checking both.

    Raises
    ------
    RefugeError
        On an unknown dispute key or an unknown sage, naming the valid choices.
    """
    chosen = dict(chosen)
    name = chosen.pop(PRESET_KEY, None)
    if name is not None:
        if name not in PRESETS:
            raise RefugeError(
                f"unknown preset; valid: {', '.join(PRESETS)}",
                source=source,
                field=PRESET_KEY,
                value=name,
            )
        chosen = {**preset(name), **chosen}
    for key, sage in chosen.items():
        if key not in DISPUTES:
            raise RefugeError(
                f"unknown opinion; valid: {', '.join(DISPUTES)}, {PRESET_KEY}",
                source=source,
                value=key,
            )
        if sage not in DISPUTES[key].holds:
            raise RefugeError(
                f"unknown sage; valid: {', '.join(DISPUTES[key].sages)}",
                source=source,
                field=key,
                value=sage,
            )
    return Opinions.model_validate(chosen)
