"""Compiled loops cached on disk and loaded without numba's compiler: the decorator of every
`_compiled` module (`geo._compiled`, `refuge_map.simulation._compiled`).

`kernel` is numba's ``njit(cache=True)`` but for what a cache hit costs. numba's cache refreshes
the whole target context before it loads a kernel (`numba.core.caching.Cache.load_overload`):
it imports and installs every lowering and typing registry numba has (arrays, unicode, typed
containers, random, polynomials...), which only a compilation reads. For a run's 14 cached
kernels that refresh was 0.15 s of the first flight, the kernels' own loading 0.03 s. Loaded
code needs only numba's runtime (NRT: the kernels' array references), which `_Cache`
initializes; where the cache misses (a new signature, a changed source, an empty cache)
numba's compiler refreshes the context itself (`numba.core.compiler.compile_extra`), so what
compiles is as before. The machine code loaded is numba's, from numba's own cache files
(next to the module, or numba's user cache directory where the package's is not writable):
the same arithmetic and the same bits. (numba's maintainers discussed the same deferral in
numba/numba#9806: the refresh matters for a cache hit only with object mode, which no kernel
here uses.)

The runtime's own library, which numba compiles with LLVM in every process (20-25 ms), is kept
in geo's cache as machine code and loaded from it (`initialize_runtime`).

`_Cache` stands on numba's internals (0.68's: `FunctionCache._load_overload` and
`_guard_against_spurious_io_errors`, `rtsys.initialize`, a dispatcher's ``_cache``; for the
runtime, ``rtsys._init`` and ``_library``, `nrtdynmod.create_nrt_module` and the C helpers of
``nrt._nrt``), which a later numba may move: where one is missing, `kernel` is numba's plain
``njit(cache=True)``, the same code from the same cache, a hit loaded at numba's own cost
(`lean_loading`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from functools import partial
from types import ModuleType
from typing import Any, TypeVar

import llvmlite
import llvmlite.binding as ll
import numba
from numba import njit
from numba.core import config, types
from numba.core.caching import FunctionCache, NullCache
from numba.core.compiler_lock import global_compiler_lock
from numba.core.runtime import nrt, nrtdynmod, rtsys

from geo import _cache

Loop = TypeVar("Loop", bound=Callable[..., Any])


class _Cache(FunctionCache):
    """numba's cache of one function, loading a hit with only the runtime initialized."""

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        """The compiled result of `sig` from the cache (None where it has none), numba's
        runtime initialized first (what the loaded code calls, `initialize_runtime`), not
        the compiler's registries."""
        initialize_runtime(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)


def initialize_runtime(target_context: Any) -> None:
    """Initialize numba's runtime (NRT) as ``rtsys.initialize`` does, its library's machine
    code from geo's cache (`geo._cache`, keyed by `_runtime_key`) where it has it, else
    compiled and kept there.

    numba compiles that library (the runtime's atomic reference counts, 6 KB of machine code)
    with LLVM in every process, before the first kernel is loaded: 20-25 ms of every run's
    start, before its child is forked. Loaded, it is the same machine code, made by the same
    numba and LLVM for this CPU. Where numba counts its allocations (``NUMBA_NRT_STATS``),
    numba initializes it itself.
    """
    if rtsys._init:
        return
    if getattr(config, "NRT_STATS", False):
        rtsys.initialize(target_context)
        return
    with global_compiler_lock:  # numba's, as for its own initialization (reentrant)
        for name, address in nrt._nrt.c_helpers.items():  # the C helpers the code calls
            ll.add_symbol(name if name.startswith("_") else f"NRT_{name}", address)
        built: list[Any] = []
        code = _cache.cached(
            partial(_runtime_code, target_context, built),
            kind=tuple,
            files=(),
            params=_runtime_key(target_context),
        )
        # just compiled: that library is loaded already (loading its code again would
        # define its functions twice)
        library = built[0] if built else target_context.codegen().unserialize_library(code)
        rtsys._library, rtsys._init = library, True


