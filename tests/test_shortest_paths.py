"""`geo.shortest_paths`: scipy's Dijkstra results, bit for bit, without scipy's csgraph."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import dijkstra

from geo import RefugeNetwork
from geo.shortest_paths import NO_PREDECESSOR, Adjacency, all_pairs, flood


@st.composite
def graphs(draw: st.DrawFn) -> tuple[Adjacency, np.ndarray]:
    """A random undirected graph (loops, parallel edges, islands; integer lengths make ties
    that only scipy's heap breaks) and some sources, repeats allowed."""
    n = draw(st.integers(1, 25))
    m = draw(st.integers(0, 3 * n))
    ends = st.lists(st.integers(0, n - 1), min_size=m, max_size=m)
    whole = draw(st.booleans())
    lengths = st.integers(1, 4) if whole else st.floats(0.01, 1e4, allow_nan=False)
    length = np.array(draw(st.lists(lengths, min_size=m, max_size=m)), dtype=np.float64)
    u, v = np.array(draw(ends), dtype=np.intp), np.array(draw(ends), dtype=np.intp)
    sources = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n))
    return Adjacency.of_edges(n, u, v, length), np.array(sources, dtype=np.intp)


def _same(mine: tuple[np.ndarray, ...], scipys: tuple[np.ndarray, ...]) -> None:
    for got, want in zip(mine, scipys, strict=True):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@settings(max_examples=300, deadline=None)
@given(graphs())
def test_all_pairs_are_scipys_bit_for_bit(graph: tuple[Adjacency, np.ndarray]) -> None:
    adjacency, _ = graph
    want = dijkstra(adjacency.matrix, directed=False, return_predecessors=True)
    _same(all_pairs(adjacency), want)


@settings(max_examples=300, deadline=None)
@given(graphs())
def test_a_flood_is_scipys_bit_for_bit(graph: tuple[Adjacency, np.ndarray]) -> None:
    adjacency, sources = graph
    want = dijkstra(
        adjacency.matrix, directed=False, indices=sources, min_only=True, return_predecessors=True
    )
    _same(flood(adjacency, sources), want)


def test_the_shortest_of_parallel_edges_counts_and_loops_do_not() -> None:
    u, v = np.array([0, 1, 0, 1]), np.array([1, 0, 0, 2])
    adjacency = Adjacency.of_edges(3, u, v, np.array([5.0, 2.0, 1.0, 3.0]))
    assert adjacency.degree.tolist() == [1, 2, 1]
    dist, pred = all_pairs(adjacency)
    assert dist[0].tolist() == [0.0, 2.0, 5.0]
    assert pred[0].tolist() == [NO_PREDECESSOR, 0, 1]


def test_a_flood_names_the_source_each_node_is_reached_from() -> None:
    # a path 0 - 1 - 2 - 3 - 4 from both ends, and node 5 alone
    u, v = np.array([0, 1, 2, 3]), np.array([1, 2, 3, 4])
    adjacency = Adjacency.of_edges(6, u, v, np.array([1.0, 1.5, 1.0, 1.0]))
    dist, pred, source = flood(adjacency, np.array([0, 4]))
    assert dist.tolist() == [0.0, 1.0, 2.0, 1.0, 0.0, pytest.approx(np.inf)]
    assert pred.tolist() == [NO_PREDECESSOR, 0, 3, 4, NO_PREDECESSOR, NO_PREDECESSOR]
    assert source.tolist() == [0, 0, 4, 4, 4, NO_PREDECESSOR]


def test_the_shipped_roads_give_scipys_distances_and_next_hops(network: RefugeNetwork) -> None:
    adjacency = network.router.adjacency
    want = dijkstra(adjacency.matrix, directed=False, return_predecessors=True)
    _same(network.router.all_pairs(), want)
    gates = np.flatnonzero(network.router.node_gate != "")
    want = dijkstra(
        adjacency.matrix, directed=False, indices=gates, min_only=True, return_predecessors=True
    )
    _same(flood(adjacency, gates), want)
