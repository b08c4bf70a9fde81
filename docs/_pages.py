"""The documentation pages generated from the package's own objects (see `_hooks.py`)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import _outputs
import pandas as pd  # type: ignore[import-not-found]  # docs/ is on sys.path while mkdocs runs hooks
import typer

from refuge_map.columns import described_by, unit_of

ROOT = Path(__file__).resolve().parents[1]


def _cell(text: object) -> str:
    """Text for one Markdown table cell: no line breaks, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


# --- the command line -------------------------------------------------------------------------


# typer carries its own click (typer._click), so commands are read by their attributes.


def _option_rows(command: Any, ctx: Any) -> list[tuple[str, str, str, str]]:
    rows = []
    for param in command.params:
        if param.name == "help":
            continue
        names = ", ".join(f"`{name}`" for name in [*param.opts, *param.secondary_opts])
        kind = param.display_type(ctx).strip("<>")
        if param.param_type_name == "argument":
            kind = f"argument: {kind}"
        default = "" if param.default is None or param.required else f"`{param.default}`"
        help_text = getattr(param, "help", None) or ""
        rows.append((names, kind, default, help_text))
    return rows


def _command_sections(command: Any, path: str, depth: int) -> list[str]:
    with command.context_class(command, info_name=path.split()[-1]) as ctx:
        usage = " ".join(command.collect_usage_pieces(ctx))
        rows = _option_rows(command, ctx)
    sections = [
        f"{'#' * depth} `{path}`\n",
        f"```\n{path} {usage}\n```\n",
        (command.help or "").strip() + "\n",
    ]
    if rows:
        sections.append(_table(("option", "type", "default", "meaning"), rows))
    if hasattr(command, "commands"):  # a group of commands
        for name in sorted(command.commands):
            sub = command.commands[name]
            sections += _command_sections(sub, f"{path} {name}", min(depth + 1, 4))
    return sections


def cli_page() -> str:
    """Every command of `refuge`, with its usage, help and options, read from the typer app."""
    from refuge_map.cli import app

    root: Any = typer.main.get_command(app)
    parts = [
        "# The command line\n",
        "Generated from the `refuge` application itself (`refuge COMMAND --help` prints the same "
        "text). Bad input prints one line naming the file, field and value and exits with code "
        "2.\n",
    ]
    for name in sorted(root.commands):
        parts += _command_sections(root.commands[name], f"refuge {name}", 2)
    return "\n".join(parts)


# --- the law ----------------------------------------------------------------------------------


def rules_page() -> str:
    """Every rule of the law, in the order the judge runs them, with its source."""
    from refuge_map.law.rules import VERDICT_RULES

    rows = []
    for order, rule in enumerate(VERDICT_RULES, start=1):
        doc = (rule.__doc__ or "").strip().split("\n\n")[0]
        rows.append((order, f"`{rule.__name__}`", doc))
    return (
        "# The rules of the law\n\n"
        "The judge (`refuge_map.law.judge`) runs these rules in this order; the first that "
        "decides gives the verdict, and every ruling's trace names each rule consulted with its "
        "citation, the opinion it used and the facts it read.\n\n"
        + _table(("order", "rule", "what it decides, and its source"), rows)
    )


def disputes_page() -> str:
    """Every dispute of the package (law, geometry, exile) with its holders, default and why."""
    from refuge_map.opinions import DISPUTES

    parts = [
        "# The disputes\n",
        "Every named dispute the package implements, from the one registry "
        "(`refuge_map.opinions.DISPUTES`). Each is a parameter, chosen by the scenario path that "
        "heads its section (a sweep axis too); the law's own are also `refuge judge -o KEY=SAGE` "
        "and `Opinions(KEY=SAGE)` in Python. Every result records the opinions it used.\n",
    ]
    for path, dispute in DISPUTES.items():
        parts.append(f"## `{path}`\n")
        parts.append(f"{dispute.question} ({dispute.citation})\n")
        rows = [
            (f"`{choice}`" + (" (default)" if choice == dispute.default else ""), view)
            for choice, view in dispute.holds.items()
        ]
        parts.append(_table(("choice", "holds"), rows))
        parts.append(f"**Why the default:** {dispute.why_default}\n")
    return "\n".join(parts)


def cases_page() -> str:
    """The shipped cases with their verdicts under every opinion that bears on them."""
    from refuge_map.law import DISPUTES, rulings_across_opinions
    from refuge_map.law.casefiles import shipped_cases

    rows = []
    for path, shipped in shipped_cases():
        default, *others = rulings_across_opinions(shipped.case)  # the defaults come first
        readings = []
        for chosen, ruling in others:
            changed = {k: v for k, v in chosen.items() if v != DISPUTES[k].default}
            setting = ", ".join(f"{key}={sage}" for key, sage in changed.items())
            readings.append(f"{setting}: **{ruling.verdict}**")
        rows.append(
            (f"`{path.name}`", shipped.title, f"**{default[1].verdict}**", "; ".join(readings))
        )
    return (
        "# The shipped cases\n\n"
        "Every case the source texts describe (`data/cases/`), judged under the default "
        "opinions and under every other combination of the disputes that bear on it "
        "(`refuge judge FILE --all-opinions`).\n\n"
        + _table(("file", "case", "default verdict", "under the other readings"), rows)
    )


