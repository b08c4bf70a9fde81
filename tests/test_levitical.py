"""The 48 Levitical cities: the shipped layer against Joshua 21, and refuge in the 42 with and
without intent (Makkot 10a, Abaye; Rambam, Rotzeach 8:9-10)."""

import json
from collections import Counter

import pytest

from geo import CITY_IDS, DataFileError, ParameterError, default_data_dir, load_network
from geo.levitical import LEVITE_FAMILIES, read_levitical

LAYER = default_data_dir() / "levitical_cities.geojson"

#: Joshua 21:9-40, each tribe's count as the verses list it (the verse that gives the count).
TRIBE_COUNTS = {
    "Judah and Simeon": 9,  # 21:16 "nine cities out of these two tribes"
    "Benjamin": 4,  # 21:18
    "Ephraim": 4,  # 21:22
    "Dan": 4,  # 21:24
    "Manasseh (west)": 2,  # 21:25
    "Manasseh (east)": 2,  # 21:27
    "Issachar": 4,  # 21:29
    "Asher": 4,  # 21:31
    "Naphtali": 3,  # 21:32
    "Zebulun": 4,  # 21:35
    "Reuben": 4,  # 21:37
    "Gad": 4,  # 21:39
}
#: Joshua 21:19, 26, 33, 40: thirteen, ten, thirteen and twelve cities.
FAMILY_COUNTS = {"aaronite": 13, "kohathite": 10, "gershonite": 13, "merarite": 12}
REFUGE_VERSES = {
    "hebron": "Joshua 21:13",
    "shechem": "Joshua 21:21",
    "golan": "Joshua 21:27",
    "kedesh": "Joshua 21:32",
    "bezer": "Joshua 21:36",
    "ramoth_gilead": "Joshua 21:38",
}


@pytest.fixture(scope="module")
def layer():
    return read_levitical(LAYER)


@pytest.fixture(scope="module")
def levitical():
    return load_network(refuges="levitical")


def test_the_layer_holds_48_cities_each_with_a_verse_and_a_site(layer):
    # Numbers 35:7: "all the cities ... shall be forty-eight"
    assert len(layer) == 48
    assert layer["verse"].str.match(r"^Joshua 21:\d+$").all()
    assert layer["modern_identification"].str.len().gt(0).all()
    assert layer.geometry.notna().all() and (layer.geometry.geom_type == "Point").all()
    assert layer["openbible_score"].between(-1000, 1000).all()
    assert layer["choice"].str.contains("inside the region of").all()


def test_tribes_and_families_are_those_of_joshua_21(layer):
    assert Counter(layer["tribe"]) == TRIBE_COUNTS
    assert Counter(layer["family"]) == FAMILY_COUNTS
    assert set(layer["family"]) <= set(LEVITE_FAMILIES)


def test_the_six_cities_of_refuge_are_flagged_with_their_verses(layer):
    six = layer[layer["city_of_refuge"]]
    assert dict(zip(six.index, six["verse"], strict=True)) == REFUGE_VERSES


def test_the_six_stand_where_the_network_puts_them(layer, network):
    sites = layer.loc[list(CITY_IDS)].to_crs(network.crs).geometry
    assert (sites.distance(network.cities["site"]) < 1.0).all()


def test_namesakes_are_told_apart_by_the_tribe_of_the_verse(layer):
    # Kedesh 1..5: the Kedesh of Naphtali (Joshua 21:32), not the Kedesh of the Negev
    assert layer.at["kedesh", "modern_identification"] == "Tel Kedesh"
    # the two Gath-rimmons of Joshua 21:24-25 are different places
    dan, manasseh = layer.loc[["gath_rimmon_dan", "gath_rimmon_manasseh"]].geometry
    assert dan.distance(manasseh) > 0.3


def test_a_broken_layer_is_reported_with_every_problem(tmp_path):
    data = json.loads(LAYER.read_text(encoding="utf-8"))
    data["features"][0]["properties"]["family"] = "nethinim"
    data["features"][1]["properties"]["verse"] = "Joshua 20:7"
    data["features"][13]["properties"]["city_of_refuge"] = False  # Shechem
    bad = tmp_path / "levitical_cities.geojson"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DataFileError) as err:
        read_levitical(bad)
    message = str(err.value)
    assert "3 problem(s)" in message
    assert "nethinim" in message and "Joshua 20:7" in message and "shechem" in message


def test_the_levitical_network_has_the_42_beside_the_six(levitical, network):
    kinds = Counter(levitical.cities["kind"])
    assert kinds == {"refuge": 6, "levitical": 42}
    assert levitical.options["refuges"] == "levitical"
    assert "refuges" not in network.options  # the default leaves recorded options as they were
    assert list(levitical.city_ids[:6]) == list(CITY_IDS)


def test_a_levitical_zone_protects_only_one_who_intends_refuge(levitical, layer):
    # Makkot 10a (Abaye): the 42 take him in only if he entered intending refuge
    gibeon = layer.loc["gibeon"].geometry
    with_intent = levitical.locate(gibeon.x, gibeon.y, intends_refuge=True)
    without = levitical.locate(gibeon.x, gibeon.y, intends_refuge=False)
    assert levitical.city_ids[with_intent.city] == "gibeon"
    assert with_intent.kind == "city"
    assert without.city == -1 and without.kind == "outside"
    assert not levitical.in_asylum(gibeon.x, gibeon.y, intends_refuge=False)


def test_one_of_the_six_protects_with_or_without_intent(levitical, layer):
    shechem = layer.loc["shechem"].geometry
    for intends in (True, False):
        where = levitical.locate(shechem.x, shechem.y, intends_refuge=intends)
        assert levitical.city_ids[where.city] == "shechem"


def test_intent_is_per_person_in_a_vectorized_query(levitical, layer):
    gibeon = layer.loc["gibeon"].geometry
    protected = levitical.in_asylum(
        [gibeon.x, gibeon.x], [gibeon.y, gibeon.y], intends_refuge=[True, False]
    )
    assert protected.tolist() == [True, False]


def test_without_intent_the_nearest_refuge_is_one_of_the_six(levitical, layer, network):
    gibeon = layer.loc["gibeon"].geometry
    near = levitical.distance_to_asylum(gibeon.x, gibeon.y)
    far = levitical.distance_to_asylum(gibeon.x, gibeon.y, intends_refuge=False)
    six = network.distance_to_asylum(gibeon.x, gibeon.y)
    assert near.dist_m == 0.0 and near.city == "gibeon"
    assert far.city in CITY_IDS and far.dist_m == pytest.approx(six.dist_m)


def test_an_unknown_refuge_reading_is_refused():
    with pytest.raises(ParameterError, match="refuges"):
        load_network(refuges="all_towns")
