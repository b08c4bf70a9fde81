"""refuge-map: the application — the law of exile, simulations, maps, sweeps and the CLI."""

__version__ = "0.1.0"