# --- the files --------------------------------------------------------------------------------


def _rows(table: _outputs.Table) -> list[tuple[str, str, str, str]]:
    """One row per column; the keys of a JSON file grouped under the entry describing them,
    after the entries of their parents (``overall``, then ``*.outcomes.*``)."""
    rows: dict[str, tuple[set[str], str]] = {}
    for column, kind in table.columns:
        parts = column.split(".")
        parents = [".".join(parts[:n]) for n in range(1, len(parts))]
        for parent in parents:
            entry = described_by(table.table, parent)
            if entry and entry[0] == parent:
                rows.setdefault(parent, ({"object"}, entry[1]))
        key, text = described_by(table.table, column) or (column, "**(undocumented)**")
        rows.setdefault(key, (set(), text))[0].update(kind.split(" or "))
    return [
        (f"`{key}`", " or ".join(sorted(kinds)), unit_of(key), text)
        for key, (kinds, text) in rows.items()
    ]


def _vocabulary(title: str, meanings: dict[str, Any]) -> str:
    rows = [
        (f"`{key}`", *(value if isinstance(value, tuple) else (value,)))
        for key, value in meanings.items()
    ]
    header = ("value", "meaning", "source") if len(rows[0]) == 3 else ("value", "meaning")
    return f"### {title}\n\n" + _table(header, rows)


def files_page(tables: list[_outputs.Table] | None = None) -> str:
    """Every output file and its columns, from files the `refuge` commands write at build time
    (or from `tables`, already written)."""
    from refuge_map.columns import (
        EXILE_OUTCOME_MEANINGS,
        FLIGHT_OUTCOME_MEANINGS,
        LIFE_MEANINGS,
        UNIT_SUFFIXES,
    )
    from refuge_map.simulation.events import EVENT_KINDS, EXILE_KINDS

    if tables is None:
        with tempfile.TemporaryDirectory() as folder:
            tables = _outputs.write_outputs(Path(folder))
    parts = [
        "# Output files\n",
        "Every file the commands write, with each column's stored type, unit and meaning. This "
        "page is made from files written while the site was built (a run of "
        "`data/scenarios/exile_whole_life.yaml`, the layers, a coarse coverage field and a sweep "
        "of two runs), and the meanings come from one place, `refuge_map.columns`. Every file is "
        "WGS84 (EPSG:4326). The keys of a JSON file are dotted paths (`*` any key, `[]` each "
        "item of a list), grouped under the key whose meaning covers them.\n",
        "## Units\n",
        "A name carries its unit in its ending:\n",
        _table(("ending", "unit"), [(f"`{k}`", v) for k, v in UNIT_SUFFIXES.items()]),
        "`p_` in front: a probability from 0 to 1. `lon`, `lat`: WGS84 degrees.\n",
    ]
    command = ""
    for table in tables:
        if table.command != command:
            command = table.command
            parts.append(f"## `{command}`\n")
            parts.append(_COMMAND_NOTES.get(command, ""))
        parts.append(f"### `{table.file}`\n")
        parts.append(_table(("column", "type", "unit", "meaning"), _rows(table)))
    parts += [
        "## The values\n",
        _vocabulary("Event kinds (`kind`)", {**EVENT_KINDS, **EXILE_KINDS}),
        _vocabulary("How a flight ends", FLIGHT_OUTCOME_MEANINGS),
        _vocabulary("How a manslayer's story ends (`outcome`)", EXILE_OUTCOME_MEANINGS),
        _vocabulary("Why an exile never leaves (`life_reason`)", LIFE_MEANINGS),
    ]
    return "\n".join(parts)


#: What each command writes besides its tables.
_COMMAND_NOTES = {
    "refuge run": "`refuge run SCENARIO --out DIR` writes `DIR/` whole: the tables below, "
    "`summary.json` and `scenario.json` (the validated scenario, which `read_run` reads back; "
    "its fields are those of the scenario file, `data/scenarios/README.md`). The exile's "
    "tables (`manslayers`, `ledger`, `priests`, `residence`) only when the scenario has an "
    "`exile` section; `replications.parquet` (one row per replication) only with "
    "replications.\n",
    "refuge layers": "`--out FILE.gpkg`: one GeoPackage with a layer each and their QGIS styles "
    "(`layer_styles`); `--out FILE.geojson`: a folder `FILE/` with `LAYER.geojson` and "
    "`LAYER.qml` for each layer (the same fields; lists are JSON text); `--out FILE.lpf.json`: "
    "the places as Linked Places Format.\n",
    "refuge coverage": "`--out FILE.gpkg` (layer `coverage`) or `FILE.parquet` (GeoParquet, "
    "the same columns), and the figure `FILE.png`.\n",
    "refuge sweep run": "`--out DIR`: `runs.parquet` (one row per run, then one column per "
    "axis), `manifest.jsonl`, `sweep.json` (the sweep file as validated) and `parts/` (each "
    "batch's trajectories and events, with the run's index).\n",
    "refuge sweep report": "`DIR/report/`: `summary.csv`, and per axis `AXIS.csv` and "
    "`AXIS.png`.\n",
}


