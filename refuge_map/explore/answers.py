"""What the explorer asks the package: zones, a point, a case, a flight, the coverage field.

Each function takes the settings of one browser tab (the scenario's sections, validated by the
package's own models) and returns JSON-ready data; every rule is the package's own (geo, law,
simulation), none is repeated here or in the page.
"""

from __future__ import annotations

import functools
import json
import math
from typing import Any

import numpy as np
import shapely

from geo import BOUGH_OPINIONS
from geo.asylum import KIND_CITATIONS
from refuge_map.coverage import coverage_layer, scenario_coverage
from refuge_map.law import DISPUTES, Case, rulings_across_opinions
from refuge_map.render._coverage import coverage_classes, p_class
from refuge_map.render._html import cited
from refuge_map.render._style import (
    NO_VALUE,
    OTHER,
    ROAD,
    ROLE_COLORS,
    SIDE_COLORS,
    ZONE_STYLES,
)
from refuge_map.render.html_map import DECIMALS, background, city_popup
from refuge_map.simulation import Scenario, scenario_network, scenario_schema, simulate

#: At most this many manslayers in one flight request (each is a replication).
MAX_REPLICATIONS = 500
#: The coarsest and finest coverage cells a request may ask for (metres).
COVERAGE_CELL_M = (3_000.0, 20_000.0)
#: The sections of a scenario a tab may set.
SETTINGS = ("network", "year", "fugitive", "avenger", "escorts", "seed", "dt_s", "horizon_h")
#: z for a 95% interval.
_Z95 = 1.959964


def scenario(
    settings: dict[str, Any], *, incidents: list[dict[str, Any]] | None = None
) -> Scenario:
    """The tab's settings as a scenario (validated: a bad field raises pydantic's error)."""
    unknown = sorted(set(settings) - set(SETTINGS))
    if unknown:
        raise ValueError(f"settings.{unknown[0]}: not a setting (valid: {', '.join(SETTINGS)})")
    body = {"name": "explore", **settings}
    body["incidents"] = incidents or [{"place": {"lon": 35.2, "lat": 31.8}}]
    return Scenario.model_validate(body)


def schema() -> dict[str, Any]:
    """The forms of the page, from the package's models at run time: the network options and
    the case (so that new facts of the law appear without touching the page)."""
    definitions = scenario_schema().get("$defs", {})
    properties = scenario_schema()["properties"]
    return {
        "network": definitions["NetworkOptions"],
        "flight": {name: properties[name] for name in ("fugitive", "avenger", "escorts")},
        "defs": definitions,
        "case": Case.model_json_schema(),
        "bough_opinions": BOUGH_OPINIONS,
        "disputes": {key: {"sages": list(d.sages)} for key, d in DISPUTES.items()},
        "max_replications": MAX_REPLICATIONS,
        "coverage_cell_m": COVERAGE_CELL_M,
        "colors": colors(),
    }


def colors() -> dict[str, Any]:
    """The maps' colours the page draws with (`render._style`, as the HTML map's): roads, the
    zones by shape of the boundary, the cities by side, the flight's tracks by role."""
    return {
        "road": ROAD,
        "zones": {mode: ZONE_STYLES[mode]["color"] for mode in ZONE_STYLES},
        "sides": SIDE_COLORS,
        "roles": ROLE_COLORS,
        "other": OTHER,
    }


def zones(settings: dict[str, Any]) -> dict[str, Any]:
    """The cities, their boundaries under the tab's opinions, and the roads, as GeoJSON."""
    chosen = scenario(settings)
    network = scenario_network(chosen)
    active = bool(network.active(chosen.year))  # all six or none (Mishnah Makkot 2:4)
    layers = network.layers()
    popups = [city_popup(network, str(city), row) for city, row in network.cities.iterrows()]
    cities = layers["sites"].assign(active=active, popup=popups)
    zone_frame = layers["zones"].assign(active=active)
    return {
        "protects": active,
        "rule": "" if active else KIND_CITATIONS["inactive"],
        "options": {k: _plain(v) for k, v in network.options.items()},
        "cities": _geojson(
            cities[["name", "side", "modern_identification", "active", "popup", "geometry"]]
        ),
        "zones": _geojson(zone_frame[["name", "techum", "breadth_m", "active", "geometry"]]),
        "roads": _geojson(layers["roads"][["name", "geometry"]]),
    }


