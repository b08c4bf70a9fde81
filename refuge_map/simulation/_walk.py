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
    """

    edge_u: Ints
    edge_v: Ints
    length: Floats
    dist: Floats
    next_hop: Ints
    edge_of: Ints
    node_edge: Ints
    node_s: Floats
    _key: Floats
    _xy: Floats
    _base: Floats
    _first: Ints
    _last: Ints

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
        return cls(
            edge_u=router.edge_u,
            edge_v=router.edge_v,
            length=length,
            dist=np.asarray(dist),
            next_hop=np.asarray(pred).T.astype(np.intp),
            edge_of=edge_of,
            node_edge=node_edge,
            node_s=node_s,
            _key=np.concatenate(along),
            _xy=np.vstack(coords),
            _base=base,
            _first=last - counts + 1,
            _last=last,
        )

    @property
    def n_nodes(self) -> int:
        """Number of nodes."""
        return len(self.dist)

    def xy(self, edge: Ints, s: Floats) -> tuple[Floats, Floats]:
        """Metric coordinates of road positions, interpolated along the edge geometries."""
        key = self._base[edge] + np.clip(s, 0.0, self.length[edge])
        i = np.searchsorted(self._key, key, side="right") - 1
        i = np.clip(i, self._first[edge], self._last[edge] - 1)
        span = self._key[i + 1] - self._key[i]
        frac = np.where(span > 0, (key - self._key[i]) / np.where(span > 0, span, 1.0), 0.0)
        xy = self._xy[i] + frac[:, None] * (self._xy[i + 1] - self._xy[i])
        return xy[:, 0], xy[:, 1]

    def road_distance(self, edge: Ints, s: Floats, to_edge: Ints, to_s: Floats) -> Floats:
        """Shortest road distance between road positions, element by element."""
        u, v, length = self.edge_u[edge], self.edge_v[edge], self.length[edge]
        from_u, from_v = self._from_nodes(u, v, to_edge, to_s)
        direct = np.where(edge == to_edge, np.abs(to_s - s), np.inf)
        return np.minimum(direct, np.minimum(s + from_u, length - s + from_v))

    def _from_nodes(self, u: Ints, v: Ints, to_edge: Ints, to_s: Floats) -> tuple[Floats, Floats]:
        """Road distance from nodes `u` and `v` to the target positions."""
        tu, tv, tl = self.edge_u[to_edge], self.edge_v[to_edge], self.length[to_edge]
        from_u = np.minimum(self.dist[u, tu] + to_s, self.dist[u, tv] + tl - to_s)
        from_v = np.minimum(self.dist[v, tu] + to_s, self.dist[v, tv] + tl - to_s)
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
        live = np.flatnonzero(left > 0)
        for _ in range(self.n_nodes + 2):
            if live.size == 0:
                break
            e, pos, b, te, ts = edge[live], s[live], left[live], to_edge[live], to_s[live]
            length = self.length[e]
            from_u, from_v = self._from_nodes(self.edge_u[e], self.edge_v[e], te, ts)
            via_u, via_v = pos + from_u, length - pos + from_v
            direct = np.where(e == te, np.abs(ts - pos), np.inf)
            stuck = ~np.isfinite(np.minimum(direct, np.minimum(via_u, via_v)))
            go_direct = direct <= np.minimum(via_u, via_v)
            # a tie (a walker standing on the node it just passed) goes on to the far end
            tie = np.abs(via_u - via_v) <= 1e-9 * (1.0 + np.abs(via_u))
            toward_u = ~go_direct & np.where(tie, pos > length - pos, via_u < via_v)
            gap = np.where(go_direct, direct, np.where(toward_u, pos, length - pos))
            step = np.where(stuck, 0.0, np.minimum(b, gap))
            heading = np.where(go_direct, np.sign(ts - pos), np.where(toward_u, -1.0, 1.0))
            pos, b = pos + heading * step, b - step
            done = (step == gap) & ~stuck
            arrived = go_direct & done
            pos[arrived] = ts[arrived]
            at_node = ~go_direct & done
            e[at_node], pos[at_node] = self._next_edge(
                np.where(toward_u, self.edge_u[e], self.edge_v[e])[at_node],
                te[at_node],
                ts[at_node],
            )
            edge[live], s[live], left[live] = e, pos, b
            reached[live[arrived]] = True
            live = live[(b > 0) & ~arrived & ~stuck]
        return edge, s, budget - left, reached

    def _next_edge(self, node: Ints, to_edge: Ints, to_s: Floats) -> tuple[Ints, Floats]:
        """The edge to take from `node` towards each target, and the node's position on it."""
        tu, tv, tl = self.edge_u[to_edge], self.edge_v[to_edge], self.length[to_edge]
        end = np.where(self.dist[node, tu] + to_s <= self.dist[node, tv] + tl - to_s, tu, tv)
        hop = self.edge_of[node, np.maximum(self.next_hop[node, end], 0)]
        edge = np.where(node == end, to_edge, hop)
        return edge, np.where(self.edge_u[edge] == node, 0.0, self.length[edge])
