"""Exceptions the application raises on bad input (scenario, case, sweep files and options)."""

from __future__ import annotations

from refuge_data import InputError


class RefugeError(InputError):
    """Bad input to the application: names the file, the field path and the value.

    It shares only its base with `geo.GeoError`, so the law can raise it without importing
    any geometry; the CLI catches that base (`refuge_data.InputError`).
    """
