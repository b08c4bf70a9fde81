"""The short summary table of a run, for terminals (rich) and for anyone who reuses it."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from refuge_map.simulation.run import OUTCOMES


def _fmt(stats: dict[str, float] | None, key: str) -> str:
    return "-" if stats is None else f"{stats[key]:.2f}"


def summary_table(summary: dict[str, Any]) -> Table:
    """One row per city the manslayers ran for, and one for all: outcomes, deterrences,
    median and 90th-percentile time to asylum (hours), mean distance run (km)."""
    table = Table(title=f"Flight and pursuit: {summary['run_id']}")
    for column in ("ran for", "n", *OUTCOMES, "deterred", "med h", "p90 h", "km"):
        table.add_column(column, justify="left" if column == "ran for" else "right")
    blocks = [*summary["by_city"].items(), ("all", summary["overall"])]
    for name, block in blocks:
        time, dist = block["time_to_asylum_h"], block["distance_run_km"]
        table.add_row(
            name,
            str(block["incidents"]),
            *(str(block["outcomes"][kind]) for kind in OUTCOMES),
            str(block["deterred"]),
            _fmt(time, "median"),
            _fmt(time, "p90"),
            _fmt(dist, "mean"),
            end_section=name == blocks[-2][0] if len(blocks) > 1 else False,
        )
    return table
