"""Exceptions raised by the geographic core: bad data files, bad parameters, bad queries."""

from __future__ import annotations

from typing import Any


class GeoError(ValueError):
    """Base class of every error the geographic core raises on bad input.

    Parameters
    ----------
    message
        What is wrong, in one line.
    source
        The file (or argument group) the bad value came from, if any.
    field
        The field or parameter name that holds the bad value.
    value
        The offending value itself.
    """

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        field: str | None = None,
        value: Any = None,
    ) -> None:
        self.source = source
        self.field = field
        self.value = value
        parts = [p for p in (source, f"field {field!r}" if field else None) if p]
        where = ": ".join(parts)
        shown = f" (value: {value!r})" if value is not None else ""
        super().__init__(f"{where}: {message}{shown}" if where else f"{message}{shown}")


class DataFileError(GeoError):
    """A shipped or user-supplied data file is missing, malformed or inconsistent."""


class ParameterError(GeoError):
    """A parameter (cubit, techum mode, candidate choice, designation) is invalid."""


class QueryError(GeoError):
    """A query position is not a finite coordinate."""
