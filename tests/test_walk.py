"""The road-walk kernel: interpolation along the edge geometries."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import shapely

from geo import RefugeNetwork
from refuge_map.simulation._walk import (
    BEARING_STEP_M,
    FLIGHT_ZONE_KERNELS,
    Heading,
    RoadGraph,
    bearing_ways,
)


def test_xy_is_the_point_along_the_edge_on_either_path(network: RefugeNetwork) -> None:
    """The one-segment shortcut and the searched path agree exactly, and both lie on the edge
    at distance `s` (clipped to the edge) from its first node."""
    router = network.router
    graph = RoadGraph.from_router(router)
    rng = np.random.default_rng(0)
    edge = rng.integers(0, len(graph.length), 2000)
    s = rng.uniform(-0.1, 1.1, edge.size) * graph.length[edge]  # some beyond either end
    searched = dataclasses.replace(graph, _one_segment=np.zeros_like(graph._one_segment))
    x, y = graph.xy(edge, s)
    sx, sy = searched.xy(edge, s)
    np.testing.assert_array_equal(x, sx)
    np.testing.assert_array_equal(y, sy)
    points = shapely.line_interpolate_point(
        router.edge_geometries[edge], np.clip(s, 0.0, graph.length[edge])
    )
    np.testing.assert_allclose(np.column_stack([x, y]), shapely.get_coordinates(points), atol=1e-3)


def test_the_way_without_signposts_takes_the_road_pointing_nearest_the_target(
    network: RefugeNetwork,
) -> None:
    """At every node `best` is the neighbour whose road, as it leaves the node, makes the
    smallest angle with the straight line to the target; `second` is another neighbour (the
    same at a dead end)."""
    graph = RoadGraph.from_router(network.router)
    targets = np.flatnonzero(network.router.node_gate != "")[:3]
    to_edge, to_s = graph.node_edge[targets], graph.node_s[targets]
    ways = bearing_ways(graph, to_edge, to_s)
    tx, ty = graph.xy(to_edge, to_s)
    for node in range(graph.n_nodes):
        neighbours = np.flatnonzero(graph.edge_of[node] >= 0)
        x, y = graph.xy(graph.node_edge[[node]], graph.node_s[[node]])
        angles = {}
        for other in neighbours:
            edge = graph.edge_of[node, other]
            step = min(BEARING_STEP_M, graph.length[edge] / 2.0)
            along = step if graph.edge_u[edge] == node else graph.length[edge] - step
            ax, ay = graph.xy(np.array([edge]), np.array([along]))
            angles[other] = np.arctan2(ay - y, ax - x)[0]
        for k in range(len(targets)):
            aim = np.arctan2(ty[k] - y[0], tx[k] - x[0])
            off = {o: abs(np.angle(np.exp(1j * (a - aim)))) for o, a in angles.items()}
            if node == targets[k]:
                continue  # standing at the target: no bearing to take
            best, second = ways.best[node, k], ways.second[node, k]
            assert off[best] <= min(off.values()) + 1e-9, (node, k)
            assert second in off and (second != best or len(neighbours) == 1)


def test_the_walk_with_its_memo_goes_as_without(network: RefugeNetwork) -> None:
    """Walkers stepped with the walk's memo (`Heading`) end where those stepped without it do,
    byte for byte, whether their targets stay (most keep their way on their edge) or jump."""
    graph = RoadGraph.from_router(network.router)
    rng = np.random.default_rng(1)
    n = 500
    edge = rng.integers(0, len(graph.length), n)
    s = rng.uniform(0.0, 1.0, n) * graph.length[edge]
    to_edge = rng.integers(0, len(graph.length), n)
    to_s = rng.uniform(0.0, 1.0, n) * graph.length[to_edge]
    memo, kept = Heading.none(n), 0
    plain = (edge, s)
    for step in range(60):
        if step % 20 == 19:  # some targets move (a chase, a new city)
            jump = rng.random(n) < 0.3
            to_edge = np.where(jump, rng.integers(0, len(graph.length), n), to_edge)
            to_s = np.where(jump, rng.uniform(0.0, 1.0, n) * graph.length[to_edge], to_s)
        budget = rng.uniform(0.0, 3000.0, n) * (rng.random(n) < 0.8)
        kept += int(np.count_nonzero(memo.edge == edge))
        edge, s, used, reached = graph.walk(edge, s, budget, to_edge, to_s, memo=memo)
        p_edge, p_s, p_used, p_reached = graph.walk(*plain, budget, to_edge, to_s)
        plain = (p_edge, p_s)
        np.testing.assert_array_equal(edge, p_edge)
        np.testing.assert_array_equal(s, p_s)
        np.testing.assert_array_equal(used, p_used)
        np.testing.assert_array_equal(reached, p_reached)
    assert kept > 10 * n  # the memo was used, not bypassed


def test_numba_is_imported_only_when_someone_walks() -> None:
    """The compiled loops (numba) load with the first walk, not with the engine or the CLI:
    commands that walk nobody do not pay numba's import."""
    probe = (
        "import sys, numpy as np, refuge_map.cli, refuge_map.simulation.engine; "
        "before = 'numba' in sys.modules; "
        "from refuge_map.simulation._walk import compiled; compiled(); "
        "print(before, 'numba' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd="/"
    )
    assert done.stdout.split() == ["False", "True"]


