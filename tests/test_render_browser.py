"""The self-contained maps in a real browser (Debian's Chromium through Playwright), offline."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from test_render import PAYLOAD, poison, simulate_tiny

from geo import RefugeNetwork, load_network
from refuge_map.render import _html, network_map, save_map
from refuge_map.simulation import Scenario, load_scenario, simulate, write_run
from refuge_map.sweep.spec import apply_axes

SCENARIOS = Path(__file__).parents[1] / "data" / "scenarios"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
LOCAL_SCHEMES = ("file:", "data:", "about:")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium (make browser)"),
]
sync_api = pytest.importorskip("playwright.sync_api")


@dataclass
class Visit:
    """A page opened with every non-local request refused, and what happened while it ran."""

    page: Any
    blocked: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def watched(page: Any, allowed: tuple[str, ...]) -> Visit:
    """`page` with every request not starting with one of `allowed` refused and recorded, and
    its console errors, page errors and dialogs recorded (dialogs dismissed)."""
    seen = Visit(page)

    def route(request_route) -> None:
        url = request_route.request.url
        if url.startswith(allowed):
            request_route.continue_()
        else:
            seen.blocked.append(url)
            request_route.abort()

    page.route("**/*", route)
    page.on("console", lambda msg: msg.type == "error" and seen.errors.append(msg.text))
    page.on("pageerror", lambda error: seen.errors.append(str(error)))
    page.on("dialog", lambda dialog: (seen.dialogs.append(dialog.message), dialog.dismiss()))
    return seen


def visit(browser, path: Path) -> Visit:
    """Open `path`, refusing (and recording) every request that is not a local file or data."""
    page = browser.new_page(viewport={"width": 1100, "height": 850})
    seen = watched(page, LOCAL_SCHEMES)
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    page.wait_for_selector(".leaflet-marker-icon")
    # the layers whose data comes gzipped are drawn once the browser has unpacked it
    page.wait_for_function("+(document.documentElement.dataset.refugeUnpacking || 0) === 0")
    return seen


def assert_offline_and_clean(seen: Visit) -> None:
    assert seen.blocked == [], "the page tried the network"
    assert seen.errors == [], "the page logged errors"
    assert seen.dialogs == []


def agent_positions(page) -> list[str]:
    """The SVG path of every agent's marker: where the slider shows them."""
    return page.eval_on_selector_all("path.refuge-agent", "ps => ps.map(p => p.getAttribute('d'))")


def events_shown(page) -> int:
    """The events the page shows: those alone, and those counted in the clusters' discs."""
    counts = page.eval_on_selector_all(".refuge-cluster div", "ds => ds.map(d => +d.textContent)")
    return page.locator("path.refuge-event").count() + sum(counts)


def zoom_to(page, lat: float, lon: float, zoom: int) -> None:
    # `void`: setView returns the map, which Playwright would spend seconds serializing
    page.evaluate(
        f"void window[document.querySelector('.folium-map').id].setView([{lat}, {lon}], {zoom},"
        " {animate: false})"
    )
    page.wait_for_timeout(300)


def test_network_map_in_the_browser(browser, network: RefugeNetwork, tmp_path):
    path = save_map(network_map(network), tmp_path / "network.html", self_contained=True)
    seen = visit(browser, path)
    page = seen.page
    assert page.locator(".refuge-city").count() == 6
    assert page.locator("path.refuge-zone-squared").count() == 6
    assert page.locator("path.refuge-zone-round").count() == 6
    assert page.locator("path.refuge-road").count() == network.roads.number_of_edges()
    assert page.locator("path.refuge-water").count() >= 5
    assert "OpenBible.info" in page.inner_text(".leaflet-control-attribution")
    assert page.locator(".leaflet-control-scale").count() == 1
    # the sources at Leaflet's size, in two lines at most over the map's corner
    credit = page.locator(".leaflet-control-attribution")
    assert credit.evaluate("e => getComputedStyle(e).fontSize") == "12px"
    assert credit.bounding_box()["height"] < 3 * 12 * 1.4
    page.screenshot(path=tmp_path / "network.png")
    page.locator(".refuge-city").nth(1).click()  # Shechem: its popup, then its zones up close
    popup = page.inner_text(".leaflet-popup-content")
    assert "Tell Balatah" in popup and "west of the Jordan" in popup
    page.locator(".leaflet-popup-close-button").click()
    zoom_to(page, 32.2136, 35.2819, 13)
    zone = page.locator("path.refuge-zone-squared").nth(1).bounding_box()
    assert zone is not None and zone["width"] > 100  # the 2 km square, at about 20 m a pixel
    page.screenshot(path=tmp_path / "network-zoomed.png")
    assert_offline_and_clean(seen)


