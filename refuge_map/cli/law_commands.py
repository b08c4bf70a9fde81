"""Commands on the law of exile: judge a case under the opinions, list the shipped cases."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from refuge_map.cli._app import app
from refuge_map.cli._output import console, print_json
from refuge_map.errors import RefugeError
from refuge_map.law.opinions import DISPUTES, PRESETS

if TYPE_CHECKING:
    from refuge_map.law import Ruling


@app.command("judge")
def judge_command(
    case_file: Annotated[
        Path | None, typer.Argument(help="CASE.yaml (bare facts, or a shipped case).")
    ] = None,
    opinion: Annotated[
        list[str] | None,
        typer.Option(
            "--opinion",
            "-o",
            help=f"RULE=SAGE, repeatable; RULE is one of {', '.join(DISPUTES)}; or "
            f"preset=NAME ({', '.join(PRESETS)}) to set every dispute at once.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a stable JSON object.")] = False,
    all_opinions: Annotated[
        bool,
        typer.Option(
            "--all-opinions", help="Judge under every combination of the disputes that bear."
        ),
    ] = False,
    schema: Annotated[
        bool, typer.Option("--schema", help="Print the reference page of the case vocabulary.")
    ] = False,
) -> None:
    """Say whether the killer goes into exile, is a murderer, or neither, and why."""
    # imported here, as each command imports its heavy modules (see `_app`)
    if schema:
        from refuge_map.law.reference import vocabulary_markdown

        print(vocabulary_markdown())
        return
    from refuge_map.law import judge, rulings_across_opinions
    from refuge_map.law.casefiles import load_case_file, parse_opinions

    if case_file is None:
        raise RefugeError("give a CASE file (or --schema)", source="refuge judge")
    if all_opinions and opinion:
        raise RefugeError("--opinion and --all-opinions do not go together", source="refuge judge")
    case, _ = load_case_file(case_file)
    if all_opinions:
        across = rulings_across_opinions(case)
        if as_json:
            print_json(_across_json(across))
        else:
            _show_across(across)
        return
    ruling = judge(case, parse_opinions(opinion or ()))
    if as_json:
        print_json(ruling.to_json_dict())
    else:
        _show_ruling(ruling)


@app.command("cases")
def cases_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print a stable JSON object.")] = False,
) -> None:
    """List the shipped cases with their title and verdict under the default opinions."""
    from refuge_map.law.casefiles import cases_dir, shipped_cases

    found = shipped_cases()
    if as_json:
        print_json(
            {
                "folder": str(cases_dir()),
                "cases": [
                    {"case": path.stem, "title": shipped.title, "expected": shipped.expected}
                    for path, shipped in found
                ],
            }
        )
        return
    table = Table(title=f"{len(found)} cases shipped in {cases_dir()}")
    for column in ("case", "title", "verdict", "other opinions"):
        table.add_column(column)
    for path, shipped in found:
        others = ", ".join(f"{key}: {v}" for key, v in shipped.expected.items() if key != "default")
        table.add_row(path.stem, shipped.title, shipped.expected["default"], others)
    console().print(table)


def _show_ruling(ruling: Ruling) -> None:
    from refuge_map.law.rules import describe

    out = console()
    out.print(f"[bold]Verdict: {ruling.verdict}[/bold] - {ruling.reason}")
    table = Table(title="Trace")
    for column in ("#", "rule", "citation", "opinion", "finding"):
        table.add_column(column, overflow="fold")
    for number, step in enumerate(ruling.trace, start=1):
        opinion = f"{step.dispute}={step.opinion}" if step.dispute else ""
        table.add_row(str(number), step.rule, step.citation, opinion, step.finding)
    out.print(table)
    if ruling.alternatives:
        asked = Table(title=f"Undetermined: the case does not state {', '.join(ruling.asks)}")
        for column in ("if", "verdict", "because"):
            asked.add_column(column, overflow="fold")
        for alt in ruling.alternatives:
            facts = ", ".join(f"{key}: {describe(value)}" for key, value in alt.facts.items())
            asked.add_row(facts, alt.verdict, alt.reason)
        out.print(asked)
    if ruling.consequences:
        more = ruling.consequences
        term = (
            f"for life ({more.life_exile_reason})"
            if more.life_exile
            else "until the death of the high priest"
        )
        out.print(f"Exile {term}; within: {more.exile_within} ({more.citation})")
    bearing = ", ".join(ruling.opinions_bearing) or "none"
    out.print(f"Opinions: {_settings(ruling.opinions)}; bearing on this case: {bearing}")


def _show_across(across: list[tuple[dict[str, str], Ruling]]) -> None:
    out = console()
    keys = list(across[0][0])
    if not keys:
        verdict = across[0][1].verdict
        out.print(f"No dispute bears on this case: {verdict} under every opinion.")
        return
    table = Table(title="Verdict under every opinion that bears on the case")
    for column in (*keys, "verdict", "reason"):
        table.add_column(column)
    for chosen, ruling in across:
        table.add_row(*chosen.values(), ruling.verdict, ruling.reason)
    out.print(table)


def _across_json(across: list[tuple[dict[str, str], Ruling]]) -> dict[str, Any]:
    return {
        "bearing": list(across[0][0]),
        "rulings": [
            {"opinions": chosen, "verdict": ruling.verdict, "reason": ruling.reason}
            for chosen, ruling in across
        ],
    }


def _settings(opinions: dict[str, str]) -> str:
    return ", ".join(f"{key}={sage}" for key, sage in opinions.items())
