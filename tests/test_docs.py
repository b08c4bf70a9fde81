"""The documentation's generated pages show everything the code defines (docs/_pages.py)."""

import html
import importlib
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
import typer
from mkdocs.exceptions import PluginError

from geo import CITY_IDS, load_network
from geo.places import read_places
from refuge_map.cli import app
from refuge_map.law.casefiles import shipped_cases
from refuge_map.law.rules import VERDICT_RULES
from refuge_map.opinions import DISPUTES as REGISTRY
from refuge_map.render import map_frame, network_map

DOCS = Path(__file__).resolve().parents[1] / "docs"


def docs_module(name: str):
    """A module of docs/ (the site's hooks import each other by name, as mkdocs runs them)."""
    if str(DOCS) not in sys.path:
        sys.path.insert(0, str(DOCS))
    return importlib.import_module(name)


@pytest.fixture(scope="module")
def pages():
    return docs_module("_pages")


def test_every_command_and_option_is_on_the_cli_page(pages):
    text = pages.cli_page()
    root = typer.main.get_command(app)
    for name, command in root.commands.items():
        assert f"`refuge {name}`" in text
        for param in command.params:
            for opt in param.opts:
                if opt.startswith("--") and opt != "--help":
                    assert f"`{opt}`" in text, (name, opt)


def test_every_dispute_with_each_opinion_and_its_default(pages):
    text = pages.disputes_page()
    for path, dispute in REGISTRY.items():
        section = text.split(f"## `{path}`\n", 1)[1].split("\n## ", 1)[0]
        assert dispute.citation in section
        assert f"`{dispute.default}` (default)" in section
        for sage in dispute.holds:
            assert f"`{sage}`" in section


def test_every_rule_in_the_order_the_judge_runs_them(pages):
    text = pages.rules_page()
    positions = [text.index(f"`{rule.__name__}`") for rule in VERDICT_RULES]
    assert positions == sorted(positions)


def test_every_shipped_case_with_its_default_verdict(pages):
    rows = {}
    for line in pages.cases_page().splitlines():
        cells = [cell.strip() for cell in line.strip("|").split(" | ")]
        rows[cells[0].strip("`")] = cells
    for path, shipped in shipped_cases():
        assert rows[path.name][2] == f"**{shipped.expected['default']}**", path.name


#: Choices of the disputes that are not a name to look up: the anonymous voice is under "tanna
#: kamma"; "open" says the texts do not decide.
NOT_NAMES = {"first_tanna": "tanna kamma", "open": ""}


def test_the_glossary_names_every_choice_of_every_dispute():
    glossary = (DOCS / "glossary.md").read_text(encoding="utf-8").lower()
    for dispute in REGISTRY.values():
        for choice in dispute.holds:
            name = NOT_NAMES.get(choice, choice.replace("_", " "))
            assert name in glossary, (dispute.path, choice)


def test_the_glossary_names_every_sage_the_law_cites():
    glossary = (DOCS / "glossary.md").read_text(encoding="utf-8")
    texts = [(rule.__doc__ or "") for rule in VERDICT_RULES]
    for dispute in REGISTRY.values():
        texts += [dispute.question, dispute.why_default, *dispute.holds.values()]
    sage = r"\b(?:R\.|Rav|Rabban) [A-Z][a-z]+(?: (?:ben|bar|son of R\.) [A-Z][a-z]+)?"
    names = {name for text in texts for name in re.findall(sage, " ".join(text.split()))}
    assert {"R. Akiva", "R. Meir", "Rav Ashi"} <= names
    for name in names:
        assert name in glossary, name


@pytest.fixture(scope="module")
def hooks():
    return docs_module("_hooks")


def test_a_page_that_fetches_a_script_or_stylesheet_is_found(hooks):
    page = (
        '<script src="../assets/bundle.js"></script><script src="https://cdn.example/a.js">'
        '</script><link rel="stylesheet" href="//cdn.example/b.css"><a href="https://x.org">x</a>'
        "<style>@import url('https://fonts.example/c.css');</style>"
    )
    assert hooks.external_assets(page) == [
        "https://cdn.example/a.js",
        "//cdn.example/b.css",
        "https://fonts.example/c.css",
    ]


def test_a_notebook_map_fetches_nothing_and_folium_s_own_would(hooks):
    network = load_network()
    fmap = network_map(network)
    assert hooks.external_assets(fmap._repr_html_())  # folium's frame loads from CDNs
    frame = map_frame(fmap)._repr_html_()
    assert frame.startswith("<iframe srcdoc=") and "L.map(" in html.unescape(frame)
    assert hooks.external_assets(frame) == []


def test_a_page_that_fetches_fails_the_build(hooks):
    page = SimpleNamespace(file=SimpleNamespace(src_uri="tutorials/1.ipynb"))
    with pytest.raises(PluginError, match=r"tutorials/1\.ipynb loads from the network: https://c"):
        hooks.on_post_page('<script src="https://c.example/x.js"></script>', page)


def test_every_site_of_every_city_is_on_the_sources_page(pages):
    places = read_places(DOCS.parent / "data" / "places.geojson")
    sites = places[places["city"].isin(CITY_IDS) & (places["feature_kind"] != "reference_point")]
    rows = {}
    for line in pages.sources_page().splitlines():
        cells = [cell.strip() for cell in line.strip("|").split(" | ")]
        if len(cells) == len(pages.IDENTIFICATION_HEADER):
            rows[cells[2]] = cells
    for place in sites.itertuples():
        row = rows[place.modern_identification]
        assert row[0] == place.city
        assert row[3] == ("" if place.openbible_score is pd.NA else str(place.openbible_score))
        for flag in place.site_flags:
            assert f"`{flag}`" in row[4]
        if isinstance(place.pleiades_id, str):
            assert f"https://pleiades.stoa.org/places/{place.pleiades_id}" in row[7]
        for item in place.wikidata_ids:
            assert f"https://www.wikidata.org/wiki/{item}" in row[7]


def test_every_tutorial_notebook_is_in_the_site_s_navigation():
    nav = (DOCS.parent / "mkdocs.yml").read_text(encoding="utf-8")
    for notebook in sorted((DOCS.parent / "notebooks").glob("*.ipynb")):
        assert f"- tutorials/{notebook.name}\n" in nav, notebook.name
