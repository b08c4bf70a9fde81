"""Reading a data layer (geo._validate.read_layer): a file read again gives what it holds now,
and a caller changing the layer it got changes no other reader's."""

import json
from pathlib import Path

import pytest

from geo import DataFileError
from geo._validate import read_layer

FIELDS = ("id", "name")


def _write(path: Path, names: list[str]) -> None:
    features = [
        {
            "type": "Feature",
            "properties": {"id": f"p{i}", "name": name},
            "geometry": {"type": "Point", "coordinates": [35.2 + i / 100, 31.8]},
        }
        for i, name in enumerate(names)
    ]
    path.write_text(json.dumps({"type": "FeatureCollection", "features": features}))


def test_a_rewritten_file_is_read_anew(tmp_path: Path) -> None:
    path = tmp_path / "points.geojson"
    _write(path, ["Hebron", "Golan"])
    assert list(read_layer(path, FIELDS, geom_types=("Point",))["name"]) == ["Hebron", "Golan"]
    _write(path, ["Kedesh", "Bezer"])  # the same size, at once: only the bytes differ
    assert list(read_layer(path, FIELDS, geom_types=("Point",))["name"]) == ["Kedesh", "Bezer"]
    _write(path, ["Golan", ""])
    with pytest.raises(DataFileError, match=r"field 'name': no value in 'p1'"):
        read_layer(path, FIELDS, geom_types=("Point",))


def test_each_reader_gets_its_own_layer(tmp_path: Path) -> None:
    path = tmp_path / "points.geojson"
    _write(path, ["Ramoth", "Golan"])
    first = read_layer(path, FIELDS, geom_types=("Point",))
    first.loc[0, "name"] = "changed by its reader"
    again = read_layer(path, FIELDS, geom_types=("Point",))
    assert list(again["name"]) == ["Ramoth", "Golan"]
    assert again.crs == first.crs
