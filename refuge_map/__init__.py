"""refuge-map: the application — the law of exile, simulations, maps, sweeps and the CLI."""

from refuge_map.simulation import simulate

__version__ = "0.1.0"

__all__ = ["simulate"]
