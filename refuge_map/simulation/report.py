"""The short summary tables of a run, for terminals (rich) and for anyone who reuses them."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from refuge_map.simulation.events import EXILE_OUTCOMES, FLIGHT_OUTCOMES
from refuge_map.simulation.replications import DOMINANT_R2

#: City columns of the exile table beyond which the rest are summed into one (48 cities).
CITY_COLUMNS = 6


def _fmt(stats: dict[str, float] | None, key: str) -> str:
    return "-" if stats is None else f"{stats[key]:.2f}"


def summary_table(summary: dict[str, Any]) -> Table:
    """One row per city the manslayers ran for, and one for all: outcomes, deterrences,
    median and 90th-percentile time to asylum (hours), mean distance run (km); under it, where
    any city turned one away or the 42 Levitical cities received some, how many."""
    table = Table(
        title=f"Flight and pursuit: {summary['run_id']}",
        caption=_reception_caption(summary.get("cities")),
        caption_justify="left",
    )
    for column in ("ran for", "n", *FLIGHT_OUTCOMES, "deterred", "med h", "p90 h", "km"):
        table.add_column(column, justify="left" if column == "ran for" else "right")
    blocks = [*summary["by_city"].items(), ("all", summary["overall"])]
    for name, block in blocks:
        time, dist = block["time_to_asylum_h"], block["distance_run_km"]
        table.add_row(
            name,
            str(block["incidents"]),
            *(str(block["outcomes"][kind]) for kind in FLIGHT_OUTCOMES),
            str(block["deterred"]),
            _fmt(time, "median"),
            _fmt(time, "p90"),
            _fmt(dist, "mean"),
            end_section=name == blocks[-2][0] if len(blocks) > 1 else False,
        )
    return table


def _reception_caption(cities: dict[str, Any] | None) -> str | None:
    """Received in the six and in the 42, and turned away (Makkot 10a-10b), if it matters."""
    if not cities:
        return None
    received, turned = cities["received_by_kind"], cities["turned_away"]
    if not received.get("levitical") and not turned:
        return None
    full = sorted(city for city, block in cities["by_city"].items() if block["full"])
    return (
        f"received in the six (and any added): {received.get('refuge', 0)}, in the 42 "
        f"Levitical cities: {received.get('levitical', 0)}; turned away: {turned}"
        + (f" (full: {', '.join(full)})" if full else "")
    )


def _city_columns(by_city: dict[str, dict[str, int]]) -> list[tuple[str, dict[str, int]]]:
    """The cities with most manslayers as columns, the rest summed into one."""
    ranked = sorted(by_city.items(), key=lambda item: -sum(item[1].values()))
    if len(ranked) <= CITY_COLUMNS + 1:
        return list(by_city.items())
    shown, rest = ranked[:CITY_COLUMNS], ranked[CITY_COLUMNS:]
    other = {
        outcome: sum(counts.get(outcome, 0) for _, counts in rest) for outcome in EXILE_OUTCOMES
    }
    return [*shown, (f"{len(rest)} others", other)]


def exile_table(exile: dict[str, Any]) -> Table:
    """The whole life of the manslayers (``summary["exile"]``): one row per outcome, one column
    per city they fled to (the `CITY_COLUMNS` with most, the rest in one) and one for all;
    under it, life exiles by reason, median years in
    exile, rent paid to the Levites (Mishnah Makkot 2:8) and office."""
    table = Table(
        title="Trial, exile and release", caption=_exile_caption(exile), caption_justify="left"
    )
    columns = [*_city_columns(exile["by_city"]), ("all", exile["outcomes"])]
    table.add_column("outcome / fled to")
    for name, _ in columns:
        table.add_column(name, justify="right")
    for outcome in EXILE_OUTCOMES:
        table.add_row(
            outcome.replace("_", " "), *(str(counts.get(outcome, 0)) for _, counts in columns)
        )
    return table


def _exile_caption(exile: dict[str, Any]) -> str:
    """Life exiles by reason, median years in exile, rent and office, one line each."""
    reasons = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in exile["life_exiles"].items())
    years = exile["years_in_exile"]
    rent, office = exile["rent"], exile["office"]
    return "\n".join(
        [
            f"life exiles: {sum(exile['life_exiles'].values())} ({reasons})",
            f"median years in exile: all {_median(years['all_exiles'])}, "
            f"released {_median(years['released'])}",
            f"rent: {rent['stays']} stays, {rent['total']:,.2f} in all",
            f"office: {office['held']} held one, {office['restored']} restored",
        ]
    )


def _median(years: dict[str, Any] | None) -> str:
    return "-" if years is None else f"{years['p50']:.2f}"


def assumptions_table(parameters: list[dict[str, Any]]) -> Table:
    """The assumptions a run used (the ``parameters`` rows marked ``assumption``): name, value,
    unit and the range a reader might try; why each is in the summary and the schema."""
    table = Table(
        title="Assumptions used: no source gives these (`refuge sensitivity` varies them)",
        caption="why each: summary.json `parameters`, `refuge scenario schema`",
        caption_justify="left",
    )
    for column in ("parameter", "value", "unit", "range"):
        table.add_column(column, overflow="fold")
    for row in parameters:
        if row["provenance"] == "assumption":
            low, high = row["range"]
            table.add_row(row["name"], _value(row["value"]), row["unit"], f"{low:g}-{high:g}")
    return table


def _value(value: Any) -> str:
    """A parameter's value in short: a number, ``[low, high]`` or a distribution."""
    if isinstance(value, dict):
        return " ".join(f"{k}={v}" for k, v in value.items() if k != "dist") + f" ({value['dist']})"
    if isinstance(value, list):
        return "[" + ", ".join(f"{v:g}" for v in value) + "]"
    return f"{value:g}" if isinstance(value, float) else str(value)


