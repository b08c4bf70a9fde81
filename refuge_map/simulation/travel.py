"""Walking days: the hours on foot in each day and the night's rest, for every walker.

A walker who sets out at ``since_s`` walks for ``walk_s_per_day`` seconds, rests for the rest of
the 24 hours, walks again, and so on (ORBIS times foot travel on roads at 30 km a day: Scheidel,
Meeks and Weiland 2012). With 24 hours a day he never rests. Everything is numpy over walkers.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from geo.arrays import Floats

DAY_S = 86_400.0


def walked_s(since_s: ArrayLike, t_s: ArrayLike, walk_s_per_day: ArrayLike) -> Floats:
    """Seconds on foot between setting out at `since_s` and the clock time `t_s` (0 before).

    Parameters
    ----------
    since_s
        When each walker set out, seconds on the scenario clock.
    t_s
        The clock time, seconds.
    walk_s_per_day
        Seconds on foot in each 24 hours (at most `DAY_S`).
    """
    elapsed = np.maximum(np.asarray(t_s, dtype=float) - since_s, 0.0)
    window = np.minimum(walk_s_per_day, DAY_S)
    days = np.floor(elapsed / DAY_S)
    return days * window + np.minimum(elapsed - days * DAY_S, window)


def arrival_s(since_s: ArrayLike, walk_s: ArrayLike, walk_s_per_day: ArrayLike) -> Floats:
    """The clock time at which a walker who set out at `since_s` has been on foot `walk_s`
    seconds (the inverse of `walked_s`; he arrives at the end of a day's walk, not after the
    night that follows it)."""
    walk = np.asarray(walk_s, dtype=float)
    window = np.minimum(walk_s_per_day, DAY_S)
    days = np.maximum(np.ceil(walk / window) - 1.0, 0.0)
    return np.asarray(since_s, dtype=float) + days * DAY_S + (walk - days * window)
