"""The event vocabulary of the simulation, with its rules and citations, and the step log.

Kinds are stable: later phases (trial, exile) append their own kinds to the same table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

#: Event kinds, each with the rule and the citation written beside it in the events table.
EVENT_KINDS: dict[str, tuple[str, str]] = {
    "flight_start": (
        "the manslayer flees at once to a city of refuge; the assembly judges later",
        "Numbers 35:11-12, 24",
    ),
    "avenger_sets_out": (
        "the blood avenger learns of the death and pursues, while his heart is hot",
        "Deuteronomy 19:6",
    ),
    "climbs_tree": (
        "he climbs a tree at the boundary: it all follows the boughs",
        "Mishnah Makkot 2:7",
    ),
    "arrival": (
        "as the city protects, so does its boundary: here the avenger may not kill him",
        "Numbers 35:11-12; Mishnah Makkot 2:7",
    ),
    "reached_unprotected": (
        "no city protects until all six are designated",
        "Mishnah Makkot 2:4; Numbers 35:13",
    ),
    "capture": (
        "outside the refuge the avenger kills him on the way and is not liable",
        "Deuteronomy 19:6; Numbers 35:27; Rambam, Rotzeach 5:9-10",
    ),
    "deterred": (
        "the two disciples of the Sages speak to the avenger and he desists",
        "Mishnah Makkot 2:5",
    ),
    "horizon": (
        "still on the road when the simulation ends, because the way is long",
        "Deuteronomy 19:6",
    ),
}

#: Agent roles; escorts walk with their fugitive (Mishnah Makkot 2:5).
ROLES = ("fugitive", "avenger", "escort")
FUGITIVE, AVENGER = 0, 1

_EVENT_FIELDS = ("incident", "role", "kind", "t_s", "step", "x", "y", "city", "rule", "citation")
_ROW_FIELDS = ("incident", "role", "step", "x", "y", "city", "captured")


@dataclass
class StepLog:
    """Events and trajectory rows, gathered as arrays step by step and joined once.

    A part's field is an array (one value per incident logged) or a scalar that stands for
    all of them: broadcasting waits for the join, out of the stepping loop's way.
    """

    events: list[dict[str, Any]] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)

    def event(
        self,
        kind: str,
        mask: NDArray[np.bool_],
        role: int,
        t_s: NDArray[np.float64] | float,
        step: int,
        xy: NDArray[np.float64],
        city: NDArray[np.str_] | str = "",
        rule: NDArray[np.str_] | None = None,
        *,
        ids: NDArray[np.intp] | None = None,
    ) -> None:
        """Log `kind` for the rows where `mask` holds, at their position in `xy`; `ids` gives
        each row's incident (default: row ``i`` is incident ``i``)."""
        idx = mask.nonzero()[0]
        if idx.size == 0:
            return
        default_rule, citation = EVENT_KINDS[kind]
        self.events.append(
            {
                "incident": idx if ids is None else ids[idx],
                "role": ROLES[role],
                "kind": kind,
                "t_s": t_s[idx] if isinstance(t_s, np.ndarray) else t_s,
                "step": step,
                "x": xy[idx, 0],
                "y": xy[idx, 1],
                "city": city[idx] if isinstance(city, np.ndarray) else city,
                "rule": default_rule if rule is None else rule[idx],
                "citation": citation,
            }
        )

    def row(
        self,
        mask: NDArray[np.bool_],
        role: int,
        step: int,
        xy: NDArray[np.float64],
        city: NDArray[np.intp],
        captured: NDArray[np.bool_],
        *,
        ids: NDArray[np.intp] | None = None,
    ) -> None:
        """Log a trajectory row for the agents of `role` where `mask` holds; `ids` gives each
        row's incident (default: row ``i`` is incident ``i``)."""
        idx = mask.nonzero()[0]
        if idx.size:
            columns = (
                idx if ids is None else ids[idx],
                role,
                step,
                xy[idx, 0],
                xy[idx, 1],
                city[idx],
                captured[idx],
            )
            self.rows.append(dict(zip(_ROW_FIELDS, columns, strict=True)))

    def event_frame(self) -> pd.DataFrame:
        """All events, ordered by time, incident and step."""
        events = pd.DataFrame(_join(self.events, _EVENT_FIELDS))
        return events.sort_values(["t_s", "incident", "step"], kind="stable").reset_index(drop=True)

    def track_arrays(self) -> dict[str, NDArray[Any]]:
        """All trajectory rows as arrays (`city` is a city index, -1 outside asylum)."""
        return _join(self.rows, _ROW_FIELDS)


def _join(parts: list[dict[str, Any]], fields: tuple[str, ...]) -> dict[str, NDArray[Any]]:
    """The parts' fields end to end; each part's length is that of its first field (an array)."""
    if not parts:
        return {k: np.empty(0) for k in fields}
    sizes = [len(part[fields[0]]) for part in parts]
    return {k: _column([part[k] for part in parts], sizes) for k in fields}


def _column(values: list[Any], sizes: list[int]) -> NDArray[Any]:
    """One field of all parts: arrays as they are, a scalar repeated over its part's length
    (the same values and dtype as broadcasting each scalar and concatenating)."""
    if not any(isinstance(v, np.ndarray) for v in values):
        return np.repeat(np.array(values), sizes)
    return np.concatenate(
        [
            v if isinstance(v, np.ndarray) else np.full(n, v)
            for v, n in zip(values, sizes, strict=True)
        ]
    )