def _runtime_code(target_context: Any, built: list[Any]) -> tuple[Any, ...]:
    """Compile numba's runtime library as numba does (`nrtdynmod.compile_nrt_functions`), its
    machine code kept: the library appended to `built`, its serialized form returned."""
    ir_module, library = nrtdynmod.create_nrt_module(target_context)
    library.enable_object_caching()
    library.add_ir_module(ir_module)
    library.finalize()
    built.append(library)
    return tuple(library.serialize_using_object_code())


def _runtime_key(target_context: Any) -> tuple[str, ...]:
    """What the runtime's machine code depends on: numba's and LLVM's (llvmlite's) versions
    and this machine's target (triple, CPU and its features: numba's own cache key's)."""
    triple, cpu, features = target_context.codegen().magic_tuple()
    return ("numba runtime", numba.__version__, llvmlite.__version__, triple, cpu, features)


def lean_loading() -> bool:
    """Whether this numba has the internals `_Cache` and `initialize_runtime` call (else
    `kernel` is numba's plain ``njit(cache=True)``)."""
    runtime = (
        isinstance(getattr(rtsys, "_init", None), bool)
        and callable(getattr(nrtdynmod, "create_nrt_module", None))
        and isinstance(getattr(getattr(nrt, "_nrt", None), "c_helpers", None), dict)
    )
    return (
        runtime
        and callable(getattr(rtsys, "initialize", None))
        and all(
            callable(getattr(FunctionCache, name, None))
            for name in ("_load_overload", "_guard_against_spurious_io_errors", "_index_key")
        )
    )


def preload(module: ModuleType, names: Collection[str] | None = None) -> int:
    """Load now every overload of `module`'s kernels (of those named in `names`, where given)
    that the disk cache holds for their present code on this machine (as a first call would
    load it, `_Cache`), so that a child forked after inherits them all: loaded after the fork,
    each process loads its own (2-7 ms a kernel, and the first numba's runtime, about 20 ms).
    (A kernel that allocates an array, numba's ``np.empty``, loads numba's array
    implementation with it, about 25 ms more: the package's kernels allocate none, their
    callers hand them the arrays they fill.)

    An overload typed for a literal argument (``Literal[int](0)``) is not loaded: numba types
    a kernel so while it types another that calls it with a constant, and links the code into
    the caller's; a call from Python, typed by its values' types, never picks it. Nor are the
    kernels not in `names`: the overloads the cache holds grow with whatever was run on this
    machine (another command's kernels, a test's signatures), and each costs its load.

    Where the cache has none (a new source, an empty cache) or numba lacks what this reads (a
    later numba: `lean_loading`), nothing is loaded: each kernel compiles or loads on first use.

    Returns
    -------
    int
        The overloads loaded.
    """
    loaded = 0
    for name, dispatcher in vars(module).items():
        if names is not None and name not in names:
            continue
        cache = getattr(dispatcher, "_cache", None)
        index = getattr(getattr(cache, "_cache_file", None), "_load_index", None)
        if not (isinstance(cache, _Cache) and callable(index)):
            continue
        codegen = dispatcher.targetctx.codegen()
        for key in index():
            signature = key[0]
            if any(isinstance(arg, types.Literal) for arg in signature):
                continue
            if key == cache._index_key(signature, codegen):  # this code, this machine's CPU
                dispatcher.compile(signature)
                loaded += 1
    return loaded


def kernel(**options: Any) -> Callable[[Loop], Loop]:
    """numba's ``njit(cache=True, **options)``, its cache hits loaded by `_Cache` where numba
    has what it calls (`lean_loading`, and the dispatcher keeps its cache as ``_cache``).

    Parameters
    ----------
    **options
        numba's ``njit`` options (``inline="always"``...).

    Returns
    -------
    callable
        The decorator: the function compiled by numba on first use, cached on disk.
    """

    def decorate(loop: Loop) -> Loop:
        dispatcher = njit(**options)(loop)
        if not (lean_loading() and isinstance(getattr(dispatcher, "_cache", None), NullCache)):
            return njit(cache=True, **options)(loop)
        dispatcher._cache = _Cache(loop)  # as ``cache=True`` sets it (`enable_caching`)
        return dispatcher

    return decorate
