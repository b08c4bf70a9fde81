"""The replications shared with a forked child (simulation/split.py, `model.replicate`'s
`split`): the same run and files whichever process lives which replication, and every way a
child is not to be had (none wanted, no spare core, no fork, other threads, a child that
dies) gives them too."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from refuge_map import _aside
from refuge_map.simulation import (
    Run,
    Scenario,
    load_scenario,
    replicate,
    scenario_network,
    write_run,
)
from refuge_map.simulation import model as model_module
from refuge_map.simulation import split as split_module
from refuge_map.simulation.io import EXILE_FILES, REPLICATIONS_FILE, RUN_FILES
from refuge_map.simulation.scenario import run_agent_steps
from refuge_map.simulation.split import (
    FIRST_RUN_EXTRA,
    FIRST_RUN_WRITING,
    MIN_CHILD_AGENT_STEPS,
    TABLES_IMPORT,
    TABLES_LIBRARY,
    balanced,
    child_share,
)

SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"


forks = pytest.mark.usefixtures("can_fork")  # tests/conftest.py


def _scenario(name: str, replications: int, **changes: object) -> Scenario:
    return load_scenario(SCENARIOS / f"{name}.yaml").model_copy(
        update={"replications": replications, **changes}
    )


#: The default cut small, with its exile: 5 replications of 30 incidents over two days.
SMALL = "default"


@functools.cache
def _small() -> Scenario:
    scenario = _scenario(SMALL, 5)
    assert scenario.generate is not None and scenario.exile is not None
    return scenario.model_copy(
        update={"generate": scenario.generate.model_copy(update={"n": 30}), "horizon_h": 48}
    )


@functools.cache
def _here(name: str) -> Run:
    """The scenario's replications all lived in this process."""
    scenario = _small() if name == SMALL else _scenario(name, 4)
    return replicate(scenario, split=False)