def replications_table(block: dict[str, Any]) -> Table:
    """Each headline outcome across the replications (``summary["replications"]``): mean, 95%
    interval of the mean, and the range of the runs; shares of the incidents in percent, hours
    and years as they are. The caption names the outcomes one draw dominates."""
    variance = block.get("variance")
    dominated = ", ".join(variance["dominated"]) if variance else ""
    caption = f"the first run's seed {block['seeds'][0]}; the others spawned from it"
    if variance and dominated:
        caption += (
            f"\n{dominated}: most of the variance across runs is {variance['draw']} "
            f"(r\u00b2 >= {DOMINANT_R2}); read these with their interval"
        )
    table = Table(
        title=f"Outcomes across {block['n']} replications: mean and 95% interval",
        caption=caption,
        caption_justify="left",
    )
    for column in ("outcome", "mean", "95% interval", "runs' range"):
        table.add_column(column, justify="left" if column == "outcome" else "right")
    for name, stats in block["outcomes"].items():
        if stats["mean"] is None:
            continue
        scale, unit = (1.0, "") if "_h_" in name or "years" in name else (100.0, "%")
        ci = stats["ci95"]
        table.add_row(
            name,
            f"{stats['mean'] * scale:.2f}{unit}",
            "-" if ci is None else f"{ci[0] * scale:.2f}-{ci[1] * scale:.2f}{unit}",
            f"{stats['min'] * scale:.2f}-{stats['max'] * scale:.2f}{unit}",
        )
    return table


def report_tables(summary: dict[str, Any]) -> list[Table]:
    """The tables `refuge run` and `refuge demo` print: the flight's and the exile's of the
    first run, the outcomes across the replications, and the assumptions used."""
    tables = [summary_table(summary)]
    if summary.get("exile"):
        tables.append(exile_table(summary["exile"]))
    if summary.get("replications", {}).get("n", 1) > 1:
        tables.append(replications_table(summary["replications"]))
    if summary.get("parameters"):
        tables.append(assumptions_table(summary["parameters"]))
    return tables
