"""`refuge map` shows the 48 Levitical cities, the signposts and the bridges as layers."""


def test_refuge_map_shows_the_levitical_cities_signposts_and_bridges(run_cli, tmp_path, network):
    html = tmp_path / "map.html"
    result = run_cli("map", "--out", html)
    assert result.code == 0, result.err
    page = html.read_text(encoding="utf-8")
    for layer in ("Levitical cities (48)", "Signposts: miklat", "Bridges"):
        assert layer in page
    # a city of the 42 with its verse and family, and a signpost's direction
    assert "Gibeon (Joshua 21:17)" in page
    assert "Kohathite priests (sons of Aaron)" in page
    assert "miklat \\u2192" in page or "miklat →" in page
    assert "32 cubits (15.4 m)" in page
    assert page.count("Joshua 21:") >= 48
