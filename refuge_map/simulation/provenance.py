"""Where each number of a scenario comes from: a cited source, an assumption, or a setting.

Every numeric field of a scenario declares its provenance in its ``json_schema_extra`` (so the
JSON Schema, `refuge scenario schema`, carries it):

``source``
    The value (or the form of the model behind it) comes from a cited text or study.
``assumption``
    No source gives it: the rationale, and the ``range`` a reader might try (of the value, or of
    a distribution's central value: the median, or the middle of ``[low, high]``). `refuge
    sensitivity` varies these over their ranges.
``setting``
    A choice of the run, not a claim about the world (seed, time step, horizon, places given).

`parameters` lists them for a scenario (the ``parameters`` table of every run's summary).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

Kind = Literal["source", "assumption", "setting"]
PROVENANCE_KINDS: tuple[Kind, ...] = ("source", "assumption", "setting")
#: Columns of the ``parameters`` table.
PARAMETER_COLUMNS = ("name", "value", "unit", "provenance", "basis", "range")


def sourced(citation: str, *, unit: str) -> dict[str, Any]:
    """Provenance of a number a text or study gives (`citation`), in `unit`."""
    return {"provenance": "source", "source": citation, "unit": unit}


def assumed(rationale: str, *, unit: str, low: float, high: float) -> dict[str, Any]:
    """Provenance of a number no source gives: why this value, and the range to try."""
    if not low <= high:
        raise ValueError(f"an assumption's range must be ordered; got [{low}, {high}]")
    return {
        "provenance": "assumption",
        "rationale": rationale,
        "unit": unit,
        "range": [low, high],
    }


def setting(rationale: str, *, unit: str) -> dict[str, Any]:
    """Provenance of a choice of the run (not a claim about the world)."""
    return {"provenance": "setting", "rationale": rationale, "unit": unit}


def provenance_of(model: type[BaseModel], field: str) -> dict[str, Any] | None:
    """The provenance a model's field declares, or None."""
    extra = model.model_fields[field].json_schema_extra
    if isinstance(extra, dict) and extra.get("provenance") in PROVENANCE_KINDS:
        return extra
    return None


def _json(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, tuple):
        return [_json(v) for v in value]
    return value


def parameters(model: BaseModel, prefix: str = "") -> list[dict[str, Any]]:
    """One row per numeric parameter of `model` (and of the models in it), in field order:
    ``name`` (dotted path), ``value``, ``unit``, ``provenance``, ``basis`` (the citation or
    the rationale) and ``range`` (assumptions only). Fields left unset (None) are omitted."""
    rows: list[dict[str, Any]] = []
    for name, _ in type(model).model_fields.items():
        value = getattr(model, name)
        path = f"{prefix}{name}"
        extra = provenance_of(type(model), name)
        if extra is not None:
            if value is not None:
                rows.append(
                    {
                        "name": path,
                        "value": _json(value),
                        "unit": extra["unit"],
                        "provenance": extra["provenance"],
                        "basis": extra.get("source", extra.get("rationale", "")),
                        "range": extra.get("range"),
                    }
                )
        elif isinstance(value, BaseModel):
            rows += parameters(value, f"{path}.")
        elif isinstance(value, tuple) and value and isinstance(value[0], BaseModel):
            for i, item in enumerate(value):
                rows += parameters(item, f"{path}.{i}.")
    return rows


def assumptions(model: BaseModel) -> list[dict[str, Any]]:
    """The rows of `parameters` that are assumptions."""
    return [row for row in parameters(model) if row["provenance"] == "assumption"]
