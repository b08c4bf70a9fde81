"""The on-disk cache of built networks (and of the gazetteer's named places,
`geo.gazetteer`): a content-addressed pickle per set of inputs.

`geo.load_network` builds the same `RefugeNetwork` from the same inputs every time: the bytes
of the data files it reads, its parameters, the code of `geo/` and the libraries that build it.
Its key is a sha256 over all of those (`key`), so an entry is never stale: a changed file,
option, module or library is another key, whose entry is built and written beside the others
(as numba's cache and ``joblib.Memory`` do).

Where: the folder `CACHE_ENV` names (``off``: no cache), else ``$XDG_CACHE_HOME/refuge-map``,
else ``~/.cache/refuge-map`` (`cache_dir`), created private (0o700). A folder that cannot be
made or written, or that another user could write to (an entry is a pickle: loading it runs
what it says), is not used: the network is built as before, nothing printed. An entry that does
not load (truncated, corrupt: its payload's sha256 is checked first) is built again and
replaced. The cache writes nothing but its entries (``network-<key>.pickle``) and their
temporary files, and keeps the `KEEP` most recently used entries: pruning touches no other
file of the folder.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import math
import os
import pickle
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import TypeVar

#: The variable naming the cache folder (``off`` turns the cache off).
CACHE_ENV = "REFUGE_MAP_CACHE"

#: Entries kept: the most recently used (a network of the shipped data is ~1 MB).
KEEP = 32

#: Bumped when an entry's layout or what the key covers changes.
FORMAT = 3

#: The libraries whose versions are in the key: everything that builds a network or its tables.
LIBRARIES = (
    "numpy",
    "shapely",
    "geopandas",
    "pandas",
    "pyproj",
    "pyogrio",
    "networkx",
    "scipy",
)

_PREFIX, _SUFFIX = "network-", ".pickle"
_ENTRY = re.compile(rf"{_PREFIX}[0-9a-f]{{64}}{re.escape(_SUFFIX)}")
_TEMP_PREFIX, _TEMP_SUFFIX = f".{_PREFIX}", ".tmp"
#: A temporary file of ours older than this was left by a killed process (pruned).
_TEMP_STALE_S = 3600.0
_DIGEST_BYTES = hashlib.sha256().digest_size

Built = TypeVar("Built")


def cache_dir() -> Path | None:
    """The cache folder: ``$REFUGE_MAP_CACHE``, else ``$XDG_CACHE_HOME/refuge-map``, else
    ``~/.cache/refuge-map`` (not created here).

    Returns
    -------
    pathlib.Path or None
        The folder; None where the cache is off (``REFUGE_MAP_CACHE=off``) or there is no home
        folder to put it in.
    """
    chosen = os.environ.get(CACHE_ENV, "")
    if chosen.strip().lower() == "off":
        return None
    if chosen:
        return Path(chosen).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and Path(xdg).is_absolute():  # the XDG spec: a relative path is to be ignored
        return Path(xdg) / "refuge-map"
    try:
        return Path.home() / ".cache" / "refuge-map"
    except RuntimeError:  # no home folder
        return None


def key(files: Iterable[Path], params: object) -> str | None:
    """The key of what a network is built from: `FORMAT`, the package's version, the bytes of
    `files` (a missing file counts as missing), the `params`, the code of `geo/` and the
    versions of Python and the `LIBRARIES`.

    Parameters
    ----------
    files
        Every file the build reads (names matter: their order and name are hashed).
    params
        The normalized parameters (dataclasses, mappings, sets, sequences, text and numbers).

    Returns
    -------
    str or None
        The sha256 as hex; None where a file cannot be read or a parameter has no stable form
        (then nothing is cached).
    """
    digest = hashlib.sha256()
    try:
        digest.update(_canonical(["format", FORMAT, "params", params, *_versions()]))
        for path in files:
            digest.update(_canonical(["file", path.name]))
            digest.update(path.read_bytes() if path.is_file() else b"<missing>")
        digest.update(_code())
    except (OSError, TypeError):
        return None
    return digest.hexdigest()


@lru_cache(maxsize=1)
def _code() -> bytes:
    """The sha256 of the code of `geo/` (each module's name and bytes), read once a process:
    the code a process runs is what it imported, whatever the files say later."""
    digest = hashlib.sha256()
    for source in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(_canonical(["code", source.name]))
        digest.update(source.read_bytes())
    return digest.digest()


def cached(
    build: Callable[[], Built], *, kind: type[Built], files: tuple[Path, ...], params: object
) -> Built:
    """`build()`'s result, from the cache where an entry of the same key is there, else built
    and written to it.

    The key (`key`) is taken again after the build, and nothing is written where a file changed
    meanwhile. What `build` raises propagates, and nothing is written.

    Parameters
    ----------
    build
        Builds the object (called at most once).
    kind
        Its type: an entry unpickling as anything else counts as corrupt.
    files
        Every file `build` reads.
    params
        Its normalized parameters (see `key`).

    Returns
    -------
    object
        The cached or built object.
    """
    folder = _usable_folder()
    entry_key = key(files, params) if folder is not None else None
    if folder is None or entry_key is None:
        return build()
    entry = folder / f"{_PREFIX}{entry_key}{_SUFFIX}"
    found = _load(entry)
    if isinstance(found, kind):
        return found
    built = build()
    if key(files, params) == entry_key:
        _store(entry, built)
        _prune(folder)
    return built


def _usable_folder() -> Path | None:
    """The cache folder, created private (0o700) if missing; None where it is off, cannot be
    made, is no folder, or is not ours alone (another user could plant a pickle in it)."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        status = folder.stat()
    except OSError:
        return None
    own = not hasattr(os, "getuid") or status.st_uid == os.getuid()
    private = status.st_mode & 0o022 == 0  # neither group nor others may write
    if not (os.path.isdir(folder) and own and private and os.access(folder, os.W_OK | os.X_OK)):
        return None
    return folder


def _load(entry: Path) -> object | None:
    """The object of an entry; None where there is none or it does not load (checked against
    the sha256 it was written with first, so a damaged file is never unpickled)."""
    try:
        data = entry.read_bytes()
    except OSError:
        return None
    payload = memoryview(data)[_DIGEST_BYTES:]
    if hashlib.sha256(payload).digest() != data[:_DIGEST_BYTES]:
        return None
    try:
        found = pickle.loads(payload)
    except Exception:  # an entry written by another build of a library: rebuilt, replaced
        return None
    with contextlib.suppress(OSError):
        os.utime(entry)  # used now: pruning keeps the most recently used
    return found


def _store(entry: Path, built: object) -> None:
    """Write an entry atomically (a temporary file beside it, then `os.replace`); where it
    cannot be written, nothing is, and nothing is raised."""
    try:
        payload = pickle.dumps(built, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # an object that does not pickle is simply not cached
        return
    temp: str | None = None
    try:
        handle, temp = tempfile.mkstemp(dir=entry.parent, prefix=_TEMP_PREFIX, suffix=_TEMP_SUFFIX)
        with os.fdopen(handle, "wb") as out:
            out.write(hashlib.sha256(payload).digest())
            out.write(payload)
        os.replace(temp, entry)
        temp = None
    except OSError:
        pass
    finally:
        if temp is not None:
            _remove(Path(temp))


def _prune(folder: Path) -> None:
    """Remove all but the `KEEP` most recently used entries, and temporary files of ours that a
    killed process left; no other file."""
    entries: list[tuple[float, Path]] = []
    now = time.time()
    try:
        with os.scandir(folder) as found:
            for item in found:
                if not item.is_file(follow_symlinks=False):
                    continue
                mtime = item.stat(follow_symlinks=False).st_mtime
                if _ENTRY.fullmatch(item.name):
                    entries.append((mtime, Path(item.path)))
                elif (
                    item.name.startswith(_TEMP_PREFIX)
                    and item.name.endswith(_TEMP_SUFFIX)
                    and now - mtime > _TEMP_STALE_S
                ):
                    _remove(Path(item.path))
    except OSError:
        return
    entries.sort(reverse=True)
    for _, path in entries[KEEP:]:
        _remove(path)


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


@lru_cache(maxsize=1)
def _versions() -> tuple[object, ...]:
    """Python's version and each library's (`LIBRARIES`: an imported one's ``__version__``,
    else its distribution's, without importing it), and the package's own (once a process)."""
    found: list[object] = ["python", sys.version, "package", _distribution_version("refuge-map")]
    for name in LIBRARIES:
        module = sys.modules.get(name)
        version = getattr(module, "__version__", None)
        found += [name, version if isinstance(version, str) else _distribution_version(name)]
    return tuple(found)


def _distribution_version(name: str) -> str:
    """An installed distribution's version, from its metadata's ``Version`` header (read
    without the email parser `importlib.metadata.version` runs over the whole file: scipy's
    holds its licences, 5 ms)."""
    try:
        found = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return "not installed"
    text = found.read_text("METADATA") or found.read_text("PKG-INFO") or ""
    for line in text.splitlines():
        if not line:  # the end of the headers
            break
        if line.startswith("Version:"):
            return line.partition(":")[2].strip()
    return str(found.version)


def _canonical(value: object) -> bytes:
    """`value` as bytes that are the same in every process (sets sorted, floats exact).

    Raises
    ------
    TypeError
        For a value with no such form (then nothing is cached).
    """
    return json.dumps(_plain(value), sort_keys=True, allow_nan=False).encode()


def _plain(value: object) -> object:
    """`value` as JSON values, tagged by kind, in an order no hash seed changes."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return ["float", value.hex() if math.isfinite(value) else repr(value)]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return ["dataclass", type(value).__qualname__, fields]
    if isinstance(value, Mapping):
        items = sorted((_canonical(k), _plain(v)) for k, v in value.items())
        return ["mapping", [[k.decode(), v] for k, v in items]]
    if isinstance(value, set | frozenset):
        return ["set", sorted(_canonical(item).decode() for item in value)]
    if isinstance(value, list | tuple):
        return ["sequence", [_plain(item) for item in value]]
    raise TypeError(f"no stable form for {type(value).__name__}")
