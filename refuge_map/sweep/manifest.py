"""The sweep's manifest: an append-only record of every finished run, safe against kill -9."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from refuge_map._atomic import check_folder_target, write_marker
from refuge_map.errors import RefugeError

MANIFEST = "manifest.jsonl"


@dataclass
class Manifest:
    """``DIR/manifest.jsonl``: a header line, then one line per finished run.

    The header names the sweep, its spec hash, the package version and the batching (the
    sweep file's ``batch_runs``, or a pilot batch's size). When the batches are measured, a
    ``batching`` line after the pilot's runs gives the size measured for the others
    (`refuge_map.sweep.plan.measured_batch_runs`), which a resumed sweep keeps. A run line
    carries the run's parameters, seed, scenario hash, version, status (``done`` or
    ``failed``), part file and outcomes. Lines are appended by the client alone, each batch's
    lines in one write followed by ``fsync``, and only after the batch's part files were
    renamed into place: a run in the manifest has its part on disk. A line torn by a crash is
    cut off when the manifest is opened again.

    Attributes
    ----------
    path
        The manifest file.
    header
        The header record.
    runs
        Recorded runs by run index.
    batching
        The ``batching`` line (None before the pilot has run, or with a fixed ``batch_runs``).
    """

    path: Path
    header: dict[str, Any]
    runs: dict[int, dict[str, Any]] = field(default_factory=dict)
    batching: dict[str, Any] | None = None

    @classmethod
    def open(cls, out: Path, header: dict[str, Any], *, resume: bool) -> Manifest:
        """Start a manifest in `out`, or reopen the one there to resume it.

        Raises
        ------
        RefugeError
            If `out` holds another sweep's manifest (a different spec hash), or this sweep's
            without `resume`, or `resume` finds no manifest.
        """
        path = out / MANIFEST
        if not path.exists():
            if resume:
                raise RefugeError("no sweep to resume here", source=str(out))
            check_folder_target(out)
            out.mkdir(parents=True, exist_ok=True)
            write_marker(out)
            _append(path, [header])
            return cls(path, header)
        found, runs, batching = _read(path)
        if found.get("spec_hash") != header["spec_hash"]:
            raise RefugeError(
                f"the output folder holds another sweep's manifest ({found.get('sweep')!r}, "
                f"spec {found.get('spec_hash')}); this sweep is spec {header['spec_hash']}",
                source=str(path),
            )
        if not resume:
            raise RefugeError(
                "the output folder already holds this sweep; pass --resume to finish it",
                source=str(path),
            )
        return cls(path, found, runs, batching)

    def record_batching(self, batching: dict[str, Any]) -> None:
        """Append the ``batching`` line: the measured size of the batches after the pilot."""
        self.batching = {"kind": "batching", **batching}
        _append(self.path, [self.batching])

    def record(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Append the runs not yet recorded (a resumed batch may repeat some); return them."""
        new = [row for row in rows if row["run"] not in self.runs]
        if new:
            _append(self.path, [{"kind": "run", **row} for row in new])
            self.runs.update((row["run"], row) for row in new)
        return new


def _append(path: Path, records: list[dict[str, Any]]) -> None:
    text = "".join(json.dumps(r, sort_keys=True, allow_nan=True) + "\n" for r in records)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, text.encode())
        os.fsync(fd)
    finally:
        os.close(fd)


def _read(
    path: Path,
) -> tuple[dict[str, Any], dict[int, dict[str, Any]], dict[str, Any] | None]:
    """The header, the recorded runs and the batching line; a torn last line is cut off the
    file."""
    data = path.read_bytes()
    whole = data[: data.rfind(b"\n") + 1]
    if len(whole) != len(data):
        with open(path, "r+b") as file:
            file.truncate(len(whole))
            os.fsync(file.fileno())
    try:
        records = [json.loads(line) for line in whole.decode().splitlines() if line.strip()]
    except ValueError as err:  # not UTF-8, or a line that is not JSON
        raise RefugeError(
            f"corrupt manifest ({str(err).splitlines()[0]}); the runs it recorded cannot be "
            "trusted: start the sweep again with a new --out",
            source=str(path),
        ) from None
    if not records or records[0].get("kind") != "header":
        raise RefugeError("not a sweep manifest (no header line)", source=str(path))
    runs = {r["run"]: _without_kind(r) for r in records[1:] if r.get("kind") == "run"}
    batching = [r for r in records[1:] if r.get("kind") == "batching"]
    return records[0], runs, batching[-1] if batching else None


def _without_kind(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != "kind"}


def header_record(
    *,
    sweep: str,
    spec_hash: str,
    version: str,
    n_runs: int,
    batch_runs: int | None,
    axes: list[str],
    pilot_runs: int = 0,
) -> dict[str, Any]:
    """The manifest's first line."""
    return {
        "kind": "header",
        "sweep": sweep,
        "spec_hash": spec_hash,
        "version": version,
        "n_runs": n_runs,
        "batch_runs": batch_runs,
        "pilot_runs": pilot_runs,
        "axes": axes,
    }
