"""The compiled loops' decorator (`geo._jit.kernel`): compiled where numba's cache has nothing,
loaded from it in the next process without numba's compiler, with the same results."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

#: A module with one kernel over an array, and a probe that calls it and reports what it got,
#: whether numba's cache had it, and whether numba's compiler registries were loaded (the
#: linear algebra's, which no kernel here uses).
_KERNEL = """
import numpy as np
from geo._jit import kernel

@kernel()
def weighted(x, w):
    total = 0.0
    for i in range(len(x)):
        total += x[i] * w[i]
    return total

@kernel(inline="always")
def _twice(a):
    return 2.0 * a

@kernel()
def doubled(x):
    out = np.empty_like(x)
    for i in range(len(x)):
        out[i] = _twice(x[i])
    return out
"""
_PROBE = """
import json, sys
import numpy as np
{prelude}
import kernels
x = np.linspace(0.1, 3.7, 11)
found = {{
    "weighted": kernels.weighted(x, x[::-1].copy()),
    "doubled": kernels.doubled(x).tolist(),
    "hits": sum(sum(d.stats.cache_hits.values()) for d in (kernels.weighted, kernels.doubled)),
    "compiler_loaded": "numba.np.linalg" in sys.modules,  # a registry only compiling reads
    "caches": sorted({{type(d._cache).__name__ for d in (kernels.weighted, kernels.doubled)}}),
}}
print(json.dumps(found))
"""


def _probe(folder: Path, prelude: str = "", **environ: str) -> dict[str, object]:
    env = os.environ | {"NUMBA_CACHE_DIR": str(folder / "cache"), "PYTHONPATH": str(folder)}
    env |= environ
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(prelude=prelude)],
        capture_output=True,
        text=True,
        check=True,
        cwd=folder,
        env=env,
    )
    return dict(json.loads(done.stdout))


def test_a_kernel_compiles_then_loads_from_the_cache_with_the_same_results(tmp_path: Path) -> None:
    """The first process compiles (numba's compiler loaded, nothing in the cache), the next
    loads both kernels from the cache without the compiler's registries and gets the same
    bits (an array argument, an array allocated and returned, an inlined helper)."""
    (tmp_path / "kernels.py").write_text(_KERNEL)
    compiled = _probe(tmp_path)
    loaded = _probe(tmp_path)
    assert (compiled["hits"], compiled["compiler_loaded"]) == (0, True)
    assert (loaded["hits"], loaded["compiler_loaded"]) == (2, False)
    assert loaded["weighted"] == compiled["weighted"]
    assert loaded["doubled"] == compiled["doubled"] == [2.0 * v for v in _linspace()]


#: A prelude that refuses numba's compilation of its runtime's library.
_NO_RUNTIME_COMPILED = """
from numba.core.runtime import nrtdynmod
def refuse(*args):
    raise AssertionError("the runtime's library was compiled")
nrtdynmod.create_nrt_module = nrtdynmod.compile_nrt_functions = refuse
"""


def test_the_runtimes_library_is_compiled_once_then_loaded_from_geos_cache(
    tmp_path: Path,
) -> None:
    """numba's runtime (what loaded kernels call) has its library compiled in the first
    process and loaded from geo's cache in the next, its compilation refused there, with the
    kernels' same results; with the cache off each process compiles it."""
    (tmp_path / "kernels.py").write_text(_KERNEL)
    cache = str(tmp_path / "geo-cache")
    compiled = _probe(tmp_path, REFUGE_MAP_CACHE=cache)
    assert len(list(Path(cache).glob("network-*.pickle"))) == 1  # the runtime's entry
    loaded = _probe(tmp_path, _NO_RUNTIME_COMPILED, REFUGE_MAP_CACHE=cache)
    assert (loaded["hits"], loaded["compiler_loaded"]) == (2, False)
    assert loaded["weighted"] == compiled["weighted"]
    assert loaded["doubled"] == compiled["doubled"] == [2.0 * v for v in _linspace()]
    with pytest.raises(subprocess.CalledProcessError, match="exit status 1"):
        _probe(tmp_path, _NO_RUNTIME_COMPILED, REFUGE_MAP_CACHE="off")


def _linspace() -> list[float]:
    import numpy as np

    return [float(v) for v in np.linspace(0.1, 3.7, 11)]


def test_a_numba_without_the_internals_the_lean_loading_calls_is_told() -> None:
    import geo._jit as jit

    assert jit.lean_loading()  # the numba this package is tested with has them
    for moved in ("_load_overload", "_guard_against_spurious_io_errors"):
        without = type("FunctionCache", (jit.FunctionCache,), {moved: None})
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(jit, "FunctionCache", without)
            assert not jit.lean_loading()
    for module in ("rtsys", "nrtdynmod", "nrt"):  # the runtime's, `initialize_runtime`'s
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(jit, module, object())
            assert not jit.lean_loading()


def test_without_them_a_kernel_is_numbas_own_cached_njit_with_the_same_results(
    tmp_path: Path,
) -> None:
    """Where numba lacks what `geo._jit._Cache` calls, the kernels are numba's plain
    ``njit(cache=True)``: compiled, then loaded from the cache (by numba's own loading, its
    compiler's registries with it), the same bits."""
    (tmp_path / "kernels.py").write_text(_KERNEL)
    plain = "import geo._jit; geo._jit.lean_loading = lambda: False"
    compiled = _probe(tmp_path, plain)
    loaded = _probe(tmp_path, plain)
    assert (compiled["hits"], loaded["hits"]) == (0, 2)
    assert loaded["caches"] == ["FunctionCache"]
    assert loaded["compiler_loaded"] is True  # numba refreshes its context for a hit
    assert loaded["weighted"] == compiled["weighted"]
    assert loaded["doubled"] == compiled["doubled"] == [2.0 * v for v in _linspace()]
    lean = _probe(tmp_path)  # the lean loading reads the same cache files
    assert (lean["hits"], lean["caches"], lean["compiler_loaded"]) == (2, ["_Cache"], False)
    assert lean["doubled"] == compiled["doubled"]


_PRELOAD = """
import json, sys
import kernels
from geo._jit import preload
loaded = preload(kernels)
print(json.dumps({
    "loaded": loaded,
    "overloads": {name: len(getattr(kernels, name).overloads) for name in ("weighted", "doubled")},
    "compiler_loaded": "numba.np.linalg" in sys.modules,
}))
"""


def test_preload_loads_every_cached_overload_before_any_call(tmp_path: Path) -> None:
    """A process that has called no kernel holds, once `preload` has run, every overload the
    cache has (so that a child forked then inherits them), loaded without the compiler; over
    an empty cache it loads none, and the kernels compile on first use as ever."""
    (tmp_path / "kernels.py").write_text(_KERNEL)
    env = os.environ | {"NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}

    def preloaded() -> dict[str, object]:
        done = subprocess.run(
            [sys.executable, "-c", _PRELOAD], capture_output=True, text=True, check=True, env=env
        )
        return dict(json.loads(done.stdout))

    empty = preloaded()
    assert empty["loaded"] == 0 and empty["overloads"] == {"weighted": 0, "doubled": 0}
    _probe(tmp_path)  # compiles both, into the cache
    full = preloaded()
    assert full["overloads"] == {"weighted": 1, "doubled": 1}
    assert full["loaded"] >= 2 and full["compiler_loaded"] is False
    assert _probe(tmp_path)["doubled"] == [2.0 * v for v in _linspace()]


#: A module whose `summed` numba types twice: for `m` of ``int64`` (called from Python) and for
#: the literal 0 (`empty_sum` calls it with the constant while it is typed); and a kernel no
#: preload below names (`other`).
_CALLED = """
import numpy as np
from geo._jit import kernel

@kernel()
def summed(x, m):
    total = 0.0
    for k in range(m):
        total += x[k]
    return total

@kernel()
def empty_sum(x):
    return summed(x, 0)

@kernel()
def other(x):
    return x[0]
"""
_RUN_ALL = """
import json
import numpy as np
import kernels
x = np.ones(3)
print(json.dumps([kernels.summed(x, 2), kernels.empty_sum(x), kernels.other(x)]))
"""
_PRELOAD_NAMED = """
import json
import kernels
from geo._jit import preload
loaded = preload(kernels, {names})
kernel_names = ("summed", "empty_sum", "other")
signatures = {{n: [str(s) for s in getattr(kernels, n).overloads] for n in kernel_names}}
print(json.dumps({{"loaded": loaded, "signatures": signatures}}))
"""


def test_preload_loads_the_named_kernels_as_python_calls_them(tmp_path: Path) -> None:
    """Given the names of the kernels to load, `preload` loads those only, and of each only
    the overloads a call from Python can pick: not one numba typed for a literal argument
    while typing a caller (its code is linked into the caller's), which the cache holds too."""
    (tmp_path / "kernels.py").write_text(_CALLED)
    env = os.environ | {"NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}

    def run(code: str) -> object:
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
        )
        return json.loads(done.stdout)

    assert run(_RUN_ALL) == [2.0, 0.0, 1.0]  # compiled, into the cache
    cached = run(_PRELOAD_NAMED.format(names="None"))
    named = run(_PRELOAD_NAMED.format(names="{'summed', 'empty_sum'}"))
    assert isinstance(cached, dict) and isinstance(named, dict)
    assert cached["loaded"] == 3 and cached["signatures"]["other"] != []
    assert named["loaded"] == 2 and named["signatures"]["other"] == []
    summed = named["signatures"]["summed"]
    assert len(summed) == 1 and "int64" in summed[0] and "Literal" not in summed[0]
    index = (
        "import kernels; d = kernels.summed;"
        "print(sorted(str(k[0]) for k in d._cache._cache_file._load_index()))"
    )
    held = subprocess.run(
        [sys.executable, "-c", index], capture_output=True, text=True, check=True, env=env
    ).stdout
    assert "Literal[int](0)" in held  # the cache holds the literal's overload, not loaded
