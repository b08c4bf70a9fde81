"""Files QGIS and GDAL read cleanly: `refuge layers` (GeoPackage, GeoJSON folder) and
`refuge coverage` outputs, read back with pyogrio."""

import json
import xml.etree.ElementTree as ET

import geopandas as gpd
import numpy as np
import pyogrio
import pyogrio.errors
import pytest

from geo.network import LAYER_GEOMETRY
from refuge_map.io import gdal_writing, write_layers

#: Field types (as pyogrio reports them) that a user must find; lists are JSON text.
EXPECTED_FIELDS = {
    "cities": {"rank": "int", "openbible_score": "int", "town_area_ha": "float64"},
    "candidates": {
        "rank": "int",
        "openbible_score": "int",
        "location_precision_m": "int",
        "biblical_refs": "object",
        "site_flags": "object",
        "wikidata_ids": "object",
    },
    "road_nodes": {"node": "int", "waypoint": "object"},
}
LIST_FIELDS = {"candidates": ("biblical_refs", "site_flags", "wikidata_ids")}


@pytest.fixture(scope="module")
def written(network, tmp_path_factory):
    folder = tmp_path_factory.mktemp("layers")
    layers = network.layers()
    write_layers(layers, folder / "net.gpkg")
    write_layers(layers, folder / "net.geojson")
    return folder


def sources(folder, name):
    return [(folder / "net.gpkg", name), (folder / "net" / f"{name}.geojson", None)]


@pytest.mark.parametrize("name", sorted(LAYER_GEOMETRY))
def test_each_layer_one_geometry_type_wgs84_and_real_fields(written, name):
    for path, layer in sources(written, name):
        info = pyogrio.read_info(path, layer=layer)
        assert info["geometry_type"] in (LAYER_GEOMETRY[name], "Multi" + LAYER_GEOMETRY[name])
        assert info["crs"] == "EPSG:4326"
        fields = dict(zip(info["fields"], info["dtypes"], strict=True))
        assert "index" not in fields
        for field, kind in EXPECTED_FIELDS.get(name, {}).items():
            assert fields[field].startswith(kind), (path, field, fields[field])
        if name == "road_nodes":
            assert not {"x", "y"} & set(fields)


def test_lists_are_json_text_in_both_formats(written):
    for path, layer in sources(written, "candidates"):
        frame = pyogrio.read_dataframe(path, layer=layer)
        for field in LIST_FIELDS["candidates"]:
            values = [json.loads(v) for v in frame[field].dropna()]
            assert values and all(isinstance(v, list) for v in values)
        kedesh = frame.set_index("id").loc["kedesh"]
        assert json.loads(kedesh["biblical_refs"])[:2] == ["Josh 20:7", "Josh 21:32"]
        assert json.loads(frame.set_index("id").loc["kedesh__cand3", "site_flags"]) == [
            "outside_naphtali"
        ]


def test_hydrography_split_keeps_every_feature(written, network):
    lines = pyogrio.read_info(written / "net.gpkg", layer="hydrography_lines")["features"]
    polygons = pyogrio.read_info(written / "net.gpkg", layer="hydrography_polygons")["features"]
    assert lines > 0 and polygons > 0
    assert lines + polygons == len(network.hydrography)


def test_geopackage_embeds_a_qgis_style_per_layer(written):
    styles = pyogrio.read_dataframe(written / "net.gpkg", layer="layer_styles")
    assert sorted(styles["f_table_name"]) == sorted(LAYER_GEOMETRY)
    assert styles["useAsDefault"].all()
    land = styles.set_index("f_table_name").loc["land", "styleQML"]
    renderer = ET.fromstring(land.split("\n", 1)[1]).find("renderer-v2")
    assert renderer.get("type") == "categorizedSymbol" and renderer.get("attr") == "side"
    assert {c.get("value") for c in renderer.iter("category")} == {"west", "east"}
    assert (written / "net" / "land.qml").read_text("utf-8") == land


def test_coverage_files_are_wgs84(run_cli, tmp_path):
    gpkg, parquet = tmp_path / "cov.gpkg", tmp_path / "cov.parquet"
    for out in (gpkg, parquet):
        result = run_cli("coverage", "--out", out, "--cell-m", "20000", "--draws", "4")
        assert result.code == 0, result.err
    info = pyogrio.read_info(gpkg)
    assert info["crs"] == "EPSG:4326" and info["geometry_type"] == "Polygon"
    assert dict(zip(info["fields"], info["dtypes"], strict=True))["p_asylum"] == "float64"
    lon = np.asarray(pyogrio.read_bounds(gpkg)[1])[0]
    assert ((lon > 33.5) & (lon < 37.5)).all()  # degrees, not metres
    # this GDAL build has no Parquet driver: GeoParquet is read with geopandas
    cells = gpd.read_parquet(parquet)
    assert cells.crs.to_epsg() == 4326
    assert cells.total_bounds[0] > 33.5 and cells.total_bounds[2] < 37.5


def test_a_failed_gdal_write_is_an_oserror_naming_the_file(tmp_path):
    target = tmp_path / "net.gpkg"
    with pytest.raises(OSError, match="GDAL could not") as refused, gdal_writing(target):
        raise pyogrio.errors.FeatureError("Could not add feature\nsecond line")
    assert (refused.value.filename, refused.value.strerror) == (
        str(target),
        "GDAL could not write it (Could not add feature)",
    )


def test_what_gdal_did_not_raise_passes_through(tmp_path):
    with pytest.raises(ValueError, match="not GDAL's"), gdal_writing(tmp_path / "net.gpkg"):
        raise ValueError("not GDAL's")
