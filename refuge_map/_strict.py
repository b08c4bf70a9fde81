"""The one base of the input files' pydantic models (scenario sections, sweep files)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    """A section of an input file: unknown fields refused, frozen, defaults validated.

    NaN and infinity are no number an input file may hold: a file holding one is refused
    naming the field.
    """

    model_config = ConfigDict(
        extra="forbid", frozen=True, validate_default=True, allow_inf_nan=False
    )
