"""refuge-map: the application — the law of exile, simulations, maps, sweeps and the CLI."""

from typing import Any

__version__ = "0.1.0"

__all__ = ["simulate"]


def __getattr__(name: str) -> Any:
    # `simulate` is loaded on first use, so that `import refuge_map.law` stays free of the
    # geographic stack (the law knows no geometry).
    if name == "simulate":
        from refuge_map.simulation import simulate

        return simulate
    raise AttributeError(f"module 'refuge_map' has no attribute {name!r}")
