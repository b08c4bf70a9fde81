"""The engine's kernel: walk many agents along the road graph towards moving targets at once.

A position on the road is ``(edge, s)``: an edge index of `geo.roads.RoadRouter` and the
distance `s` (metres) from the edge's first node. Targets are road positions too, so the same
walk serves a fugitive running for a city, an avenger going to a gate, and an avenger chasing a
fugitive who moves. All-pairs shortest distances and next hops (the router's, from one pass of
scipy's csgraph when the network was built; the graph has a few dozen nodes) make each choice at
a node an array lookup. The walk and the interpolation are compiled loops over the walkers
(`_compiled`, numba), imported when first used.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property
from typing import TYPE_CHECKING

import numpy as np
import shapely
from numpy.typing import NDArray

from geo.arrays import Floats, Ints
from geo.roads import RoadRouter

if TYPE_CHECKING:
    from types import ModuleType


#: The zones' kernels a flight calls (`geo.asylum.Asylum`: where a fugitive is, near a zone's
#: boundary by each zone, and how far from the nearest each is); not `clearance`, of whole
#: grids of positions (maps, analyses), loaded where it is used.
FLIGHT_ZONE_KERNELS = frozenset({"zone_of", "inside", "clearance_where"})


@cache
def compiled() -> ModuleType:
    """The compiled loops (`_compiled`), imported on first use: numba's import and the loading
    of the cached kernels are paid only by a run that walks. Every kernel of a flight the disk
    cache holds, the zones' too (`FLIGHT_ZONE_KERNELS`), is loaded now (`geo._jit.preload`),
    before a run forks a child that steps replications (`model.replicate`): loaded on first
    use, the kernels a flight's later steps call were loaded again in each process. (Kept once
    found: a step asks for it a dozen times, and an import statement's lookup each time cost
    ~20 us a step.)"""
    from geo import _compiled as zones
    from geo._jit import preload
    from refuge_map.simulation import _compiled

    preload(_compiled)
    preload(zones, FLIGHT_ZONE_KERNELS)
    return _compiled


def _ints(values: NDArray[np.integer]) -> Ints:
    """`values` as a contiguous array of ``intp`` (one compiled signature for every caller)."""
    return np.ascontiguousarray(values, dtype=np.intp)


def _floats(values: NDArray[np.floating], *, copy: bool = False) -> Floats:
    """`values` as a contiguous array of float64, a copy if `copy` (else only if needed)."""
    return np.array(values, dtype=np.float64) if copy else np.ascontiguousarray(values, np.float64)


@dataclass(frozen=True)
class RoadGraph:
    """The road network as flat arrays for vectorized walking and interpolation.

    Attributes
    ----------
    edge_u, edge_v, length
        First and last node of each edge and its length (metres).
    dist
        Shortest road distance between every pair of nodes (metres).
    next_hop
        ``next_hop[a, b]``: the node after `a` on a shortest path from `a` to `b`.
    edge_of
        ``edge_of[a, b]``: the shortest edge joining adjacent nodes `a` and `b` (-1 if none).
    node_edge, node_s
        For each node, an edge touching it and the node's position `s` on that edge.

    The private arrays serve `xy` and the walk's lookups; they are derived once at build time
    so that a step gathers from flat 1-D arrays (cheaper than 2-D fancy indexing).
    """

    edge_u: Ints
    edge_v: Ints
    length: Floats
    dist: Floats
    next_hop: Ints
    edge_of: Ints
    node_edge: Ints
    node_s: Floats
    _key: Floats  # distance along the concatenated edge geometries of each vertex
    _base: Floats
    _first: Ints
    _last: Ints
    _seg_x: Floats  # each vertex, and the offset to the next: a segment by its first vertex
    _seg_y: Floats
    _seg_dx: Floats
    _seg_dy: Floats
    _seg_span: Floats  # segment length along the key, 1 where it is 0 (then dx = dy = 0)
    _one_segment: NDArray[np.bool_]  # per edge: a position's segment is its edge's first
    _dist_flat: Floats  # `dist` raveled: ``dist[a, b] == _dist_flat[a * n + b]``

    @classmethod
    def from_router(cls, router: RoadRouter) -> RoadGraph:
        """Flatten a `RoadRouter`'s graph."""
        n = len(router.node_ids)
        length = np.asarray(router.edge_length_m, dtype=np.float64)
        dist, pred = router.node_dist.copy(), router.node_pred  # the router's stay its own
        edge_of = np.full((n, n), -1, dtype=np.intp)
        for edge in np.argsort(length)[::-1]:  # shortest of parallel edges written last
            u, v = router.edge_u[edge], router.edge_v[edge]
            edge_of[u, v] = edge_of[v, u] = edge
        node_edge = np.empty(n, dtype=np.intp)
        node_edge[router.edge_v] = np.arange(len(length))
        node_edge[router.edge_u] = np.arange(len(length))
        node_s = np.where(router.edge_u[node_edge] == np.arange(n), 0.0, length[node_edge])
        coords = [shapely.get_coordinates(line) for line in router.edge_geometries]
        counts = np.array([len(c) for c in coords])
        base = np.concatenate([[0.0], np.cumsum(length + 1.0)[:-1]])  # a 1 m gap between edges
        along = [
            b + np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(c, axis=0).T))])
            for b, c in zip(base, coords, strict=True)
        ]
        last = np.cumsum(counts) - 1
        key, xy = np.concatenate(along), np.vstack(coords)
        next_hop = np.ascontiguousarray(np.asarray(pred).T, dtype=np.intp)
        # per segment (indexed by its first vertex; a graph's last vertex has no segment)
        d_key, d_xy = np.diff(key, append=key[-1]), np.diff(xy, axis=0, append=xy[-1:])
        return cls(
            edge_u=router.edge_u,
            edge_v=router.edge_v,
            length=length,
            dist=np.asarray(dist),
            next_hop=next_hop,
            edge_of=edge_of,
            node_edge=node_edge,
            node_s=node_s,
            _key=key,
            _base=base,
            _first=last - counts + 1,
            _last=last,
            _seg_x=xy[:, 0].copy(),
            _seg_y=xy[:, 1].copy(),
            _seg_dx=d_xy[:, 0].copy(),
            _seg_dy=d_xy[:, 1].copy(),
            _seg_span=np.where(d_key > 0, d_key, 1.0),
            _one_segment=counts == 2,
            _dist_flat=np.asarray(dist).ravel(),
        )

    @property
    def n_nodes(self) -> int:
        """Number of nodes."""
        return len(self.dist)

    def xy(self, edge: Ints, s: Floats) -> tuple[Floats, Floats]:
        """Metric coordinates of road positions, interpolated along the edge geometries."""
        x, y = np.empty(len(edge)), np.empty(len(edge))
        compiled().xy(_ints(edge), _floats(s), self.shape_tables, x, y)
        return x, y

    @cached_property
    def road_tables(self) -> tuple[NDArray[np.generic], ...]:
        """The arrays the compiled walk reads (`_compiled`): each edge's first and last node
        and length, and the node-pair tables of distance, next hop and edge. (Made once: a
        step hands them over twice.)"""
        return self.edge_u, self.edge_v, self.length, self.dist, self.next_hop, self.edge_of

    @cached_property
    def shape_tables(self) -> tuple[NDArray[np.generic], ...]:
        """The arrays the compiled interpolation reads (`_compiled`): the edge geometries'
        vertices and segments, flat (made once, as `road_tables`)."""
        return (
            self._base,
            self.length,
            self._first,
            self._last,
            self._one_segment,
            self._key,
            self._seg_x,
            self._seg_y,
            self._seg_dx,
            self._seg_dy,
            self._seg_span,
        )

    def road_distance(self, edge: Ints, s: Floats, to_edge: Ints, to_s: Floats) -> Floats:
        """Shortest road distance between road positions, element by element."""
        u, v, length = self.edge_u[edge], self.edge_v[edge], self.length[edge]
        from_u, from_v = self._from_nodes(u, v, to_edge, to_s)
        direct = np.where(edge == to_edge, np.abs(to_s - s), np.inf)
        return np.minimum(direct, np.minimum(s + from_u, length - s + from_v))

    def between(self, a: tuple[Ints, Floats, Floats], b: tuple[Ints, Floats, Floats]) -> Floats:
        """Metres from snapped positions `a` to `b`, element by element: the off-road leg to
        the road, the shortest road distance, the off-road leg from it (``inf`` where the roads
        do not connect).

        Parameters
        ----------
        a, b
            ``(edge, s, offroad_m)`` of each position, as `World.snap` gives them.
        """
        return a[2] + self.road_distance(a[0], a[1], b[0], b[1]) + b[2]

    def _from_nodes(self, u: Ints, v: Ints, to_edge: Ints, to_s: Floats) -> tuple[Floats, Floats]:
        """Road distance from nodes `u` and `v` to the target positions."""
        tu, tv, tl = self.edge_u[to_edge], self.edge_v[to_edge], self.length[to_edge]
        dist, n = self._dist_flat, self.n_nodes
        u, v = u * n, v * n
        from_u = np.minimum(dist[u + tu] + to_s, dist[u + tv] + tl - to_s)
        from_v = np.minimum(dist[v + tu] + to_s, dist[v + tv] + tl - to_s)
        return from_u, from_v

    def walk(
        self,
        edge: Ints,
        s: Floats,
        budget: Floats,
        to_edge: Ints,
        to_s: Floats,
        *,
        memo: Heading | None = None,
    ) -> tuple[Ints, Floats, Floats, NDArray[np.bool_]]:
        """Move each walker up to `budget` metres along a shortest road path to its target.

        One compiled pass over the walkers (`_compiled.walk`), each walked node by node: at a
        node he takes the next hop towards the nearer end of his target's edge, on his
        target's edge he goes straight to it. With a `memo` (one per set of walkers, kept
        between calls) a walker who keeps his edge and his target and stays on the edge goes
        on the way he last chose there without choosing again (`Heading`): the same result.

        Returns
        -------
        edge, s
            The new road positions.
        used
            Metres walked.
        reached
            Whether each walker reached its target (a walker that cannot reach it stays put).
        """
        edge, s = np.array(edge, dtype=np.intp), _floats(s, copy=True)
        left = _floats(budget, copy=True)
        reached = np.zeros(edge.shape, dtype=bool)
        held = memo if memo is not None else Heading.none(0)
        compiled().walk(
            np.arange(len(edge)),
            len(edge),
            edge,
            s,
            left,
            _ints(to_edge),
            _floats(to_s),
            reached,
            held.arrays,
            memo is not None,
            self.road_tables,
        )
        return edge, s, budget - left, reached


