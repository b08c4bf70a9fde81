"""`refuge map` shows the 48 Levitical cities, the signposts and the bridges as layers."""

import json
import re

from refuge_map.render._html import unpacked_json


def page_text(page: str) -> str:
    """The page with the data of its gzipped blocks (`packed_json`) unpacked beside it."""
    blocks = re.findall(r'"H4sI[A-Za-z0-9+/=]*"', page)  # gzip's magic bytes, in base64
    return page + "".join(json.dumps(unpacked_json(b), ensure_ascii=False) for b in blocks)


def test_refuge_map_shows_the_levitical_cities_signposts_and_bridges(run_cli, tmp_path, network):
    html = tmp_path / "map.html"
    result = run_cli("map", "--out", html)
    assert result.code == 0, result.err
    page = page_text(html.read_text(encoding="utf-8"))
    for layer in ("Levitical cities (48)", "Signposts: miklat", "Bridges"):
        assert layer in page
    # a city of the 42 with its verse and family, and a signpost's direction
    assert "Gibeon (Joshua 21:17)" in page
    assert "Kohathite priests (sons of Aaron)" in page
    assert "miklat \\u2192" in page or "miklat →" in page
    assert "32 cubits (15.4 m)" in page
    assert page.count("Joshua 21:") >= 48
