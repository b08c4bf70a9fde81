"""Shortest road distances and predecessors from arrays, exactly as scipy's
`scipy.sparse.csgraph.dijkstra` gives them, without importing csgraph.

csgraph's import loads scipy.sparse and scipy.linalg (0.1-0.2 s of every `refuge run`), for
a road graph of a hundred nodes. Here the distances come from relaxing every edge at once
until nothing changes (Bellman-Ford over numpy arrays), and the predecessors from the edges
that realise them.

The same numbers, bit for bit: a node's distance is its predecessor's plus the edge, added
as Dijkstra adds it, and the relaxation's fixed point is Dijkstra's (both are the least
values with ``dist[j] <= dist[i] + w(i, j)`` for every edge, in floating point as in exact
arithmetic, since rounding is monotone and the weights are positive). Dijkstra's predecessor
of a node is the first node scanned that reaches it at its distance: the nearest such
neighbour. Where two neighbours at the very same distance reach it, which is scanned first
depends on scipy's heap; there, and for weights that are not positive, or graphs so large
that scipy's pass is cheaper than its import, scipy answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from geo.arrays import Floats, Ints

if TYPE_CHECKING:
    from scipy.sparse import csr_array

#: csgraph's predecessor of a node that has none (a source, or a node not reached).
NO_PREDECESSOR = -9999
#: scipy answers where one relaxation pass would handle more values (searches x entries)...
MAX_VALUES = 1_000_000
#: ...or where the relaxation takes more passes (one per edge of the longest shortest path,
#: each over every edge): on such graphs scipy's import is small beside them.
MAX_PASSES = 200


@dataclass(frozen=True)
class Adjacency:
    """An undirected weighted graph as its directed entries: both directions of each pair of
    adjacent nodes, the shortest of parallel edges, sorted by `tail` then `head` (the entries
    of a symmetric CSR matrix, in its order).

    Attributes
    ----------
    n
        Number of nodes.
    tail, head
        First and second node of each entry.
    weight
        Its length (metres).
    """

    n: int
    tail: Ints
    head: Ints
    weight: Floats

    @classmethod
    def of_edges(cls, n: int, u: Ints, v: Ints, length: Floats) -> Adjacency:
        """The adjacency of edges ``u[k] - v[k]`` of `length` (loops dropped, the shortest of
        parallel edges kept)."""
        loop = u == v
        tail = np.concatenate([u[~loop], v[~loop]])
        head = np.concatenate([v[~loop], u[~loop]])
        weight = np.tile(length[~loop], 2)
        # the shortest of parallel edges: sorted longest first within a pair, the last kept
        order = np.lexsort((-weight, head, tail))
        tail, head, weight = tail[order], head[order], weight[order]
        last = np.ones(tail.size, dtype=bool)
        last[:-1] = (tail[1:] != tail[:-1]) | (head[1:] != head[:-1])
        return cls(n, tail[last], head[last], np.asarray(weight[last], dtype=np.float64))

    @property
    def degree(self) -> Ints:
        """Number of distinct neighbours of each node."""
        return np.bincount(self.tail, minlength=self.n).astype(np.intp)

    @cached_property
    def matrix(self) -> csr_array:
        """The symmetric CSR matrix of the entries (scipy.sparse, imported now)."""
        from scipy.sparse import coo_array

        shape = (self.n, self.n)
        return coo_array((self.weight, (self.tail, self.head)), shape=shape).tocsr()

    @cached_property
    def _by_head(self) -> tuple[Ints, Ints, Ints]:
        """The entries in order of `head` (stable), where each head's run starts, and the
        head of each run: for reductions over the edges into each node."""
        order = np.argsort(self.head, kind="stable")
        head = self.head[order]
        starts = np.flatnonzero(np.r_[True, head[1:] != head[:-1]]) if head.size else head
        return order, starts.astype(np.intp), head[starts]


def all_pairs(graph: Adjacency) -> tuple[Floats, NDArray[np.int32]]:
    """Shortest distance between every pair of nodes and each pair's predecessor: as
    ``dijkstra(graph.matrix, directed=False, return_predecessors=True)``.

    Returns
    -------
    dist
        ``dist[a, b]``: metres from `a` to `b` (``inf`` where not connected).
    pred
        ``pred[a, b]``: the node before `b` on the shortest path from `a`
        (`NO_PREDECESSOR` for ``b == a`` and where not connected).
    """
    sources = np.arange(graph.n, dtype=np.intp)
    dist = np.full((graph.n, graph.n), np.inf)
    dist[sources, sources] = 0.0
    found = _search(graph, dist, sources[:, None] == sources[None, :])
    if found is not None:
        return found
    from scipy.sparse.csgraph import dijkstra

    dist, pred = dijkstra(graph.matrix, directed=False, return_predecessors=True)
    return dist, pred


def flood(graph: Adjacency, sources: Ints) -> tuple[Floats, NDArray[np.int32], NDArray[np.int32]]:
    """Distance from the nearest of `sources` to every node, each node's predecessor and the
    source it is reached from: as ``dijkstra(graph.matrix, directed=False, indices=sources,
    min_only=True, return_predecessors=True)``.

    Returns
    -------
    dist
        Metres to the nearest source (``inf`` where none is connected).
    pred
        The node before each on a shortest path from that source (`NO_PREDECESSOR` at a
        source and where none is connected).
    source
        The source each node is reached from (`NO_PREDECESSOR` where none is connected).
    """
    sources = np.asarray(sources, dtype=np.intp)
    is_source = np.zeros(graph.n, dtype=bool)
    is_source[sources] = True
    dist = np.where(is_source, 0.0, np.inf)[None, :]
    found = _search(graph, dist, is_source[None, :])
    if found is not None:
        dist, pred = found[0][0], found[1][0]
        return dist, pred, _roots(pred, is_source, np.isfinite(dist))
    from scipy.sparse.csgraph import dijkstra

    dist, pred, source = dijkstra(
        graph.matrix, directed=False, indices=sources, min_only=True, return_predecessors=True
    )
    return dist, pred, source


def _search(
    graph: Adjacency, dist: Floats, is_source: NDArray[np.bool_]
) -> tuple[Floats, NDArray[np.int32]] | None:
    """Relax `dist` (one row per search, 0 at its sources) to the shortest distances, and
    find each node's predecessor; None where Dijkstra's predecessors would hang on the order
    of scipy's heap (or the graph is not one this search answers: see the module)."""
    if dist.shape[0] * graph.tail.size > MAX_VALUES or not bool(np.all(graph.weight > 0.0)):
        return None
    order, starts, heads = graph._by_head
    tail, weight = graph.tail[order], graph.weight[order]
    if not heads.size:  # no edges: every node alone
        return dist, np.full(dist.shape, NO_PREDECESSOR, dtype=np.int32)
    for _ in range(MAX_PASSES):
        reach = dist[:, tail] + weight
        nearer = np.minimum(dist[:, heads], np.minimum.reduceat(reach, starts, axis=1))
        if np.array_equal(nearer, dist[:, heads]):
            break
        dist[:, heads] = nearer
    else:
        return None
    # the entries that realise each node's distance, and of those the nearest tail
    group = np.repeat(np.arange(heads.size), np.diff(np.r_[starts, tail.size]))
    realises = (reach == dist[:, heads][:, group]) & np.isfinite(reach)
    key = np.where(realises, dist[:, tail], np.inf)
    nearest = np.minimum.reduceat(key, starts, axis=1)
    chosen = realises & (key == nearest[:, group])
    count = np.add.reduceat(chosen, starts, axis=1)
    via = np.add.reduceat(np.where(chosen, tail, 0), starts, axis=1)
    wanted = np.isfinite(dist[:, heads]) & ~is_source[:, heads]
    if np.any(wanted & ((count != 1) | (nearest >= dist[:, heads]))):
        return None  # a tie that only the heap's order breaks, or a weight below rounding
    pred = np.full(dist.shape, NO_PREDECESSOR, dtype=np.int32)
    pred[:, heads] = np.where(wanted, via, NO_PREDECESSOR)
    return dist, pred


def _roots(
    pred: NDArray[np.int32], is_source: NDArray[np.bool_], reached: NDArray[np.bool_]
) -> NDArray[np.int32]:
    """The source each reached node's predecessors lead back to (`NO_PREDECESSOR` for a node
    not reached), by pointer jumping."""
    root = np.where(is_source | ~reached, np.arange(pred.size), pred).astype(np.intp)
    while True:
        jumped = root[root]
        if np.array_equal(jumped, root):
            break
        root = jumped
    return np.where(reached, root, NO_PREDECESSOR).astype(np.int32)
