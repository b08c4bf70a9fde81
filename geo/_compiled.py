"""The zones' compiled point tests (numba, nopython): which zones hold each position (`inside`),
the zone that decides for each (`zone_of`, the few positions of a simulation's step in one call
rather than a dozen array calls), and how far each position is from the nearest zone
(`clearance`; `clearance_where` for the rows a mask picks), one pass over the positions.

The zones come as one tuple ``rings`` (`Rings`), their rings (exterior and holes, of every
part) end to end: ``(zone_ring, ring_at, ring_x, ring_y)``, ``ring_x``, ``ring_y`` the
vertices (each ring closed), ring ``r`` the vertices ``ring_at[r]`` up to ``ring_at[r + 1]``,
and zone ``z`` the rings ``zone_ring[z]`` up to ``zone_ring[z + 1]``. The
crossing test decides a position only where floating point cannot mistake the side of an
edge it is on (Shewchuk's error bound for the orientation, widened); a position on or that near
a zone's boundary is left to GEOS (`geo.asylum.Asylum`), so the verdicts are GEOS's.

Imported only by `geo.asylum.Asylum.compile` (numba's import is paid only by whoever asks for
it). Compiled on first use and cached on disk, a cache hit loaded without numba's compiler
(`geo._jit.kernel`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from geo._jit import kernel
from geo.arrays import Floats, Ints

Rings = tuple[Ints, Ints, Floats, Floats]

#: The verdicts of `inside`: outside, inside, and too near the boundary to tell.
OUT, IN, UNSURE = 0, 1, 2

#: Relative error bound of the orientation's sign (Shewchuk's ``ccwerrboundA``, ~3.3e-16,
#: widened a thousandfold: a few more positions go to GEOS, none is decided wrongly).
_ORIENTATION_BOUND = 1e-12


@kernel()
def _verdict(px: float, py: float, z: int, rings: Rings) -> int:
    """Whether (`px`, `py`) is inside zone `z` (`IN`), outside (`OUT`) or too near its
    boundary to tell (`UNSURE`): the parity of the rings' edges crossed by a ray to +x."""
    zone_ring, ring_at, ring_x, ring_y = rings
    inside = False
    for r in range(zone_ring[z], zone_ring[z + 1]):
        for j in range(ring_at[r], ring_at[r + 1] - 1):
            x1, y1, x2, y2 = ring_x[j], ring_y[j], ring_x[j + 1], ring_y[j + 1]
            left = (x2 - x1) * (py - y1)
            right = (y2 - y1) * (px - x1)
            det = left - right
            near = abs(det) <= _ORIENTATION_BOUND * (abs(left) + abs(right))
            if near and min(x1, x2) <= px <= max(x1, x2) and min(y1, y2) <= py <= max(y1, y2):
                return UNSURE  # on the edge, or too near it to tell
            if (y1 > py) != (y2 > py):
                if near:
                    return UNSURE
                if (det > 0) == (y2 > y1):  # the edge crosses the ray right of the point
                    inside = not inside
    return IN if inside else OUT


@kernel(inline="always")
def _in_box(px: float, py: float, bounds: Floats, z: int) -> bool:
    """Whether (`px`, `py`) is within zone `z`'s bounding box (left, bottom, right, top)."""
    return bounds[z, 0] <= px <= bounds[z, 2] and bounds[z, 1] <= py <= bounds[z, 3]


@kernel()
def inside(
    x: Floats,
    y: Floats,
    bounds: Floats,
    rings: Rings,
    out: NDArray[np.int8],
) -> bool:
    """The verdict (`OUT`, `IN`, `UNSURE`) of every position for every zone into `out`
    (positions x zones): `OUT` outside a zone's bounding box (left, bottom, right, top) without
    a look at its rings. Returns whether any verdict is `UNSURE`."""
    unsure = False
    for i in range(len(x)):
        px, py = x[i], y[i]
        for z in range(len(bounds)):
            if not _in_box(px, py, bounds, z):
                out[i, z] = OUT
                continue
            out[i, z] = _verdict(px, py, z, rings)
            unsure |= out[i, z] == UNSURE
    return unsure


