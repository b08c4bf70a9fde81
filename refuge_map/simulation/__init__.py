"""Simulation I (the flight and the pursuit) and II (trial, the years in exile, release)."""

from refuge_map.simulation._setup import network_for, scenario_network
from refuge_map.simulation.engine import (
    Flight,
    replication_seeds,
    run_flight,
    simulate,
    simulate_replications,
)
from refuge_map.simulation.events import EVENT_KINDS, ROLES
from refuge_map.simulation.exile import EXILE_KINDS, OUTCOMES, ExileLife, live_in_exile
from refuge_map.simulation.io import read_run, write_run
from refuge_map.simulation.run import EVENT_COLUMNS, TRACK_COLUMNS, Run, make_run
from refuge_map.simulation.scenario import Scenario, load_scenario, scenario_schema
from refuge_map.simulation.scenario_exile import ExileOptions

__all__ = [
    "EVENT_COLUMNS",
    "EVENT_KINDS",
    "EXILE_KINDS",
    "OUTCOMES",
    "ROLES",
    "TRACK_COLUMNS",
    "ExileLife",
    "ExileOptions",
    "Flight",
    "Run",
    "Scenario",
    "live_in_exile",
    "load_scenario",
    "make_run",
    "network_for",
    "read_run",
    "replication_seeds",
    "run_flight",
    "scenario_network",
    "scenario_schema",
    "simulate",
    "simulate_replications",
    "write_run",
]
