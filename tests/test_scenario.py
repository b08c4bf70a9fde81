"""Scenario files: defaults, units, the shipped scenarios, hashing, the schema and bad input."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any, get_args

import pytest
import yaml

from geo import ALL_SIX, BOUGH_OPINIONS, CITY_IDS, CUBIT_PRESETS, MOSES_THEN_JOSHUA, load_network
from geo.zones import TECHUM_CUBIT_PRESETS
from refuge_map.errors import RefugeError
from refuge_map.simulation import Scenario, load_scenario, scenario_schema
from refuge_map.simulation.scenario import DEFAULT_START, CityId, NetworkOptions

SCENARIOS = sorted((Path(__file__).parents[1] / "data" / "scenarios").glob("*.yaml"))


def write(tmp_path: Path, data: dict[str, Any], name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data) if name.endswith(".yaml") else json.dumps(data))
    return path


def test_literals_mirror_the_geographic_core() -> None:
    fields = NetworkOptions.model_json_schema()["properties"]
    assert get_args(CityId) == CITY_IDS
    presets = {name: fields[name]["oneOf"][0]["enum"] for name in ("cubit", "techum_cubits")}
    assert set(presets["cubit"]) == set(CUBIT_PRESETS)
    assert set(presets["techum_cubits"]) == set(TECHUM_CUBIT_PRESETS)
    assert set(fields["bough_opinion"]["enum"]) == set(BOUGH_OPINIONS)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_shipped_scenarios_validate(path: Path) -> None:
    scenario = load_scenario(path)
    assert scenario.name == path.stem
    assert scenario.description


def test_defaults_and_json(tmp_path: Path) -> None:
    data = {"name": "x", "incidents": [{"place": "jerusalem"}]}
    from_json = load_scenario(write(tmp_path, data, "s.json"))
    from_yaml = load_scenario(write(tmp_path, data))
    assert from_json == from_yaml
    assert from_yaml.start == DEFAULT_START
    assert from_yaml.fugitive.speed_road_kmh.dist == "lognormal"
    assert from_yaml.network.load_kwargs()["designated"] == ALL_SIX


def test_place_forms(tmp_path: Path) -> None:
    places = ["hebron", [35.2, 31.7], {"lon": 35.2, "lat": 31.7}, "bethel", "dan"]
    data = {"name": "x", "incidents": [{"place": p} for p in places]}
    scenario = load_scenario(write(tmp_path, data))
    assert scenario.incidents[1].place == scenario.incidents[2].place
    assert scenario.incidents[0].place.name == "hebron"


def test_hashable_serializable_picklable() -> None:
    scenario = load_scenario(SCENARIOS[0])
    again = Scenario.model_validate_json(scenario.model_dump_json())
    assert again == scenario
    assert hash(again) == hash(scenario)
    assert again.key == scenario.key
    assert pickle.loads(pickle.dumps(scenario)) == scenario


def test_designation_options_build_a_network() -> None:
    steps = [
        {"year": 0, "cities": ["bezer", "golan", "ramoth_gilead"]},
        {"year": 3, "cities": ["kedesh", "shechem", "hebron"]},
    ]
    options = NetworkOptions.model_validate({"designation": steps, "cubit": 0.5})
    network = load_network(**options.load_kwargs())
    assert network.designation.activation_time == 3.0
    assert (
        NetworkOptions(designation="moses_then_joshua").load_kwargs()["designated"]
        is MOSES_THEN_JOSHUA
    )


def test_schema_documents_every_field() -> None:
    schema = scenario_schema()
    undocumented = [
        f"{model}.{name}"
        for model, spec in schema["$defs"].items()
        for name, prop in spec.get("properties", {}).items()
        if "description" not in prop and name != "dist"
    ]
    assert undocumented == []
    assert (
        "unit" in json.dumps(schema["properties"]["dt_s"])
        or "seconds" in schema["properties"]["dt_s"]["description"]
    )


BAD = [
    ({"fugitive": {"speeed": 3}}, "fugitive.speeed", "3"),
    ({"dt_s": "60 s"}, "dt_s", "'60 s'"),
    (
        {"fugitive": {"speed_road_kmh": {"dist": "fixed", "value": 5000}}},
        "fugitive.speed_road_kmh.fixed.value",
        "5000",
    ),
    (
        {"fugitive": {"speed_road_kmh": {"dist": "fixed", "value": 0}}},
        "fugitive.speed_road_kmh.fixed.value",
        "0",
    ),
    (
        {"avenger": {"speed_offroad_kmh": {"dist": "uniform", "low": -1, "high": 3}}},
        "avenger.speed_offroad_kmh.uniform.low",
        "-1",
    ),
    ({"incidents": [{"place": [40.1, 31.5]}]}, "incidents.0.place.lon", "40.1"),
    ({"incidents": [{"place": "atlantis"}]}, "incidents.0.place.name", "'atlantis'"),
    (
        {"network": {"designation": [{"year": 0, "cities": ["gomorrah"]}]}},
        "network.designation.steps.0.cities.0",
        "'gomorrah'",
    ),
    (
        {"network": {"candidates": {"kedesh": "nowhere"}}},
        "network.candidates.sites.kedesh",
        "'nowhere'",
    ),
    ({"network": {"candidates": {"kedesh": "bezer__cand2"}}}, "network", "bezer__cand2"),
    (
        {
            "network": {
                "designation": [
                    {"year": 14, "cities": ["kedesh"]},
                    {"year": 0, "cities": ["bezer"]},
                ]
            }
        },
        "network.designation",
        "year 0.0",
    ),
    ({"incidents": []}, "incidents", "[]"),
    ({"dt_s": 600, "horizon_h": 0.1}, "horizon_h", "0.1"),
    ({"network": {"cubit": 5}}, "network.cubit", "5"),
    (
        {"avenger": {"delay_h": {"dist": "uniform", "low": 3, "high": 1}}},
        "avenger.delay_h.uniform",
        "high (1.0)",
    ),
    # the all-knowing avenger is gone: an old file is told what replaced it
    ({"avenger": {"strategy": "chase"}}, "avenger", "`strategy: chase` is replaced by `knows`"),
]


@pytest.mark.parametrize(("change", "field", "value"), BAD, ids=[b[1] for b in BAD])
def test_bad_input_names_file_field_and_value(
    tmp_path: Path, change: dict[str, Any], field: str, value: str
) -> None:
    data = {"name": "bad", "incidents": [{"place": "jerusalem"}], **change}
    path = write(tmp_path, data)
    with pytest.raises(RefugeError) as caught:
        load_scenario(path)
    message = str(caught.value)
    assert "\n" not in message
    assert str(path) in message
    assert f"field '{field}'" in message
    assert value in message


def test_a_scenario_without_incidents_is_told_to_list_or_generate_them(tmp_path: Path) -> None:
    """No `incidents` and no `generate`: the message names the field and prints no value, for
    the file gave none (the empty default is not a fact of the file)."""
    path = write(tmp_path, {"name": "bad"})
    with pytest.raises(RefugeError) as caught:
        load_scenario(path)
    message = str(caught.value)
    assert f"{path}: field 'incidents':" in message and "`generate`" in message
    assert "value" not in message and "()" not in message and "[]" not in message


def test_network_options_choose_refuges_roads_and_added_cities() -> None:
    steps = [
        {"year": 0, "cities": sorted(ALL_SIX)},
        {"year": 100, "cities": ["lod"], "source": "Deuteronomy 19:8-9"},
    ]
    options = NetworkOptions.model_validate(
        {
            "refuges": "levitical",
            "roads_period": "hellenistic_roman",
            "added_cities": [{"id": "lod", "name": "Lod", "lon": 34.9, "lat": 31.95}],
            "designation": steps,
        }
    )
    network = load_network(**options.load_kwargs())
    assert network.options["roads_period"] == "hellenistic_roman"
    assert network.options["refuges"] == "levitical"
    assert len(network.city_ids) == 49 and network.cities.at["lod", "designated_at"] == 100.0
    assert NetworkOptions().load_kwargs()["refuges"] == "six"


@pytest.mark.parametrize(
    ("network", "message"),
    [
        (
            {
                "designation": [{"year": 0, "cities": ["lot"]}],
                "added_cities": [{"id": "lod", "name": "Lod", "lon": 34.9, "lat": 31.95}],
            },
            "unknown city 'lot'.*'lod'",
        ),
        (
            {"added_cities": [{"id": "lod", "name": "Lod", "lon": 34.9, "lat": 31.95}]},
            "'lod' is designated by no step",
        ),
        (
            {"added_cities": [{"id": "hebron", "name": "H", "lon": 35.1, "lat": 31.5}]},
            "ids must be new",
        ),
        ({"roads_period": "bronze_age"}, "bronze_age"),
        ({"refuges": "all"}, "'six' or 'levitical'"),
    ],
)
def test_bad_network_options_say_what_is_wrong(
    tmp_path: Path, network: dict[str, Any], message: str
) -> None:
    data = {"name": "bad", "incidents": [{"place": "jerusalem"}], "network": network}
    with pytest.raises(RefugeError, match=message) as caught:
        load_scenario(write(tmp_path, data))
    assert "field 'network" in str(caught.value)


@pytest.mark.parametrize(
    ("section", "field"),
    [("cities", "population"), ("fugitive", "knows_law_p"), ("exile", "horizon_years")],
)
def test_a_nan_in_any_section_is_refused_naming_it(
    tmp_path: Path, section: str, field: str
) -> None:
    # every section is `refuge_map._strict.Strict`, the cities' too: NaN is no number
    data = {"name": "bad", "incidents": [{"place": "jerusalem"}], section: {field: float("nan")}}
    with pytest.raises(RefugeError) as caught:
        load_scenario(write(tmp_path, data))
    assert f"field '{section}.{field}'" in str(caught.value)
