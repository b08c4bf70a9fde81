"""The gazetteer's sites (geo.places): scores, flags, identifiers, selection and town areas."""

import json
import shutil
from pathlib import Path

import pytest

from geo import DataFileError, ParameterError, default_data_dir, load_network
from geo.places import SITE_FLAGS, choose_sites, read_places, selectable_sites

PLACES = default_data_dir() / "places.geojson"


@pytest.fixture(scope="module")
def places():
    return read_places(PLACES)


def test_negative_scores_are_flagged_kept_and_never_chosen(places):
    negative = places[places["openbible_score"].fillna(0) < 0]
    assert sorted(negative["id"]) == ["ramoth_gilead__cand4", "ramoth_gilead__cand5"]
    assert all(flags == ["negative_score"] for flags in negative["site_flags"])
    assert not set(negative["id"]) & set(selectable_sites(places)["id"])
    with pytest.raises(ParameterError, match=r"excluded from selection.*sources reject"):
        choose_sites(places, {"ramoth_gilead": "ramoth_gilead__cand5"})
    chosen = choose_sites(places)
    assert chosen.loc["ramoth_gilead", "alternatives"] == 2  # cand2, cand3; not 4 and 5


def test_kedesh_south_of_tabor_is_flagged_outside_naphtali(places):
    kedesh = places[places["city"] == "kedesh"].set_index("id")
    flagged = kedesh[kedesh["site_flags"].map(lambda f: "outside_naphtali" in f)]
    assert sorted(flagged.index) == [f"kedesh__cand{i}" for i in (3, 4, 5, 6)]
    assert (flagged.geometry.y < 32.69).all()  # Mount Tabor, 32.686 N (Joshua 19:22, 34)
    assert (kedesh.drop(flagged.index).geometry.y > 32.69).all()
    assert "Josh 20:7" in flagged["site_note"].iloc[0]


def test_golan_has_an_alternative_from_the_literature(places):
    golan = places[places["city"] == "golan"].set_index("id")
    assert len(golan) >= 2
    other = golan.loc["golan__jelebine"]
    assert other["site_flags"] == ["not_in_openbible", "position_approximate"]
    assert "Vilnay" in other["source"] and other["location_precision_m"] >= 1000
    network = load_network(candidates={"golan": "golan__jelebine"})
    assert network.cities.loc["golan", "site_id"] == "golan__jelebine"
    assert network.cities.loc["golan", "side"] == "east"


def test_identifiers_and_precision_where_the_sources_give_them(places):
    openbible = places[~places["site_flags"].map(lambda f: "not_in_openbible" in f)]
    assert openbible["openbible_modern_id"].str.match(r"^m[0-9a-f]{6}$").all()
    assert openbible["openbible_ancient_id"].str.match(r"^a[0-9a-f]{6}$").all()
    cities = places[places["feature_kind"] == "city_of_refuge"].set_index("id")
    assert cities.loc["kedesh", "pleiades_id"] == "678215"
    assert list(cities.index[cities["pleiades_id"].isna()]) == ["bezer"]  # none found for Bezer
    with_wikidata = places["wikidata_ids"].map(len) > 0
    assert with_wikidata.sum() >= 18
    assert places.set_index("id").loc["kedesh__cand2", "location_precision_m"] == 5


def test_town_area_basis_is_stated(network):
    basis = network.cities["town_area_basis"]
    assert basis["kedesh"] == "published" and basis["ramoth_gilead"] == "published"
    assert basis["bezer"] == "default" and network.cities.loc["bezer", "town_area_ha"] == 5.0
    area_ha = network.cities.geometry.area / 1e4
    assert area_ha["kedesh"] == pytest.approx(10.0, rel=0.01)
    assert area_ha["ramoth_gilead"] == pytest.approx(0.12, rel=0.01)


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda p: p.update(site_flags=["haunted"]), r"site_flags.*unknown \['haunted'\]"),
        (lambda p: p.update(openbible_score=-5, site_flags=[]), "without 'negative_score'"),
    ],
)
def test_bad_flags_are_refused_naming_the_site(tmp_path: Path, change, match):
    path = tmp_path / "places.geojson"
    shutil.copy(PLACES, path)
    doc = json.loads(path.read_text("utf-8"))
    change(doc["features"][1]["properties"])
    path.write_text(json.dumps(doc), "utf-8")
    with pytest.raises(DataFileError, match=match):
        read_places(path)


def test_every_flag_has_a_meaning():
    assert all(len(text) > 20 for text in SITE_FLAGS.values())
