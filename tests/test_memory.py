"""Returning a large run's freed memory to the system (simulation/_memory.py)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from refuge_map.simulation._memory import LARGE_RUN, _malloc_trim, release_freed


def _rss() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(_malloc_trim() is None, reason="no glibc malloc_trim here")
def test_freed_heap_memory_goes_back_to_the_system_for_a_large_run_only() -> None:
    # blocks below the allocator's mmap threshold live in its heap; a small block kept after
    # each holds the freed ones in the middle of it, where free() does not give them back
    blocks, keep = [], []
    for _ in range(1500):
        blocks.append(np.ones(8000))  # 64 kB
        keep.append(bytes(2000))  # past Python's small-object allocator: from the heap
    del blocks
    held = _rss()
    release_freed(LARGE_RUN - 1)  # a small run: nothing is asked of the allocator
    assert _rss() > held - 20e6
    release_freed(LARGE_RUN)
    assert _rss() < held - 50e6  # most of the 96 MB freed is back with the system
    assert len(keep) == 1500
