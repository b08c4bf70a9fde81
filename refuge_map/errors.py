"""Exceptions the application raises on bad input (scenario, case, sweep files and options)."""

from __future__ import annotations

from geo import GeoError


class RefugeError(GeoError):
    """Bad input to the application: names the file, the field path and the value."""
