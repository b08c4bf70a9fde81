"""Write files and folders so that a reader never sees them half-written, and never destroy
what the package did not write.

Every output folder gets a marker, `MARKER`: a small manifest naming the package and the files
it wrote. A folder is replaced only if it is empty or holds that marker; a file output never
replaces a folder; a previous output is replaced only once the new one is complete.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from glob import escape as glob_escape
from pathlib import Path

from refuge_map import __version__
from refuge_map.errors import RefugeError

#: The manifest the package writes into every output folder it makes.
MARKER = ".refuge-map.json"
#: The random middle of the temporary names `tempfile` makes (8 characters).
_RANDOM = "?" * 8


def check_file_target(path: str | os.PathLike[str]) -> Path:
    """`path` as a Path, if a file may be written there.

    Raises
    ------
    RefugeError
        If `path` is an existing folder (it is never replaced by a file).
    """
    target = Path(path)
    if target.is_dir():
        raise RefugeError(
            "is a folder; give a file name (a file output never replaces a folder)",
            source="--out",
            value=str(path),
        )
    return target


def check_folder_target(path: str | os.PathLike[str]) -> Path:
    """`path` as a Path, if an output folder may be made or replaced there.

    Raises
    ------
    RefugeError
        If `path` is an existing file, the current folder or one above it, or a folder that
        holds files refuge-map did not write (no `MARKER`).
    """
    target = Path(path)
    where = target.resolve()
    if where == Path.cwd().resolve() or where in Path.cwd().resolve().parents:
        raise RefugeError(
            "is the current folder or one above it; choose a new folder for --out",
            source="--out",
            value=str(path),
        )
    if target.exists() and not target.is_dir():
        raise RefugeError(
            "is a file, not a folder; choose another --out", source="--out", value=str(path)
        )
    if target.is_dir() and any(target.iterdir()) and not (target / MARKER).is_file():
        raise RefugeError(
            f"{path} holds files refuge-map did not write; choose another --out or remove them"
        )
    return target


def write_marker(folder: Path) -> None:
    """Write `MARKER` into `folder`: the package, its version and the files it holds.

    Atomically (`atomic_file`): a command writes it into a folder it claims before its first
    file and again after its last (`refuge demo`); a write that fails or is killed
    leaves the marker there before, whole, and no other.
    """
    files = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
    record = {"written_by": "refuge-map", "version": __version__, "files": files}
    with atomic_file(folder / MARKER) as tmp:
        tmp.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


def remove_stale(folder: Path, pattern: str) -> None:
    """Remove temporary files or folders matching `pattern` that a killed earlier write of the
    same output left in `folder` (only names this module makes: ``.NAME.*.part...``, and what
    a writer made beside them, named after them: see `atomic_file`)."""
    for stale in folder.glob(pattern):
        if stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)
        else:
            stale.unlink(missing_ok=True)


@contextmanager
def atomic_file(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside `path`; rename it onto `path` only if the block succeeds.

    On any exception the temporary file is removed and `path` is left as it was. So are the
    files a writer made beside it, named after it (SQLite's, when GDAL writes a GeoPackage:
    ``.NAME.XXXXXXXX.part.gpkg-journal``, ``...part.gpkg.tmp_rtree_LAYER.db``), and those a
    killed earlier write of `path` left (`remove_stale`).

    Raises
    ------
    RefugeError
        If `path` is an existing folder (see `check_file_target`).
    """
    target = check_file_target(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale(
        target.parent, f".{glob_escape(target.stem)}.{_RANDOM}.part{glob_escape(target.suffix)}*"
    )
    # Keep the suffix last: some writers (GDAL) choose or check the format by it.
    fd, tmp = tempfile.mkstemp(
        prefix=f".{target.stem}.", suffix=f".part{target.suffix}", dir=target.parent
    )
    os.close(fd)
    os.unlink(tmp)  # writers (GDAL among them) want to create the file themselves
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.replace(tmp_path, target)
    finally:
        remove_stale(tmp_path.parent, f"{glob_escape(tmp_path.name)}*")  # and its companions


@contextmanager
def atomic_dir(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary folder beside `path`; it replaces `path` only if the block succeeds.

    The new folder gets its `MARKER`. An existing `path` (empty, or an earlier output of the
    package) is replaced whole, so no file of an earlier output survives beside the new ones.
    On any exception the temporary folder is removed and `path` is left as it was.

    Raises
    ------
    RefugeError
        If `path` may not be replaced (see `check_folder_target`); nothing is written then.
    """
    target = check_folder_target(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    for leftover in ("part", "old"):
        remove_stale(target.parent, f".{glob_escape(target.name)}.{_RANDOM}.{leftover}")
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent))
    try:
        yield tmp
        write_marker(tmp)
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=tmp.parent))
            os.replace(target, old)
            os.replace(tmp, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
