"""Analyses behind the notebooks: the stretches of the land, coverage surfaces, placement, and
the six against the 48 Levitical cities."""

from geo.land_grid import LandGrid, land_grid, study_area
from refuge_map.analysis.coverage_grid import coverage_summary, distance_surface
from refuge_map.analysis.levitical import levitical_surfaces, six_vs_48, who_gains
from refuge_map.analysis.placement import (
    Placement,
    candidate_sites,
    compare_placements,
    cost_matrix,
    designate_more,
    evaluate,
    p_center,
    p_median,
    placements,
    three_more,
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
    "designate_more",
    "distance_surface",
    "equalizing_limits",
    "evaluate",
    "land_grid",
    "levitical_surfaces",
    "limits_on_axis",
    "p_center",
    "p_median",
    "pairings",
    "placements",
    "six_vs_48",
    "stretches",
    "study_area",
    "three_more",
    "who_gains",
]
