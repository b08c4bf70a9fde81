"""The one base of the input files' pydantic models (scenario sections, sweep files), and the
metadata of their fields whose type is built at run time."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, GetPydanticSchema


class Strict(BaseModel):
    """A section of an input file: unknown fields refused, frozen, defaults validated.

    NaN and infinity are no number an input file may hold: a file holding one is refused
    naming the field.

    A model's validator is built at its first validation (``defer_build``), not when its class
    is defined, as the law's models' are: a command builds only those it reads (importing the
    CLI and loading a scenario took 35 ms more, before a run's child is forked).
    """

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        validate_default=True,
        allow_inf_nan=False,
        defer_build=True,
    )


def validated_as(kind: Any) -> GetPydanticSchema:
    """The metadata of ``Annotated[T, validated_as(kind)]``: a field that mypy reads as ``T``
    and pydantic validates (with its JSON schema and errors) as `kind`, a type built at run
    time that mypy cannot read (a `Literal` of a dispute's choices, a quantity's bounded
    variants)."""
    return GetPydanticSchema(lambda _source, handler: handler(kind))
