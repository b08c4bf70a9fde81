"""Seeds and random streams: every draw of the package comes from spawned `SeedSequence`s.

One derivation for all: a run's streams are children of ``SeedSequence(seed)`` (the flight's,
one per purpose) or of ``SeedSequence(seed, spawn_key=(key,))`` (a later phase's, so that its
draws leave the flight's untouched); the seeds of replications and of a sweep's runs are 63-bit
integers drawn from the children of a root `SeedSequence`.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numpy.typing import NDArray


class Draws(Protocol):
    """The draws a phase makes of its stream (those of `numpy.random.Generator`): a generator,
    or several runs' generators drawing for rows of all (`exile.runs.RunStreams`)."""

    def uniform(
        self, low: float = 0.0, high: float = 1.0, size: int | tuple[int, ...] | None = None
    ) -> NDArray[np.float64]:
        """Uniform draws in ``[low, high)``."""
        ...

    def standard_exponential(
        self, size: int | tuple[int, ...] | None = None
    ) -> NDArray[np.float64]:
        """Exponential draws of rate 1."""
        ...


def spawn_seeds(root: np.random.SeedSequence | int, n: int) -> list[int]:
    """`n` independent 63-bit seeds spawned from `root` (`SeedSequence.spawn`).

    Parameters
    ----------
    root
        A root seed or `SeedSequence`.
    n
        How many seeds.

    Returns
    -------
    list of int
        Non-negative integers below 2**63, one per child, in spawn order.

    Raises
    ------
    ValueError
        If `root` is a negative integer.
    OverflowError
        If `n` is negative.
    """
    if not isinstance(root, np.random.SeedSequence):
        root = np.random.SeedSequence(root)
    return [
        int(child.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1)) for child in root.spawn(n)
    ]


def streams(
    seed: int, names: tuple[str, ...], *, key: int | None = None
) -> dict[str, np.random.Generator]:
    """One independent `Generator` per name, spawned from the run's `seed`.

    Parameters
    ----------
    seed
        The run's root seed.
    names
        The purposes, in a fixed order (a new purpose goes last, leaving the others' draws).
    key
        A phase's spawn key (its streams are then apart from those spawned without one).

    Returns
    -------
    dict
        Name to generator.
    """
    root = np.random.SeedSequence(seed, spawn_key=() if key is None else (key,))
    return dict(zip(names, map(np.random.default_rng, root.spawn(len(names))), strict=True))