@dataclass
class Heading:
    """Which end of his edge each walker last chose to make for, and for which target: the
    walk's memo (`RoadGraph.walk`).

    A walker who chose an end of his edge other than by a tie, for a target on another edge,
    and stopped on the edge, would choose the same end again as long as his edge and target
    stay: walking towards that end only shortens the way through it and lengthens the way
    through the other (so their difference only grows). Such a walker who also stops short
    of that end this time just walks on: the same arithmetic as the full choice.

    Attributes
    ----------
    edge
        The edge he chose on (-1: no choice to keep).
    to_edge, to_s
        The target he chose for.
    toward_u
        Whether he makes for the edge's first node (else its last).
    """

    edge: Ints
    to_edge: Ints
    to_s: Floats
    toward_u: NDArray[np.bool_]

    @classmethod
    def none(cls, n: int) -> Heading:
        """A memo for `n` walkers that holds no choice yet."""
        return cls(np.full(n, -1), np.full(n, -1), np.zeros(n), np.zeros(n, dtype=bool))

    @property
    def arrays(self) -> tuple[Ints, Ints, Floats, NDArray[np.bool_]]:
        """Its arrays, for the compiled walk (`_compiled`), which reads and updates them."""
        return self.edge, self.to_edge, self.to_s, self.toward_u

    def take(self, rows: Ints) -> Heading:
        """The memo of walkers `rows` only."""
        return Heading(self.edge[rows], self.to_edge[rows], self.to_s[rows], self.toward_u[rows])


