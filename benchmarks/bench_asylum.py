"""Asylum predicate throughput: `in_asylum` against the best raw method and a per-point loop.

Run: ``.venv/bin/python benchmarks/bench_asylum.py [N]`` (default 1,000,000 positions). Prints
positions/second for each method, once for positions near the towns and once spread over the
whole region, and the ratios, all measured in the same run.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import numpy as np
import shapely
from pyproj import Transformer

from geo import REGION_CRS, WGS84, load_network, to_lonlat, to_metric
from geo.crs import REGION_BOUNDS_LONLAT


def positions(network, n: int, near: bool, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """WGS84 positions: within ~3 km of the six sites, or uniform over the region."""
    if near:
        sites = shapely.get_coordinates(network.cities["site"].to_numpy())
        xy = sites[rng.integers(0, 6, n)] + rng.normal(0, 1500, (n, 2))
        return to_lonlat(xy[:, 0], xy[:, 1])
    left, bottom, right, top = REGION_BOUNDS_LONLAT
    return rng.uniform(left, right, n), rng.uniform(bottom, top, n)


def raw_metric(zones: np.ndarray) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """A bounding-box prefilter and a prepared contains_xy per zone, on metric coordinates."""
    shapely.prepare(zones)
    bounds = shapely.bounds(zones)

    def inside(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        out = np.zeros(x.shape, dtype=bool)
        for zone, (left, bottom, right, top) in zip(zones, bounds, strict=True):
            near = np.flatnonzero((x >= left) & (x <= right) & (y >= bottom) & (y <= top))
            out[near[shapely.contains_xy(zone, x[near], y[near])]] = True
        return out

    return inside


def raw_method(zones: np.ndarray) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """Project with pyproj, then `raw_metric`."""
    forward = Transformer.from_crs(WGS84, REGION_CRS, always_xy=True)
    metric = raw_metric(zones)

    def inside(lon: np.ndarray, lat: np.ndarray) -> np.ndarray:
        return metric(*forward.transform(lon, lat))

    return inside


def per_point_loop(zones: np.ndarray) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The naive way: one shapely Point and one `contains` per position and zone."""
    forward = Transformer.from_crs(WGS84, REGION_CRS, always_xy=True)

    def inside(lon: np.ndarray, lat: np.ndarray) -> np.ndarray:
        result = []
        for a, b in zip(lon, lat, strict=True):
            point = shapely.Point(forward.transform(a, b))
            result.append(any(zone.contains(point) for zone in zones))
        return np.array(result)

    return inside


def rate(fn: Callable[[np.ndarray, np.ndarray], np.ndarray], lon, lat, repeat: int = 3) -> float:
    """Best-of-`repeat` positions per second."""
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        fn(lon, lat)
        best = min(best, time.perf_counter() - start)
    return len(lon) / best


def main(n: int = 1_000_000) -> None:
    """Measure and print the three methods on near and spread positions."""
    network = load_network()
    zones = network.zones.geometry.to_numpy()
    raw, loop = raw_method(zones), per_point_loop(zones)
    rng = np.random.default_rng(0)
    print(f"{n:,} positions; rates in million positions per second")
    for near in (True, False):
        lon, lat = positions(network, n, near, rng)
        assert np.array_equal(network.in_asylum(lon, lat), raw(lon, lat))
        ours = rate(lambda a, b: network.in_asylum(a, b), lon, lat)
        best = rate(raw, lon, lat)
        naive = rate(loop, lon[:20_000], lat[:20_000], repeat=1)
        x, y = to_metric(lon, lat)
        ours_xy = rate(network.in_asylum_xy, x, y)
        best_xy = rate(raw_metric(zones), x, y)
        label = "near the towns" if near else "spread over the region"
        print(
            f"{label:>24}: in_asylum {ours / 1e6:6.2f}  raw {best / 1e6:6.2f}  "
            f"loop {naive / 1e6:6.3f}  raw/in_asylum {best / ours:4.2f}x  "
            f"in_asylum/loop {ours / naive:6.0f}x"
        )
        print(
            f"{'(metric, no projection)':>24}: in_asylum_xy {ours_xy / 1e6:6.2f}  "
            f"raw {best_xy / 1e6:6.2f}  raw/in_asylum_xy {best_xy / ours_xy:4.2f}x"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
