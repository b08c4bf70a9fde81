"""`refuge explore` in a real browser (Debian's Chromium through Playwright): every request
that is not to the local server is aborted and recorded; each interaction is checked on what
the page shows."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
import shapely
from test_render_browser import CHROMIUM, Visit, watched
from test_render_browser import browser as browser  # the fixture: one Chromium a module

from refuge_map.render._style import SIDE_COLORS, ZONE_STYLES

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium (make browser)"),
]
pytest.importorskip("playwright.sync_api")
pytest.importorskip("uvicorn")

SHECHEM = (32.2136, 35.2819)  # lat, lon: inside the town


@pytest.fixture(scope="module")
def address(tmp_path_factory) -> Iterator[str]:
    """`refuge explore --port 0` in its own process; its address, as it prints it."""
    home = tmp_path_factory.mktemp("explore")
    server = subprocess.Popen(
        [sys.executable, "-c", "from refuge_map.cli import main; main()", "explore", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=home,
    )
    try:
        line = server.stdout.readline()
        assert line.startswith("refuge explore: open http://127.0.0.1:"), line
        yield line.split("open ", 1)[1].split()[0]
    finally:
        server.terminate()
        server.wait(timeout=20)
        server.stdout.close()
    assert list(home.iterdir()) == [], "the explorer wrote files"


@pytest.fixture
def seen(browser, address) -> Iterator[Visit]:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    visit = watched(page, (address,))
    page.goto(address)
    page.wait_for_selector("body[data-ready=yes]")
    page.wait_for_selector("#pane-0[data-ready]")
    yield visit
    assert visit.blocked == [], "the page tried the network"
    assert visit.errors == [], "the page logged errors"
    page.close()


def click_at(page, pane: int, lat: float, lon: float) -> None:
    """A click on the map of `pane` at a place (the map is first centred there)."""
    # `void`: setView returns the map, which Playwright would spend seconds serializing
    page.evaluate(f"void panes[{pane}].map.setView([{lat}, {lon}], 14, {{animate: false}})")
    box = page.locator(f"#pane-{pane} .map").bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def choose(page, pane: int, field: str, value: str) -> None:
    ready = page.get_attribute(f"#pane-{pane}", "data-ready")
    select = page.locator(f"#pane-{pane} [data-field={field}] select")
    if select.count():
        select.select_option(value)
    else:  # a preset or a number: a text box with the presets to pick from
        box = page.locator(f"#pane-{pane} [data-field={field}] input")
        box.fill(value.strip('"'))
        box.dispatch_event("change")
    page.wait_for_function(f"document.querySelector('#pane-{pane}').dataset.ready !== {ready!r}")


def test_the_opinions_redraw_the_zones(seen, tmp_path):
    page = seen.page
    assert page.locator("#pane-0 path.zone").count() == 6
    assert page.get_attribute("#pane-0", "data-breadth") == "960"  # 2,000 cubits of 48 cm
    choose(page, 0, "cubit", '"chazon_ish"')
    assert page.get_attribute("#pane-0", "data-breadth") == "1152"  # of 57.6 cm
    page.screenshot(path=tmp_path / "zones.png")


def test_the_cities_names_stand_beside_their_dots(seen):
    page = seen.page
    dots = page.locator("#pane-0 path.city")
    names = page.locator("#pane-0 .leaflet-tooltip-right")
    assert dots.count() == names.count() == 6
    for i in range(6):
        dot, name = dots.nth(i).bounding_box(), names.nth(i).bounding_box()
        assert dot is not None and name is not None
        assert name["x"] >= dot["x"] + dot["width"]  # the whole dot shows, left of its name
        assert name["y"] < dot["y"] + dot["height"] / 2 < name["y"] + name["height"]
    fills = dots.evaluate_all("ds => ds.map(d => d.getAttribute('fill'))")
    assert sorted(set(fills)) == sorted(SIDE_COLORS.values())  # west and east, as the HTML map


def test_a_point_a_tree_and_the_chazon_ish(seen, tmp_path):
    page = seen.page
    click_at(page, 0, *SHECHEM)
    page.wait_for_selector("#answer .protected")
    assert "Shechem" in page.inner_text("#answer") and "Numbers 35:11" in page.inner_text("#answer")
    page.check("#mode input[value=tree]")
    click_at(page, 0, 32.30, 35.40)  # the trunk, far from every city
    click_at(page, 0, 32.30, 35.401)
    page.wait_for_selector("#answer .unprotected")
    assert "Tree (mishnah)" in page.inner_text("#answer")
    page.screenshot(path=tmp_path / "tree.png")


def between_the_cubits() -> tuple[float, float]:
    """A point (lat, lon) outside Shechem's boundary under the 48 cm cubit and inside it under
    the Chazon Ish's 57.6 cm, from the package's own zones."""
    from refuge_map.explore import answers

    def shechem(settings):
        zones = answers.zones(settings)["zones"]["features"]
        return next(
            shapely.geometry.shape(f["geometry"])
            for f in zones
            if "Shechem" in f["properties"]["name"]
        )

    ring = shechem({"network": {"cubit": "chazon_ish"}}).difference(shechem({}))
    point = ring.representative_point()
    return point.y, point.x


def test_is_this_spot_protected_under_the_chazon_ish_cubit(seen, tmp_path):
    """The teacher's first question: the answer flips from the 48 cm cubit to 57.6 cm, and the
    rule links to its text."""
    page = seen.page
    lat, lon = between_the_cubits()
    click_at(page, 0, lat, lon)
    page.wait_for_selector("#answer .unprotected")
    assert "Not protected" in page.inner_text("#answer")
    choose(page, 0, "cubit", '"chazon_ish"')
    click_at(page, 0, lat, lon)
    page.wait_for_selector("#answer .protected")
    answer = page.inner_text("#answer")
    assert "Protected in the zone of Shechem" in answer and "chazon_ish cubit" in answer
    link = page.locator("#answer .rule a").first
    assert link.get_attribute("href") == "https://www.sefaria.org/Mishnah_Makkot.2.7"
    page.click("#answer .city-card summary")
    hrefs = [a.get_attribute("href") for a in page.locator("#answer .city-card a").all()]
    assert any(h.startswith("https://pleiades.stoa.org/places/") for h in hrefs)
    assert any(h.startswith("https://www.openbible.info/geo/modern/") for h in hrefs)
    assert page.locator("#pane-0 path.background").count() >= 1  # the land under the point
    page.screenshot(path=tmp_path / "chazon_ish.png")


def test_what_if_the_killer_was_blind(seen, tmp_path):
    """The second question: R. Judah and R. Meir side by side; left unstated, the intent is
    asked for, with the verdict under each answer."""
    page = seen.page
    page.click("#case-box summary")
    page.select_option("#case-form [data-field=act] select", '"descending_ladder"')
    page.locator("#case-form [data-field=killer] [data-field=blind] select").select_option("true")
    page.click("#judge")
    blind = page.locator("table.side-by-side[data-dispute=blind]")
    blind.wait_for()
    judah, meir = blind.locator("td[data-sage=judah]"), blind.locator("td[data-sage=meir]")
    assert "undetermined" in judah.inner_text() and "does not say: intent" in judah.inner_text()
    assert 'intent = "none": no exile' in judah.inner_text()  # R. Judah: not exiled
    assert 'intent = "none": exile' in meir.inner_text()  # R. Meir: exiled
    page.select_option("#case-form [data-field=intent] select", '"none"')
    page.click("#judge")
    page.wait_for_function(
        "document.querySelector('table.side-by-side td[data-sage=meir] .verdict')"
        ".textContent === 'exile'"
    )
    assert blind.locator("td[data-sage=judah] .verdict").inner_text() == "no exile"
    page.screenshot(path=tmp_path / "blind.png")


def test_a_case_is_judged_under_every_opinion(seen, tmp_path):
    page = seen.page
    page.click("#case-box summary")
    form = page.locator("#case-form")
    assert form.locator("[data-field=act] select").count() == 1  # generated from the schema
    page.select_option("#case-form [data-field=act] select", '"descending_ladder"')
    page.select_option("#case-form [data-field=intent] select", '"none"')  # killed in error
    killer = form.locator("[data-field=killer] [data-field=blind] select")
    killer.select_option("true")
    page.click("#judge")
    page.click("#verdicts > details > summary")  # every combination, folded under the summary
    page.wait_for_selector("table.verdicts")
    rows = page.locator("table.verdicts td.verdict")
    assert rows.count() >= 2  # the blind killer: the Sages disagree (Mishnah Makkot 2:3)
    assert "Mishnah Makkot 2:3" in page.inner_text("#verdicts") or "2:3" in page.inner_html(
        "#verdicts"
    )
    page.screenshot(path=tmp_path / "case.png")


def test_a_flight_gives_p_with_its_interval_and_moves(seen, tmp_path):
    page = seen.page
    page.check("#mode input[value=flight]")
    click_at(page, 0, 31.78, 35.20)
    click_at(page, 0, 31.70, 35.20)
    page.fill("#replications", "40")
    page.click("#run-flight")
    page.wait_for_selector(".p-asylum")
    result = page.inner_text("#flight-result")
    assert "95% interval" in result and "of 40" in result
    p = float(page.inner_text(".p-asylum"))
    assert 0.0 <= p <= 1.0
    page.wait_for_selector("#pane-0[data-animated=yes]")
    assert page.locator("path.track-fugitive").count() == 1
    page.screenshot(path=tmp_path / "flight.png")


def test_coverage_layer_and_two_settings_side_by_side(seen, tmp_path):
    page = seen.page
    page.check("#compare")
    page.wait_for_selector("#pane-1[data-ready]")
    choose(page, 1, "techum", '"round"')
    page.check("#coverage")
    page.wait_for_selector("#pane-1[data-coverage]")
    page.wait_for_selector("#pane-0[data-coverage]")
    assert page.locator("#pane-0 path.coverage-cell").count() > 100
    assert page.locator("#pane-1 path.coverage-cell").count() > 100
    first = page.locator("#pane-0 path.zone").first.get_attribute("d")
    second = page.locator("#pane-1 path.zone").first.get_attribute("d")
    assert first != second  # squared against round
    for pane, mode in ((0, "squared"), (1, "round")):  # each shape in the HTML map's colour
        strokes = page.locator(f"#pane-{pane} path.zone").evaluate_all(
            "ps => [...new Set(ps.map(p => p.getAttribute('stroke')))]"
        )
        assert strokes == [ZONE_STYLES[mode]["color"]], (pane, strokes)
    for pane in (0, 1):  # the key of the colours, each cell's colour in it
        legend = page.locator(f"#pane-{pane} .coverage-legend")
        assert "P(reach asylum alive)" in legend.inner_text()
        assert "95%-100%" in legend.inner_text() and "no way to asylum" in legend.inner_text()
        swatches = legend.locator(".swatch").evaluate_all(
            "ss => ss.map(s => s.style.backgroundColor)"
        )
        cells = page.locator(f"#pane-{pane} path.coverage-cell").evaluate_all(
            "ps => [...new Set(ps.map(p => { const s = document.createElement('span');"
            " s.style.backgroundColor = p.getAttribute('fill'); return s.style.backgroundColor;"
            " }))]"
        )
        assert len(swatches) == 7 and len(cells) >= 3 and set(cells) <= set(swatches)
        # the attribution, wrapped in the narrow pane, leaves the scale bar in sight
        scale = page.locator(f"#pane-{pane} .leaflet-control-scale").bounding_box()
        top = page.evaluate(
            f"document.elementFromPoint({scale['x'] + 10}, {scale['y'] + scale['height'] - 4})"
            ".closest('.leaflet-control').className"
        )
        assert "leaflet-control-scale" in top
    page.screenshot(path=tmp_path / "compare.png")
    page.uncheck("#coverage")
    assert page.locator(".coverage-legend").count() == 0


def test_each_settings_label_stands_apart_from_its_input(seen):
    """The opinions' labels and their inputs do not touch: a gap between each label's text
    and its box, and the boxes of one form in a column where the labels are short."""
    page = seen.page
    fields = page.locator("#pane-0 .network-form label")
    assert fields.count() >= 5
    lefts = []
    for i in range(fields.count()):
        label = fields.nth(i)
        name = label.locator(":scope > span").bounding_box()
        box = label.locator(":scope > select, :scope > input").bounding_box()
        if name is None or box is None:  # a variant's field not shown
            continue
        assert box["x"] >= name["x"] + name["width"] + 4 or box["y"] >= name["y"] + name["height"]
        lefts.append(round(box["x"]))
    assert len(lefts) >= 5 and len(set(lefts)) <= len(lefts) // 2  # most in one column