#: How far along a road (metres) its bearing is taken at a junction: the way it first leaves.
BEARING_STEP_M = 100.0


@dataclass(frozen=True)
class Ways:
    """Which road one who does not know the way takes at each node, towards each target.

    He takes the road whose bearing, as it leaves the node, points most nearly at his target
    (the angle between the road's first `BEARING_STEP_M` and the straight line to the target);
    he does not turn back along the road he came by unless it is the only one (a dead end).
    Such a way can be longer than the shortest, or lead him round.

    Attributes
    ----------
    best, second
        ``best[node, target]``: the neighbour of `node` whose road points most nearly at the
        target; ``second``: the next best (the same as `best` at a dead end).
    target_node
        Per target, the node where he leaves the table for his target's road position (the
        nearer end of the target's edge).
    target_x, target_y
        Metric position of each target.
    """

    best: Ints
    second: Ints
    target_node: Ints
    target_x: Floats
    target_y: Floats

    def next_node(self, node: Ints, came_from: Ints, target: Ints) -> Ints:
        """The node each walker at `node` goes on to (not back to `came_from` if he can)."""
        best = self.best[node, target]
        return np.where(best != came_from, best, self.second[node, target])

    def first_node(self, graph: RoadGraph, edge: Ints, s: Floats, target: Ints) -> Ints:
        """Which end of his edge a walker at road position (`edge`, `s`) makes for first: the
        one in the direction nearer his target's bearing (the end he stands on, if he does)."""
        u, v = graph.edge_u[edge], graph.edge_v[edge]
        x, y = graph.xy(edge, s)
        to_x, to_y = self.target_x[target] - x, self.target_y[target] - y
        ux, uy = graph.xy(graph.node_edge[u], graph.node_s[u])
        vx, vy = graph.xy(graph.node_edge[v], graph.node_s[v])
        toward_u = _cosine(ux - x, uy - y, to_x, to_y)
        toward_v = _cosine(vx - x, vy - y, to_x, to_y)
        return np.where(toward_u >= toward_v, u, v)


