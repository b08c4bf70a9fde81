"""Simulation I (the flight and the pursuit) and II (trial, the years in exile, release)."""

from refuge_map.simulation._setup import network_for, scenario_network
from refuge_map.simulation.engine import Flight, run_flight
from refuge_map.simulation.events import (
    EVENT_KINDS,
    EXILE_KINDS,
    EXILE_OUTCOMES,
    FLIGHT_OUTCOMES,
    ROLES,
)
from refuge_map.simulation.exile import ExileLife, live_in_exile
from refuge_map.simulation.io import read_run, write_run
from refuge_map.simulation.model import replicate, simulate, simulate_replications
from refuge_map.simulation.replications import replication_seeds
from refuge_map.simulation.run import EVENT_COLUMNS, TRACK_COLUMNS, Run, make_run
from refuge_map.simulation.scenario import Scenario, load_scenario, scenario_schema
from refuge_map.simulation.scenario_exile import ExileOptions
from refuge_map.simulation.seeds import spawn_seeds

#: The outcome of every manslayer (`EXILE_OUTCOMES`; the name kept for earlier callers).
OUTCOMES = EXILE_OUTCOMES

__all__ = [
    "EVENT_COLUMNS",
    "EVENT_KINDS",
    "EXILE_KINDS",
    "EXILE_OUTCOMES",
    "FLIGHT_OUTCOMES",
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
    "replicate",
    "replication_seeds",
    "run_flight",
    "scenario_network",
    "scenario_schema",
    "simulate",
    "simulate_replications",
    "spawn_seeds",
    "write_run",
]
