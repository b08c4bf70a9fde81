"""The reference page of the case vocabulary and the disputes, generated from the models."""

from __future__ import annotations

import types
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from refuge_map.law.case import Case
from refuge_map.law.opinions import DISPUTES, PRESETS
from refuge_map.law.rules import describe
from refuge_map.law.ruling import Consequences, Verdict

VERDICT_MEANINGS: dict[str, str] = {
    "exile": "a manslayer: he goes into banishment (see the consequences)",
    "no_exile": "he does not go into banishment (and the sources put him to no death)",
    "capital": "a murderer (Numbers 35:16-21), or an enemy under R. Yose bar Judah",
    "undetermined": "the case leaves open a fact the verdict turns on (the ruling's `asks`, "
    "with the verdict under each answer in `alternatives`), or the shipped texts do not decide "
    "(the reason says what is open and cites where)",
}


def vocabulary_markdown() -> str:
    """The Markdown page of every case field, dispute, verdict and consequence."""
    assert set(VERDICT_MEANINGS) == set(get_args(Verdict))
    lines = [
        "# The law of exile: case vocabulary",
        "",
        "Generated from `refuge_map.law` (`refuge judge --schema`). A case file is YAML or JSON "
        "holding these fields (nested ones under `killer:` and `victim:`); a shipped case puts "
        "them under `case:` beside `title`, `seed` and `expected` (see data/cases/README.md).",
        "",
        "## Case fields",
        "",
        "| field | values | default | meaning |",
        "| --- | --- | --- | --- |",
        *_field_rows(Case),
        "",
        "## Disputes (`--opinion KEY=SAGE`)",
        "",
        "| key | question | sages | default | why the default | source |",
        "| --- | --- | --- | --- | --- | --- |",
        *(
            f"| `{d.key}` | {d.question} | "
            + "; ".join(f"`{sage}`: {view}" for sage, view in d.holds.items())
            + f" | `{d.default}` | {d.why_default} | {d.citation} |"
            for d in DISPUTES.values()
        ),
        "",
        "## Presets (`--opinion preset=NAME`)",
        "",
        *(f"- `{name}`: {meaning}" for name, meaning in PRESETS.items()),
        "",
        "| key | `mishnah` | `codified` | source of the codified reading |",
        "| --- | --- | --- | --- |",
        *(
            f"| `{d.key}` | `{d.presets['mishnah']}` | `{d.presets['codified']}` | "
            f"{d.codified_source} |"
            for d in DISPUTES.values()
        ),
        "",
        "## Verdicts",
        "",
        *(f"- `{verdict}`: {meaning}" for verdict, meaning in VERDICT_MEANINGS.items()),
        "",
        "## Consequences of exile",
        "",
        f"{_first_paragraph(Consequences)}",
        "",
        "| field | values | meaning |",
        "| --- | --- | --- |",
        *(
            f"| `{name}` | {_values(info.annotation)} | {info.description} |"
            for name, info in Consequences.model_fields.items()
        ),
        "",
    ]
    return "\n".join(lines)


def _field_rows(model: type[BaseModel], prefix: str = "") -> list[str]:
    rows = []
    for name, info in model.model_fields.items():
        nested = info.annotation
        if isinstance(nested, type) and issubclass(nested, BaseModel):
            rows.extend(_field_rows(nested, f"{prefix}{name}."))
            continue
        default = "required" if info.default is PydanticUndefined else f"`{describe(info.default)}`"
        rows.append(f"| `{prefix}{name}` | {_values(nested)} | {default} | {info.description} |")
    return rows


def _values(annotation: Any) -> str:
    """The values a field takes, as YAML writes them."""
    origin = get_origin(annotation)
    if origin is Literal:
        return " \\| ".join(f"`{value}`" for value in get_args(annotation))
    if origin in (Union, types.UnionType):
        return " \\| ".join(_values(arg) for arg in get_args(annotation))
    names = {bool: "`true` \\| `false`", str: "text", type(None): "`null`"}
    return names.get(annotation, str(annotation))


def _first_paragraph(model: type[BaseModel]) -> str:
    return " ".join(str(model.__doc__).strip().split("\n\n")[1].split())
