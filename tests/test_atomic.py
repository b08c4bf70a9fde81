"""`refuge_map._atomic`: files and folders written so that no reader sees them half-written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from refuge_map._atomic import MARKER, atomic_file, write_marker

#: `write_marker` of the folder given, in a process whose files may not grow past the bytes
#: given (``RLIMIT_FSIZE``: a write beyond fails with EFBIG, as one on a full disk does).
CAPPED = """\
import resource, signal, sys
from pathlib import Path
from refuge_map._atomic import write_marker
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails, rather than the process
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), resource.RLIM_INFINITY))
write_marker(Path(sys.argv[1]))
"""


@pytest.mark.skipif(sys.platform == "win32", reason="no RLIMIT_FSIZE here")
def test_a_marker_that_fails_to_be_written_leaves_the_one_before_whole(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "first.csv").write_text("a\n")
    write_marker(out)
    before = (out / MARKER).read_bytes()
    for k in range(200):  # the new marker names them all: far longer than the cap
        (out / f"file-{k:03d}.csv").write_text("b\n")
    failed = subprocess.run(
        [sys.executable, "-c", CAPPED, str(out), str(len(before) + 10)],
        capture_output=True,
        text=True,
    )
    assert failed.returncode == 1 and "OSError" in failed.stderr, failed.stderr  # EFBIG
    assert (out / MARKER).read_bytes() == before  # whole, not torn
    assert json.loads(before)["files"] == ["first.csv"]
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == [MARKER]


#: What SQLite leaves beside a GeoPackage that GDAL was writing when it was killed (seen
#: after a kill -9 of a child writing ``network.gpkg``), the temporary's name before them.
COMPANIONS = ("", "-journal", ".tmp_rtree_net.db")


def test_what_a_killed_write_left_beside_its_temporary_goes_with_the_next_write(
    tmp_path: Path,
) -> None:
    for companion in COMPANIONS:
        (tmp_path / f".network.k1lled00.part.gpkg{companion}").write_bytes(b"torn")
    (tmp_path / ".network.gpkg-journal").write_bytes(b"a user's")  # not a name _atomic makes
    with atomic_file(tmp_path / "network.gpkg") as tmp:
        tmp.write_bytes(b"whole")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".network.gpkg-journal", "network.gpkg"]


def test_a_write_that_fails_takes_what_its_writer_made_beside_the_temporary(
    tmp_path: Path,
) -> None:
    (tmp_path / "network.gpkg").write_bytes(b"before")

    def write_half() -> None:
        with atomic_file(tmp_path / "network.gpkg") as tmp:
            for companion in COMPANIONS:
                tmp.with_name(tmp.name + companion).write_bytes(b"half")
            raise OSError("the disk is full")

    with pytest.raises(OSError, match="the disk is full"):
        write_half()
    assert [p.name for p in tmp_path.iterdir()] == ["network.gpkg"]
    assert (tmp_path / "network.gpkg").read_bytes() == b"before"