def where(
    settings: dict[str, Any], point: tuple[float, float], bough: tuple[float, float] | None = None
) -> dict[str, Any]:
    """Whether a point (or a tree: trunk at `point`, boughs at `bough`) is protected, in which
    city's zone, and by which rule (`geo.RefugeNetwork.locate`)."""
    chosen = scenario(settings)
    network = scenario_network(chosen)
    lon, lat = point
    bough_lon, bough_lat = bough if bough is not None else (None, None)
    found = network.locate(lon, lat, bough_lon=bough_lon, bough_lat=bough_lat)
    city = int(found.city)
    active = bool(network.active(chosen.year))  # all six or none (Mishnah Makkot 2:4)
    kind = str(found.kind) if city < 0 or active else "inactive"
    answer: dict[str, Any] = {
        "protected": city >= 0 and active,
        "city": str(network.cities.iloc[city]["name"]) if city >= 0 else None,
        "zone": kind,
        "rule": KIND_CITATIONS.get(kind, ""),
        "rule_html": cited(KIND_CITATIONS.get(kind, "")) or "",
        "city_popup": city_popup(
            network, str(network.cities.index[city]), network.cities.iloc[city]
        )
        if city >= 0
        else None,
    }
    if bough is not None:
        opinion = str(network.options["bough_opinion"])
        rule = BOUGH_OPINIONS[opinion]
        answer["tree"] = {"opinion": opinion, "rule": rule, "rule_html": cited(rule) or ""}
    return answer


def judge_case(facts: dict[str, Any]) -> dict[str, Any]:
    """The case's verdict under every combination of the disputes that bear on it
    (`refuge_map.law.rulings_across_opinions`), each with its trace and citations (linked to
    Sefaria); for an undetermined verdict, the facts it asks and the verdict under each answer.
    ``by_dispute`` puts each bearing dispute's sages side by side, the others at their
    defaults."""
    case = Case.model_validate(facts)
    rulings = []
    for chosen, ruling in rulings_across_opinions(case):
        rulings.append(
            {
                "opinions": chosen,
                "verdict": ruling.verdict,
                "reason": ruling.reason,
                "asks": list(ruling.asks),
                "alternatives": [alt.model_dump(mode="json") for alt in ruling.alternatives],
                "trace": [
                    {**step.model_dump(mode="json"), "citation_html": cited(step.citation) or ""}
                    for step in ruling.trace
                ],
                "citations": sorted({step.citation for step in ruling.trace if step.citation}),
            }
        )
    return {"rulings": rulings, "by_dispute": _side_by_side(rulings)}