def _cosine(ax: Floats, ay: Floats, bx: Floats, by: Floats) -> Floats:
    """Cosine of the angle between vectors a and b; 2 (above any cosine) where a is zero (the
    walker stands there already)."""
    norm = np.hypot(ax, ay) * np.hypot(bx, by)
    safe = np.where(norm > 0, norm, 1.0)
    return np.where(np.hypot(ax, ay) > 0, (ax * bx + ay * by) / safe, 2.0)


def bearing_ways(graph: RoadGraph, to_edge: Ints, to_s: Floats) -> Ways:
    """The `Ways` table of a road graph towards target road positions (one pass, vectorized
    over every node, road and target).

    Parameters
    ----------
    graph
        The road graph.
    to_edge, to_s
        The targets' road positions (e.g. each city's road end in the town).
    """
    tail, head = np.nonzero(graph.edge_of >= 0)  # every road leaving every node, once
    edge = graph.edge_of[tail, head]
    length = graph.length[edge]
    step = np.minimum(BEARING_STEP_M, length / 2.0)
    along = np.where(graph.edge_u[edge] == tail, step, length - step)
    ahead_x, ahead_y = graph.xy(edge, along)
    node_x, node_y = graph.xy(graph.node_edge, graph.node_s)
    target_x, target_y = graph.xy(to_edge, to_s)
    cos = _cosine(
        (ahead_x - node_x[tail])[:, None],
        (ahead_y - node_y[tail])[:, None],
        target_x[None, :] - node_x[tail, None],
        target_y[None, :] - node_y[tail, None],
    )
    # tails are sorted (np.nonzero): within each node's group the roads by falling cosine
    order = np.argsort(4.0 * tail[:, None] - cos, axis=0, kind="stable")
    start = np.searchsorted(tail, np.arange(graph.n_nodes))
    size = np.bincount(tail, minlength=graph.n_nodes)
    cols = np.arange(len(to_edge))[None, :]
    best = head[order[start[:, None], cols]]
    second = head[order[(start + (size > 1))[:, None], cols]]
    u, v = graph.edge_u[to_edge], graph.edge_v[to_edge]
    target_node = np.where(to_s <= graph.length[to_edge] / 2.0, u, v)
    return Ways(best, second, target_node, target_x, target_y)
