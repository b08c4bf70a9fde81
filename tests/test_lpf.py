"""The gazetteer as Linked Places Format (geo.lpf), checked against a schema of the LPF spec."""

import copy
import json
from pathlib import Path

import jsonschema
import pytest

from geo.lpf import places_lpf

SCHEMA = json.loads((Path(__file__).parent / "data" / "lpf_schema.json").read_text("utf-8"))


@pytest.fixture(scope="module")
def lpf_file(tmp_path_factory):
    return tmp_path_factory.mktemp("lpf") / "places.lpf.json"


@pytest.fixture(scope="module")
def collection(lpf_file):
    from refuge_map.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["layers", "--out", str(lpf_file)])
    assert stop.value.code in (0, None)
    return json.loads(lpf_file.read_text("utf-8"))


def errors(document):
    validator = jsonschema.Draft202012Validator(SCHEMA)
    return [e.message for e in validator.iter_errors(document)]


def test_the_written_file_is_valid_lpf(collection):
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert errors(collection) == []


def test_every_place_with_english_and_hebrew_names_when_and_links(collection, network):
    by_id = {f["@id"].rsplit(":", 1)[1]: f for f in collection["features"]}
    assert set(by_id) == set(network.places["id"])
    kedesh = by_id["kedesh"]
    langs = [n["lang"] for n in kedesh["names"]]
    assert langs[:2] == ["en", "he"]
    assert kedesh["names"][1]["toponym"].startswith("קֶדֶשׁ")
    labels = [c["label"] for c in kedesh["names"][0]["citations"]]
    assert "Josh 20:7" in labels
    links = {link["identifier"] for link in kedesh["links"]}
    assert "https://pleiades.stoa.org/places/678215" in links
    assert "http://www.wikidata.org/entity/Q2585161" in links
    assert "https://www.openbible.info/geo/ancient/a662eed/" in links
    assert kedesh["when"]["timespans"][0]["start"] == {"earliest": "-1199"}
    lon, lat = kedesh["geometry"]["geometries"][0]["coordinates"]
    assert (lon, lat) == pytest.approx((35.529517, 33.111638), abs=1e-7)
    rejected = by_id["ramoth_gilead__cand5"]["properties"]
    assert rejected["openbible_score"] == -48 and rejected["site_flags"] == ["negative_score"]
    jelebine = by_id["golan__jelebine"]
    assert jelebine["geometry"]["geometries"][0]["certainty"] == "uncertain"


@pytest.mark.parametrize(
    ("break_it", "needle"),
    [
        (lambda f: f.pop("@id"), "'@id' is a required property"),
        (lambda f: f["names"][0].pop("citations"), "does not contain items"),
        (lambda f: f["links"].append({"type": "sameAs", "identifier": "x:y"}), "sameAs"),
        (lambda f: f["when"]["timespans"][0].pop("start"), "'start' is a required property"),
        (lambda f: f["geometry"].update(type="Point"), "GeometryCollection"),
    ],
)
def test_the_schema_rejects_what_the_spec_forbids(collection, break_it, needle):
    broken = copy.deepcopy(collection)
    break_it(broken["features"][0])
    assert any(needle in message for message in errors(broken))


def test_built_from_the_network_in_file_order(network):
    built = places_lpf(network.places)
    assert [f["@id"] for f in built["features"]] == [
        f"urn:refuge-map:place:{i}" for i in network.places["id"]
    ]
