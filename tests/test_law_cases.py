"""Every shipped case of the seeds, judged under each opinion setting its file expects."""

from __future__ import annotations

import os
import re
import typing
from pathlib import Path

import pytest

from refuge_map.law import DISPUTES, Case, Opinions, bearing_disputes, judge
from refuge_map.law.casefiles import cases_dir, opinion_settings, shipped_cases
from refuge_map.law.rules import VERDICT_RULES
from refuge_map.law.ruling import Verdict

SHIPPED = shipped_cases()
SEEDS = Path(
    os.environ.get("REFUGE_MAP_SEEDS", Path(__file__).resolve().parents[2] / "shared/seeds")
)
EXPECTATIONS = [
    pytest.param(shipped, setting, verdict, id=f"{path.stem}[{key}]")
    for path, shipped in SHIPPED
    for key, verdict in shipped.expected.items()
    for setting in [opinion_settings(key)]
]
CASE_IDS = [path.stem for path, _ in SHIPPED]


def test_several_dozen_cases_ship():
    assert len(SHIPPED) >= 36
    assert sorted(cases_dir().glob("*.yaml")) == [path for path, _ in SHIPPED]


@pytest.mark.parametrize(("shipped", "setting", "verdict"), EXPECTATIONS)
def test_verdict_under_each_expected_opinion(shipped, setting, verdict):
    ruling = judge(shipped.case, Opinions.model_validate(setting))
    assert ruling.verdict == verdict, ruling.reason
    assert (ruling.consequences is not None) == (verdict == "exile")


@pytest.mark.parametrize(("path", "shipped"), SHIPPED, ids=CASE_IDS)
def test_expected_settings_cover_every_dispute_that_bears(path, shipped):
    bearing = bearing_disputes(shipped.case)
    wanted = {
        f"{key}={sage}"
        for key in bearing
        for sage in DISPUTES[key].sages
        if sage != DISPUTES[key].default
    }
    single = {key for key in shipped.expected if key != "default" and "," not in key}
    assert single == wanted
    for key in shipped.expected:
        assert set(opinion_settings(key)) <= set(bearing), key


@pytest.mark.parametrize(
    ("path", "shipped"), [(p, s) for p, s in SHIPPED if s.consequences], ids=str
)
def test_consequences_of_exile(path, shipped):
    found = judge(shipped.case).consequences
    assert found is not None
    assert (found.life_exile, found.exile_within) == (
        shipped.consequences.life_exile,
        shipped.consequences.exile_within,
    )
    assert (found.life_exile_reason is not None) == found.life_exile


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the seed texts are not beside the repository")
@pytest.mark.parametrize(("path", "shipped"), SHIPPED, ids=CASE_IDS)
def test_quote_is_in_its_seed(path, shipped):
    def words(text: str) -> str:
        return re.sub(r"\s+", " ", text).strip()

    for quoted in (shipped.seed, shipped.context):
        if quoted is not None:
            text = (SEEDS / quoted.file).read_text(encoding="utf-8")
            assert words(quoted.quote) in words(text)


@pytest.mark.parametrize(("path", "shipped"), SHIPPED, ids=CASE_IDS)
def test_an_undetermined_case_names_what_it_asks(path, shipped):
    ruling = judge(shipped.case)
    if ruling.verdict == "undetermined" and ruling.trace[-1].asks:
        assert ruling.asks and all(alt.verdict for alt in ruling.alternatives)
    else:
        assert not ruling.alternatives


def test_file_names_number_the_cases():
    for number, (path, _) in enumerate(SHIPPED, start=1):
        assert re.fullmatch(rf"{number:03d}_[a-z0-9_]+\.yaml", path.name)


def _traces(case: Case, opinions: Opinions) -> list[str]:
    """The rules consulted on a case and, where it asks a fact, under every answer."""
    ruling = judge(case, opinions)
    rules = [step.rule for step in ruling.trace]
    for alt in ruling.alternatives:
        answered = Case.model_validate({**case.model_dump(), **alt.facts})
        rules.extend(step.rule for step in judge(answered, opinions).trace)
    return rules


def test_shipped_cases_reach_every_rule_and_every_verdict():
    consulted = {
        rule
        for _, shipped in SHIPPED
        for setting, _ in shipped.expectations()
        for rule in _traces(shipped.case, Opinions.model_validate(setting))
    }
    assert {rule.__name__ for rule in VERDICT_RULES} <= consulted
    verdicts = {verdict for _, shipped in SHIPPED for verdict in shipped.expected.values()}
    assert verdicts == set(typing.get_args(Verdict))