# --- sources and data -------------------------------------------------------------------------


def _shipped_text(relative: str) -> str:
    text = (ROOT / relative).read_text(encoding="utf-8")
    # One level deeper than the page's own title, so the site's table of contents nests.
    return "\n".join("#" + line if line.startswith("#") else line for line in text.splitlines())


def _links(place: Any) -> str:
    """The place's identifiers as links: OpenBible, Pleiades (with its offset), Wikidata."""
    links = []
    if isinstance(place.openbible_modern_id, str):
        url = f"https://www.openbible.info/geo/modern/{place.openbible_modern_id}/"
        links.append(f"OpenBible [{place.openbible_modern_id}]({url})")
    if isinstance(place.pleiades_id, str):
        url = f"https://pleiades.stoa.org/places/{place.pleiades_id}"
        offset = "" if pd.isna(place.pleiades_offset_m) else f" ({place.pleiades_offset_m} m off)"
        links.append(f"Pleiades [{place.pleiades_id}]({url}){offset}")
    links += [f"Wikidata [{q}](https://www.wikidata.org/wiki/{q})" for q in place.wikidata_ids]
    return "; ".join(links)


IDENTIFICATION_HEADER = (
    "city",
    "rank",
    "site",
    "OpenBible score",
    "flags",
    "why flagged",
    "position",
    "identifiers",
)


def _text(value: object) -> str:
    """A cell's text; empty for a missing value."""
    return "" if value is None or (not isinstance(value, str) and pd.isna(value)) else str(value)


def identifications_table() -> str:
    """Every city of refuge and candidate site of data/places.geojson: how it was identified."""
    from geo import CITY_IDS
    from geo.places import SITE_FLAGS, read_places

    places = read_places(ROOT / "data" / "places.geojson")
    sites = places[places["city"].isin(CITY_IDS) & (places["feature_kind"] != "reference_point")]
    sites = sites.sort_values(
        ["city", "rank"], key=lambda c: c.map(CITY_IDS.index) if c.name == "city" else c
    )
    rows = []
    for place in sites.itertuples():
        score = "" if pd.isna(place.openbible_score) else place.openbible_score
        flags = ", ".join(f"`{flag}`" for flag in place.site_flags)
        note = place.site_note if isinstance(place.site_note, str) else ""
        precision = (
            place.location_precision_basis
            if isinstance(place.location_precision_basis, str)
            else ""
        )
        if not pd.isna(place.location_precision_m):
            precision = f"{place.location_precision_m} m, {precision}"
        used = "**used**" if place.rank == 1 else f"candidate {place.rank}"
        rows.append(
            (
                place.city,
                used,
                f"{place.modern_identification}",
                score,
                flags,
                note,
                precision,
                _links(place),
            )
        )
    flags = "\n".join(f"- `{flag}`: {text}" for flag, text in SITE_FLAGS.items())
    return (
        "Every city's site as `data/places.geojson` gives it (`refuge layers` writes the same "
        "fields in the `cities`, `sites` and `candidates` layers): the site used (rank 1, unless "
        "a scenario chooses a candidate: `network.candidates`), its OpenBible score (-1000 to "
        "1000, not a probability), the flags on it, the positional accuracy OpenBible states, and "
        "its identifiers.\n\n"
        + _table(IDENTIFICATION_HEADER, rows)
        + "\nThe flags:\n\n"
        + flags
        + "\n"
    )


def sources_page() -> str:
    """The texts, the geodata and their licences, the identifications and the roads' sources."""
    from refuge_map.law.casefiles import shipped_cases

    texts = sorted({shipped.seed.file for _, shipped in shipped_cases()})
    return "\n".join(
        [
            "# Sources and data\n",
            "## The texts\n",
            "The rules cite Numbers 35, Deuteronomy 19, Joshua 20-21, Mishnah Makkot 2, Mishnah "
            "Sanhedrin 9:2, the Babylonian Talmud (Makkot 9b-12b, Eruvin) and Maimonides' "
            "Mishneh Torah (Hilchot Rotzeach uShmirat Nefesh). The shipped cases quote these "
            f"source files word for word: {', '.join(f'`{t}`' for t in texts)}.\n",
            "## How each city was identified\n",
            identifications_table(),
            _shipped_text("data/README.md"),
            _shipped_text("data/ROADS.md"),
        ]
    )
