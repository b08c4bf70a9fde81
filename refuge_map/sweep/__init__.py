"""Monte Carlo sweeps: axes over a scenario, run on Dask (or serially), resumable, reported.

Importing this package does not import Dask; `open_backend` does, when a cluster is asked for.
"""

from refuge_map.sweep.backends import open_backend
from refuge_map.sweep.manifest import Manifest
from refuge_map.sweep.plan import Plan, plan_sweep
from refuge_map.sweep.report import write_report
from refuge_map.sweep.runner import SweepResult, run_sweep
from refuge_map.sweep.spec import SweepSpec, load_sweep

__all__ = [
    "Manifest",
    "Plan",
    "SweepResult",
    "SweepSpec",
    "load_sweep",
    "open_backend",
    "plan_sweep",
    "run_sweep",
    "write_report",
]
