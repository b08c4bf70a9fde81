"""Exceptions raised by the geographic core: bad data files, bad parameters, bad queries."""

from __future__ import annotations

from refuge_data import InputError


class GeoError(InputError):
    """Base class of every error the geographic core raises on bad input (one line naming the
    source, the field and the value: see `refuge_data.InputError`)."""


class DataFileError(GeoError):
    """A shipped or user-supplied data file is missing, malformed or inconsistent."""


class ParameterError(GeoError):
    """A parameter (cubit, techum mode, candidate choice, designation) is invalid."""


class QueryError(GeoError):
    """A query position is not a finite coordinate."""
