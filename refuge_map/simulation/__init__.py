"""Simulation I: the manslayer's flight and the avenger's pursuit over the real network."""

from refuge_map.simulation.engine import (
    Flight,
    replication_seeds,
    run_flight,
    simulate,
    simulate_replications,
)
from refuge_map.simulation.events import EVENT_KINDS, ROLES
from refuge_map.simulation.io import read_run, write_run
from refuge_map.simulation.run import EVENT_COLUMNS, TRACK_COLUMNS, Run, make_run
from refuge_map.simulation.scenario import Scenario, load_scenario, scenario_schema

__all__ = [
    "EVENT_COLUMNS",
    "EVENT_KINDS",
    "ROLES",
    "TRACK_COLUMNS",
    "Flight",
    "Run",
    "Scenario",
    "load_scenario",
    "make_run",
    "read_run",
    "replication_seeds",
    "run_flight",
    "scenario_schema",
    "simulate",
    "simulate_replications",
    "write_run",
]
