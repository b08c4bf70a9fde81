"""The engine's kernel: walk many agents along the road graph towards moving targets at once.

A position on the road is ``(edge, s)``: an edge index of `geo.roads.RoadRouter` and the
distance `s` (metres) from the edge's first node. Targets are road positions too, so the same
walk serves a fugitive running for a city, an avenger going to a gate, and an avenger chasing a
fugitive who moves. All-pairs shortest distances and next hops (scipy's csgraph, one pass at
build time; the graph has a few dozen nodes) make each choice at a node an array lookup.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely
from numpy.typing import NDArray
from scipy.sparse.csgraph import dijkstra

from geo.roads import RoadRouter

Floats = NDArray[np.float64]
Ints = NDArray[np.intp]


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
    _seg_span: Floats  # segment length along the key
    _straight: bool  # every edge is one segment, so a position's segment is its edge's first
    _dist_flat: Floats  # the node-pair tables raveled: ``dist[a, b] == _dist_flat[a * n + b]``
    _hop_flat: Ints
    _edge_of_flat: Ints

    @classmethod
    def from_router(cls, router: RoadRouter) -> RoadGraph:
        """Flatten a `RoadRouter`'s graph."""
        n = len(router.node_ids)
        length = np.asarray(router.edge_length_m, dtype=np.float64)
        dist, pred = dijkstra(router.matrix, directed=False, return_predecessors=True)
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
            _seg_span=d_key,
            _straight=bool((counts == 2).all()),
            _dist_flat=np.asarray(dist).ravel(),
            _hop_flat=next_hop.ravel(),
            _edge_of_flat=edge_of.ravel(),
        )

    @property
    def n_nodes(self) -> int:
        """Number of nodes."""
        return len(self.dist)

    def xy(self, edge: Ints, s: Floats) -> tuple[Floats, Floats]:
        """Metric coordinates of road positions, interpolated along the edge geometries."""
        # np.minimum(np.maximum()) is np.clip without its Python-level overhead
        key = self._base[edge] + np.minimum(np.maximum(s, 0.0), self.length[edge])
        if self._straight:  # the common case: no search, the edge is its only segment
            i = self._first[edge]
        else:
            i = np.searchsorted(self._key, key, side="right") - 1
            i = np.clip(i, self._first[edge], self._last[edge] - 1)
        span = self._seg_span[i]
        frac = np.where(span > 0, (key - self._key[i]) / np.where(span > 0, span, 1.0), 0.0)
        return self._seg_x[i] + frac * self._seg_dx[i], self._seg_y[i] + frac * self._seg_dy[i]

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
        self, edge: Ints, s: Floats, budget: Floats, to_edge: Ints, to_s: Floats
    ) -> tuple[Ints, Floats, Floats, NDArray[np.bool_]]:
        """Move each walker up to `budget` metres along a shortest road path to its target.

        The loop runs over the nodes passed (each pass moves every walker to its next node or
        its target), never over walkers.

        Returns
        -------
        edge, s
            The new road positions.
        used
            Metres walked.
        reached
            Whether each walker reached its target (a walker that cannot reach it stays put).
        """
        edge, s, left = edge.copy(), s.astype(np.float64), budget.astype(np.float64)
        reached = np.zeros(edge.shape, dtype=bool)
        live = (left > 0).nonzero()[0]
        for _ in range(self.n_nodes + 2):
            if live.size == 0:
                break
            e, pos, b, te, ts = edge[live], s[live], left[live], to_edge[live], to_s[live]
            eu, ev, rest = self.edge_u[e], self.edge_v[e], self.length[e] - pos
            from_u, from_v = self._from_nodes(eu, ev, te, ts)
            via_u, via_v = pos + from_u, rest + from_v
            via = np.minimum(via_u, via_v)
            direct = np.where(e == te, np.abs(ts - pos), np.inf)
            stuck = ~np.isfinite(np.minimum(direct, via))
            go_direct = direct <= via
            # a tie (a walker standing on the node it just passed) goes on to the far end
            tie = np.abs(via_u - via_v) <= 1e-9 * (1.0 + np.abs(via_u))
            toward_u = ~go_direct & np.where(tie, pos > rest, via_u < via_v)
            gap = np.where(go_direct, direct, np.where(toward_u, pos, rest))
            step = np.where(stuck, 0.0, np.minimum(b, gap))
            heading = np.where(go_direct, np.sign(ts - pos), np.where(toward_u, -1.0, 1.0))
            pos, b = pos + heading * step, b - step
            done = (step == gap) & ~stuck
            if not done.any():  # every walker spent his budget on his edge (or is stuck)
                edge[live], s[live], left[live] = e, pos, b
                break
            arrived = go_direct & done
            pos[arrived] = ts[arrived]
            at_node = (~go_direct & done).nonzero()[0]
            if at_node.size:
                node = np.where(toward_u[at_node], eu[at_node], ev[at_node])
                e[at_node], pos[at_node] = self._next_edge(node, te[at_node], ts[at_node])
            edge[live], s[live], left[live] = e, pos, b
            reached[live[arrived]] = True
            live = live[(b > 0) & ~arrived & ~stuck]
        return edge, s, budget - left, reached

    def _next_edge(self, node: Ints, to_edge: Ints, to_s: Floats) -> tuple[Ints, Floats]:
        """The edge to take from `node` towards each target, and the node's position on it."""
        tu, tv, tl = self.edge_u[to_edge], self.edge_v[to_edge], self.length[to_edge]
        row = node * self.n_nodes
        dist = self._dist_flat
        end = np.where(dist[row + tu] + to_s <= dist[row + tv] + tl - to_s, tu, tv)
        hop = self._edge_of_flat[row + np.maximum(self._hop_flat[row + end], 0)]
        edge = np.where(node == end, to_edge, hop)
        return edge, np.where(self.edge_u[edge] == node, 0.0, self.length[edge])


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
