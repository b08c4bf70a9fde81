"""The asylum predicate: which zone a position is in, vectorized, with the tree-bough rule and
the intent that the 42 Levitical cities ask of whoever enters them."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import shapely
from numpy.typing import NDArray

from geo._errors import ParameterError
from geo.readings import BOUGH_OPINIONS, DEFAULT_BOUGH_OPINION

BoughOpinion = Literal["mishnah", "rava", "rav_ashi", "rambam"]

#: The choices of `geo.readings.REFUGE_READINGS` (the network option ``refuges``).
RefugeReading = Literal["six", "levitical"]

#: The kind of city a zone belongs to, and what it asks of the person who enters it.
CITY_KINDS: dict[str, str] = {
    "refuge": "Makkot 10a (Abaye); Rambam, Rotzeach 8:9: one of the six takes him in whether "
    "or not he meant to seek refuge there",
    "levitical": "Makkot 10a (Abaye); Rambam, Rotzeach 8:9-10: the other 42 Levitical cities take "
    "him in only if he entered intending refuge",
}

#: The source of each answer the predicate gives, by zone kind.
KIND_CITATIONS: dict[str, str] = {
    "city": "Numbers 35:11-15: the city of refuge receives the manslayer",
    "techum": "Mishnah Makkot 2:7: as the city protects, so does its Sabbath boundary",
    "outside": "Numbers 35:26-27: outside the boundary of his city of refuge he is not protected",
    "inactive": "Mishnah Makkot 2:4; Numbers 35:13: no city protects until all six are designated",
}

#: Halvings of a leg in `Asylum.entry_along`: 2**-40 of a 100 km leg is under 0.1 mm.
_ENTRY_BISECTIONS = 40

#: Up to this many positions, `Asylum.zone_of` tests all bounding boxes in one table.
_FEW_POSITIONS = 256

#: Zone kinds, indexed by the codes `Asylum.kind_of` returns.
ZONE_KINDS = np.array(["outside", "city", "techum"])
OUTSIDE, CITY, TECHUM = 0, 1, 2


class Asylum:
    """Prepared town and zone polygons, answering point-in-asylum queries in bulk.

    Parameters
    ----------
    towns, zones
        One polygon per city, in the same metric CRS and order: the town itself, and the whole
        zone that protects (town and Sabbath boundary; Mishnah Makkot 2:7: "as the city
        protects, so does its boundary").
    needs_intent
        Per zone, whether it protects only a person who entered it intending refuge (a Levitical
        city beside the six, `CITY_KINDS`); default none does.
    """

    def __init__(
        self,
        towns: NDArray[np.object_],
        zones: NDArray[np.object_],
        needs_intent: NDArray[np.bool_] | None = None,
    ) -> None:
        self.towns = np.asarray(towns, dtype=object)
        self.zones = np.asarray(zones, dtype=object)
        self.needs_intent = (
            np.zeros(len(self.zones), dtype=bool)
            if needs_intent is None
            else np.asarray(needs_intent, dtype=bool)
        )
        self._zone_bounds = shapely.bounds(self.zones)
        # where a Levitical zone overlaps one of the six, the six (tested last) decide
        self._order = np.argsort(~self.needs_intent, kind="stable")
        self._prepare()

    def _prepare(self) -> None:
        shapely.prepare(self.towns)
        shapely.prepare(self.zones)

    def __getstate__(self) -> dict[str, object]:
        return {"towns": self.towns, "zones": self.zones, "needs_intent": self.needs_intent}

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Prepared geometries do not survive pickling: prepare again in the worker.
        Asylum.__init__(self, state["towns"], state["zones"], state["needs_intent"])

    def zone_of(
        self,
        x: NDArray[np.float64],
        y: NDArray[np.float64],
        *,
        intends_refuge: NDArray[np.bool_] | bool = True,
    ) -> NDArray[np.intp]:
        """Index of the zone containing each position (metric CRS), or -1 outside them all.

        A zone that `needs_intent` counts only for positions whose person `intends_refuge`
        (Makkot 10a, Abaye: the 42 protect only one who entered them intending refuge).
        """
        city = np.full(x.shape, -1, dtype=np.intp)
        intends = np.broadcast_to(np.asarray(intends_refuge, dtype=bool), x.shape)
        left, bottom, right, top = self._zone_bounds.T
        if x.size <= _FEW_POSITIONS:
            # Few positions (a simulation step): one table of bounding-box tests, then only the
            # zones some position is near.
            near_all = (
                (x[:, None] >= left)
                & (x[:, None] <= right)
                & (y[:, None] >= bottom)
                & (y[:, None] <= top)
            )
            zones = self._order[near_all[:, self._order].any(axis=0)]
            candidates = (np.flatnonzero(near_all[:, i]) for i in zones)
        else:
            zones = self._order
            candidates = (
                np.flatnonzero((x >= left[i]) & (x <= right[i]) & (y >= bottom[i]) & (y <= top[i]))
                for i in zones
            )
        for i, near in zip(zones, candidates, strict=True):
            if self.needs_intent[i]:
                near = near[intends[near]]
            if near.size:
                inside = near[shapely.contains_xy(self.zones[i], x[near], y[near])]
                city[inside] = i
        return city

    def entry_along(
        self,
        x0: NDArray[np.float64],
        y0: NDArray[np.float64],
        x1: NDArray[np.float64],
        y1: NDArray[np.float64],
        zone: NDArray[np.intp],
    ) -> NDArray[np.float64]:
        """Where straight legs from outside points (x0, y0) to points (x1, y1) inside `zone`
        first enter it, as the share of each leg walked (0-1).

        Found by bisection to well under a millimetre; the zones are convex (a disc, or a
        square grown from the town's square), so a leg crosses a boundary once.
        """
        low, high = np.zeros(len(x0)), np.ones(len(x0))
        zones = self.zones[zone]
        for _ in range(_ENTRY_BISECTIONS):
            mid = (low + high) / 2
            inside = shapely.contains_xy(zones, x0 + mid * (x1 - x0), y0 + mid * (y1 - y0))
            high = np.where(inside, mid, high)
            low = np.where(inside, low, mid)
        return high

    def kind_of(
        self, city: NDArray[np.intp], x: NDArray[np.float64], y: NDArray[np.float64]
    ) -> NDArray[np.int8]:
        """Zone kind codes (`ZONE_KINDS`) for positions already assigned to a zone by `zone_of`."""
        kind = np.where(city >= 0, TECHUM, OUTSIDE).astype(np.int8)
        for i, town in enumerate(self.towns):
            rows = np.flatnonzero(city == i)
            if rows.size:
                kind[rows[shapely.contains_xy(town, x[rows], y[rows])]] = CITY
        return kind

    def deciding_position(
        self,
        x: NDArray[np.float64],
        y: NDArray[np.float64],
        bough_x: NDArray[np.float64] | None,
        bough_y: NDArray[np.float64] | None,
        *,
        at_trunk: NDArray[np.bool_] | bool = False,
        opinion: BoughOpinion = DEFAULT_BOUGH_OPINION,
        intends_refuge: NDArray[np.bool_] | bool = True,
    ) -> tuple[NDArray[np.intp], NDArray[np.float64], NDArray[np.float64]]:
        """The zone index that protects each person, and the position that decided it.

        A person with a finite bough position is in a tree whose trunk stands at (`x`, `y`);
        `at_trunk` says he is at the trunk rather than up in the boughs. NaN bough
        coordinates mean "not in a tree": the person's own position decides. `intends_refuge`
        is passed to `zone_of`.

        Raises
        ------
        ParameterError
            For an unknown bough opinion.
        """
        if opinion not in BOUGH_OPINIONS:
            raise ParameterError(
                f"unknown opinion; valid {sorted(BOUGH_OPINIONS)}",
                field="bough_opinion",
                value=opinion,
            )
        trunk_zone = self.zone_of(x, y, intends_refuge=intends_refuge)
        if bough_x is None or bough_y is None:
            return trunk_zone, x, y
        in_tree = np.isfinite(bough_x) & np.isfinite(bough_y)
        if not in_tree.any():
            return trunk_zone, x, y
        bx, by = np.where(in_tree, bough_x, x), np.where(in_tree, bough_y, y)
        bough_zone = self.zone_of(bx, by, intends_refuge=intends_refuge)
        by_bough = _bough_decides(in_tree, trunk_zone, bough_zone, np.asarray(at_trunk), opinion)
        zone = np.where(by_bough, bough_zone, trunk_zone)
        return zone, np.where(by_bough, bx, x), np.where(by_bough, by, y)


def _bough_decides(
    in_tree: NDArray[np.bool_],
    trunk_zone: NDArray[np.intp],
    bough_zone: NDArray[np.intp],
    at_trunk: NDArray[np.bool_],
    opinion: BoughOpinion,
) -> NDArray[np.bool_]:
    """Where the bough's position, not the trunk's, decides under `opinion`."""
    if opinion == "mishnah":
        # Mishnah Makkot 2:7: "it all follows the boughs", whether inside or outside.
        return in_tree
    if opinion == "rava":
        # Makkot 12a (Rava): at an inside trunk he is protected, in outside boughs he is not.
        return in_tree & ~at_trunk
    # Rav Ashi (Makkot 12b) and Rambam 8:11: trunk or boughs inside protect; the bough decides
    # where it is inside, or where neither is.
    return in_tree & ((bough_zone >= 0) | (trunk_zone < 0))
