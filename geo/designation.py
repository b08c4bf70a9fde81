"""When the cities were designated, and whether the network protects at a given moment."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from geo._errors import ParameterError
from geo.places import CITY_IDS

#: All six designated from the start.
ALL_SIX: frozenset[str] = frozenset(CITY_IDS)
EAST_THREE: frozenset[str] = frozenset({"bezer", "ramoth_gilead", "golan"})
WEST_THREE: frozenset[str] = frozenset({"kedesh", "shechem", "hebron"})

#: Deuteronomy 19:8-9: when the borders are enlarged, three more cities are added to the six;
#: Rambam, Rotzeach 8:4: in the days of the king Messiah.
THREE_MORE_SOURCE = "Deuteronomy 19:8-9; Rambam, Rotzeach 8:4"
THREE_MORE = 3


@dataclass(frozen=True)
class AddedCity:
    """A city of refuge beyond the six, at a WGS84 position (`geo.load_network`'s
    ``added_cities``).

    Attributes
    ----------
    id
        The city's id in `RefugeNetwork.cities`.
    name
        Its name as shown.
    lon, lat
        Its site in WGS84 degrees (checked inside the data region when the network loads).
    source
        The citation that designates it.
    """

    id: str
    name: str
    lon: float
    lat: float
    source: str = THREE_MORE_SOURCE


@dataclass(frozen=True)
class Designation:
    """Cities set aside at one moment (time in years on the timeline's own scale).

    Attributes
    ----------
    t
        When the cities were set aside (years).
    cities
        The city ids designated at `t`.
    source
        The citation of the designation (empty if none given).
    """

    t: float
    cities: frozenset[str]
    source: str = ""


@dataclass(frozen=True)
class DesignationTimeline:
    """An ordered list of designations.

    The network protects only once all six are designated: "not until the three in the land of
    Israel were chosen did the three beyond the Jordan receive", for "six cities of refuge"
    means all six at once (Mishnah Makkot 2:4; Numbers 35:13).

    Attributes
    ----------
    events
        The designations, ordered by time.
    """

    events: tuple[Designation, ...]

    def designated_at(self, t: float = math.inf) -> frozenset[str]:
        """The cities designated by time `t` (all of the timeline's by default)."""
        cities: frozenset[str] = frozenset()
        for event in self.events:
            if event.t <= t:
                cities |= event.cities
        return cities

    @property
    def activation_time(self) -> float:
        """The moment all six are designated (Mishnah Makkot 2:4); ``inf`` if never."""
        cities: frozenset[str] = frozenset()
        for event in self.events:
            cities |= event.cities
            if cities >= ALL_SIX:
                return event.t
        return math.inf

    def designation_times(self) -> dict[str, float]:
        """Each city's designation time (``inf`` for a city never designated)."""
        times = dict.fromkeys([*CITY_IDS, *sorted(self.designated_at() - ALL_SIX)], math.inf)
        for event in reversed(self.events):
            times.update(dict.fromkeys(event.cities, event.t))
        return times

    def active(self, t: ArrayLike | None = None) -> NDArray[np.bool_]:
        """Whether the network protects at each time (after the whole timeline if `t` is None)."""
        when = np.asarray(math.inf if t is None else t, dtype=np.float64)
        start = self.activation_time
        return (when >= start) & (start < math.inf)


#: Moses set aside the three beyond the Jordan (Deut 4:41-43), which did not yet protect;
#: Joshua chose the three in Canaan (Joshua 20:7) after the conquest and the division of the
#: land, seven years each by the traditional count (Zevachim 118b; unverified), so at year 14.
MOSES_THEN_JOSHUA = DesignationTimeline(
    (
        Designation(0.0, EAST_THREE, "Deuteronomy 4:41-43"),
        Designation(14.0, WEST_THREE, "Joshua 20:7; Mishnah Makkot 2:4"),
    )
)


def designate_three_more(
    timeline: DesignationTimeline, cities: Sequence[str], *, t: float
) -> DesignationTimeline:
    """The timeline with three more cities designated at `t` (Deuteronomy 19:8-9).

    The three protect from `t` on; the six keep their own times, and nothing protects before
    all six are designated (Mishnah Makkot 2:4).

    Parameters
    ----------
    timeline
        The timeline of the six (`RefugeNetwork.designation`).
    cities
        The three new city ids.
    t
        When the three are designated (on the timeline's scale).

    Returns
    -------
    DesignationTimeline
        `timeline` with one more event at `t`.

    Raises
    ------
    ParameterError
        If `cities` are not three new ids, or `t` comes before the timeline's last event.
    """
    added = frozenset(cities)
    if len(added) != THREE_MORE or len(cities) != THREE_MORE or added & ALL_SIX:
        raise ParameterError(
            f"Deuteronomy 19:9 adds three cities beside the six {sorted(ALL_SIX)}",
            field="cities",
            value=list(cities),
        )
    return as_timeline(
        [*timeline.events, Designation(float(t), added, THREE_MORE_SOURCE)],
        known=ALL_SIX | added,
    )


def as_timeline(designated: Any, *, known: frozenset[str] = ALL_SIX) -> DesignationTimeline:
    """Accept a set of city ids, a timeline, or a sequence of ``(t, cities)`` / mappings.

    `known` are the city ids a designation may name (the six, and any added cities).

    Raises
    ------
    ParameterError
        For unknown city names, a timeline whose times are not in order, or a non-finite time.
    """
    if isinstance(designated, DesignationTimeline):
        events = designated.events
    elif isinstance(designated, str | frozenset | set) or _all_strings(designated):
        events = (
            Designation(
                -math.inf, frozenset([designated] if isinstance(designated, str) else designated)
            ),
        )
    else:
        events = tuple(_as_event(item, i) for i, item in enumerate(designated))
    for i, event in enumerate(events):
        unknown = sorted(event.cities - known)
        if unknown:
            raise ParameterError(
                f"unknown city; valid {sorted(known)}",
                field=f"designated[{i}].cities",
                value=unknown[0],
            )
        if i and event.t < events[i - 1].t:
            raise ParameterError(
                "designation times must be in order", field=f"designated[{i}].t", value=event.t
            )
    return DesignationTimeline(events)


def _all_strings(items: Any) -> bool:
    return isinstance(items, Sequence) and all(isinstance(item, str) for item in items)


def _as_event(item: Any, i: int) -> Designation:
    if isinstance(item, Designation):
        return item
    if isinstance(item, Mapping):
        t, cities, source = item.get("t"), item.get("cities"), item.get("source", "")
    else:
        t, cities = item
        source = ""
    try:
        time = float(t)  # type: ignore[arg-type]  # any value of the file: float() checks it
    except (TypeError, ValueError):
        raise ParameterError(
            "must be a number (years)", field=f"designated[{i}].t", value=t
        ) from None
    if math.isnan(time):
        raise ParameterError("must be a number (years)", field=f"designated[{i}].t", value=t)
    names = frozenset([cities] if isinstance(cities, str) else _iterable(cities, i))
    return Designation(time, names, source)


def _iterable(cities: Any, i: int) -> Iterable[str]:
    if not isinstance(cities, Iterable):
        raise ParameterError("must list city ids", field=f"designated[{i}].cities", value=cities)
    return cities