@kernel()
def zone_of(
    x: Floats,
    y: Floats,
    intends: NDArray[np.bool_],
    bounds: Floats,
    rings: Rings,
    order: Ints,
    needs_intent: NDArray[np.bool_],
    out: Ints,
) -> bool:
    """The zone holding each position into `out` (-1: none), as `geo.asylum.Asylum.zone_of`
    decides it: of the zones in `order` holding him, the last, a zone that `needs_intent`
    counting only for one who `intends` refuge. The zones are tried from the last of `order`
    back, and one position's search ends at the first that holds him. Returns False if a
    position is too near the boundary of a zone tried to tell (`UNSURE`): then `out` is not
    to be used, and GEOS must decide."""
    for i in range(len(x)):
        px, py = x[i], y[i]
        out[i] = -1
        for k in range(len(order) - 1, -1, -1):
            z = order[k]
            if needs_intent[z] and not intends[i]:
                continue
            if not _in_box(px, py, bounds, z):
                continue
            verdict = _verdict(px, py, z, rings)
            if verdict == UNSURE:
                return False
            if verdict == IN:
                out[i] = z
                break
    return True


@kernel()
def clearance(x: Floats, y: Floats, bounds: Floats, rings: Rings, out: Floats) -> None:
    """Straight-line distance (metres) from each position to the nearest zone into `out`
    (`_clearance_at`). (Into `out`: an array made here would cost its return to Python more
    than the loop.)"""
    for i in range(len(x)):
        out[i] = _clearance_at(x[i], y[i], bounds, rings)


@kernel()
def clearance_where(
    xy: Floats, where: NDArray[np.bool_], bounds: Floats, rings: Rings, out: Floats
) -> None:
    """`clearance` of the positions in `xy` (n, 2) whose row `where` holds, into their rows of
    `out` (the others' left as they are): a simulation's step asks it of its few rows without
    gathering their coordinates first (a dozen array calls a step, ~30 us at 5,000 rows)."""
    for i in range(len(where)):
        if where[i]:
            out[i] = _clearance_at(xy[i, 0], xy[i, 1], bounds, rings)


@kernel()
def _clearance_at(px: float, py: float, bounds: Floats, rings: Rings) -> float:
    """Straight-line distance (metres) from (`px`, `py`) to the nearest zone, 0 inside one (or
    too near its boundary to tell), never more than the true distance: to a zone whose
    bounding box the position is outside, the distance to the box."""
    best = np.inf
    for z in range(len(bounds)):
        dx = max(max(bounds[z, 0] - px, px - bounds[z, 2]), 0.0)
        dy = max(max(bounds[z, 1] - py, py - bounds[z, 3]), 0.0)
        gap = np.hypot(dx, dy)
        if gap == 0.0:
            if _verdict(px, py, z, rings) != OUT:
                return 0.0
            gap = _to_rings(px, py, z, rings)
        best = min(best, gap)
    return best


@kernel()
def _to_rings(px: float, py: float, z: int, rings: Rings) -> float:
    """Distance from (`px`, `py`) to the nearest edge of zone `z`'s rings."""
    zone_ring, ring_at, ring_x, ring_y = rings
    best = np.inf
    for r in range(zone_ring[z], zone_ring[z + 1]):
        for j in range(ring_at[r], ring_at[r + 1] - 1):
            x1, y1 = ring_x[j], ring_y[j]
            ex, ey = ring_x[j + 1] - x1, ring_y[j + 1] - y1
            span = ex * ex + ey * ey
            along = ((px - x1) * ex + (py - y1) * ey) / span if span > 0 else 0.0
            along = min(max(along, 0.0), 1.0)
            best = min(best, np.hypot(px - x1 - along * ex, py - y1 - along * ey))
    return best
