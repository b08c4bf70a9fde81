"""The flight's compiled loops (numba, nopython): each one pass over the agents' arrays, so that
a step costs a few calls however many agents it moves.

Each rule's arithmetic is written once, here: the seconds each walks in a step (`clock`), the
road walk (`walk`), the interpolation of road positions (`xy`), a mover's whole move in a step
(`move`: off-road leg, road walk or across country) and his position (`place`); who runs and
whom the asylum predicate is asked about (`runners`, `nearing`), who climbs his tree
(`climbers`); who sees whom (`watch`); the avengers who set out, give up or pursue, and where
each makes for (`pursuers`), and who meet their fugitive (`contact`); whose trajectory row
falls at a step (`due`) and how many incidents have ended (`ended`) (the zones' tests are
geometry's: `geo.asylum.Asylum.compile`). Each such pass is one call
for all the rows: a step's array calls over every row, each reading and writing whole arrays,
cost more than one loop that reads each row once. `_walk.RoadGraph` and `engine._Pursuit`
hand them their arrays and turn what they flag into events. A road graph comes as two tuples of
arrays (`_walk.RoadGraph.road_tables`, `shape_tables`): ``road`` (edge_u, edge_v, length and
the node-pair tables dist, next hop and edge of) and ``shape`` (the edge geometries' flat
arrays). No loop calls a compiled helper per agent that takes arrays (unpacking them per call
costs more than the work): the walk is its own pass, which `move` calls once for all its
movers, and so is the placing (`place`; inlined into `move`'s last pass it ran many times
slower).

Imported only when a flight walks (`_walk.compiled`), so that commands that walk nobody do
not pay numba's import. Compiled on first use and cached on disk (`geo._jit.kernel`: next to
this file, or numba's user cache directory where the package's is not writable; a hit loaded
without numba's compiler).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from geo._jit import kernel
from geo.arrays import Bools, Floats, Ints
from refuge_map.simulation.travel import DAY_S

Road = tuple[Ints, Ints, Floats, NDArray[np.float64], NDArray[np.intp], NDArray[np.intp]]
Shape = tuple[Any, ...]
Memo = tuple[Ints, Ints, Floats, Bools]


@kernel(inline="always")
def _least(a: float, b: float) -> float:
    """The smaller of two numbers (np.minimum without NaN, which does not arise here)."""
    return a if a <= b else b


@kernel(inline="always")
def _most(a: float, b: float) -> float:
    """The larger of two numbers (np.maximum without NaN, which does not arise here)."""
    return a if a >= b else b


@kernel()
def clock(
    t: float,
    t_prev: float,
    dt: float,
    since: Floats,
    walk_s: Floats,
    walked: Floats,
    walking: Floats,
) -> None:
    """The seconds each fugitive and avenger (columns of `since`, `walk_s`, `walked`,
    `walking`) walks between the previous step's time `t_prev` and this step's `t`, into
    `walking`; see `engine._Pursuit._clock`.

    One who walks all day (`walk_s` of a whole `DAY_S`) walks the step's seconds since he set
    out (`since`), at most `dt`; one who rests walks what `travel.walked_s` counts by `t` less
    what it counted by the previous step (`walked`, updated): the same arithmetic in the same
    order, so the same bits. (A pass of its own: fused into `runners` it saved 3 us a step
    at 5,000 rows, 0.3% of the step, and left no seam for `tests/test_engine_shortcuts.py`'s
    reference clock. Rows not yet set out skipped with their 0.0 written, tried in session 5:
    31 -> 40 us at 5,000 rows, slower.)
    """
    for i in range(len(since)):  # row by row: each row's pair of columns is one cache line
        for j in range(2):
            window, rests = _least(walk_s[j], DAY_S), walk_s[j] < DAY_S
            if rests:
                elapsed = _most(t - since[i, j], 0.0)
                days = np.floor(elapsed / DAY_S)
                now = days * window + _least(elapsed - days * DAY_S, window)
                walking[i, j], walked[i, j] = now - walked[i, j], now
            else:
                walking[i, j] = _least(_most(t - _most(t_prev, since[i, j]), 0.0), dt)


@kernel(inline="always")
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


@kernel(inline="always")
def _kept_way(
    e: int, pos: float, b: float, te: int, ts: float, length: float, memo: tuple[Any, ...]
) -> float:
    """Where a walker at (`e`, `pos`), on an edge of `length` metres, stops with `b` metres to
    walk towards (`te`, `ts`) if he keeps the way he chose on this edge (`memo`: his row of
    `_walk.Heading`'s arrays, as scalars) and stops short of its end; NaN where he does not
    (no way chosen here, or he reaches the edge's end: the node by node walk decides).
    Scalars only: a helper called per row that takes arrays costs more than the work."""
    memo_edge, memo_to_edge, memo_to_s, toward_u = memo
    if memo_edge == e and memo_to_edge == te and memo_to_s == ts:
        gap = pos if toward_u else length - pos
        if b < gap:
            return pos + (-1.0 if toward_u else 1.0) * b
    return np.nan


@kernel()
def walk(
    rows: Ints,
    m: int,
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
    """Walk the walkers of the first `m` of `rows` up to `left` metres each along a shortest
    road path to his target, in place (`edge`, `s`, `left`: metres not walked, `reached`:
    whether he reached it); see `_walk.RoadGraph.walk`.

    At a node he takes the next hop towards the nearer end of his target's edge; on his
    target's edge he goes straight to it. With `use_memo`, `memo` (`_walk.Heading`'s
    arrays) is read and updated. (One loop, no call per walker: a call per walker with the
    tables as arguments costs more than the walk.)
    """
    edge_u, edge_v, length, dist, hop, edge_of = road
    memo_edge, memo_to_edge, memo_to_s, memo_toward_u = memo
    for k in range(m):
        i = rows[k]
        e, pos, b, te, ts = edge[i], s[i], left[i], to_edge[i], to_s[i]
        if not b > 0:
            continue
        if use_memo:
            way = (memo_edge[i], memo_to_edge[i], memo_to_s[i], memo_toward_u[i])
            kept = _kept_way(e, pos, b, te, ts, length[e], way)
            if kept == kept:  # not NaN: he kept his way and stopped short of the edge's end
                s[i], left[i] = kept, 0.0
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


@kernel()
def xy(edge: Ints, s: Floats, shape: Shape, x: Floats, y: Floats) -> None:
    """Metric coordinates of road positions (`edge`, `s`) into `x` and `y` (`_xy_one`)."""
    for i in range(len(edge)):
        x[i], y[i] = _xy_one(edge[i], s[i], shape)


@kernel()
def place(mover: tuple[Any, ...], shape: Shape, xy: Floats, rows: Ints, m: int) -> None:
    """Write the metric position of the movers of the first `m` of `rows` into their rows of
    `xy` (n, 2): on the road, or on the straight off-road leg if he is still walking it
    (`mover` as for `move`)."""
    edge, s, _, _, _, off_total, off_left, foot_x, foot_y, leg_x, leg_y = mover
    for k in range(m):
        i = rows[k]
        total = off_total[i]
        frac = off_left[i] / total if total > 0 else 0.0
        if frac > 0:  # still off the road: a few, in the first steps
            xy[i, 0] = foot_x[i] + frac * leg_x[i]
            xy[i, 1] = foot_y[i] + frac * leg_y[i]
        else:
            xy[i, 0], xy[i, 1] = _xy_one(edge[i], s[i], shape)


@kernel()
def move(
    tau: Floats,
    across: Bools,
    to_edge: Ints,
    to_s: Floats,
    to_xy: Floats,
    xy: Floats,
    reached: Bools,
    spare: Floats,
    scratch: tuple[Floats, Floats, Ints, Ints],
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
    across). `scratch` is four arrays of `tau`'s length, two of float and two of intp, that
    the move writes before it reads: made by the caller, so that the kernel allocates nothing
    (a kernel that calls numba's ``np.empty`` makes its cached code load numba's array
    implementation with it, 13 modules: 25 ms of every command's start, in the one kernel
    that did). `mover` is ``(edge, s, run_m, road, offroad, off_total, off_left, foot_x,
    foot_y, leg_x, leg_y)`` (`engine._Mover`'s arrays, updated in place); `memo` and
    `use_memo` as for `walk`. One whose step ends on his off-road leg is done in the first
    pass (tallied and placed there), the others after the walk: 96 -> 72 us a call at 5,000
    rows, live in the engine; and the walk, the tally and the placing go over the list of
    those rows, not over every row: 72 -> 60 us (session 5).

    Tried and reverted (session 5, 5,000 incidents' first 10 steps, the same bits each; times
    of a call, replayed from the engine's own arguments or live in it): the whole move in one
    pass per row (leg, walk, tally and place fused): 181 -> 210 us, slower; row lists by kind
    (across, on the leg, on the road) appended without a branch, each list its own pass: 99
    -> 99 us, no gain (most rows of those steps are still on their off-road leg, where the
    walk is skipped anyway); the walk as an inlined per-row helper returning a tuple, called
    from a loop over a row list: 6 -> 97 us for 696 walkers (the per-call cost the module
    docstring names). A road walker who keeps the way he chose on his edge and stops short
    of its end (`_kept_way`: ~95% of the road walkers of the default scenario's replications)
    is walked and tallied in the first pass and only placed after, not listed for the walk
    and the tally: the move's CPU ~8% less in them (session 7). Placed in the first pass
    (`_xy_one` inlined there) the move ran ~2x slower.
    """
    edge, s, run_m, speed, offroad, off_total, off_left, foot_x, foot_y, leg_x, leg_y = mover
    memo_edge, memo_to_edge, memo_to_s, memo_toward_u = memo
    length = road[2]
    n = len(tau)
    # budget and left: set, and read, only in the rows walked; walked: the rows walked,
    # tallied and placed after; kept: the rows that kept their way, placed after
    budget, left, walked, kept = scratch
    m, n_kept = 0, 0
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
            continue
        if off_left[i] > 0:
            # Where the time covers the rest of the off-road leg it is done: exactly 0 left,
            # not the rounding residue of a subtraction (which would keep him "off the road"
            # forever).
            if t * offroad[i] >= off_left[i]:
                t_off = off_left[i] / offroad[i]
                off_left[i] = 0.0
            else:
                t_off = t
                off_left[i] = off_left[i] - t * offroad[i]
            b = (t - t_off) * speed[i]
            run_m[i] = run_m[i] + t_off * offroad[i]  # and then the road's metres (below)
            total = off_total[i]
            frac = off_left[i] / total if total > 0 else 0.0
            if not b > 0 and frac > 0:
                # His step ends on the leg (most rows of a flight's first steps): nothing to
                # walk; tallied and placed now, by the arithmetic of the passes below.
                used = b - b
                run_m[i] = run_m[i] + used
                spare[i] = (b - used) / speed[i]
                xy[i, 0] = foot_x[i] + frac * leg_x[i]
                xy[i, 1] = foot_y[i] + frac * leg_y[i]
                continue
            budget[i] = left[i] = b
        else:
            b = t * speed[i]
            stop = np.nan
            if use_memo and b > 0:
                e, te = edge[i], to_edge[i]
                way = (memo_edge[i], memo_to_edge[i], memo_to_s[i], memo_toward_u[i])
                stop = _kept_way(e, s[i], b, te, to_s[i], length[e], way)
            if stop == stop:
                # he keeps his way along his edge (most road walkers of a step): walked and
                # tallied now, as the tally below would (all his budget used, no time spare)
                s[i] = stop
                run_m[i] = run_m[i] + b
                spare[i] = 0.0
                kept[n_kept] = i
                n_kept += 1
                continue
            budget[i] = left[i] = b
        walked[m] = i
        m += 1
    walk(walked, m, edge, s, left, to_edge, to_s, reached, memo, use_memo, road)
    for k in range(m):
        i = walked[k]
        used = budget[i] - left[i]
        run_m[i] = run_m[i] + used
        reached[i] = reached[i] and off_left[i] <= 0
        spare[i] = (budget[i] - used) / speed[i]
    place(mover, shape, xy, walked, m)
    place(mover, shape, xy, kept, n_kept)


@kernel()
def runners(
    started: Bools,
    f_end: Ints,
    never: int,
    waiting: Bools,
    in_tree: Bools,
    asked: Bools,
    walking: Floats,
    in_flight: Bools,
    tau: Floats,
    ask: Bools,
) -> bool:
    """The fugitives at this step: who is in flight (`in_flight`: started, not ended: `f_end`
    is `never`), the seconds each runs (`tau`: his column 0 of `walking`, none for one
    waiting or in his tree) and whom the asylum predicate has not seen where he is (`ask`:
    in flight, not `asked`); see `engine._Pursuit._flee`. Returns whether anyone runs."""
    anyone = False
    for i in range(len(started)):
        on = started[i] and f_end[i] == never
        in_flight[i] = on
        tau[i] = walking[i, 0] if on and not waiting[i] and not in_tree[i] else 0.0
        ask[i] = on and not asked[i]
        anyone |= tau[i] > 0
    return anyone


@kernel()
def climbers(
    reached: Bools,
    has_tree: Bools,
    in_tree: Bools,
    trunk: Floats,
    fxy: Floats,
    in_flight: Bools,
    tau: Floats,
    run_m: Floats,
    clear_until: Floats,
    ask: Bools,
    climbs: Bools,
) -> bool:
    """After the fugitives ran (`tau`): who reached his tree and climbs it (`climbs`, added
    to `in_tree`, his position in `fxy` its `trunk`), and whom the asylum predicate must be
    asked about now (added to `ask`: in flight and climbed, or ran as far as `clear_until`
    by `run_m`); see `engine._Pursuit._flee`. Returns whether anyone climbs."""
    anyone = False
    for i in range(len(reached)):
        up = reached[i] and has_tree[i] and not in_tree[i]
        climbs[i] = up
        if up:
            in_tree[i] = True
            fxy[i, 0], fxy[i, 1] = trunk[i, 0], trunk[i, 1]
            anyone = True
        ask[i] |= in_flight[i] and (up or (tau[i] > 0 and run_m[i] >= clear_until[i]))
    return anyone


@kernel()
def nearing(
    ask: Bools,
    run_m: Floats,
    in_tree: Bools,
    gap: Floats,
    clear_until: Floats,
    asked: Bools,
    city: Ints,
    near: Ints,
) -> int:
    """The fugitives the asylum predicate is asked about (`ask`), each `gap` metres from the
    nearest zone (`geo.asylum.Asylum.clearance_where`): each is `asked`, in no city until it
    answers (`city` -1), and cannot come into a zone before he has run (`run_m`) that far less
    a metre for rounding (`clear_until`); those at no distance, or in a tree (where his bough
    decides), are listed in `near` (ascending). Returns how many; see
    `engine._Pursuit._ask_asylum`. (One pass, not a dozen array calls: ~30 us a step.)"""
    n_near = 0
    for i in range(len(ask)):
        if not ask[i]:
            continue
        clear_until[i] = run_m[i] + gap[i] - 1.0
        asked[i] = True
        city[i] = -1
        if gap[i] <= 0 or in_tree[i]:
            near[n_near] = i
            n_near += 1
    return n_near


@kernel(inline="always")
def _within(dx: float, dy: float, m: float) -> bool:
    """Whether ``hypot(dx, dy) <= m``, without the square root where either leg alone is
    longer (the hypotenuse is never shorter than a leg, in floating point too)."""
    return abs(dx) <= m and abs(dy) <= m and np.hypot(dx, dy) <= m


@kernel()
def watch(
    in_flight: Bools,
    f_end: Ints,
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
    """Who sees whom (`sees`: a fugitive still running (`in_flight`, not ended: `f_end` is
    `never`) and his avenger, set out and not ended (`a_end` is `never`), within `sight_m` of
    each other), who sees him for the first time
    (`first`, added to `saw`) and who leaves the road on seeing him (`leaves`: one who would
    (`leaves_road`) and is on it: not across country, in his tree or waiting, and done with
    his off-road leg (`off_left`); added to `f_across`); see `engine._Pursuit._watch`.
    Returns whether anyone sees anyone. (A pass of its own: fused into `pursuers`, as one
    loop or as two in one call, the two measured 10% and 3% slower at 5,000 rows. The
    positions and the road are read only of the rows that can see: 52 -> 44 us at 5,000 rows,
    live in the engine; the flags combined by bitwise `&` with no branch per flag, tried:
    60 -> 69 us, slower.)"""
    anyone = False
    for i in range(len(in_flight)):
        seen = False
        if in_flight[i] and f_end[i] == never and set_out[i] and a_end[i] == never:
            seen = _within(fxy[i, 0] - axy[i, 0], fxy[i, 1] - axy[i, 1], sight_m)
        sees[i] = seen
        first[i] = leaves[i] = False
        if not seen:  # most rows: the rest is read only of those who see each other
            continue
        anyone = True
        first[i] = not saw[i]
        on_road = not f_across[i] and not in_tree[i] and not waiting[i] and off_left[i] <= 0
        leaves[i] = leaves_road[i] and on_road
        saw[i] = True
        f_across[i] |= leaves[i]
    return anyone


@kernel()
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
    walking: Floats,
    sees: Bools,
    f_across: Bools,
    a_across: Bools,
    sets_out: Bools,
    gives_up: Bools,
    tau: Floats,
    chasing: Bools,
    fugitive: tuple[Ints, Floats, Floats],
    goal: tuple[Ints, Floats, Floats],
    aim: tuple[Ints, Floats, Floats],
) -> tuple[bool, bool, bool]:
    """The avengers at this step's time `t`: one whose fugitive ended ends at `step`; who
    sets out now (`sets_out`, added to `set_out`) or gives up now (`gives_up`, added to
    `gave_up`; he ends at `step`); the seconds each still pursuing walks (`tau`: his column 1
    of `walking`, none for the others) and who of them chases his fugitive, seeing him
    (`chasing`; across country (added to `a_across`) after one who left the road
    (`f_across`)); and where each who walks makes for in this step (`aim`: edge, s, xy (n, 2);
    the others' rows left unset): the fugitive he chases (`fugitive`'s road position edge, s;
    across country his position, xy), else his `goal` (edge, s, xy); see
    `engine._Pursuit._pursue`. Returns whether anyone set out, gave up, and walks. (The aim in
    this pass, not one of its own: ~15 us a step less at 5,000 rows; and a row not on his way,
    or who does not walk, left at once: 65 -> 52 us at 5,000 rows, live in the engine.)"""
    f_edge, f_s, fxy = fugitive
    goal_edge, goal_s, goal_xy = goal
    to_edge, to_s, to_xy = aim
    anyone_sets_out = anyone_gives_up = anyone_walks = False
    for i in range(len(started)):
        if a_end[i] == never and f_end[i] < never:
            a_end[i] = step
        sets_out[i] = gives_up[i] = chasing[i] = False
        tau[i] = 0.0
        if not (started[i] and a_end[i] == never):  # not on his way: nothing more to look at
            continue
        if not set_out[i] and setout_s[i] <= t:
            sets_out[i] = set_out[i] = anyone_sets_out = True
        if set_out[i] and give_up_s[i] <= t:
            gives_up[i] = gave_up[i] = anyone_gives_up = True
            a_end[i] = step
            continue
        tau[i] = walking[i, 1]
        chasing[i] = sees[i]
        a_across[i] |= chasing[i] and f_across[i]
        if not tau[i] > 0:  # (the aim of one who does not walk is never read)
            continue
        anyone_walks = True
        if chasing[i]:
            to_edge[i], to_s[i] = f_edge[i], f_s[i]
        else:
            to_edge[i], to_s[i] = goal_edge[i], goal_s[i]
        if chasing[i] and a_across[i]:
            to_xy[i, 0], to_xy[i, 1] = fxy[i, 0], fxy[i, 1]
        else:
            to_xy[i, 0], to_xy[i, 1] = goal_xy[i, 0], goal_xy[i, 1]
    return anyone_sets_out, anyone_gives_up, anyone_walks


@kernel()
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


@kernel()
def ended(f_end: Ints, a_end: Ints, step: int) -> int:
    """How many incidents have both their fugitive and their avenger ended before `step`
    (`f_end`, `a_end`); see `engine._Pursuit._compact` and `done`. (A count, not a mask: the
    step asks it twice, and a mask is wanted only when rows are dropped; four array calls cost
    ~25 us a step at 5,000 rows, this pass ~3.)"""
    gone = 0
    for i in range(len(f_end)):
        gone += (f_end[i] < step) & (a_end[i] < step)
    return gone


@kernel()
def due(
    step: int,
    regular: bool,
    t_prev: float,
    started: Bools,
    t0_s: Floats,
    recorded: Bools,
    f_end: Ints,
    a_end: Ints,
    fugitive: Bools,
    avenger: Bools,
) -> None:
    """Whose trajectory row falls at `step` (`fugitive`, `avenger`): of the started and
    `recorded` who have not ended before the previous step, at a `regular` row's step, at his
    first step (killed after `t_prev`, or the flight's first step) or at the step he ends; see
    `engine._Pursuit._record`."""
    for i in range(len(started)):
        on = started[i] and recorded[i]
        due_now = regular or t0_s[i] > t_prev or step == 0
        fugitive[i] = on and f_end[i] >= step - 1 and (due_now or f_end[i] <= step)
        avenger[i] = on and a_end[i] >= step - 1 and (due_now or a_end[i] <= step)
