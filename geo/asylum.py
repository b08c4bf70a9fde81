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
        # the zones' rings as flat arrays for the compiled test, and its module (`compile`)
        self._rings: tuple[NDArray[np.intp], NDArray[np.intp], NDArray[Any], NDArray[Any]] | None
        self._kernels: Any = None
        self._rings = None
        self._prepare()

    def _prepare(self) -> None:
        shapely.prepare(self.towns)
        shapely.prepare(self.zones)

    def __getstate__(self) -> dict[str, object]:
        return {"towns": self.towns, "zones": self.zones, "needs_intent": self.needs_intent}

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Prepared geometries do not survive pickling: prepare again in the worker.
        Asylum.__init__(self, state["towns"], state["zones"], state["needs_intent"])

    def compile(self) -> None:
        """Answer `zone_of` and `clearance` by compiled loops over the positions (numba, loaded
        now; `geo._compiled`): the same verdicts (a position on or within rounding of a zone's
        boundary is still asked of GEOS), without a call per zone, for many small queries (a
        simulation's steps). Done once; a pickled copy answers by GEOS until asked again."""
        if self._rings is not None:
            return
        from geo import _compiled

        parts = [shapely.get_parts(zone) for zone in self.zones]
        per_zone = [[ring for p in part for ring in (p.exterior, *p.interiors)] for part in parts]
        coords = [shapely.get_coordinates(ring) for zone in per_zone for ring in zone]
        ring_at = np.cumsum([0, *(len(c) for c in coords)]).astype(np.intp)
        zone_ring = np.cumsum([0, *(len(zone) for zone in per_zone)]).astype(np.intp)
        xy = np.vstack(coords) if coords else np.empty((0, 2))
        self._rings = (
            zone_ring,
            ring_at,
            np.ascontiguousarray(xy[:, 0]),
            np.ascontiguousarray(xy[:, 1]),
        )
        self._kernels = _compiled

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
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        intends = np.asarray(intends_refuge, dtype=bool)
        if intends.shape != x.shape:  # one intent for all (broadcasting costs ~20 us)
            intends = np.broadcast_to(intends, x.shape)
        intends = intends.ravel()
        if self._rings is not None:  # compiled (`compile`): GEOS only near a boundary
            zone = np.empty(x.size, dtype=np.intp)
            if self._kernels.zone_of(
                np.ascontiguousarray(x.ravel()),
                np.ascontiguousarray(y.ravel()),
                np.ascontiguousarray(intends),
                self._zone_bounds,
                self._rings,
                self._order,
                self.needs_intent,
                zone,
            ):
                return zone.reshape(x.shape)
        xs, ys = x.ravel(), y.ravel()
        held = self._holds(xs, ys) if self._rings is not None else None
        zone = np.full(xs.size, -1, dtype=np.intp)
        # where zones overlap, the last of `_order` holding a position decides: each zone, in
        # that order, takes the positions it holds
        for z in self._order.tolist():
            rows = np.flatnonzero(held[:, z]) if held is not None else self._held_by(z, xs, ys)
            if self.needs_intent[z]:
                rows = rows[intends[rows]]
            zone[rows] = z
        return zone.reshape(x.shape)

    def _held_by(self, z: int, x: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.intp]:
        """The positions zone `z` contains, by GEOS, asked only of those within its bounding
        box (the zones not compiled)."""
        left, bottom, right, top = self._zone_bounds[z]
        near = np.flatnonzero((x >= left) & (x <= right) & (y >= bottom) & (y <= top))
        return near[shapely.contains_xy(self.zones[z], x[near], y[near])]

    def _holds(self, x: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.bool_]:
        """Whether each zone contains each position (positions x zones): by the compiled test
        (`compile`) where it can tell, else by GEOS."""
        verdict = np.empty((len(x), len(self.zones)), dtype=np.int8)
        x, y = np.ascontiguousarray(x), np.ascontiguousarray(y)
        unsure = self._kernels.inside(x, y, self._zone_bounds, self._rings, verdict)
        held = verdict == self._kernels.IN
        if not unsure:
            return held
        for i in np.flatnonzero((verdict == self._kernels.UNSURE).any(axis=0)):
            near = np.flatnonzero(verdict[:, i] == self._kernels.UNSURE)
            held[near, i] = shapely.contains_xy(self.zones[i], x[near], y[near])
        return held

    def clearance_where(
        self, xy: NDArray[np.float64], where: NDArray[np.bool_], out: NDArray[np.float64]
    ) -> None:
        """`clearance` of the positions in `xy` (n, 2) whose row `where` holds, into the same
        rows of `out` (the others untouched): one compiled pass, no gathering of the rows."""
        self.compile()
        assert self._rings is not None  # `compile` made them
        self._kernels.clearance_where(xy, where, self._zone_bounds, self._rings, out)

    def clearance(self, x: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
        """Straight-line distance (metres) from each position to the nearest zone, 0 inside one
        or on (or within rounding of) its boundary; never more than the true distance: a zone
        whose bounding box a position is outside counts at the box's distance. Compiled
        (`compile`, done now if it was not)."""
        self.compile()
        assert self._rings is not None  # `compile` made them
        x, y = np.ascontiguousarray(x, np.float64), np.ascontiguousarray(y, np.float64)
        out = np.empty(len(x))
        self._kernels.clearance(x, y, self._zone_bounds, self._rings, out)
        return out

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