def assert_slider_moves(page, slider, before: list) -> None:
    """A click at 60% of the time slider moves the agents from `before`, and the clock reads
    time since the killing."""
    box = slider.bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.6, box["y"] + box["height"] / 2)
    page.wait_for_timeout(500)
    after = agent_positions(page)
    assert after and after != before
    assert "after the killing" in page.inner_text(".timecontrol-date")


def test_run_map_slider_moves_the_agents(browser, network: RefugeNetwork, tmp_path):
    run = simulate_tiny(tmp_path / "run")
    path = save_map(network_map(network, run=run), tmp_path / "run.html", self_contained=True)
    seen = visit(browser, path)
    page = seen.page
    slider = page.locator(".timecontrol-dateslider .slider")
    assert slider.count() == 1
    before = agent_positions(page)
    assert len(before) == 6
    assert_slider_moves(page, slider, before)
    assert events_shown(page) == 9  # in count discs and alone
    page.screenshot(path=tmp_path / "run.png")
    assert_offline_and_clean(seen)


def test_gzipped_layers_draw_the_same_and_the_slider_moves_the_agents(
    browser, network: RefugeNetwork, tmp_path, monkeypatch
):
    """With every data block carried gzipped (as a thousand incidents' are), the page
    unpacks them itself: the same agents, events and picker, and the slider moves them."""
    run = simulate_tiny(tmp_path / "run")
    monkeypatch.setattr(_html, "PACK_OVER_BYTES", 0)
    path = save_map(network_map(network, run=run), tmp_path / "packed.html", self_contained=True)
    assert '{"roles":' not in path.read_text(encoding="utf-8")  # nothing left as plain JSON
    seen = visit(browser, path)
    page = seen.page
    before = agent_positions(page)
    assert len(before) == 6
    assert events_shown(page) == 9
    assert page.locator(".refuge-follow option").count() == 2 + 3  # first, all, each incident
    slider = page.locator(".timecontrol-dateslider .slider")
    assert_slider_moves(page, slider, before)
    assert_offline_and_clean(seen)


def test_hostile_names_show_as_text_and_run_nothing(browser, network: RefugeNetwork, tmp_path):
    cities = network.cities.copy()
    cities.loc["kedesh", "name"] = "Kedesh " + PAYLOAD
    named = dataclasses.replace(network, cities=cities)
    path = save_map(network_map(named), tmp_path / "names.html", self_contained=True)
    seen = visit(browser, path)
    page = seen.page
    assert PAYLOAD in page.inner_text(".refuge-city-label >> nth=0")
    page.locator(".refuge-city").first.click()
    assert PAYLOAD in page.inner_text(".leaflet-popup-content")
    assert page.locator("img[src='x']").count() == 0
    assert_offline_and_clean(seen)


def test_event_popups_cite_the_rule_and_show_hostile_text_as_text(
    browser, network: RefugeNetwork, tmp_path
):
    run = poison(simulate_tiny(tmp_path / "run"), PAYLOAD)
    path = save_map(network_map(network, run=run), tmp_path / "run.html", self_contained=True)
    seen = visit(browser, path)
    page = seen.page
    zoom_to(page, 32.2136, 35.2819, 14)  # Shechem, where the clusters fall apart
    page.locator("path.refuge-event-refuge").first.dispatch_event("click")  # under a city
    popup = page.inner_text(".leaflet-popup-content")
    assert popup.startswith("arrival") and "rule" in popup and "source" in popup
    assert "Numbers 35:11-12" in popup and PAYLOAD in popup
    assert "after the killing" in popup
    link = page.locator(".leaflet-popup-content a[href^='https://www.sefaria.org/']").first
    assert link.get_attribute("target") == "_blank"
    assert page.locator("img[src='x']").count() == 0
    assert_offline_and_clean(seen)


