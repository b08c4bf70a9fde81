"""The flight's compiled loops (numba, nopython): each one pass over the agents' arrays, so that
a step costs a few calls however many agents it moves.

Each rule's arithmetic is written once, here: the road walk (`walk`), the interpolation of road
positions (`xy`), a mover's whole move in a step (`move`: off-road leg, road walk or across
country) and his position (`place`); who sees whom (`watch`); the avengers who set out, give up
or pursue (`pursuers`) and who meet their fugitive (`contact`) (the zones' tests are geometry's:
`geo.asylum.Asylum.compile`). `_walk.RoadGraph` and `engine._Pursuit` hand them their arrays and
turn what they flag into events. A road graph comes as two tuples of arrays
(`_walk.RoadGraph.road_tables`, `shape_tables`): ``road`` (edge_u, edge_v, length and the
node-pair tables dist, next hop and edge of) and ``shape`` (the edge geometries' flat arrays).
No loop calls a compiled helper per agent that takes arrays (unpacking them per call costs
more than the work): the walk is its own pass, which `move` calls once for all its movers.

Imported only when a flight walks (`_walk.compiled`), so that commands that walk nobody do
not pay numba's import. Compiled on first use and cached on disk (``cache=True``: next to this
file, or numba's user cache directory where the package's is not writable).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from geo.arrays import Bools, Floats, Ints

Road = tuple[Ints, Ints, Floats, NDArray[np.float64], NDArray[np.intp], NDArray[np.intp]]
Shape = tuple[Any, ...]
Memo = tuple[Ints, Ints, Floats, Bools]


@njit(cache=True, inline="always")
def _least(a: float, b: float) -> float:
    """The smaller of two numbers (np.minimum without NaN, which does not arise here)."""
    return a if a <= b else b


@njit(cache=True, inline="always")
def _xy_one(e: int, s: float, shape: Shape) -> tuple[float, float]:
    """Metric coordinates of road position (`e`, `s`), interpolated along the edge geometry
    (`s` clipped to the edge)."""
    base, length, first, last, one_segment, key, seg_x, seg_y, seg_dx, seg_dy, seg_span = shape
    at = base[e] + min(max(s, 0.0), length[e])
    # the segment is the edge's last whose first vertex is not beyond `at` (its first if
    # none is), as a search of all the keys clipped to the edge's would find it
    j = first[e]  # the common case: no search, the edge is its only segment
    if not one_segment[e]:  # an edge has a few vertices: a scan (faster here than a bisect)
        while j < last[e] - 1 and key[j + 1] <= at:
            j += 1
    # a segment of no length has no offset either: any finite fraction of it is 0
    frac = (at - key[j]) / seg_span[j]
    return seg_x[j] + frac * seg_dx[j], seg_y[j] + frac * seg_dy[j]


@njit(cache=True)
def walk(
    edge: Ints,
    s: Floats,
    left: Floats,
    to_edge: Ints,
    to_s: Floats,
    reached: Bools,
    memo: Memo,
    use_memo: bool,
    road: Road,
) -> None:
    """Walk every walker up to `left` metres along a shortest road path to his target, in
    place (`edge`, `s`, `left`: metres not walked, `reached`: whether he reached it); see
    `_walk.RoadGraph.walk`.

    At a node he takes the next hop towards the nearer end of his target's edge; on his
    target's edge he goes straight to it. With `use_memo`, `memo` (`_walk.Heading`'s
    arrays) is read and updated. (One loop, no call per walker: a call per walker with the
    tables as arguments costs more than the walk.)
    """
    edge_u, edge_v, length, dist, hop, edge_of = road
    memo_edge, memo_to_edge, memo_to_s, memo_toward_u = memo
    for i in range(len(edge)):
        e, pos, b, te, ts = edge[i], s[i], left[i], to_edge[i], to_s[i]
        if not b > 0:
            continue
        if use_memo and memo_edge[i] == e and memo_to_edge[i] == te and memo_to_s[i] == ts:
            # he keeps the way he chose on this edge: if he stops short of its end, walk on
            gap = pos if memo_toward_u[i] else length[e] - pos
            if b < gap:
                s[i] = pos + (-1.0 if memo_toward_u[i] else 1.0) * b
                left[i] = 0.0
                continue
        tu, tv, tl = edge_u[te], edge_v[te], length[te]
        for _ in range(len(dist) + 2):
            eu, ev, rest = edge_u[e], edge_v[e], length[e] - pos
            from_u = _least(dist[eu, tu] + ts, dist[eu, tv] + tl - ts)
            from_v = _least(dist[ev, tu] + ts, dist[ev, tv] + tl - ts)
            via_u, via_v = pos + from_u, rest + from_v
            via = _least(via_u, via_v)
            direct = abs(ts - pos) if e == te else np.inf
            stuck = not np.isfinite(_least(direct, via))
            go_direct = direct <= via
            # a tie (a walker standing on the node it just passed) goes on to the far end
            tie = abs(via_u - via_v) <= 1e-9 * (1.0 + abs(via_u))
            toward_u = (not go_direct) and ((pos > rest) if tie else (via_u < via_v))
            gap = direct if go_direct else (pos if toward_u else rest)
            step = 0.0 if stuck else _least(b, gap)
            if go_direct:
                heading = 1.0 if ts > pos else (-1.0 if ts < pos else 0.0)
            else:
                heading = -1.0 if toward_u else 1.0
            pos, b = pos + heading * step, b - step
            done = (step == gap) and not stuck
            if use_memo:
                keep = (not done) and (not stuck) and (not tie) and e != te
                memo_edge[i] = e if keep else -1
                memo_to_edge[i], memo_to_s[i], memo_toward_u[i] = te, ts, toward_u
            if not done:  # he spent his budget on his edge (or is stuck)
                break
            if go_direct:
                pos = ts
                reached[i] = True
                break
            node = eu if toward_u else ev
            end = tu if dist[node, tu] + ts <= dist[node, tv] + tl - ts else tv
            e = te if node == end else edge_of[node, max(hop[node, end], 0)]
            pos = 0.0 if edge_u[e] == node else length[e]
            if not b > 0:
                break
        edge[i], s[i], left[i] = e, pos, b


@njit(cache=True)
def xy(edge: Ints, s: Floats, shape: Shape, x: Floats, y: Floats) -> None:
    """Metric coordinates of road positions (`edge`, `s`) into `x` and `y` (`_xy_one`)."""
    for i in range(len(edge)):
        x[i], y[i] = _xy_one(edge[i], s[i], shape)


@njit(cache=True)
def place(mover: tuple[Any, ...], shape: Shape, xy: Floats, which: Bools) -> None:
    """Write the metric position of every mover `which` holds into his row of `xy` (n, 2):
    on the road, or on the straight off-road leg if he is still walking it (`mover` as for
    `move`)."""
    edge, s, _, _, _, off_total, off_left, foot_x, foot_y, leg_x, leg_y = mover
    for i in range(len(xy)):
        if not which[i]:
            continue
        total = off_total[i]
        frac = off_left[i] / total if total > 0 else 0.0
        if frac > 0:  # still off the road: a few, in the first steps
            xy[i, 0] = foot_x[i] + frac * leg_x[i]
            xy[i, 1] = foot_y[i] + frac * leg_y[i]
        else:
            xy[i, 0], xy[i, 1] = _xy_one(edge[i], s[i], shape)


@njit(cache=True)
def move(
    tau: Floats,
    across: Bools,
    to_edge: Ints,
    to_s: Floats,
    to_xy: Floats,
    xy: Floats,
    reached: Bools,
    spare: Floats,
    mover: tuple[Any, ...],
    memo: Memo,
    use_memo: bool,
    road: Road,
    shape: Shape,
) -> None:
    """Every mover with `tau` seconds to walk walks them; see `engine._Mover.move`.

    One `across` goes straight from his position in `xy` (n, 2) towards `to_xy` (n, 2) at his
    off-road speed. Any other first walks the rest of his off-road leg to the road, then the
    road towards (`to_edge`, `to_s`), and is placed (`xy`: on the road, or on his leg).
    `reached` says who reached his target, `spare` the seconds each has left over (0 for one
    across). `mover` is ``(edge, s, run_m, road, offroad, off_total, off_left, foot_x,
    foot_y, leg_x, leg_y)`` (`engine._Mover`'s arrays, updated in place); `memo` and
    `use_memo` as for `walk`.
    """
    edge, s, run_m, speed, offroad, _, off_left, _, _, _, _ = mover
    n = len(tau)
    budget, t_off = np.zeros(n), np.zeros(n)
    for i in range(n):
        t = tau[i]
        reached[i], spare[i] = False, 0.0
        if not t > 0:
            continue
        if across[i]:
            dx, dy = to_xy[i, 0] - xy[i, 0], to_xy[i, 1] - xy[i, 1]
            gap, go = np.hypot(dx, dy), t * offroad[i]
            reached[i] = go >= gap
            frac = 1.0 if go >= gap else go / (gap if gap > 0 else 1.0)
            xy[i, 0] += frac * dx
            xy[i, 1] += frac * dy
            run_m[i] += _least(go, gap)
        elif off_left[i] > 0:
            # Where the time covers the rest of the off-road leg it is done: exactly 0 left,
            # not the rounding residue of a subtraction (which would keep him "off the road"
            # forever).
            if t * offroad[i] >= off_left[i]:
                t_off[i] = off_left[i] / offroad[i]
                off_left[i] = 0.0
            else:
                t_off[i] = t
                off_left[i] = off_left[i] - t * offroad[i]
            budget[i] = (t - t_off[i]) * speed[i]
        else:
            budget[i] = t * speed[i]
    left, got = budget.copy(), np.zeros(n, dtype=np.bool_)
    walk(edge, s, left, to_edge, to_s, got, memo, use_memo, road)
    walked = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        if tau[i] > 0 and not across[i]:
            used = budget[i] - left[i]
            run_m[i] = run_m[i] + t_off[i] * offroad[i] + used
            reached[i] = got[i] and off_left[i] <= 0
            spare[i] = (budget[i] - used) / speed[i]
            walked[i] = True
    place(mover, shape, xy, walked)


@njit(cache=True, inline="always")
def _within(dx: float, dy: float, m: float) -> bool:
    """Whether ``hypot(dx, dy) <= m``, without the square root where either leg alone is
    longer (the hypotenuse is never shorter than a leg, in floating point too)."""
    return abs(dx) <= m and abs(dy) <= m and np.hypot(dx, dy) <= m


@njit(cache=True)
def watch(
    running: Bools,
    fxy: Floats,
    axy: Floats,
    set_out: Bools,
    a_end: Ints,
    never: int,
    sight_m: float,
    saw: Bools,
    leaves_road: Bools,
    f_across: Bools,
    in_tree: Bools,
    waiting: Bools,
    off_left: Floats,
    sees: Bools,
    first: Bools,
    leaves: Bools,
) -> bool:
    """Who sees whom (`sees`: a fugitive `running` and his avenger, set out and not ended
    (`a_end` is `never`), within `sight_m` of each other), who sees him for the first time
    (`first`, added to `saw`) and who leaves the road on seeing him (`leaves`: one who would
    (`leaves_road`) and is on it: not across country, in his tree or waiting, and done with
    his off-road leg (`off_left`); added to `f_across`); see `engine._Pursuit._watch`.
    Returns whether anyone sees anyone."""
    anyone = False
    for i in range(len(running)):
        dx, dy = fxy[i, 0] - axy[i, 0], fxy[i, 1] - axy[i, 1]
        seen = running[i] and set_out[i] and a_end[i] == never and _within(dx, dy, sight_m)
        sees[i] = seen
        first[i] = seen and not saw[i]
        on_road = not f_across[i] and not in_tree[i] and not waiting[i] and off_left[i] <= 0
        leaves[i] = seen and leaves_road[i] and on_road
        saw[i] |= first[i]
        f_across[i] |= leaves[i]
        anyone |= seen
    return anyone


@njit(cache=True)
def pursuers(
    step: int,
    t: float,
    started: Bools,
    f_end: Ints,
    a_end: Ints,
    never: int,
    set_out: Bools,
    setout_s: Floats,
    give_up_s: Floats,
    gave_up: Bools,
    pursuing: Bools,
    sets_out: Bools,
    gives_up: Bools,
) -> bool:
    """The avengers at this step's time `t`: one whose fugitive ended ends at `step`; who
    still pursues (`pursuing`), sets out now (`sets_out`, added to `set_out`) or gives up now
    (`gives_up`, added to `gave_up`; he ends at `step`); see `engine._Pursuit._pursue`.
    Returns whether anyone gave up."""
    anyone = False
    for i in range(len(started)):
        if a_end[i] == never and f_end[i] < never:
            a_end[i] = step
        on = started[i] and a_end[i] == never
        sets_out[i] = on and not set_out[i] and setout_s[i] <= t
        set_out[i] |= sets_out[i]
        gives_up[i] = on and set_out[i] and give_up_s[i] <= t
        if gives_up[i]:
            gave_up[i] = True
            a_end[i] = step
            anyone = True
        pursuing[i] = on and not gives_up[i]
    return anyone


@njit(cache=True)
def contact(
    step: int,
    tau: Floats,
    reached: Bools,
    chasing: Bools,
    axy: Floats,
    fxy: Floats,
    capture_m: float,
    deterred_if: Bools,
    deterred: Bools,
    captured: Bools,
    f_end: Ints,
    a_end: Ints,
    turned: Bools,
    killed: Bools,
) -> bool:
    """The avengers who moved (`tau` > 0) and reached the fugitive they chase, or came within
    `capture_m` of theirs: the escorts turn back those `deterred_if` (`turned`, added to
    `deterred`), the others kill (`killed`, added to `captured`; the fugitive ends at
    `step`); both end at `step`. See `engine._Pursuit._pursue`. Returns whether anyone met
    his fugitive."""
    anyone = False
    for i in range(len(tau)):
        turned[i] = killed[i] = False
        if not tau[i] > 0:
            continue
        near = _within(axy[i, 0] - fxy[i, 0], axy[i, 1] - fxy[i, 1], capture_m)
        if not ((reached[i] and chasing[i]) or near):
            continue
        anyone = True
        a_end[i] = step
        if deterred_if[i]:
            turned[i] = deterred[i] = True
        else:
            killed[i] = captured[i] = True
            f_end[i] = step
    return anyone