@pytest.fixture
def children(forked_pids: list[int], monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The children `replicate` forks (a core spare, whatever the suite's load)."""
    monkeypatch.setattr(_aside, "spare_core", lambda: True)
    return forked_pids


def _files(run: Run, out: Path) -> dict[str, bytes]:
    write_run(run, out)
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def _assert_same(run: Run, here: Run, tmp_path: Path) -> None:
    """The same run as `here`'s, and the same bytes written."""
    assert run.replications is not None and here.replications is not None
    pd.testing.assert_frame_equal(run.replications, here.replications)
    assert run.summary == here.summary
    assert _files(run, tmp_path / "run") == _files(here, tmp_path / "here")


@forks
@pytest.mark.parametrize("name", [SMALL, "exile_whole_life", "levitical"])
def test_a_child_living_the_last_replications_gives_the_same_run_and_files(
    name: str, children: list[int], tmp_path: Path
) -> None:
    scenario = _small() if name == SMALL else _scenario(name, 4)
    run = replicate(scenario, split=True)
    assert len(children) == 1
    _assert_same(run, _here(name), tmp_path)
    assert run.replications is not None
    assert len(run.replications) == scenario.replications
    assert run.replications["seed"].is_unique


#: A fresh interpreter's `replicate` of `_small` with a child, reporting whether pandas is
#: loaded when the child is forked and when it ends (its rows sent).
_PANDAS_PROBE = """
import os, sys
from pathlib import Path
from refuge_map import _aside
from refuge_map.simulation import load_scenario, replicate

_aside.spare_core = lambda: True
scenario = load_scenario(Path({folder!r}) / "default.yaml")
scenario = scenario.model_copy(update={{
    "replications": 5,
    "generate": scenario.generate.model_copy(update={{"n": 30}}),
    "horizon_h": 48,
}})
fork, leave = os.fork, os._exit

def forked():
    print("forked, pandas", "pandas" in sys.modules, flush=True)
    pid = fork()
    if pid == 0:
        os._exit = lambda code: (print("child ends, pandas", "pandas" in sys.modules,
                                       flush=True), leave(code))
    return pid

os.fork = forked
run = replicate(scenario, split=True)
print("replications", len(run.replications), flush=True)
"""


@forks
def test_the_child_is_forked_before_pandas_is_imported_and_never_imports_it() -> None:
    """Its worlds, stacked flight and headlines need none (`Flight.outcome_columns`, the
    network's arrays): this process imports pandas after the fork, for the first run's tables,
    while the child works."""
    scenario_network(_small())  # the network cached, as a second `refuge run` finds it
    probe = _PANDAS_PROBE.format(folder=str(SCENARIOS))
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert sorted(lines) == [
        "child ends, pandas False",
        "forked, pandas False",
        "replications 5",
    ], done.stderr


@forks
def test_the_child_is_forked_once_the_first_world_is_built_and_the_steps_are_still_told(
    children: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[int] = []  # the children forked when each world of this process is built
    flown: list[int] = []  # ... and when its stack begins to fly
    build, fly = model_module.build_world, model_module.fly_stacked

    def building(*args: Any, **kwargs: Any) -> Any:
        built.append(len(children))
        return build(*args, **kwargs)

    def flying(*args: Any, **kwargs: Any) -> Any:
        flown.append(len(children))
        return fly(*args, **kwargs)

    monkeypatch.setattr(model_module, "build_world", building)
    monkeypatch.setattr(model_module, "fly_stacked", flying)
    scenario = _small().model_copy(update={"replications": 8})
    told: list[tuple[int, int]] = []
    run = replicate(scenario, split=True, progress=lambda s, n: told.append((s, len(children))))
    # the network is loaded and the first world built before the fork, the others after it;
    # this process's stack flies beside the child from its first step
    assert built == [0] + [1] * (8 - balanced(8) - 1) and len(built) >= 2
    assert flown == [1]
    here: list[int] = []
    replicate(scenario, split=False, progress=lambda s, n: here.append(s))
    assert {forked for _, forked in told} == {1}
    assert [s for s, _ in told] == here[: len(told)]  # this process's steps, told as ever
    assert run.summary["replications"]["n"] == 8


def test_without_a_spare_core_the_replications_are_all_lived_here(
    children: list[int], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(_aside, "spare_core", lambda: False)
    monkeypatch.setattr(_aside, "can_fork", lambda: True)
    big = _small().model_copy(update={"horizon_h": 10_000})  # worth a child, were one spare
    assert child_share(big) == 0 and child_share(big, split=True) == balanced(5)
    run = replicate(_small())
    assert children == []  # (`write_run` may fork one of its own: `_assert_same`)
    _assert_same(run, _here(SMALL), tmp_path)


def test_not_split_none_is_forked(children: list[int], tmp_path: Path) -> None:
    run = replicate(_small(), split=False)
    assert children == []
    _assert_same(run, _here(SMALL), tmp_path)


def test_where_no_child_can_be_forked_they_are_all_lived_here(
    children: list[int], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def refused() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")  # fork's EAGAIN

    monkeypatch.setattr(os, "fork", refused)
    _assert_same(replicate(_small(), split=True), _here(SMALL), tmp_path)
    assert children == []


def test_with_other_threads_running_no_child_is_forked(children: list[int], tmp_path: Path) -> None:
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert child_share(_small(), split=True) == 0
        run = replicate(_small(), split=True)
    finally:
        release.set()
        other.join()
    assert children == []
    _assert_same(run, _here(SMALL), tmp_path)


@forks
@pytest.mark.parametrize(
    "fate",
    [lambda: os.kill(os.getpid(), 9), lambda: time.sleep(600)],
    ids=["killed before it sends anything", "hung: stopped past its patience"],
)
def test_where_the_child_dies_or_hangs_its_replications_are_lived_here(
    fate: Any, children: list[int], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    parent = os.getpid()
    rows = model_module.headline_rows

    def fails(scenario: Scenario, seeds: list[int]) -> list[dict[str, float]]:
        if os.getpid() != parent:  # the child
            fate()
        return rows(scenario, seeds)

    monkeypatch.setattr(model_module, "headline_rows", fails)
    monkeypatch.setattr(_aside, "MIN_PATIENCE_S", 0.5)
    run = replicate(_small(), split=True)
    assert len(children) == 1
    with pytest.raises(ChildProcessError):  # reaped: no child left behind
        os.waitpid(children[0], os.WNOHANG)
    _assert_same(run, _here(SMALL), tmp_path)


@forks
def test_an_error_here_waits_for_the_child_and_is_raised(
    children: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    def fails(*args: object, **kwargs: object) -> None:
        raise KeyError("the tables failed")

    monkeypatch.setattr(model_module, "after_flight", fails)
    with pytest.raises(KeyError, match="the tables failed"):
        replicate(_small(), split=True)
    assert len(children) == 1
    with pytest.raises(ChildProcessError):
        os.waitpid(children[0], os.WNOHANG)


def test_the_child_takes_the_share_that_balances_the_first_runs_extra_work() -> None:
    assert [balanced(n) for n in (1, 2, 3)] == [0, 1, 2]  # this process keeps the first
    assert balanced(30) == round((30 + FIRST_RUN_EXTRA) / 2) == 17
    assert 30 - balanced(30) + FIRST_RUN_EXTRA == pytest.approx(balanced(30), abs=1)
    # the first run's files written here meanwhile (`refuge run`): the child takes more
    assert balanced(30, writing=True) == round((30 + FIRST_RUN_EXTRA + FIRST_RUN_WRITING) / 2)
    assert balanced(30, writing=True) == 20 and balanced(2, writing=True) == 1
    # the tables' libraries imported here after the fork (a `refuge run`): more again
    extra = FIRST_RUN_EXTRA + FIRST_RUN_WRITING + TABLES_IMPORT
    assert balanced(30, writing=True, importing=True) == round((30 + extra) / 2) == 24


def test_the_child_takes_more_where_this_process_has_the_tables_libraries_to_import(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_aside, "spare_core", lambda: True)
    monkeypatch.setattr(_aside, "can_fork", lambda: True)
    default = _scenario("default", 30)
    assert child_share(default, writing=True) == balanced(30, writing=True)  # pandas is loaded
    monkeypatch.delitem(sys.modules, TABLES_LIBRARY)
    assert child_share(default, writing=True) == balanced(30, writing=True, importing=True)


def test_a_share_too_small_for_a_child_is_lived_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_aside, "spare_core", lambda: True)
    monkeypatch.setattr(_aside, "can_fork", lambda: True)
    default = _scenario("default", 30)
    assert run_agent_steps(default) == 2 * 1000 * 3600
    assert child_share(default) == 17 and child_share(default, split=False) == 0
    few = _scenario("default", 2)  # a child's share of one run: not worth a process...
    assert balanced(2) * run_agent_steps(few) < MIN_CHILD_AGENT_STEPS
    assert child_share(few) == 0
    assert child_share(few, split=True) == 1  # ...unless asked for
    assert child_share(_scenario("default", 1), split=True) == 0  # nothing to share
    assert default.generate is not None
    huge = default.generate.model_copy(update={"n": 60_000})  # a run larger than a stack
    assert child_share(default.model_copy(update={"generate": huge})) == 0
    assert child_share(default.model_copy(update={"generate": huge}), split=True) == 17


@forks
def test_the_childs_rows_are_the_ones_used_none_lived_again_here(
    children: list[int], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # the same run is no proof by itself: a child that failed would be made up for here
    parent, lived_here = os.getpid(), []
    rows = model_module.headline_rows

    def counted(scenario: Scenario, seeds: list[int]) -> list[dict[str, float]]:
        if os.getpid() == parent:
            lived_here.append(list(seeds))
        return rows(scenario, seeds)

    monkeypatch.setattr(model_module, "headline_rows", counted)
    run = replicate(_small(), split=True)
    assert len(children) == 1 and lived_here == []
    _assert_same(run, _here(SMALL), tmp_path)


@forks
@pytest.mark.parametrize(
    ("split", "spare", "forked"), [(None, True, 1), (None, False, 0), (False, True, 0)]
)
def test_a_child_worth_a_process_is_forked_where_a_core_is_spare_unless_not_split(
    split: bool | None,
    spare: bool,
    forked: int,
    children: list[int],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    # (worth a child here: the small scenario alone is not, whatever `split` and the cores say)
    monkeypatch.setattr(split_module, "MIN_CHILD_AGENT_STEPS", 0)
    monkeypatch.setattr(_aside, "spare_core", lambda: spare)
    run = replicate(_small(), split=split)
    assert len(children) == forked
    _assert_same(run, _here(SMALL), tmp_path)


@forks
@pytest.mark.parametrize("spare", [True, False])
def test_work_beside_the_child_is_done_with_the_first_run_before_its_rows_are_asked_for(
    spare: bool, children: list[int], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(split_module, "MIN_CHILD_AGENT_STEPS", 0)
    monkeypatch.setattr(_aside, "spare_core", lambda: spare)
    here = _here(SMALL)
    done: list[str] = []
    result = _aside.Aside.result

    def asked(self: _aside.Aside[Any]) -> Any:
        done.append("rows asked" if self.working else "no child")
        return result(self)

    def beside(first: Run, shared: bool) -> None:
        assert first.replications is None and "replications" not in first.summary
        done.append(f"beside, shared {shared}")
        pd.testing.assert_frame_equal(first.events, here.events)

    monkeypatch.setattr(_aside.Aside, "result", asked)
    run = replicate(_small(), beside=beside)
    assert len(children) == int(spare)
    shared = ["beside, shared True", "rows asked"]  # the child's rows asked for after
    alone = ["beside, shared False", "no child"]
    assert done == (shared if spare else alone)
    _assert_same(run, here, tmp_path)  # the same run, beside or not


@forks
def test_refuge_run_writes_the_first_runs_files_while_the_child_lives_the_last(
    children: list[int],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    run_cli: Any,
) -> None:
    """The command's folder holds the first run's files (all but the summary and the
    replications' table) when the child's rows are asked for; the files it ends with are the
    bytes `write_run` writes of the run lived in one process, the child's share the larger
    for it."""
    monkeypatch.setattr(split_module, "MIN_CHILD_AGENT_STEPS", 0)
    scenario_file = tmp_path / "small.json"
    scenario_file.write_text(_small().model_dump_json())
    out = tmp_path / "out"
    found: list[set[str]] = []
    result = _aside.Aside.result

    def asked(self: _aside.Aside[Any]) -> Any:
        if self.working and not found:  # the replications' child
            (part,) = tmp_path.glob(".out.*.part")
            found.append({p.name for p in part.iterdir()})
        return result(self)

    shares: list[int] = []
    share = model_module.child_share

    def counted(*args: Any, **kwargs: Any) -> int:
        shares.append(share(*args, **kwargs))
        return shares[-1]

    monkeypatch.setattr(_aside.Aside, "result", asked)
    monkeypatch.setattr(model_module, "child_share", counted)
    done = run_cli("run", scenario_file, "--out", out)
    assert done.code == 0, done.err
    assert len(children) >= 1 and shares == [balanced(5, writing=True)]
    ahead = {*RUN_FILES, *EXILE_FILES} - {"summary.json"}
    assert found == [ahead]
    written = {p.name: p.read_bytes() for p in out.iterdir()}
    assert set(written) >= {*ahead, "summary.json", REPLICATIONS_FILE}
    here = replicate(load_scenario(scenario_file), split=False)
    assert written == _files(here, tmp_path / "here")
