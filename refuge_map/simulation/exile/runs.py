"""The exiles of several runs lived as one: each run's streams and priests, for rows of all.

The replications of a scenario each live their own exile, from their own streams and with their
own priests. Lived as one (their incidents end to end, as `stack.stack_worlds` lays them: run
``r``'s incidents from ``starts[r]``), every draw is made by each run's own generator for that
run's rows, in the order the run alone makes it, so each run gets the numbers it would get
alone; the priests of each run release its own manslayers alone. A stack of one run calls its
generator and its succession exactly as the run alone does.

Every question is asked of rows in incident order (``idx`` ascending), so that the rows of a
run are one slice of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from geo.arrays import Floats, Ints
from refuge_map.simulation.priesthood import Succession
from refuge_map.simulation.seeds import Draws


def _bounds(idx: Ints, starts: Ints) -> Ints:
    """Where the rows of each run begin among `idx` (ascending), then their number.

    Raises
    ------
    ValueError
        If `idx` is not ascending or holds a row of no run: its rows of a run would be no
        slice of it, and the run would get another run's numbers (a check, not an ``assert``:
        ``python -O`` would drop it).
    """
    idx = np.asarray(idx)
    bounds = np.searchsorted(idx, starts)
    if bounds[0] != 0 or bounds[-1] != len(idx) or (idx[1:] < idx[:-1]).any():
        raise ValueError("rows of several runs must be ascending incidents of those runs")
    return bounds


@dataclass(frozen=True)
class RunStreams:
    """One stream of every run (the same purpose), drawing for rows of all of them.

    Attributes
    ----------
    rngs
        The generator of each run.
    starts
        The first incident of each run, then the number of incidents.
    """

    rngs: tuple[np.random.Generator, ...]
    starts: Ints

    def rows(self, idx: Ints) -> Draws:
        """The draws for rows `idx` (ascending): the run's own generator if there is one run,
        else draws split by run (`_Split`)."""
        if len(self.rngs) == 1:
            return self.rngs[0]
        return _Split(self.rngs, _bounds(idx, self.starts))


@dataclass(frozen=True)
class _Split:
    """Draws for the rows of several runs: run ``r``'s generator for rows
    ``bounds[r]:bounds[r + 1]``, each with the shape the run alone asks for."""

    rngs: tuple[np.random.Generator, ...]
    bounds: Ints

    def uniform(
        self, low: float = 0.0, high: float = 1.0, size: int | tuple[int, ...] | None = None
    ) -> Floats:
        """`numpy.random.Generator.uniform` of each run, end to end along the rows."""
        return self._each(lambda rng, shape: rng.uniform(low, high, shape), size)

    def standard_exponential(self, size: int | tuple[int, ...] | None = None) -> Floats:
        """`numpy.random.Generator.standard_exponential` of each run, end to end."""
        return self._each(lambda rng, shape: rng.standard_exponential(shape), size)

    def _each(
        self,
        draw: Callable[[np.random.Generator, tuple[int, ...]], Floats],
        size: int | tuple[int, ...] | None,
    ) -> Floats:
        asked = np.atleast_1d(np.asarray(() if size is None else size, dtype=np.int64))
        shape = tuple(int(k) for k in asked)
        if not shape or shape[-1] != self.bounds[-1]:
            raise ValueError(f"draws of shape {shape}: the last axis must be one per row")
        counts = np.diff(self.bounds).tolist()
        parts = [draw(rng, (*shape[:-1], k)) for rng, k in zip(self.rngs, counts, strict=True)]
        return np.concatenate(parts, axis=-1)


@dataclass(frozen=True)
class Successions:
    """The priests of every run, each releasing its own run's manslayers (Mishnah Makkot
    2:6).

    Attributes
    ----------
    runs
        The succession of each run.
    starts
        The first incident of each run, then the number of incidents.
    """

    runs: tuple[Succession, ...]
    starts: Ints

    def release(self, idx: Ints, t_y: Floats, *, war_priest: str) -> Floats:
        """When verdicts at `t_y` of rows `idx` (ascending) end: each run's
        `Succession.release` of its rows."""
        if len(self.runs) == 1:
            return self.runs[0].release(t_y, war_priest=war_priest)[0]
        bounds = _bounds(idx, self.starts)
        t_y = np.asarray(t_y, dtype=float)
        release_y = np.empty(len(t_y))
        for succession, a, b in zip(self.runs, bounds[:-1], bounds[1:], strict=True):
            if b > a:
                release_y[a:b] = succession.release(t_y[a:b], war_priest=war_priest)[0]
        return release_y


def starts_of(sizes: Sequence[int]) -> Ints:
    """The first incident of each run of `sizes` incidents laid end to end, then the total."""
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
