"""`refuge_map._aside.spare_core`: whether a forked child would find a core free, told by how
idle the machine was while the command loaded (the last minute's load lags behind)."""

from __future__ import annotations

import os
import time

import pytest

from refuge_map import _aside

two_cores = pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: never spare")


def _watched(
    monkeypatch: pytest.MonkeyPatch, seconds: float, idle: float | None, children: float = 0.0
) -> None:
    """The watch began `seconds` ago, and the machine's cores were idle for `idle` seconds
    in all since (None: the machine cannot be watched), and this process's children used
    `children` seconds of CPU."""
    monkeypatch.setattr(_aside, "_watch", (time.monotonic() - seconds, 100.0, 7.0))
    monkeypatch.setattr(_aside, "_idle_seconds", lambda: None if idle is None else 100.0 + idle)
    monkeypatch.setattr(_aside, "_children_seconds", lambda: 7.0 + children)


def _load(monkeypatch: pytest.MonkeyPatch, load: float) -> None:
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))


@two_cores
@pytest.mark.parametrize(("idle", "spare"), [(1.0, True), (0.6, True), (0.2, False), (0.0, False)])
def test_a_core_is_spare_where_half_a_core_was_idle_while_it_loaded(
    monkeypatch: pytest.MonkeyPatch, idle: float, spare: bool
) -> None:
    _watched(monkeypatch, seconds=1.0, idle=idle)
    _load(monkeypatch, 1.9 if spare else 0.1)  # the lagging load says the opposite
    assert _aside.idle_cores() == pytest.approx(idle, abs=0.01)
    assert _aside.spare_core() is spare


@two_cores
@pytest.mark.parametrize(("children", "spare"), [(0.5, True), (0.2, False)])
def test_the_cores_its_own_children_kept_busy_count_as_idle(
    monkeypatch: pytest.MonkeyPatch, children: float, spare: bool
) -> None:
    _watched(monkeypatch, seconds=1.0, idle=0.2, children=children)
    assert _aside.idle_cores() == pytest.approx(0.2 + children, abs=0.01)
    assert _aside.spare_core() is spare


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="no /proc to read")
def test_a_childs_cpu_counts_while_it_works_and_once_reaped() -> None:
    before = _aside._children_seconds()
    busy, told = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: a core busy for 0.4 s of CPU, saying so after 0.15 s of it
        while time.process_time() < 0.15:
            pass
        os.write(told, b"!")
        while time.process_time() < 0.4:
            pass
        os._exit(0)
    os.close(told)  # the child's alone: a child that dies unheard ends the read, not hangs it
    _aside._CHILDREN.add(pid)
    try:
        # wait for the child's CPU, not for a time: on a busy machine it may get little
        assert os.read(busy, 1) == b"!"
        working = _aside._children_seconds() - before  # read from /proc/PID/stat
        os.waitpid(pid, 0)
    finally:
        _aside._CHILDREN.discard(pid)
        os.close(busy)
    reaped = _aside._children_seconds() - before  # from os.times
    assert 0.1 < working < 0.45
    assert 0.35 < reaped < 1.0


@two_cores
@pytest.mark.parametrize("seconds", [0.05, 600.0])
@pytest.mark.parametrize(("load", "spare"), [(0.9, True), (1.6, False)])
def test_watched_too_briefly_or_too_long_the_last_minutes_load_tells(
    monkeypatch: pytest.MonkeyPatch, seconds: float, load: float, spare: bool
) -> None:
    _watched(monkeypatch, seconds=seconds, idle=0.0 if spare else seconds * 2)
    _load(monkeypatch, load)
    assert _aside.idle_cores() is None
    assert _aside.spare_core() is spare


@two_cores
def test_where_the_machine_cannot_be_watched_the_load_tells(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _watched(monkeypatch, seconds=1.0, idle=None)
    _load(monkeypatch, 3.0)
    assert _aside.idle_cores() is None
    assert _aside.spare_core() is False


def test_one_core_is_never_spare(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    _watched(monkeypatch, seconds=1.0, idle=1.0)
    assert _aside.spare_core() is False


@pytest.mark.skipif(not os.path.exists("/proc/stat"), reason="no /proc/stat to watch")
def test_the_watch_of_this_machine_reads_no_more_idle_cores_than_it_has() -> None:
    _aside.watch()
    began = time.monotonic()
    while time.monotonic() - began < _aside.WATCHED_S[0] + 0.05:
        pass  # this process keeps one core busy meanwhile
    idle = _aside.idle_cores()
    assert idle is not None
    assert 0.0 <= idle <= (os.cpu_count() or 1) - 0.5
