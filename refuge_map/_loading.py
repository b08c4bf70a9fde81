"""Read YAML/JSON input files into pydantic models, turning every failure into one clear line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from refuge_map.errors import RefugeError

ModelT = TypeVar("ModelT", bound=BaseModel)


def read_mapping(path: str | Path) -> dict[str, Any]:
    """Parse a YAML or JSON file that must hold a mapping.

    Raises
    ------
    RefugeError
        If the file is missing, unparsable, or not a mapping.
    """
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise RefugeError(f"cannot read file: {err.strerror}", source=source) from None
    try:
        data = json.loads(text) if source.endswith(".json") else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as err:
        first = str(err).splitlines()[0]
        raise RefugeError(
            f"not valid {'JSON' if source.endswith('.json') else 'YAML'}: {first}", source=source
        ) from None
    if not isinstance(data, dict):
        raise RefugeError("the file must hold a mapping of fields", source=source)
    return data


def validation_error(err: ValidationError, source: str) -> RefugeError:
    """One line naming the first invalid field path, what is wrong and the value (count of more)."""
    first = err.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or "(root)"
    more = len(err.errors()) - 1
    message = first["msg"] + (f" (and {more} more problem{'s' * (more > 1)})" if more else "")
    value = first.get("input") if first["type"] != "missing" else None
    if isinstance(value, dict | list):
        value = None  # a whole sub-document is not a useful value to print
    return RefugeError(message, source=source, field=field, value=value)


def load_model(model: type[ModelT], path: str | Path) -> ModelT:
    """Read `path` (YAML or JSON) and validate it as `model`.

    Raises
    ------
    RefugeError
        With the file, the field path and the value of the first problem found.
    """
    data = read_mapping(path)
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise validation_error(err, str(path)) from None
