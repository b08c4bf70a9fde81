"""Read YAML/JSON input files into pydantic models, turning every failure into one clear line.

Every problem of a file is listed at once (field path, what is wrong, value), as
`geo._validate.read_layer` does for data files, so that a user fixes a file in one pass. Input
files are bounded (documented in the README): at most `MAX_INPUT_BYTES` bytes of UTF-8 text,
nested at most `MAX_DEPTH` levels deep.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from refuge_data import shown_value
from refuge_map.errors import RefugeError

ModelT = TypeVar("ModelT", bound=BaseModel)

#: The largest input file read, bytes (scenarios, cases and sweeps are a few kilobytes).
MAX_INPUT_BYTES = 4 * 1024 * 1024
#: The deepest nesting of mappings and lists an input file may have.
MAX_DEPTH = 32

#: `yaml.safe_load`'s loader, on libyaml's parser where PyYAML has it (the same documents, the
#: same values, several times faster than the pure-Python parser).
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: One problem of a file: the field path, what is wrong, and the value (None: not shown).
Problem = tuple[str, str, Any]


def read_mapping(path: str | Path) -> dict[str, Any]:
    """Parse a YAML or JSON file that must hold a mapping.

    Raises
    ------
    RefugeError
        If the file is missing, larger than `MAX_INPUT_BYTES`, not UTF-8 text, unparsable,
        nested deeper than `MAX_DEPTH`, or not a mapping.
    """
    source = str(path)
    kind = "JSON" if source.endswith(".json") else "YAML"
    text = _read_text(Path(path), source)
    try:
        data = json.loads(text) if kind == "JSON" else yaml.load(text, Loader=_SafeLoader)
    except (json.JSONDecodeError, yaml.YAMLError) as err:
        first = str(err).splitlines()[0]
        raise RefugeError(f"not valid {kind}: {first}", source=source) from None
    except RecursionError:
        raise RefugeError(f"nested deeper than {MAX_DEPTH} levels", source=source) from None
    except ValueError as err:  # an integer past Python's 4,300 digits
        raise RefugeError(f"not valid {kind}: {str(err).splitlines()[0]}", source=source) from None
    if not isinstance(data, dict):
        raise RefugeError("the file must hold a mapping of fields", source=source)
    if _depth(data) > MAX_DEPTH:
        raise RefugeError(f"nested deeper than {MAX_DEPTH} levels", source=source)
    return data


def _read_text(path: Path, source: str) -> str:
    try:
        size = path.stat().st_size
        if size > MAX_INPUT_BYTES:
            raise RefugeError(
                f"file of {size:,} bytes; input files are limited to {MAX_INPUT_BYTES:,}",
                source=source,
            )
        return path.read_bytes().decode("utf-8")
    except OSError as err:
        raise RefugeError(f"cannot read file: {err.strerror}", source=source) from None
    except UnicodeDecodeError as err:
        raise RefugeError(
            f"not UTF-8 text (byte 0x{err.object[err.start]:02x} at offset {err.start}); "
            "save it as UTF-8 YAML or JSON",
            source=source,
        ) from None


def _depth(data: Any) -> int:
    """How deeply mappings and lists nest in `data` (a scalar is 0), without recursion."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict | list):
            deepest = max(deepest, level)
            if level <= MAX_DEPTH:
                items = node.values() if isinstance(node, dict) else node
                stack.extend((child, level + 1) for child in items)
    return deepest


def describe_problem(problem: ErrorDetails) -> Problem:
    """The field path, message and value of one pydantic problem (a whole sub-document is
    not a useful value to print, nor is a missing one, nor a field's default, which the file
    did not state: a tuple, where a file's lists are lists)."""
    field = ".".join(str(part) for part in problem["loc"]) or "(root)"
    value = problem.get("input") if problem["type"] != "missing" else None
    if isinstance(value, tuple) or (isinstance(value, dict | list) and value):
        value = None
    return field, problem["msg"], value


def validation_error(
    err: ValidationError,
    source: str,
    *,
    describe: Callable[[ErrorDetails], Problem] = describe_problem,
) -> RefugeError:
    """One line naming every problem of `err`: its field path, what is wrong and the value.

    Parameters
    ----------
    err
        What pydantic found.
    source
        The file (or option) validated.
    describe
        Turns one pydantic problem into a `Problem` (default: `describe_problem`).
    """
    return problems_error([describe(problem) for problem in err.errors()], source)


def problems_error(problems: list[Problem], source: str) -> RefugeError:
    """One line naming every problem of `source` (a single one as field and value).

    Parameters
    ----------
    problems
        At least one `Problem`.
    source
        The file (or option) they were found in.
    """
    if len(problems) == 1:
        field, message, value = problems[0]
        return RefugeError(message, source=source, field=field, value=value)
    listed = "; ".join(
        f"field {field!r}: {message}"
        + (f" (value: {shown_value(value)})" if value is not None else "")
        for field, message, value in problems
    )
    return RefugeError(f"{len(problems)} problems: {listed}", source=source)


def load_model(model: type[ModelT], path: str | Path) -> ModelT:
    """Read `path` (YAML or JSON) and validate it as `model`.

    Raises
    ------
    RefugeError
        With the file and, for every problem found, the field path and the value.
    """
    data = read_mapping(path)
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise validation_error(err, str(path)) from None
