"""Analyses behind the notebooks: the stretches of the land, coverage surfaces and placement."""

from geo.land_grid import LandGrid, land_grid, study_area
from refuge_map.analysis.coverage_grid import coverage_summary, distance_surface
from refuge_map.analysis.placement import (
    Placement,
    candidate_sites,
    compare_placements,
    cost_matrix,
    evaluate,
    p_center,
    p_median,
    placements,
)
from refuge_map.analysis.stretches import (
    EqualizingLimits,
    candidate_sensitivity,
    equalizing_limits,
    limits_on_axis,
    pairings,
    stretches,
)

__all__ = [
    "EqualizingLimits",
    "LandGrid",
    "Placement",
    "candidate_sensitivity",
    "candidate_sites",
    "compare_placements",
    "cost_matrix",
    "coverage_summary",
    "distance_surface",
    "equalizing_limits",
    "evaluate",
    "land_grid",
    "limits_on_axis",
    "p_center",
    "p_median",
    "pairings",
    "placements",
    "stretches",
    "study_area",
]
