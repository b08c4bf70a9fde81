"""What every column of every output file means, and the unit its name carries.

One home for the meanings: the documentation's files page and `tests/test_columns.py` read them
(the test writes every output and fails on a column with no meaning here). A column's meaning is
looked up first in its table's `TABLE_MEANINGS`, then in the shared `MEANINGS`; a key of a JSON
file is a dotted path (``overall.outcomes.*``, ``features[].properties.city``), where ``*``
stands for any key and ``[]`` for every item of a list, and a key is described by its own entry
or by its nearest described parent. Units come from the name's ending (`UNIT_SUFFIXES`: names
carry their unit, ``length_m``, ``dt_s``, ``entered_y``), else from `UNITS`.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

#: Unit of a name by its ending (the longest ending that matches wins).
UNIT_SUFFIXES: dict[str, str] = {
    "_m": "metres",
    "_km": "kilometres",
    "_km2": "square kilometres",
    "_ha": "hectares",
    "_s": "seconds",
    "_h": "hours",
    "_y": "years since the killing",
    "_years": "years",
    "_days": "days",
    "_cubits": "cubits",
    "_deg": "degrees",
    "_per_year": "per year",
    "_per_100km": "per 100 km",
}

#: Units of names that carry none in their ending.
UNITS: dict[str, str] = {
    "lon": "degrees east (WGS84)",
    "lat": "degrees north (WGS84)",
    "years": "years",
    "years_in_exile": "years",
    "years_since_killing": "years",
    "median_h_to_asylum": "hours",
    "age_at_appointment": "years",
    "rent": "nominal units (exile.rent_per_year a year; no sum is given)",
    "rent_total": "nominal units (exile.rent_per_year a year)",
    "t": "datetime (tz-naive, the scenario's nominal start plus elapsed_s)",
    "t_start": "datetime (tz-naive)",
    "t_end": "datetime (tz-naive)",
    "designated_at": "years since the entry into the land",
    "year": "years since the entry into the land",
    "activation_year": "years since the entry into the land",
    "openbible_score": "OpenBible score, -1000 to 1000 (not a probability)",
}

#: How a flight ends (`FLIGHT_OUTCOMES`).
FLIGHT_OUTCOME_MEANINGS = {
    "arrival": "he reached a city of refuge or its boundary (Numbers 35:11)",
    "capture": "the avenger overtook him on the way (Deuteronomy 19:6)",
    "horizon": "neither by the scenario's horizon",
}
#: How a manslayer's story ends (`EXILE_OUTCOMES`).
EXILE_OUTCOME_MEANINGS = {
    "caught_in_flight": "the avenger overtook him before he reached refuge (Deuteronomy 19:6)",
    "flight_unfinished": "his flight had not ended by the flight's horizon",
    "killed_on_trial_road": "killed by the avenger on the way to or from his trial (Numbers 35:27)",
    "executed": "judged a murderer and executed (Numbers 35:16-21)",
    "sent_home": "judged not liable to exile: he goes home (Mishnah Makkot 2:1-3)",
    "spared": "the high priest died after the verdict, before he went back: not exiled "
    "(Mishnah Makkot 2:6)",
    "released": "went home at the death of the high priest (Numbers 35:25, 28)",
    "died_in_exile": "died in his city of refuge (Mishnah Makkot 2:7)",
    "killed_outside_boundary": "went out beyond the boundary and was killed there "
    "(Numbers 35:26-27)",
    "in_exile_at_horizon": "still in exile when the simulation ended",
}
#: Why an exile never leaves (the values of `LIFE_REASONS`).
LIFE_MEANINGS = {
    "killed_high_priest": "he killed a high priest",
    "high_priest_killed": "a high priest killed (in error)",
    "no_high_priest_at_verdict": "no high priest was in office at the verdict",
}

#: Meanings shared by every table that has the column.
MEANINGS: dict[str, str] = {
    "run_id": "the run: `{scenario}-{scenario key}-s{seed}`",
    "seed": "the run's seed (same seed, same output)",
    "incident": "the killing, numbered from 0 (-1 for a priest, who belongs to none)",
    "agent_id": "the agent: `i0003-fugitive`, `i0003-avenger`, `i0003-escort1`; for a priest "
    "his office",
    "role": "fugitive, avenger or escort (Mishnah Makkot 2:5); high_priest or war_priest",
    "kind": "what happened (the event kinds below)",
    "t": "when: the scenario's start plus elapsed_s",
    "elapsed_s": "time on the scenario's clock (from the first killing; t is its start plus this)",
    "since_killing_s": "time since his own killing: the clock to read (NaN for a priest)",
    "step": "the simulation step (elapsed_s / dt_s)",
    "lon": "where, longitude",
    "lat": "where, latitude",
    "city": "the city of refuge concerned (its id; empty if none)",
    "rule": "the rule that applied, in words",
    "citation": "its source",
    "in_asylum": "inside a city of refuge or its boundary (Numbers 35:26-27)",
    "captured": "the avenger has killed him",
    "geometry": "the geometry, WGS84 (EPSG:4326)",
    "name": "the name in English",
    "hebrew_name": "the name in Hebrew",
    "id": "the feature's id",
    "side": "west or east of the Jordan (Numbers 35:14)",
    "source": "where the feature comes from",
    "sources": "the verses and works that attest it",
    "license": "the licence of the source",
    "modern_identification": "the modern site it is identified with (OpenBible.info)",
    "openbible_score": "OpenBible's score of the identification (data/README.md, Sites)",
    "rank": "the candidate's rank among its city's candidates (1: the one used)",
    "alternatives": "how many other candidate sites the city has",
    "designated_at": "when the city was designated (Deuteronomy 4:41; Joshua 20; "
    "-inf: from the start)",
    "town_area_ha": "the town's area",
    "town_area_basis": "how the town's area was found",
    "town_area_source": "the source of the town's area",
    "site_id": "the id of the candidate site used",
    "feature_kind": "city_of_refuge, candidate, reference_point ...",
    "tribe": "the tribe whose land it is in (Joshua 20-21)",
    "region": "the region",
    "candidate_of": "the city this is a candidate site for",
    "biblical_refs": "the verses that name it (JSON text)",
    "talmud_pairing": "the city it faces across the Jordan (Makkot 9b)",
    "site_flags": "flags on the identification (JSON text; geo.places.SITE_FLAGS)",
    "site_note": "why it is flagged, with the source",
    "location_precision_m": "positional accuracy as OpenBible states it",
    "location_precision_basis": "what the accuracy rests on",
    "openbible_modern_id": "OpenBible's modern site id",
    "openbible_ancient_id": "OpenBible's ancient place id",
    "wikidata_ids": "the Wikidata items OpenBible cites (JSON text)",
    "pleiades_id": "the Pleiades place of the reference cross-check",
    "pleiades_offset_m": "distance from the Pleiades place",
    "techum": "the shape of the Sabbath boundary (squared or circle; Eruvin 4:8)",
    "breadth_m": "the boundary's breadth around the town",
    "cubit_m": "the cubit used, in metres (Naeh, Chazon Ish, ...)",
    "techum_cubits": "the Sabbath limit, in cubits (Mishnah Eruvin 4:3: 2,000)",
    "feature_type": "river, lake, coast ...",
    "description": "what it is",
    "u": "the road's first node",
    "v": "the road's last node",
    "key": "the edge's key among parallel edges of u and v",
    "length_m": "the road's length",
    "walk_s": "the time to walk it",
    "route": "the route it belongs to (data/ROADS.md)",
    "class": "main or secondary",
    "period": "iron_age, hellenistic_roman or both",
    "certainty": "certain, probable or conjectural (data/ROADS.md)",
    "direct_road": "one of the roads the court prepares between the cities (Deuteronomy "
    "19:3; Mishnah Makkot 2:5)",
    "width_cubits": "the road's width (Bava Batra 100b: 32 cubits for a road to a city of "
    "refuge, unverified)",
    "width_m": "the road's width",
    "bridges": "the river crossings on it (Rambam, Rotzeach 8:5)",
    "node": "the node's id",
    "waypoint": "the waypoint it stands on (empty for none)",
    "gate": "the city whose boundary the road crosses here (empty for none)",
    "outcome": "how it ended",
    "run": "the run's index in the sweep (a row of runs.parquet)",
    "status": "done or failed",
    "error": "the error of a failed run (empty for done)",
    **{kind: f"flights that ended so: {text}" for kind, text in FLIGHT_OUTCOME_MEANINGS.items()},
    **{
        f"p_{kind}": f"share of the run's flights that ended in {kind}"
        for kind in FLIGHT_OUTCOME_MEANINGS
    },
    **{
        f"exile_{kind}": f"manslayers whose story ended so: {text}"
        for kind, text in EXILE_OUTCOME_MEANINGS.items()
    },
    **{
        f"life_{key}": f"exiles for life (Mishnah Makkot 2:7): {text}"
        for key, text in LIFE_MEANINGS.items()
    },
}

#: Meanings of a column in one table, where it differs from `MEANINGS` or is only there.
TABLE_MEANINGS: dict[str, dict[str, str]] = {
    "lines": {
        "t_start": "the agent's first time",
        "t_end": "the agent's last time",
        "captured": "the avenger killed him",
        "in_asylum": "in asylum at his last time",
        "geometry": "his whole path, one LineString, WGS84",
    },
    "manslayers": {
        "student": "a student of the Torah: his teacher goes into exile with him (Makkot 10a; "
        "Rambam, Rotzeach 7:1)",
        "outcome": "how his story ended (the exile outcomes below)",
        "fled_to": "the city he ran for",
        "city": "the city he lived in, in exile (empty if none)",
        "case": "the case file he was given (data/cases/) or `facts`",
        "verdict": "the judge's verdict (refuge_map.law)",
        "life_exile": "he never leaves (Mishnah Makkot 2:7)",
        "life_reason": "why he never leaves",
        "levite": "he is a Levite (who, killing again, goes to another city: Makkot 2:7)",
        "held_office": "he held an office before",
        "office_restored": "he returns to it (the dispute exile.office)",
        "entered_y": "when he entered his city of refuge",
        "end_y": "when his story ended",
        "years_in_exile": "end_y - entered_y",
        "deterred_on_trial_road": "times the escorts turned the avenger away on the trial road",
        "went_out": "times he went out beyond the boundary",
        "killed_again": "times he killed again in error in exile",
    },
    "ledger": {
        "city": "the Levitical city he paid rent to",
        "from_y": "start of the stay",
        "to_y": "end of the stay",
        "years": "length of the stay",
        "rent": "the rent paid to the Levites (Mishnah Makkot 2:8, the dispute exile.rent)",
    },
    "priests": {
        "office": "high_priest or war_priest (the dispute exile.war_priest)",
        "appointed_y": "when he took office",
        "term_end_y": "when his term ended (death or stepping down)",
        "died_y": "when he died",
        "stood_down": "he stepped down before he died",
        "age_at_appointment": "his age when he took office",
        "term_end": "why his term ended: died, stood_down, killed or killed_in_error",
        "incident": "the killing that ended his term (-1 if none)",
    },
    "residence": {
        "kind": "an event of his years in the city: back in the city, a going-out, a move, "
        "rent, release, death, the horizon",
        "city": "the city he is in",
        "years_since_killing": "when, since his killing",
        "lon": "where he is, longitude",
        "lat": "where he is, latitude",
    },
    "replications": {
        "flight.median_h_to_asylum": "median hours to asylum of those who arrived",
        "flight.deterred": "share of the incidents where the escorts turned the avenger away",
        "flight.gave_up": "share of the incidents where the avenger gave up the chase",
        "flight.*": "share of the incidents whose flight ended so (arrival, capture, horizon)",
        "exile.median_years.*": "median years in exile (all exiles, or the released)",
        "exile.*": "share of the incidents whose story ended so (the exile outcomes below)",
        "release_y": "the year of the death that releases one who entered exile at the run's "
        "median entry (Mishnah Makkot 2:6; inf with no high priest in office)",
    },
    "runs": {
        "run": "the run's index in the sweep",
        "point": "the parameter point's index",
        "replication": "the replication at that point",
        "seed": "the run's seed (SeedSequence of the sweep's seed)",
        "scenario_hash": "the scenario's key (the hash of its validated fields)",
        "version": "the package's version",
        "sim_run_id": "the simulation's run_id",
        "incidents": "the run's killings",
        "deterred": "flights where the escorts turned the avenger away (Mishnah Makkot 2:5)",
        "time_to_asylum_h": "median time to asylum of those who arrived",
        "distance_run_km": "median distance the manslayers ran",
        "office_held": "exiles who held an office",
        "office_restored": "exiles restored to it (exile.office)",
        "rent_total": "rent paid to the Levites (Mishnah Makkot 2:8)",
        "part": "the part file with the run's trajectories",
        "*.*": "a sweep axis: the scenario field at this dotted path, as the run set it",
    },
    "sweep_parts": {"run": "the run's index in the sweep (runs.parquet)"},
    "report": {
        "runs": "runs in the row",
        "incidents": "killings in the row",
        "p_*_low": "lower end of the 95% Wilson interval",
        "p_*_high": "upper end of the 95% Wilson interval",
        "Unnamed: 0": "the row: `all`, every run together",
        "*.*": "the axis value of the row",
    },
    "coverage": {
        "side": "the cell's side of the Jordan",
        "offroad_m": "the walk from the cell to the nearest road",
        "road_m": "the way on the roads to the nearest boundary",
        "time_h": "the mean time to asylum from the cell",
        "p_asylum": "the chance to reach asylum alive from the cell (Deuteronomy 19:6)",
        "city": "the nearest city of refuge by the way",
        "geometry": "the cell, a square, WGS84",
    },
    "cities": {
        "city": "the city's id",
        "kind": "how the town's outline was made",
        "geometry": "the town, a polygon, WGS84",
    },
    "sites": {"city": "the city's id", "kind": "how the town's outline was made"},
    "zones": {
        "city": "the city's id",
        "name": "the zone's name",
        "geometry": "the town with its Sabbath boundary",
    },
    "land": {"side": "the land west or east of the Jordan (Numbers 35:14)"},
    "layer_styles": {
        "*": "QGIS's style table (QGIS reads each layer's style from it; `styleQML` is the style)",
    },
    "manifest": {
        "kind": "header (first line) or run",
        "sweep": "the sweep's name",
        "spec_hash": "the hash of the sweep file (another sweep's folder is refused)",
        "version": "the package's version",
        "n_runs": "runs in the sweep",
        "batch_runs": "runs per task (the sweep file's; null: measured after the pilot batch)",
        "pilot_runs": "runs of the pilot batch whose seconds size the others (0: none)",
        "axes": "the axes",
    },
    "manifest_runs": {
        "kind": "run, or batching (the one line giving the size measured after the pilot)",
        "batch_runs": "the batching line: runs per task after the pilot, measured",
        "per_run_s": "the batching line: the pilot's wall seconds per run",
        "workers": "the batching line: worker processes when it was measured",
        "params": "the run's axis values (its other keys are the columns of runs.parquet)",
    },
    "summary": {
        "run_id": MEANINGS["run_id"],
        "scenario": "the scenario's name",
        "seed": MEANINGS["seed"],
        "opinions": "the opinions and options the run was made under (also in every row of "
        "a sweep)",
        "opinions.exile": "the exile's opinions (as exile.opinions)",
        "overall": "every flight",
        "by_city": "the flights by the city each ran for, with the keys of overall",
        "*.incidents": "killings",
        "*.outcomes.*": "flights by how they ended (arrival, capture, horizon)",
        "*.deterred": "flights where the escorts turned the avenger away (Mishnah Makkot 2:5)",
        "*.time_to_asylum_h": "mean, median, p90 and max time to asylum of those who arrived",
        "*.distance_run_km": "mean, median, p90 and max distance run",
        "events": "events by kind",
        "trees": "the trees run for (Mishnah Makkot 2:7): incident, trunk and bough [lon, "
        "lat], at_trunk",
        "exile": "Simulation II, when the scenario has an exile",
        "parameters": "every model number with its provenance: name (its scenario path), "
        "value, unit, provenance (source, assumption or setting), basis (the citation or the "
        "rationale), range (an assumption's plausible low and high)",
        "replications": "with replications: n, seeds, interval (how the intervals are made), "
        "each outcome's mean, 95% interval of the mean (Student's t; clipped to [0, 1] for "
        "shares and at 0 for hours and years), sd, min and max (outcomes; release_y), and "
        "variance: how much of each exile outcome's variance the releasing death explains (r2, "
        "dominated)",
        "exile.outcomes": "manslayers by outcome (the exile outcomes below)",
        "exile.by_city": "manslayers by the city each ran for (`fled_to`) and outcome",
        "cities.by_city": "each city's reception over the run: its population, residents at the "
        "start and the end, manslayers received and turned away, whether it was full (a majority "
        "of manslayers takes no more: Makkot 10b, R. Elazar; Rambam 7:6) and whether it receives "
        "(a city with no elders does not: Rambam 7:6)",
        "cities.received_by_kind": "manslayers received by the kind of city (refuge: one of the "
        "six or an added city; levitical: one of the 42)",
        "cities.turned_away": "fugitives turned away by a full city or one with no elders",
        "exile.by_case": "manslayers by case file and outcome",
        "exile.by_verdict": "manslayers by verdict and outcome",
        "exile.life_exiles": "exiles for life by reason (Mishnah Makkot 2:7)",
        "exile.years_in_exile": "years in exile: n, mean, p10, p50, p90, max and a histogram, "
        "for all exiles and for the released",
        "exile.office": "exiles who held an office, and those restored to it",
        "exile.rent.stays": "stays that paid rent to the Levites (Mishnah Makkot 2:8)",
        "exile.rent.total": "the rent paid in all, in nominal units (exile.rent_per_year a year)",
        "exile.went_out": "times an exile went out beyond the boundary",
        "exile.killed_again": "times an exile killed again",
        "exile.deterred_on_trial_road": "times the escorts turned the avenger away on the "
        "trial road",
        "exile.high_priests": "high priests in office over the run",
        "exile.opinions": "the exile's opinions: each dispute's choice with its holder's view, "
        "the law's opinions, the mortality model, the length of a year",
    },
    "lpf": {
        "type": "FeatureCollection; Feature for each place",
        "@context": "the Linked Places Format context (v1.1)",
        "features": "one feature per place (cities, candidates, reference points)",
        "features[].@id": "the place's URN",
        "features[].type": "Feature",
        "features[].properties": "title, feature_kind, city, openbible_score, site_flags, "
        "location_precision_m, license (the gazetteer's fields)",
        "features[].when": "the period (timespans and a label; an assumption, stated)",
        "features[].names": "its names, each with language and citations",
        "features[].geometry": "a GeometryCollection of Points with their citations",
        "features[].links": "closeMatch links: Pleiades, Wikidata, OpenBible",
        "features[].types": "the place type (a city, a tel ...)",
        "features[].descriptions": "a description with its source",
        "features[].relations": "its relations (e.g. candidate site of a city)",
    },
}

#: Tables that share another's meanings: the sweep's part files hold the run's tables, a
#: manifest line a row of runs.parquet, the sites layer the cities' fields.
TABLE_BASES = {"manifest_runs": "runs", "sites": "cities"}


def unit_of(column: str) -> str:
    """The unit a column's name carries (`UNITS`, else its ending in `UNIT_SUFFIXES`), or ""."""
    name = column.rsplit(".", 1)[-1]
    if name in UNITS:
        return UNITS[name]
    if name.startswith("p_") and not name.endswith(("_m", "_s", "_h")):
        return "probability (0-1)"
    endings = [suffix for suffix in UNIT_SUFFIXES if name.endswith(suffix)]
    return UNIT_SUFFIXES[max(endings, key=len)] if endings else ""


def described_by(table: str, column: str) -> tuple[str, str] | None:
    """The entry that describes `column` of `table`, as (its key, its meaning), or None.

    A JSON key (a dotted path) is described by its own entry or its nearest described parent;
    a table's entry with wildcards (``*``, ``p_*_low``) describes every name it matches.
    """
    own = {**TABLE_MEANINGS.get(TABLE_BASES.get(table, ""), {}), **TABLE_MEANINGS.get(table, {})}
    path = column
    while path:
        if path in own:
            return path, own[path]
        if path in MEANINGS:
            return path, MEANINGS[path]
        for pattern, text in own.items():
            if "*" in pattern and fnmatchcase(path, pattern):
                return pattern, text
        path = path[:-2] if path.endswith("[]") else path.rpartition(".")[0]
    return None


def meaning_of(table: str, column: str) -> str | None:
    """What `column` of `table` means (`described_by`), or None if it is nowhere described."""
    entry = described_by(table, column)
    return entry[1] if entry else None
