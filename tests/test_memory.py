"""Returning a large run's freed memory to the system (simulation/_memory.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from refuge_map.simulation._memory import _malloc_trim

# Run in a fresh interpreter: in a test worker that has run other tests the heap's layout is
# unknown, and freed blocks that meet its top are given back by free() itself, before any trim.
PROBE = """
import json, os
from pathlib import Path
import numpy as np
from refuge_map.simulation._memory import LARGE_RUN, release_freed

def rss():
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")

# blocks below the allocator's mmap threshold live in its heap; a small block kept after
# each holds the freed ones in the middle of it, where free() does not give them back
blocks, keep = [], []
for _ in range(1500):
    blocks.append(np.ones(8000))  # 64 kB
    keep.append(bytes(2000))  # past Python's small-object allocator: from the heap
full = rss()
del blocks
held = rss()
release_freed(LARGE_RUN - 1)  # a small run: nothing is asked of the allocator
small = rss()
release_freed(LARGE_RUN)
print(json.dumps({"full": full, "held": held, "small": small, "large": rss(), "kept": len(keep)}))
"""


@pytest.mark.skipif(_malloc_trim() is None, reason="no glibc malloc_trim here")
def test_freed_heap_memory_goes_back_to_the_system_for_a_large_run_only() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, cwd="/"
    )
    rss = json.loads(done.stdout)
    assert rss["held"] > rss["full"] - 20e6  # free() alone keeps the 96 MB in the heap
    assert rss["small"] > rss["held"] - 20e6
    assert rss["large"] < rss["held"] - 50e6  # most of the 96 MB freed is back with the system
    assert rss["kept"] == 1500
