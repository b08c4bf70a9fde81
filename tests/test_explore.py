"""The explorer's answers and its bad-request policy (without a browser)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_explore import serve

from refuge_map.explore.answers import wilson


@pytest.fixture(scope="module")
def client():
    address, server = serve()
    with httpx.Client(base_url=address, timeout=60) as http:
        yield http
    server.should_exit = True


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("where", {"settings": {"network": {"cubit": "ell"}}, "point": [35.2, 32.2]}, "cubit"),
        ("where", {"settings": {}, "point": [35.2]}, "point"),
        ("where", {"settings": {"wind": 1}, "point": [35.2, 32.2]}, "settings.wind"),
        ("judge", {"case": {"act": "juggling"}}, "case.act"),
        (
            "flight",
            {"place": [35.2, 31.8], "kin_home": [35.2, 31.7], "replications": 0},
            "replications",
        ),
        ("coverage", {"cell_m": 10}, "cell_m"),
    ],
)
def test_bad_requests_are_400_naming_the_field(client, path, body, field):
    reply = client.post(f"/api/{path}", json=body)
    assert reply.status_code == 400
    message = reply.json()["error"]
    assert field in message and "\n" not in message


def test_not_json_and_unpinned_assets(client):
    assert client.post("/api/where", content=b"{").json() == {"error": "body: not JSON"}
    assert client.get("/assets/leaflet/../../../pyproject.toml").status_code == 404
    assert client.get("/static/app.py").status_code == 404


def test_the_blind_killer_is_judged_under_both_readings(client):
    reply = client.post(
        "/api/judge",
        json={"case": {"act": "descending_ladder", "intent": "none", "killer": {"blind": True}}},
    )
    rulings = reply.json()["rulings"]
    assert len({r["verdict"] for r in rulings}) == 2  # Mishnah Makkot 2:3: R. Judah and the Sages
    assert all(r["citations"] for r in rulings)


def test_wilson_interval():
    low, high = wilson(13, 50)
    assert low < 13 / 50 < high and round(low, 3) == 0.159 and round(high, 3) == 0.396
    assert wilson(0, 10)[0] == 0.0


def test_coverage_cells_carry_the_class_the_legend_names(client):
    """Each cell's class (an index in the answer's classes, as the HTML map's legend orders
    them) is the range its P falls in; a cell with no way to asylum takes the last."""
    answer = client.post("/api/coverage", json={"settings": {}, "cell_m": 20_000}).json()
    classes = answer["classes"]
    assert [k["label"] for k in classes[:2]] == ["0%-50%", "50%-70%"]
    assert classes[-1]["label"] == "no way to asylum" and len(classes) == 7
    assert len(answer["cells"]) > 30
    for _, p, _, k in answer["cells"]:
        if p is None:
            assert k == len(classes) - 1
        else:
            low, high = (float(end) / 100 for end in classes[k]["label"].rstrip("%").split("%-"))
            assert low <= p < high or p == high == 1.0, (p, classes[k])
