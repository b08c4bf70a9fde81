"""The shipped data folder as the package ``refuge_data``, found without importing anything heavy.

Data is the bottom layer (data -> geo -> simulation): `geo` and the law both find their files
here, and the law does so without importing any geometry. The files travel inside the installed
package (a wheel, ``pip install .``) and are read through `importlib.resources`; in an editable
install they are this folder of the source tree.
"""

from __future__ import annotations

import os
from importlib.resources import files
from pathlib import Path
from typing import Any

#: The variable that points the package at a user's own data folder.
DATA_ENV = "REFUGE_MAP_DATA"

#: The longest value an error message quotes in full.
MAX_SHOWN = 80

#: The attribution line of the shipped data that every map and figure carries (data/README.md).
#: DARMC's Roman roads are not shipped or drawn, so they are not credited here.
ATTRIBUTION = (
    "Places: OpenBible.info (CC BY 4.0); Pleiades (CC BY). Hydrography: Natural Earth; "
    "© OpenStreetMap contributors (ODbL). Roads: own compilation (CC BY 4.0) on OpenBible.info "
    "coordinates."
)

__all__ = ["ATTRIBUTION", "DATA_ENV", "MAX_SHOWN", "InputError", "data_dir", "shown_value"]


def data_dir() -> Path:
    """The data folder: ``$REFUGE_MAP_DATA`` if set, else the shipped one.

    Returns
    -------
    Path
        A folder holding ``places.geojson``, ``roads.geojson``, ``cases/``, ``scenarios/``...
    """
    override = os.environ.get(DATA_ENV)
    return Path(override) if override else Path(str(files(__name__)))


class InputError(ValueError):
    """Base of every error raised on bad input, by `geo` and by the application alike.

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
        shown = f" (value: {shown_value(value)})" if value is not None else ""
        super().__init__(f"{where}: {message}{shown}" if where else f"{message}{shown}")


def shown_value(value: Any) -> str:
    """`value` as an error message quotes it: its repr, cut to `MAX_SHOWN` characters.

    An integer too long to print (Python refuses beyond 4,300 digits) is named by its size.
    """
    try:
        text = repr(value)
    except ValueError:  # int.__repr__ past sys.get_int_max_str_digits()
        return f"an integer of {value.bit_length():,} bits"
    return text if len(text) <= MAX_SHOWN else f"{text[: MAX_SHOWN - 3]}..."
