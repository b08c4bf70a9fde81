"""`refuge judge` and `refuge cases` through `refuge_map.cli.main`, output and errors."""

from __future__ import annotations

import json

import pytest

from refuge_map.law import DISPUTES, Case
from refuge_map.law.casefiles import shipped_cases
from refuge_map.law.ruling import Ruling, TraceStep

SHIPPED = shipped_cases()


def _shipped_with_dispute() -> tuple[str, dict[str, str]]:
    """A shipped case whose verdict changes under some single opinion, and its expectations."""
    for path, shipped in SHIPPED:
        if len(set(shipped.expected.values())) > 1:
            return str(path), dict(shipped.expected)
    raise AssertionError("no shipped case turns on a dispute")


def test_judge_prints_the_verdict_and_the_trace(run_cli):
    path, expected = _shipped_with_dispute()
    result = run_cli("judge", path)
    assert result.code == 0, result.err
    assert f"Verdict: {expected['default']}" in result.out
    assert "Mishnah" in result.out or "Numbers" in result.out
    assert "intent_of_the_act" in result.out


def test_opinion_option_changes_the_verdict_as_the_case_expects(run_cli):
    path, expected = _shipped_with_dispute()
    setting, verdict = next((k, v) for k, v in expected.items() if v != expected["default"])
    args = [arg for part in setting.split(",") for arg in ("--opinion", part.strip())]
    result = run_cli("judge", path, *args, "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["verdict"] == verdict


def test_json_has_stable_keys(run_cli):
    path, _ = _shipped_with_dispute()
    data = json.loads(run_cli("judge", path, "--json").out)
    assert set(data) == set(Ruling.model_fields)
    assert {"verdict", "trace", "opinions"} <= set(data)
    assert all(set(step) == set(TraceStep.model_fields) for step in data["trace"])
    assert list(data["opinions"]) == list(DISPUTES)


def test_all_opinions_lists_every_combination(run_cli):
    path = next(str(p) for p, s in SHIPPED if len(set(s.expected.values())) == 3)
    expected = next(s.expected for p, s in SHIPPED if str(p) == path)
    data = json.loads(run_cli("judge", "--all-opinions", path, "--json").out)
    found = {
        ",".join(f"{k}={v}" for k, v in row["opinions"].items()): row["verdict"]
        for row in data["rulings"]
    }
    defaults = ",".join(f"{key}={DISPUTES[key].default}" for key in data["bearing"])
    assert found[defaults] == expected["default"]
    for setting, verdict in expected.items():
        if setting != "default":
            assert found[setting] == verdict
    table = run_cli("judge", "--all-opinions", path)
    assert table.code == 0 and data["bearing"][0] in table.out


def test_all_opinions_on_an_undisputed_case(run_cli):
    path = next(str(p) for p, s in SHIPPED if list(s.expected) == ["default"])
    result = run_cli("judge", "--all-opinions", path)
    assert result.code == 0 and "No dispute bears" in result.out


def test_bare_case_file(run_cli, tmp_path):
    case_file = tmp_path / "case.yaml"
    case_file.write_text("act: climbing_ladder\n", encoding="utf-8")
    assert run_cli("judge", case_file, "--json").code == 0


def test_schema_documents_every_field_and_dispute(run_cli):
    result = run_cli("judge", "--schema")
    assert result.code == 0
    for name in Case.model_fields:
        assert f"`{name}" in result.out
    for key in DISPUTES:
        assert f"`{key}`" in result.out


def test_cases_lists_the_shipped_cases(run_cli):
    result = run_cli("cases")
    assert result.code == 0
    assert SHIPPED[0][1].expected["default"] in result.out
    assert f"{len(SHIPPED)} cases" in result.out


@pytest.mark.parametrize(
    ("text", "options", "needles"),
    [
        ("act: lowering_cask\nenmty: true\n", [], ["'enmty'", "valid fields", "enmity"]),
        ("act: lowering_cask\nenmity: maybe\n", [], ["'enmity'", "valid: true, false", "maybe"]),
        ("act: lowering_casks\n", [], ["'act'", "lowering_cask", "climbing_ladder"]),
        ("act: lowering_cask\nmovement: upward\n", [], ["'movement'", "contradictory", "upward"]),
        (
            "act: lowering_cask\nkiller: {blind: true}\nkiller_saw_victim: true\n",
            [],
            ["killer_saw_victim"],
        ),
        ("act: lowering_cask\n", ["--opinion", "blades=rabbi"], ["blades", "valid: blade, chip"]),
        (
            "act: lowering_cask\n",
            ["--opinion", "blade=rabi"],
            ["'blade'", "rabi", "valid: sages, rabbi"],
        ),
        ("- act: lowering_cask\n", [], ["mapping"]),
    ],
    ids=[
        "unknown-field",
        "wrong-type",
        "unknown-act",
        "contradiction",
        "blind-saw",
        "unknown-opinion",
        "unknown-sage",
        "not-a-mapping",
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(run_cli, tmp_path, text, options, needles):
    case_file = tmp_path / "bad.yaml"
    case_file.write_text(text, encoding="utf-8")
    result = run_cli("judge", case_file, *options)
    assert result.code == 2
    assert result.out == ""
    assert result.err.count("\n") == 1 and result.err.startswith("refuge: error:")
    for needle in needles:
        assert needle in result.err


def test_missing_case_file(run_cli, tmp_path):
    result = run_cli("judge", tmp_path / "nowhere.yaml")
    assert result.code == 2 and "nowhere.yaml" in result.err


def test_all_opinions_refuses_a_fixed_opinion(run_cli):
    path = str(SHIPPED[0][0])
    result = run_cli("judge", "--all-opinions", path, "--opinion", "blade=rabbi")
    assert result.code == 2 and "--all-opinions" in result.err


def test_data_folder_can_be_moved(run_cli, tmp_path, monkeypatch):
    (tmp_path / "cases").mkdir()
    source = SHIPPED[-1][0]
    (tmp_path / "cases" / source.name).write_text(source.read_text(encoding="utf-8"), "utf-8")
    monkeypatch.setenv("REFUGE_MAP_DATA", str(tmp_path))
    result = run_cli("cases")
    assert result.code == 0 and "1 cases" in result.out