def _side_by_side(rulings: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Per bearing dispute: each sage's ruling with every other dispute at its default (the
    rulings come defaults first, so the first match is that one)."""
    keys = rulings[0]["opinions"] if rulings else {}
    defaults = {key: DISPUTES[key].default for key in keys}
    out: dict[str, list[dict[str, Any]]] = {}
    for key in keys:
        out[key] = []
        for sage in DISPUTES[key].sages:
            wanted = {**defaults, key: sage}
            ruling = next(r for r in rulings if r["opinions"] == wanted)
            holds = DISPUTES[key].holds.get(sage, "")
            out[key].append({"sage": sage, "holds": holds, **ruling})
    return out


def flight(
    settings: dict[str, Any],
    place: tuple[float, float],
    kin_home: tuple[float, float],
    replications: int,
) -> dict[str, Any]:
    """`replications` manslayers fleeing from `place` with the avenger setting out from
    `kin_home`, simulated by the package (`refuge_map.simulation.simulate`): P(reach asylum
    alive) with its 95% Wilson interval, and the first one's tracks to animate."""
    if not 1 <= replications <= MAX_REPLICATIONS:
        raise ValueError(f"replications: between 1 and {MAX_REPLICATIONS}, not {replications}")
    incident = {"place": _place(place), "kin_home": _place(kin_home)}
    run = simulate(scenario(settings, incidents=[incident] * replications))
    overall = run.summary["overall"]
    reached = int(overall["outcomes"].get("arrival", 0))
    low, high = wilson(reached, replications)
    first = run.trajectories[run.trajectories["incident"] == 0].sort_values(["agent_id", "t"])
    start = first["t"].min()
    tracks = [
        {
            "role": str(role),
            "hours": ((rows["t"] - start).dt.total_seconds() / 3600).round(3).tolist(),
            "latlon": np.round(
                shapely.get_coordinates(rows.geometry.to_numpy())[:, ::-1], 5
            ).tolist(),
        }
        for (_, role), rows in first.groupby(["agent_id", "role"], sort=True)
        if role != "escort"
    ]
    return {
        "replications": replications,
        "reached": reached,
        "p_asylum": reached / replications,
        "interval": [low, high],
        "outcomes": overall["outcomes"],
        "tracks": tracks,
        "run_id": run.run_id,
    }


def coverage(settings: dict[str, Any], cell_m: float) -> dict[str, Any]:
    """The coverage field under the tab's settings (`refuge_map.coverage`), as map cells."""
    low, high = COVERAGE_CELL_M
    if not low <= cell_m <= high:
        raise ValueError(f"cell_m: between {low:g} and {high:g} m, not {cell_m:g}")
    field = scenario_coverage(scenario(settings), cell_m=cell_m, draws=64)
    cells = coverage_layer(field, cell_m=cell_m)
    rings = shapely.get_coordinates(shapely.get_exterior_ring(cells.geometry.to_numpy()))
    corners = np.round(rings[:, ::-1], 5).reshape(len(cells), -1, 2)[:, :-1]
    p_asylum = cells["p_asylum"].to_numpy(dtype=float)
    return {
        "cell_m": cell_m,
        # each cell: corners, P, hours, and its class (an index in "classes"), as the HTML
        # map colours them (`render._coverage`): the page holds no thresholds of its own
        "cells": [
            [ring.tolist(), _number(p), _number(h), k]
            for ring, p, h, k in zip(
                corners, p_asylum, cells["time_h"], p_class(p_asylum), strict=True
            )
        ],
        "classes": [{"color": color, "label": label} for color, label in coverage_classes()]
        + [{"color": NO_VALUE, "label": "no way to asylum"}],
    }


@functools.cache
def background_layers() -> dict[str, Any]:
    """The land and sea of the HTML map (`refuge_map.render.html_map.background`): each
    layer's shapes as GeoJSON features carrying their Leaflet style, popup and tooltip."""
    network = scenario_network(scenario({}))
    return {
        name: [
            {
                "type": "Feature",
                "geometry": json.loads(
                    shapely.to_geojson(shapely.transform(geometry, lambda xy: xy.round(DECIMALS)))
                ),
                "properties": {"style": path_style, "popup": popup, "tooltip": tooltip},
            }
            for geometry, path_style, popup, tooltip in shapes
        ]
        for name, shapes in background(network).items()
    }


def wilson(successes: int, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    p, z2 = successes / n, _Z95**2
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = _Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _place(lonlat: tuple[float, float]) -> dict[str, float]:
    lon, lat = lonlat
    return {"lon": float(lon), "lat": float(lat)}


def _number(value: Any) -> float | None:
    return round(float(value), 4) if np.isfinite(value) else None


def _plain(value: Any) -> Any:
    """A network option as JSON (numbers, text; infinities as text)."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value if isinstance(value, str | int | float | bool | None) else str(value)


def _geojson(frame: Any) -> dict[str, Any]:
    return json.loads(frame.to_crs("EPSG:4326").to_json(na="null", drop_id=True))