#: A probe: the overloads each compiled kernel holds (the walk's and the zones'), after
#: ``{work}`` in a fresh process.
_OVERLOADS = """
import json, sys
from geo import _compiled as zones
from refuge_map.simulation import _compiled as walk
{work}
print(json.dumps(sorted(
    f"{{module.__name__}}.{{name}}"
    for module in (walk, zones)
    for name, kernel in vars(module).items()
    if len(getattr(kernel, "overloads", ())) > 0
)))
"""


def _loaded_after(work: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", _OVERLOADS.format(work=work)],
        capture_output=True,
        text=True,
        check=True,
        cwd="/",
    )
    return set(json.loads(done.stdout))


SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"


#: A probe's work: a small flight of the default scenario (every kernel it calls is in the
#: disk cache after it).
_SMALL_FLIGHT = (
    "from refuge_map.simulation import load_scenario, replicate\n"
    f"s = load_scenario({str(SCENARIOS / 'default.yaml')!r})\n"
    "s = s.model_copy(update={'replications': 1, 'exile': None, 'horizon_h': 12,"
    " 'generate': s.generate.model_copy(update={'n': 20})})\n"
    "replicate(s, split=False)"
)


def test_the_compiled_loops_come_with_every_kernel_a_flight_calls() -> None:
    """`compiled()` loads every kernel a flight calls, before its first step (a child forked
    then inherits them all, `model.replicate`), not as each step first calls it."""
    flew = _loaded_after(_SMALL_FLIGHT)
    loaded = _loaded_after("from refuge_map.simulation._walk import compiled; compiled()")
    assert {"refuge_map.simulation._compiled.move", "geo._compiled.zone_of"} <= flew
    assert flew <= loaded


#: A probe's work: the zones' `clearance` of a grid of positions (maps and analyses call it;
#: a flight does not), on one square zone (its cache entry written).
_GRID_CLEARANCE = (
    "import numpy as np\n"
    "from geo import _compiled as zones\n"
    "rings = (np.array([0, 1]), np.array([0, 5]), np.array([0.0, 1, 1, 0, 0]),"
    " np.array([0.0, 0, 1, 1, 0]))\n"
    "zones.clearance(np.array([3.0]), np.array([4.0]), np.array([[0.0, 0, 1, 1]]), rings,"
    " np.empty(1))"
)


def test_the_compiled_loops_leave_the_kernels_no_flight_calls() -> None:
    """`compiled()` loads the kernels a flight calls only, however many more the disk cache
    holds: not the zones' `clearance` of maps and analyses (each overload loaded costs a
    command's start 2-3 ms), nor the overloads of the walk numba typed for a literal ``m``
    while it typed the move."""
    assert "geo._compiled.clearance" in _loaded_after(_GRID_CLEARANCE)  # now in the cache
    loaded = _loaded_after("from refuge_map.simulation._walk import compiled; compiled()")
    assert "geo._compiled.clearance" not in loaded
    assert {f"geo._compiled.{name}" for name in FLIGHT_ZONE_KERNELS} & loaded
    probe = (
        "from refuge_map.simulation._walk import compiled; m = compiled(); "
        "print(sorted('Literal' in str(s) for s in m.walk.overloads),"
        " any('Literal' in str(k[0]) for k in m.walk._cache._cache_file._load_index()))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd="/"
    )
    assert done.stdout.split() == ["[False]", "True"]  # held in the cache, not loaded


def test_the_compiled_loops_load_without_numbas_array_implementation() -> None:
    """The kernels load from the disk cache without numba's implementation of arrays
    (``numba.np.arrayobj`` and the dozen modules it imports, 25 ms of every command's start):
    no kernel allocates an array (`_compiled.move` is handed its scratch arrays), and a
    kernel that did makes its cached code import them to load."""
    _loaded_after(_SMALL_FLIGHT)  # every kernel a flight calls is in the disk cache now
    probe = (
        "import sys; from refuge_map.simulation._walk import compiled; m = compiled(); "
        "print(len(m.move.overloads), 'numba.np.arrayobj' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd="/"
    )
    assert done.stdout.split() == ["1", "False"]