#: The labels of the cities that something else covers in the page's view, each with what
#: covers it: the element at three points along the middle of each label in view.
COVERED_LABELS = """() => [...document.querySelectorAll('.refuge-city-label')].flatMap(label => {
  const box = label.getBoundingClientRect();
  return [0.15, 0.5, 0.85].map(f => [box.left + f * box.width, box.top + box.height / 2])
    .filter(([x, y]) => x >= 0 && y >= 0 && x <= innerWidth && y <= innerHeight)
    .map(([x, y]) => document.elementFromPoint(x, y))
    .filter(top => !label.contains(top))
    .map(top => label.textContent + ' under ' + (top && top.closest('[class]')?.className));
})"""


def test_the_clusters_of_a_run_cover_no_city_label(browser, network: RefugeNetwork, tmp_path):
    """The events of a run gather at the cities, where the flights end: their clusters' discs
    sit on the cities, and the names stay on top of them at every zoom (a click on a name
    opens its city's popup)."""
    default = load_scenario(SCENARIOS / "default.yaml").model_dump(mode="json")
    crowd = apply_axes(default, {"replications": 1, "generate.n": 60})
    folder = tmp_path / "run"
    write_run(simulate(Scenario.model_validate(crowd)), folder)
    path = save_map(network_map(network, run=folder), tmp_path / "run.html", self_contained=True)
    seen = visit(browser, path)
    page = seen.page
    page.locator(".refuge-legend summary").click()  # folded: the land in view
    for zoom in (7, 8, 9, 10):
        zoom_to(page, 32.0, 35.4, zoom)
        assert page.locator(".refuge-cluster").count() > 0  # discs that could cover them
        assert page.evaluate(COVERED_LABELS) == [], f"at zoom {zoom}"
    zoom_to(page, 32.0, 35.4, 8)
    page.locator(".refuge-city-label", has_text="Shechem").click()
    assert "Tell Balatah" in page.inner_text(".leaflet-popup-content")
    assert_offline_and_clean(seen)


@pytest.mark.parametrize("size", [(1024, 768), (1920, 1080)])
def test_the_legend_covers_no_city_label(browser, network: RefugeNetwork, tmp_path, size):
    path = save_map(network_map(network), tmp_path / "network.html", self_contained=True)
    width, height = size
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(path.as_uri())
    page.wait_for_selector(".refuge-city-label")
    legend = page.locator(".refuge-legend").bounding_box()
    assert legend["y"] + legend["height"] <= height and legend["x"] + legend["width"] <= width
    labels = page.locator(".refuge-city-label")
    assert labels.count() == 6
    for i in range(6):
        box = labels.nth(i).bounding_box()
        apart = (
            box["x"] >= legend["x"] + legend["width"]
            or box["x"] + box["width"] <= legend["x"]
            or box["y"] >= legend["y"] + legend["height"]
            or box["y"] + box["height"] <= legend["y"]
        )
        assert apart, f"the legend covers {labels.nth(i).inner_text()}"
        assert box["x"] >= 0 and box["x"] + box["width"] <= width  # in the view
    assert page.title() == "The cities of refuge"
    page.screenshot(path=tmp_path / f"layout-{width}x{height}.png")
    page.locator(".refuge-legend summary").click()  # it folds up
    assert page.locator(".refuge-legend").bounding_box()["height"] < 40
    page.screenshot(path=tmp_path / f"layout-{width}x{height}-folded.png")
    page.close()


@pytest.mark.parametrize(("refuges", "shown"), [("six", False), ("levitical", True)])
def test_the_levitical_cities_show_where_they_receive(browser, tmp_path, refuges, shown):
    """Where the 42 receive manslayers too (refuges: levitical) their layer is on at the start;
    beside the six alone it waits in the layer control."""
    network = load_network(refuges=refuges)
    path = save_map(network_map(network), tmp_path / f"{refuges}.html", self_contained=True)
    seen = visit(browser, path)
    page = seen.page
    box = page.locator(".leaflet-control-layers-overlays label", has_text="Levitical cities (48)")
    assert box.locator("input").is_checked() is shown
    on_map = page.locator(".refuge-levitical, .refuge-cluster").count()
    assert (on_map > 0) is shown  # its markers, or their clusters, are drawn
    assert_offline_and_clean(seen)
