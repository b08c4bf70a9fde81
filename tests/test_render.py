"""HTML and PNG maps without a browser: layers, popups, escaping, pinned and inlined assets."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import folium
import geopandas as gpd
import matplotlib.image
import numpy as np
import pandas as pd
import pytest
import shapely

from geo import WGS84, RefugeNetwork
from refuge_map.cli.map_commands import scenario_cells
from refuge_map.coverage import coverage_field
from refuge_map.errors import RefugeError
from refuge_map.render import _html, network_map, read_run_files, render_html, save_map, static
from refuge_map.render._coverage import p_class
from refuge_map.render._html import cited, esc, script_json, unpacked_json
from refuge_map.render._sea import sea_polygon
from refuge_map.render._slider import encode_deltas
from refuge_map.render._style import (
    EVENT_CATEGORIES,
    KIND_CATEGORIES,
    LAKE_FILL,
    NO_VALUE,
    P_CLASSES,
    category_color,
    category_label,
    colour_meanings,
    event_category,
)
from refuge_map.render.assets import ASSETS_DIR, pinned_urls, pinned_versions
from refuge_map.render.html_map import draft_map
from refuge_map.render.run_files import run_files_of
from refuge_map.render.run_layers import _iso_duration
from refuge_map.render.static import draft_static_map, static_map
from refuge_map.simulation import EVENT_KINDS, EXILE_KINDS, load_scenario, simulate, write_run

PAYLOAD = "<img src=x onerror=alert(1)>"
TEMPLATE_PAYLOAD = "`${alert(2)}`\\u"
SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"
TINY = SCENARIOS / "tiny.yaml"
BOUGH = SCENARIOS / "bough_at_boundary.yaml"


def simulate_tiny(folder: Path) -> Path:
    """The tiny scenario (three flights, one day) run and written as `refuge run` does."""
    write_run(simulate(load_scenario(TINY)), folder)
    return folder


def poison(folder: Path, text: str) -> Path:
    """Append `text` to every string a run's files carry: ids, cities, rules, citations, the
    scenario's name and description (as a hand-edited or hostile run folder might)."""
    for name in ("events.parquet", "trajectories.parquet"):
        table = (gpd.read_parquet if name.startswith("traj") else pd.read_parquet)(folder / name)
        for column in ["run_id", "agent_id", "city", "rule", "citation"]:
            if column in table:
                table[column] = table[column].astype(str) + text
        table.to_parquet(folder / name)
    for name, keys in (
        ("summary.json", ["run_id", "scenario"]),
        ("scenario.json", ["description"]),
    ):
        data = json.loads((folder / name).read_text(encoding="utf-8"))
        data.update({key: str(data[key]) + text for key in keys})
        (folder / name).write_text(json.dumps(data), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return simulate_tiny(tmp_path_factory.mktemp("run") / "tiny")


@pytest.fixture(scope="module")
def network_page(network: RefugeNetwork) -> str:
    return render_html(network_map(network), self_contained=False)


@pytest.fixture(scope="module")
def run_page(network: RefugeNetwork, run_dir: Path) -> str:
    return render_html(network_map(network, run=run_dir), self_contained=False)


class _Tags(HTMLParser):
    """The src/href of every element, and the text of every <style> element."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[tuple[str, str]] = []
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.refs += [(tag, v or "") for k, v in attrs if k in ("src", "href")]
        self._in_style = tag == "style"

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.styles.append(data)
            self._in_style = False


def tags(page: str) -> _Tags:
    parser = _Tags()
    parser.feed(page)
    return parser


def test_every_network_layer_is_in_the_layer_control(network_page, network):
    for name in [
        "Cities of refuge",
        "Town extents",
        "Sabbath boundary, squared (960 m)",
        "Sabbath boundary, round (960 m)",
        "Roads",
        "Jordan, lakes and coast",
        "The land, by side of the Jordan",
        "Limits of the land and landmarks",
    ]:
        assert f'"{name}"' in network_page, name
    assert "L.control.layers" in network_page
    assert network_page.count('class=\\"refuge-city-dot\\"') == 6
    assert network_page.count("refuge-zone-squared") == 6
    assert network_page.count("refuge-zone-round") == 6
    assert network_page.count('"refuge-road"') == network.roads.number_of_edges()  # one per edge


def test_legend_scale_and_attribution(network_page):
    assert "refuge-legend" in network_page and "L.control.scale" in network_page
    assert "2,000 cubits (sabbath) × 0.48 m (naeh) = 960 m" in network_page
    assert "addAttribution" in network_page and "Roads: own compilation (CC BY 4.0)" in network_page


def test_city_popup_tells_identification_side_designation_and_sources(network_page):
    # The city layer comes last; the proposed sites before it share the name.
    kedesh = network_page[network_page.rindex("<b>Kedesh (Kedesh in Galilee)</b>") :][:3000]
    for needle in [
        "קֶדֶשׁ",
        "Tel Kedesh (rank 1)",
        "574 of 1000",
        "Khirbet Qedish (OpenBible score 56 of 1000)",
        "Tell Abu Qedeis (OpenBible score 8 of 1000; outside_naphtali)",
        "west of the Jordan",
        "designated from the start",
        "Josh 20:7",
        "Makkot 9b",
        "Numbers 35:11-15",
    ]:
        assert needle in kedesh, needle


def test_road_popup_has_length_and_walking_time(network_page):
    assert re.search(r"<th>length</th><td>\d+\.\d km</td>", network_page)
    assert re.search(r"<th>walking time</th><td>\d+ h \d\d min</td>", network_page)


def test_zones_are_labelled_with_the_opinion_and_cite_the_rule(network_page):
    assert "Sabbath boundary (round)" in network_page
    assert "Mishnah Makkot 2:7" in network_page


def test_esc_neutralises_html_and_template_literals():
    assert esc(PAYLOAD) == "&lt;img src=x onerror=alert(1)&gt;"
    assert esc(TEMPLATE_PAYLOAD) == "&#96;&#36;{alert(2)}&#96;&#92;u"
    assert esc("\"'&") == "&quot;&#x27;&amp;"


def test_data_strings_are_escaped_everywhere(network, tmp_path):
    text = PAYLOAD + TEMPLATE_PAYLOAD
    cities = network.cities.copy()
    cities.loc["kedesh", ["name", "hebrew_name"]] = ["Kedesh" + text, text]
    named = dataclasses.replace(network, cities=cities)
    run = poison(simulate_tiny(tmp_path / "run"), text)
    page = render_html(network_map(named, run=run), self_contained=False)
    assert PAYLOAD not in page and "`${alert(2)}`" not in page
    assert esc(PAYLOAD) in page
    linked = "Deuteronomy 19:6\\u003c/a>"  # a citation is linked to its text, the rest escaped
    for field in ["Kedesh", "i0001-fugitive", "shechem", linked, "a chasing avenger."]:
        assert field + esc(text) in page, field


def test_a_normal_page_loads_only_pinned_urls(run_page):
    refs = [url for tag, url in tags(run_page).refs if tag in ("script", "link")]
    assert refs and set(refs) <= pinned_urls()
    assert all(re.search(r"@\d+\.\d+\.\d+/", url) for url in refs)


def test_package_json_pins_exactly_the_manifest():
    package = json.loads((ASSETS_DIR / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((ASSETS_DIR / "package-lock.json").read_text(encoding="utf-8"))
    assert package["dependencies"] == pinned_versions()
    for name, version in pinned_versions().items():
        assert lock["packages"][f"node_modules/{name}"]["version"] == version


def test_self_contained_page_references_nothing_outside(network, run_dir, tmp_path):
    path = save_map(network_map(network, run=run_dir), tmp_path / "map.html", self_contained=True)
    page = path.read_text(encoding="utf-8")
    found = tags(page)
    assert not [url for _, url in found.refs if re.match(r"(https?:)?//", url)]
    assert not [url for tag, url in found.refs if tag in ("script", "link")]
    css_urls = re.findall(r"url\(\s*['\"]?([^'\")]*)", "".join(found.styles))
    assert css_urls and all(url.startswith(("data:", "#")) for url in css_urls)
    assert "L.TimeDimension=" in page and "font/woff" in page  # the slider and its icons


def test_missing_asset_is_a_one_line_error_naming_it_and_the_fix(network, tmp_path):
    target = tmp_path / "map.html"
    with pytest.raises(RefugeError, match=r"leaflet@1\.9\.3/dist/leaflet\.js.*make assets") as err:
        save_map(network_map(network), target, self_contained=True, node_modules=tmp_path)
    assert "\n" not in str(err.value) and not target.exists()


def test_wrong_installed_version_is_refused(network, tmp_path):
    package = tmp_path / "leaflet"
    (package / "dist").mkdir(parents=True)
    (package / "dist" / "leaflet.js").write_text("// stale", encoding="utf-8")
    (package / "package.json").write_text('{"version": "1.7.1"}', encoding="utf-8")
    with pytest.raises(RefugeError, match=r"installed version 1\.7\.1, pinned 1\.9\.3"):
        render_html(network_map(network), self_contained=True, node_modules=tmp_path)


def test_tiles_by_name_and_their_errors(network):
    page = render_html(network_map(network, tiles="OpenStreetMap"), self_contained=False)
    assert "tile.openstreetmap.org" in page
    with pytest.raises(RefugeError, match="unknown tiles name"):
        network_map(network, tiles="NoSuchTiles")
    with pytest.raises(RefugeError, match="self-contained map takes no tiles"):
        render_html(network_map(network, tiles="OpenStreetMap"), self_contained=True)


def test_map_displays_in_a_notebook(network):
    assert "iframe" in network_map(network)._repr_html_()


def slider_data(page: str) -> dict:
    """The time slider's packed tracks as the page carries them."""
    start = page.index('{"roles":')
    return json.JSONDecoder().raw_decode(page, start)[0]


def test_slider_tracks_decode_to_the_runs_points(run_page, run_dir):
    """Coordinates and times written as polyline steps come back as the run's points."""
    packed = slider_data(run_page)
    tracks = gpd.read_parquet(run_dir / "trajectories.parquet")
    first = packed["tracks"][0]
    steps = np.array(decode_polyline(first[4])).reshape(-1, 2)
    latlon = np.cumsum(steps, axis=0) / 1e5
    agent = tracks[tracks["agent_id"] == tracks.sort_values("agent_id")["agent_id"].iloc[0]]
    lonlat = shapely.get_coordinates(agent.geometry.to_numpy())
    assert np.abs(latlon[0] - lonlat[0, ::-1]).max() < 1e-5  # the first position, to 1 m
    assert np.abs(latlon[-1] - lonlat[-1, ::-1]).max() < 1e-5  # and the last
    ticks = np.array(decode_polyline(first[5]))
    assert ticks[0] == 0 and (np.diff(ticks) > 0).all()  # from the killing, rising


def decode_polyline(text: str) -> list[int]:
    """The page's decoder, in Python: polyline groups, summed."""
    out, value, i = [], 0, 0
    while i < len(text):
        zigzag, scale = 0, 1
        while True:
            chunk = ord(text[i]) - 63
            i += 1
            zigzag += (chunk & 31) * scale
            scale *= 32
            if chunk < 32:
                break
        value += -(zigzag + 1) // 2 if zigzag % 2 else zigzag // 2
        out.append(value)
    return out


def test_large_blocks_are_gzipped_and_unpack_to_the_same_data(network, run_dir, monkeypatch):
    plain = slider_data(render_html(network_map(network, run=run_dir), self_contained=False))
    monkeypatch.setattr(_html, "PACK_OVER_BYTES", 0)
    page = render_html(network_map(network, run=run_dir), self_contained=False)
    blocks = re.findall(r'\}\)\(map_\w+, ("[A-Za-z0-9+/=]+"), ', page)
    assert len(blocks) == 1 and unpacked_json(blocks[0]) == plain
    assert page.count("function refugeUnpack(") == 1  # once, however many layers use it
    assert page == render_html(network_map(network, run=run_dir), self_contained=False)


def test_a_block_is_gzipped_by_the_length_of_its_escaped_text():
    limit = _html.PACK_OVER_BYTES
    fits = "a" * (limit - 2)  # with its quotes: the limit
    assert _html.packed_json(fits) == script_json(fits) == f'"{fits}"'
    escaped = "</" + "a" * (limit - 4)  # its JSON fits; escaped ("\\u003c/") it does not
    assert unpacked_json(_html.packed_json(escaped)) == escaped
    assert _html.packed_json(escaped) != script_json(escaped)


def test_a_map_drafted_before_its_run_is_written_is_the_runs_map(
    network, run_dir, run_page, tmp_path
):
    drafted = draft_map(network)  # as `refuge demo` does while the run goes on
    later = shutil.copytree(run_dir, tmp_path / "later")
    assert render_html(drafted.finish(read_run_files(later)), self_contained=False) == run_page
    assert "Flight and pursuit (time slider)" in run_page


def test_run_tracks_are_on_a_time_slider(run_page):
    assert "L.timeDimension(" in run_page and "L.Control.TimeDimension" in run_page
    assert '"PT10M"' in run_page  # one position per 10 minutes is shown (dt_s: 120)
    packed = slider_data(run_page)
    roles = [packed["roles"][track[1]] for track in packed["tracks"]]
    assert roles.count("fugitive") == 3 and roles.count("avenger") == 3
    for role in ["fugitive", "avenger"]:
        assert f"refuge-agent refuge-{role}" in run_page
        assert f"track of the {role}" in run_page
    assert "currentTime: 86400000" in run_page  # the killing, one day after the epoch
    assert "min after the killing" in run_page and "1800-01-01" not in run_page
    assert '"Flight and pursuit (time slider)"' in run_page
    assert "<summary>What the map shows</summary>" in run_page
    assert "<i>Three killings in error" in run_page and "Run tiny-" not in run_page
    assert "<title>The cities of refuge: tiny</title>" in run_page
    assert run_page.startswith('<!DOCTYPE html>\n<html lang="en">')


def test_the_map_runs_on_the_time_since_the_killing_not_the_nominal_dates(
    network, run_dir, run_page, tmp_path
):
    """The page reads no nominal date: with every ``t`` of the run's files moved (each row by
    another amount) it is the same page, and it shows times after the killing."""
    moved = tmp_path / "moved"
    moved.mkdir()
    for file in run_dir.iterdir():
        (moved / file.name).write_bytes(file.read_bytes())
    for name in ("events.parquet", "trajectories.parquet"):
        table = (gpd.read_parquet if name.startswith("traj") else pd.read_parquet)(moved / name)
        shift = pd.to_timedelta(np.arange(len(table)) * 7919 + 86_400 * 365 * 200, unit="s")
        table["t"] = table["t"] + shift
        table.to_parquet(moved / name)
    page = render_html(network_map(network, run=moved), self_contained=False)
    assert page == run_page
    assert "0 h 00 min after the killing" in page and "1800-01" not in page


def test_every_event_kind_has_a_category():
    kinds = set(EVENT_KINDS) | set(EXILE_KINDS)
    assert kinds - set(KIND_CATEGORIES) == set(), "give the new event kind a category"
    assert set(KIND_CATEGORIES) <= kinds, "a category lists a kind the simulation lacks"
    assert set(KIND_CATEGORIES.values()) <= set(EVENT_CATEGORIES) - {"other"}
    assert event_category("a kind nobody wrote") == "other"


def test_run_events_are_grouped_and_cite_their_rule(run_dir, run_page):
    events = pd.read_parquet(run_dir / "events.parquet")
    shown = 0
    for category, group in read_run_files(run_dir).event_groups():
        name = f"Events: {category_label(category)} ({len(group):,})"
        assert f'"{name}"' in run_page and category_color(category) in run_page
        assert run_page.count(f'"refuge-event refuge-event-{category}"') == 1
        shown += len(group)
    assert shown == len(events)
    arrival = events[events["kind"] == "arrival"].iloc[0]
    for label, value in [("rule", arrival["rule"]), ("source", arrival["citation"])]:
        assert script_json(f"<th>{label}</th><td>")[1:-1] in run_page  # a piece of its own
        assert script_json(cited(value)) in run_page
    assert script_json('href="https://www.sefaria.org/Numbers.35.11-12"')[1:-1] in run_page
    assert "avenger sets out" in run_page and "refuge reached" in run_page


def test_events_are_clustered_with_their_count(run_page):
    layers = re.findall(r'"Events: [^"]*\((\d+)\)" : (marker_layer_\w+)', run_page)
    assert layers and all(f"{name}.addTo(" in run_page for _, name in layers)
    beyond_six = ("Levitical cities (48)", "Signposts: miklat", "Bridges")  # marker layers too
    others = sum(f'"{name}"' in run_page for name in beyond_six)
    assert run_page.count("L.markerClusterGroup(") == len(layers) + others
    assert "cluster.getChildCount()" in run_page


@pytest.mark.parametrize(
    ("text", "url"),
    [
        ("Mishnah Makkot 2:7", "Mishnah_Makkot.2.7"),
        ("Numbers 35:20-21", "Numbers.35.20-21"),
        ("Deut 19:6", "Deuteronomy.19.6"),
        ("Makkot 12b", "Makkot.12b"),
        ("Rambam, Rotzeach 5:9-10", "Mishneh_Torah,_Murderer_and_the_Preservation_of_Life.5.9-10"),
    ],
)
def test_citations_link_to_sefaria(text, url):
    html = cited(f"see {text}; <b>")
    assert html == f'see <a href="https://www.sefaria.org/{url}" target="_blank" ' + (
        f'rel="noopener">{esc(text)}</a>; &lt;b&gt;'
    )


def test_the_map_gives_each_colour_one_meaning():
    colours = [*colour_meanings().values(), *(c.lower() for _, c in P_CLASSES), NO_VALUE]
    repeated = {c for c in colours if colours.count(c) > 1}
    assert repeated == set(), "a colour means two things"


def test_script_json_cannot_end_the_script():
    text = script_json({"a": "</script><!-- \u2028"})
    assert "</" not in text and "<!" not in text and "\u2028" not in text
    assert json.loads(text) == {"a": "</script><!-- \u2028"}


def test_trees_of_a_scenario_are_drawn(network, tmp_path):
    run = simulate_tiny(tmp_path / "run")
    summary = {"trees": [{"incident": 0, "trunk": [35.27, 32.21], "bough": [35.275, 32.212]}]}
    (run / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    page = render_html(network_map(network, run=read_run_files(run)), self_contained=False)
    assert '"Trees of the scenario"' in page and page.count('"refuge-tree"') == 2
    assert "in the boughs" in page and "it all follows the boughs" in page


def test_trees_of_the_bough_scenario_are_written_and_drawn(network, tmp_path):
    scenario = load_scenario(BOUGH)
    folder = tmp_path / "bough"
    write_run(simulate(scenario), folder)
    trees = read_run_files(folder).summary["trees"]
    assert [tree["incident"] for tree in trees] == [0, 1, 2]
    for tree, incident in zip(trees, scenario.incidents, strict=True):
        assert tree["trunk"] == pytest.approx(_lonlat(incident.tree.trunk), abs=1e-6)
        assert tree["bough"] == pytest.approx(_lonlat(incident.tree.bough), abs=1e-6)
    assert [tree["at_trunk"] for tree in trees] == [False, False, True]
    page = render_html(network_map(network, run=folder), self_contained=False)
    assert page.count('"refuge-tree"') == 6 and page.count("in the boughs") == 4
    assert page.count("at the trunk") == 2


def _lonlat(place: Any) -> list[float]:
    """A scenario's [lon, lat] place (the bough scenario gives its trees as coordinates)."""
    return [place.lon, place.lat]


def test_a_run_without_trees_has_no_tree_layer(run_page):
    assert "Trees of the scenario" not in run_page


@pytest.mark.parametrize(
    ("remove", "needle"),
    [
        (None, "run folder not found"),
        ("events.parquet", "events.parquet: run file not found"),
        ("trajectories.parquet", "trajectories.parquet: run file not found"),
    ],
)
def test_unreadable_runs_are_clear_errors(tmp_path, remove, needle):
    folder = simulate_tiny(tmp_path / "run") if remove else tmp_path / "nowhere"
    if remove:
        (folder / remove).unlink()
    with pytest.raises(RefugeError, match=needle):
        read_run_files(folder)


def test_missing_columns_are_named_together(tmp_path):
    folder = simulate_tiny(tmp_path / "run")
    events = pd.read_parquet(folder / "events.parquet").drop(columns=["rule", "citation"])
    events.to_parquet(folder / "events.parquet")
    with pytest.raises(RefugeError, match=r"missing columns \(value: \['rule', 'citation'\]\)"):
        read_run_files(folder)


def _with_crs(crs: str) -> Any:
    """A spoiler of a GeoParquet table: its geometry's CRS in the ``geo`` metadata set to `crs`."""

    def spoil(table: Any) -> Any:
        geo = json.loads(table.schema.metadata[b"geo"])
        geo["columns"]["geometry"]["crs"] = crs
        return table.replace_schema_metadata({**table.schema.metadata, b"geo": json.dumps(geo)})

    return spoil


@pytest.mark.parametrize(
    ("spoil", "needle"),
    [
        (lambda t: t.drop_columns(["geometry"]), "no 'geometry' column"),
        (lambda t: t.replace_schema_metadata(None), r"no GeoParquet metadata \('geo'\)"),
        (_with_crs("EPSG:999999"), "unknown CRS of the geometry"),
    ],
    ids=["no geometry", "no geo metadata", "unknown crs"],
)
def test_tracks_that_are_no_geoparquet_of_points_are_clear_errors(tmp_path, spoil, needle):
    import pyarrow.parquet as pq

    folder = simulate_tiny(tmp_path / "run")
    path = folder / "trajectories.parquet"
    pq.write_table(spoil(pq.read_table(path)), path)
    with pytest.raises(RefugeError, match=f"trajectories.parquet: cannot read the table: {needle}"):
        read_run_files(folder)


def test_run_points_are_read_in_wgs84(tmp_path):
    """The run's points as written (lon, lat), and so from a file another tool wrote in
    another CRS (Israeli TM, EPSG:2039): reprojected back, not taken as degrees."""
    folder = simulate_tiny(tmp_path / "run")
    written = gpd.read_parquet(folder / "trajectories.parquet")
    lon, lat = written.geometry.x.to_numpy(), written.geometry.y.to_numpy()
    as_read = read_run_files(folder).trajectories
    assert as_read["lon"].tolist() == lon.tolist() and as_read["lat"].tolist() == lat.tolist()
    written.to_crs("EPSG:2039").to_parquet(folder / "trajectories.parquet", index=False)
    reprojected = read_run_files(folder).trajectories
    np.testing.assert_allclose(reprojected["lon"], lon, atol=1e-7)
    np.testing.assert_allclose(reprojected["lat"], lat, atol=1e-7)


@pytest.fixture(scope="module")
def coverage_cells() -> gpd.GeoDataFrame:
    return scenario_cells(load_scenario(TINY), cell_m=10_000)


def test_coverage_layer_is_a_toggleable_choropleth_with_a_legend(network, coverage_cells):
    page = render_html(network_map(network, coverage=coverage_cells), self_contained=False)
    name = re.search(
        r'"(Coverage: P\(reach asylum alive\), 10 km cells)" : (coverage_layer_\w+)', page
    )
    assert name and f"{name[2]}.addTo(" in page  # on: the map has no run
    assert "P(reach asylum alive) 0%-50%" in page and "95%-100%" in page
    for low, color in P_CLASSES:
        assert color in page and f"{low:.0%}-" in page
    cells = re.search(r'\}\)\((\[.*?\]), ("[A-Za-z0-9+/=]+"|\[\[\[\[.*?\]\])\);', page)
    assert cells and len(unpacked_json(cells[2])) == len(coverage_cells)  # gzipped if large
    assert json.loads(cells[1])[: len(P_CLASSES)] == [color for _, color in P_CLASSES]


def test_coverage_is_off_under_a_run_and_absent_unless_given(
    network, run_dir, run_page, coverage_cells
):
    page = render_html(
        network_map(network, run=run_dir, coverage=coverage_cells), self_contained=False
    )
    name = re.search(r'"Coverage: [^"]*" : (coverage_layer_\w+)', page)
    assert name and f"{name[1]}.addTo(" not in page
    assert "Coverage:" not in run_page


def test_p_classes_of_values():
    assert p_class(np.array([0.0, 0.5, 0.69, 0.95, 1.0, np.nan])) == [0, 1, 1, 5, 5, 6]


def test_cli_map_with_coverage_of_a_scenario_and_of_a_file(run_cli, tmp_path):
    field = tmp_path / "field.gpkg"
    assert run_cli("coverage", TINY, "--out", field, "--cell-m", "10000").code == 0
    for args in (["--coverage", TINY], ["--coverage-file", field]):
        html = tmp_path / "map.html"
        result = run_cli("map", "--out", html, *args, "--coverage-cell-m", "10000")
        assert result.code == 0, result.err
        assert "Coverage: P(reach asylum alive)" in html.read_text(encoding="utf-8")


def test_iso_duration():
    assert _iso_duration(5400) == "PT1H30M"
    assert _iso_duration(45) == "PT45S"


@pytest.mark.parametrize(
    ("suffix", "magic"), [(".png", b"\x89PNG"), (".pdf", b"%PDF"), (".svg", b"<?xml")]
)
def test_static_figure_format_follows_the_suffix(network, run_dir, tmp_path, suffix, magic):
    path = static_map(network, tmp_path / f"map{suffix}", run=read_run_files(run_dir))
    data = path.read_bytes()
    assert data.startswith(magic) and len(data) > 20_000
    if suffix == ".svg":  # the text of the figure is there: labels, scale, attribution
        text = data.decode("utf-8")
        assert all(f"<!-- {w}" in text for w in ["Shechem", "20 km", "Places: OpenBible.info"])


def test_a_png_drafted_before_its_run_is_written_is_the_runs_png(network, run_dir, tmp_path):
    drafted = draft_static_map(network)  # as `refuge demo` does while the run goes on
    later = shutil.copytree(run_dir, tmp_path / "later")
    png = drafted.finish(tmp_path / "drafted.png", run=read_run_files(later)).read_bytes()
    whole = static_map(network, tmp_path / "whole.png", run=read_run_files(run_dir))
    assert png == whole.read_bytes()
    assert png != static_map(network, tmp_path / "network.png").read_bytes()


def test_the_png_shows_the_sea_as_the_html_map_does(network, tmp_path):
    """West of the coast the picture is the sea's fill (as the lakes', and as the HTML map
    draws it), not the page's white; east of it, the land."""
    draft, dpi = draft_static_map(network), 150
    png = matplotlib.image.imread(draft.finish(tmp_path / "network.png", dpi=dpi))
    coast = network.hydrography.set_index("id").geometry["mediterranean_coast"]
    bottom, top = draft.ax.get_ylim()
    x, y = coast.interpolate(coast.project(shapely.Point(0, (bottom + top) / 2))).coords[0]

    def color_at(east_m: float) -> str:
        col, row = draft.ax.transData.transform((x + east_m, y)) * dpi / draft.figure.dpi
        rgb = png[png.shape[0] - 1 - round(row), round(col), :3]
        return "#" + "".join(f"{round(c * 255):02x}" for c in rgb)

    assert color_at(-4_000) == LAKE_FILL
    assert color_at(4_000) not in {LAKE_FILL, "#ffffff"}


def test_the_sea_beyond_the_data_follows_the_coast_of_sinai_and_egypt(network):
    """South-west of the data's region the sea reaches the schematic coast, not a parallel
    at the shipped coastline's last latitude (31.21 N): the sea off Sinai and the Nile's
    mouths is sea, the coast's towns stand on land, the shipped coast is the sea's edge."""
    sea = sea_polygon(network.hydrography.to_crs(WGS84))
    assert sea is not None and sea.is_valid
    offshore = {
        "El Arish": (33.80, 31.25),
        "Port Said": (32.30, 31.40),
        "Alexandria": (29.90, 31.40),
    }
    ashore = {"Marsa Matruh": (27.24, 31.30), "Tobruk": (23.96, 32.00), "Benghazi": (20.10, 32.05)}
    for name, (lon, lat) in offshore.items():
        assert sea.contains(shapely.Point(lon, lat)), name
    for name, (lon, lat) in ashore.items():
        assert not sea.contains(shapely.Point(lon, lat)), name
    coast = network.hydrography.to_crs(WGS84).set_index("id").geometry["mediterranean_coast"]
    assert sea.boundary.buffer(1e-9).contains(coast)


def test_static_figure_refuses_other_suffixes(network, tmp_path):
    with pytest.raises(RefugeError, match=r"FILE\.png, FILE\.pdf, FILE\.svg"):
        static_map(network, tmp_path / "map.jpg")
    assert not (tmp_path / "map.jpg").exists()


def test_coverage_figure_has_the_map_furniture(network, tmp_path):
    field = coverage_field(network, cell_m=10_000.0, draws=16)
    text = static.coverage_figure(network, field, tmp_path / "c.svg").read_text("utf-8")
    for word in ["Shechem", "Golan", "20 km", "Places: OpenBible.info", "P(reach asylum alive)"]:
        assert f"<!-- {word}" in text, word


def test_png_legend_counts_categories_and_says_when_thinned(network, run_dir, monkeypatch):
    monkeypatch.setattr(static, "EVENTS_SHOWN", 2)
    labels = [h.get_label() for h in static._legend_handles(network, read_run_files(run_dir))]
    assert "flight and pursuit begin (6, 1 in 3 drawn)" in labels
    assert any(label.startswith("refuge reached") for label in labels)
    assert "flight track: fugitive" in labels and len(labels) < 15


def test_the_flight_is_the_rows_up_to_the_horizon(run_dir):
    run = read_run_files(run_dir)
    late = run.trajectories.iloc[:1].assign(step=10_000, t=pd.Timestamp("1850-01-01"))
    with_exile = dataclasses.replace(
        run, trajectories=pd.concat([run.trajectories, late], ignore_index=True)
    )
    assert len(with_exile.flight) == len(run.trajectories)
    assert len(dataclasses.replace(with_exile, scenario={}).flight) == len(run.trajectories) + 1


def test_cli_writes_html_and_png(run_cli, run_dir, tmp_path):
    html, png = tmp_path / "out" / "map.html", tmp_path / "out" / "map.png"
    result = run_cli(
        "map",
        "--out",
        html,
        "--run",
        run_dir,
        "--self-contained",
        "--png",
        png,
        "--techum",
        "round",
    )
    assert result.code == 0, result.err
    assert f"wrote {html}" in result.out and f"wrote {png}" in result.out
    assert "L.timeDimension(" in html.read_text(encoding="utf-8")
    assert png.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--run", "no/such/run"], "run folder not found"),
        (["--tiles", "NoSuchTiles"], "unknown tiles name"),
        (["--tiles", "OpenStreetMap", "--self-contained"], "takes no tiles"),
        (["--coverage-file", "no/such.gpkg"], "coverage file not found"),
        (["--coverage", str(TINY), "--coverage-file", "x.gpkg"], "not both"),
        (["--coverage", str(TINY), "--coverage-cell-m", "0"], "must be positive"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(run_cli, tmp_path, args, needle):
    result = run_cli("map", "--out", tmp_path / "map.html", *args)
    assert result.code == 2 and needle in result.err
    assert result.err.count("\n") == 1 and not (tmp_path / "map.html").exists()


@pytest.mark.parametrize(
    ("args", "needle"),
    [(["--out", "m.pdf"], "an HTML map needs FILE.html"), (["--png", "m.jpg"], "FILE.svg")],
)
def test_cli_refuses_a_file_of_the_wrong_kind(run_cli, tmp_path, args, needle):
    result = run_cli("map", *(tmp_path / a if "." in a else a for a in args))
    assert result.code == 2 and needle in result.err and result.err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_cli_needs_something_to_write(run_cli):
    result = run_cli("map")
    assert result.code == 2 and "nothing to write" in result.err


def test_cli_run_folder_without_files(run_cli, tmp_path):
    result = run_cli("map", "--out", tmp_path / "map.html", "--run", tmp_path)
    assert result.code == 2 and "trajectories.parquet: run file not found" in result.err


def test_the_same_map_gives_the_same_page(network: RefugeNetwork) -> None:
    # folium names elements with random ids; the page numbers them, so it is reproducible
    first = render_html(network_map(network), self_contained=False)
    second = render_html(network_map(network), self_contained=False)
    assert first == second
    numbers = {int(n, 16) for n in re.findall(r"(?<=_)[0-9a-f]{32}(?![0-9a-f])", first)}
    assert numbers == set(range(len(numbers))) and len(numbers) > 100  # 0, 1, 2, ...: no uuid


def test_city_popups_link_to_their_gazetteer_entries(network, network_page):
    own = network.places[network.places["feature_kind"] == "city_of_refuge"]
    for place in own.itertuples(index=False):
        if not pd.isna(place.openbible_modern_id):
            url = f"https://www.openbible.info/geo/modern/{place.openbible_modern_id}/"
            assert url in network_page, place.name
        if not pd.isna(place.pleiades_id):
            assert f"https://pleiades.stoa.org/places/{place.pleiades_id}" in network_page


def test_a_small_runs_layers_stay_light(network_page, run_page):
    """Bytes, not time: the tiny run's three flights (tracks on the slider, events, popups)
    add at most 20 kB to the network's page (16.6 kB when this bound was set), and the
    network's page itself (coordinates to 1 m) stays under 800 kB (753 kB)."""
    assert len(run_page.encode()) - len(network_page.encode()) <= 20_000
    assert len(network_page.encode()) <= 800_000


def test_the_slider_encodes_each_track_as_polyline_text() -> None:
    """Google's example of its Encoded Polyline Algorithm Format (38.5, -120.2; 40.7, -120.95;
    43.252, -126.453), given as the numbers whose differences it encodes; the tracks encoded
    in one pass come out one text each, an empty one empty."""
    steps = np.array([3850000, -12020000, 220000, -75000, 255200, -550300])
    texts = encode_deltas([np.cumsum(steps), np.zeros(0, np.int64), np.cumsum(steps[:2])])
    assert texts == ["_p~iF~ps|U_ulLnnqC_mqNvxq`@", "", "_p~iF~ps|U"]


def test_shapes_popups_and_tooltips_go_into_the_page_as_written() -> None:
    # folium would read each one's rendered script as a Jinja template again ("{{ 6 * 7 }}"
    # became "42"); the map's own elements put the text in as it is
    fmap = folium.Map(tiles=None)
    shape = {"type": "Point", "coordinates": [35.2, 32.2]}
    _html.GeoJsonShape(
        shape, popup=_html.Popup("popup {{ 6 * 7 }}"), tooltip=_html.Tooltip("tip {{ 7 * 6 }}")
    ).add_to(fmap)
    _html.CircleMarker(
        [32.2, 35.2], popup=_html.Popup("circle {{ 6 * 7 }}"), tooltip=_html.Tooltip("{# x #}")
    ).add_to(fmap)
    page = render_html(fmap, self_contained=False)
    for text in ("popup {{ 6 * 7 }}", "tip {{ 7 * 6 }}", "circle {{ 6 * 7 }}", "{# x #}"):
        assert text in page
    assert "42" not in page


@pytest.mark.parametrize("name", ["tiny", "bough_at_boundary", "exile_whole_life"])
def test_a_run_handed_over_in_memory_is_what_its_files_read_back(tmp_path: Path, name: str) -> None:
    run = simulate(load_scenario(SCENARIOS / f"{name}.yaml"))
    write_run(run, tmp_path / name)
    handed, read = run_files_of(run), read_run_files(tmp_path / name)
    pd.testing.assert_frame_equal(handed.trajectories, read.trajectories)
    pd.testing.assert_frame_equal(handed.events, read.events)
    # the same texts in the same order, down to the last key (the maps draw them in it)
    assert json.dumps(handed.summary) == json.dumps(read.summary)
    assert json.dumps(handed.scenario) == json.dumps(read.scenario)
    assert (name == "bough_at_boundary") == bool(handed.summary.get("trees"))
    assert (name == "exile_whole_life") == handed.events["kind"].isin(EXILE_KINDS).any()
