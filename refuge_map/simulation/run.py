"""The result of a simulation: events, trajectories (MovingPandas-ready), lines and summary."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
from numpy.typing import ArrayLike, NDArray

from geo import WGS84, to_lonlat
from refuge_map.opinions import DISPUTES
from refuge_map.simulation._memory import release_freed
from refuge_map.simulation.events import (
    ARRIVAL,
    FLIGHT_OUTCOMES,
    OUTCOME_EVENTS,
    codes_of,
    concat_events,
)
from refuge_map.simulation.exile import summarize_exile
from refuge_map.simulation.provenance import parameters
from refuge_map.simulation.scenario import Scenario

if TYPE_CHECKING:
    import geopandas as gpd
    import pandas as pd
    import pyarrow as pa

    from refuge_map.simulation._setup import World
    from refuge_map.simulation.engine import Flight, Outcomes
    from refuge_map.simulation.exile.life import ExileLife

#: Columns of `Run.events`, in order.
EVENT_COLUMNS = (
    "run_id",
    "seed",
    "incident",
    "agent_id",
    "role",
    "kind",
    "t",
    "elapsed_s",
    "since_killing_s",
    "step",
    "lon",
    "lat",
    "city",
    "rule",
    "citation",
)
#: Columns of `Run.trajectories`, in order (plus ``geometry``, Points in EPSG:4326).
TRACK_COLUMNS = (
    "run_id",
    "seed",
    "agent_id",
    "incident",
    "role",
    "t",
    "step",
    "elapsed_s",
    "since_killing_s",
    "in_asylum",
    "city",
    "captured",
)


@dataclass(frozen=True)
class Run:
    """One simulation run.

    Attributes
    ----------
    scenario, seed, run_id
        What was run: ``run_id`` is ``{scenario.name}-{scenario.key}-s{seed}``.
    events
        One row per event (`EVENT_COLUMNS`): ``t`` a tz-naive datetime (the scenario's nominal
        ``start`` plus ``elapsed_s``, kept for the clock of MovingPandas), ``since_killing_s``
        (the time since his killing: the clock a reader should use; NaN for a priest),
        ``lon``/``lat`` in WGS84 degrees, ``city`` ("" if none), ``rule`` and ``citation``.
        Kinds: `refuge_map.simulation.events.EVENT_KINDS` and ``EXILE_KINDS``. The text
        columns (``run_id``, ``agent_id``, `refuge_map.simulation.events.TEXT_FIELDS`) are
        categorical; the files hold them as text.
    tracks
        One row per (agent, time) (`TRACK_COLUMNS`, then WGS84 ``lon`` and ``lat`` in degrees),
        as columns: the text columns categorical, no geometry object per point (`trajectories`
        is the same rows as a GeoDataFrame, built when asked for); ``agent_id`` like
        ``i0003-fugitive``, ``i0003-avenger``, ``i0003-escort1``.
    summary
        JSON-ready: outcomes, time to asylum, distance run, overall and by city; ``parameters``
        (`refuge_map.simulation.provenance.parameters`: every number with its provenance); ``trees``
        (`trees_of`) when the scenario has trees; ``exile`` with an exile.
    opinions
        The opinions and options used (cubit, techum, bough opinion, designation, year; the
        exile's under ``exile``).
    manslayers, ledger, priests, residence
        Simulation II, when the scenario has an ``exile`` section (else None): one row per
        manslayer (`refuge_map.simulation.events.EXILE_OUTCOMES`, with the ``rule`` and
        ``citation`` of his outcome), the rent paid to the Levites (Mishnah Makkot 2:8), the
        succession of priests, and the years in the city (`ExileLife.residence`).
    replications
        From `refuge_map.simulation.model.replicate`: one row per replication (its ``seed``
        and `refuge_map.simulation.replications.headline` outcomes); None for a single run.
    """

    scenario: Scenario
    seed: int
    run_id: str
    events: pd.DataFrame
    tracks: pd.DataFrame
    summary: dict[str, Any]
    opinions: dict[str, Any]
    manslayers: pd.DataFrame | None = None
    ledger: pd.DataFrame | None = None
    priests: pd.DataFrame | None = None
    residence: pd.DataFrame | None = None
    replications: pd.DataFrame | None = None

    @cached_property
    def trajectories(self) -> gpd.GeoDataFrame:
        """`tracks` as a GeoDataFrame (`TRACK_COLUMNS`, text as strings, Point geometry in
        EPSG:4326): one shapely Point per row, so built only when asked for."""
        import geopandas as gpd
        import pandas as pd

        frame = pd.DataFrame({name: _plain(self.tracks[name]) for name in TRACK_COLUMNS})
        points = shapely.points(self.tracks["lon"].to_numpy(), self.tracks["lat"].to_numpy())
        return gpd.GeoDataFrame(frame, geometry=points, crs=WGS84)

    def lines(self) -> gpd.GeoDataFrame:
        """One LineString per agent (EPSG:4326) with its run, role, incident and time span."""
        import geopandas as gpd
        import pandas as pd

        codes, agents = _text_codes(self.tracks["agent_id"])
        order = _lexorder(self.tracks["step"].to_numpy(), codes)
        codes = codes[order]
        column = {name: self.tracks[name].to_numpy()[order] for name in _LINE_COLUMNS}
        coords = np.column_stack([column["lon"], column["lat"]])
        geometry = shapely.linestrings(coords, indices=codes)
        # each agent's rows, by step: his first and his last (codes are never negative)
        start = np.flatnonzero(np.diff(codes, prepend=-1))
        last = np.flatnonzero(np.diff(codes, append=-1))
        frame = pd.DataFrame(
            {
                "run_id": self.run_id,
                "seed": self.seed,
                "agent_id": agents,
                "incident": column["incident"][start],
                "role": _plain(self.tracks["role"].iloc[order[start]].reset_index(drop=True)),
                "t_start": np.minimum.reduceat(column["t"], start),
                "t_end": np.maximum.reduceat(column["t"], start),
                "captured": np.maximum.reduceat(column["captured"], start),
                "in_asylum": column["in_asylum"][last],
            }
        )
        return gpd.GeoDataFrame(frame, geometry=geometry, crs=WGS84)


#: The columns of `Run.tracks` that `Run.lines` reads row by row.
_LINE_COLUMNS = ("lon", "lat", "incident", "t", "captured", "in_asylum")


def _text_codes(column: pd.Series) -> tuple[NDArray[np.intp], NDArray[np.str_]]:
    """The distinct texts of a column in text order, and each row's index among them (as
    ``pd.factorize(column, sort=True)``; a categorical's codes where its categories are in text
    order already)."""
    import pandas as pd

    if isinstance(column.dtype, pd.CategoricalDtype):
        categories = column.cat.categories
        if categories.is_monotonic_increasing:
            present, codes = _dense_unique(column.cat.codes.to_numpy(), len(categories))
            return codes, categories.to_numpy(dtype=str)[present]
    codes, texts = pd.factorize(_plain(column), sort=True)
    return codes, np.asarray(texts, dtype=str)


def _dense_unique(
    values: NDArray[np.integer[Any]], span: int
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """``np.unique(values, return_inverse=True)`` of integers in ``[0, span)``, counted
    rather than sorted: the distinct values in order and each row's index among them (a
    run's rows are many, their values few and dense; sorted where one is negative)."""
    values = np.asarray(values, dtype=np.intp)
    if values.size and values.min() < 0:
        distinct, inverse = np.unique(values, return_inverse=True)
        return distinct, inverse
    present = np.bincount(values, minlength=span) > 0
    rank = np.cumsum(present) - 1
    return np.flatnonzero(present), rank[values]


def _plain(column: pd.Series) -> pd.Series | NDArray[Any]:
    """A categorical column as plain strings (as its file holds it); others as they are."""
    import pandas as pd

    if isinstance(column.dtype, pd.CategoricalDtype):
        return column.astype("str")
    return column


#: Agents of an incident: (role, agent id suffix), by agent code.
AGENTS = (
    ("fugitive", "fugitive"),
    ("avenger", "avenger"),
    ("escort", "escort1"),
    ("escort", "escort2"),
)


def agent_ids(incident: NDArray[np.int64], code: NDArray[np.int64], n: int) -> pd.Categorical:
    """``i{incident:04d}-{suffix}`` for each row (wider numbers for 10,000 incidents or more),
    categorical: each agent's id written once (its bytes by numpy, no Python string per
    agent), the categories in the ids' text order."""
    import pandas as pd

    width = max(4, len(str(n - 1)))
    by_name = np.argsort([suffix for _, suffix in AGENTS]).argsort()  # suffix -> text rank
    key = np.asarray(incident, dtype=np.int64) * len(AGENTS) + by_name[code]
    keys, codes = _dense_unique(key, int(n) * len(AGENTS))
    suffixes = [f"-{suffix}" for suffix in sorted(suffix for _, suffix in AGENTS)]
    names = _texts(keys // len(AGENTS), width, keys % len(AGENTS), suffixes)
    return pd.Categorical.from_codes(codes, categories=pd.Index(names, dtype="str"))


def _texts(
    number: NDArray[np.int64], width: int, which: NDArray[np.int64], suffixes: list[str]
) -> pa.Array:
    """``f"i{number:0{width}d}{suffixes[which]}"`` for each row (ASCII suffixes, numbers of
    at most `width` digits) as an Arrow string array, spelled out byte by byte by numpy."""
    import pyarrow as pa

    tails = [suffix.encode("ascii") for suffix in suffixes]
    length = 1 + width + np.array([len(tail) for tail in tails])[which]
    offsets = np.zeros(len(number) + 1, dtype=np.int64)
    np.cumsum(length, out=offsets[1:])
    start = offsets[:-1]
    data = np.empty(int(offsets[-1]), dtype=np.uint8)
    data[start] = ord("i")
    for k in range(width):  # the digits, most significant first
        data[start + 1 + k] = ord("0") + number // 10 ** (width - 1 - k) % 10
    for kind, tail in enumerate(tails):
        rows = start[which == kind] + 1 + width
        for k, byte in enumerate(tail):
            data[rows + k] = byte
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    return pa.Array.from_buffers(pa.large_string(), len(number), buffers)


def _one_text(value: str, n: int) -> pd.Categorical:
    """`value` for each of `n` rows, categorical."""
    import pandas as pd

    return pd.Categorical.from_codes(
        np.zeros(n, np.int8), categories=pd.Index([value], dtype="str")
    )


def opinions_of(scenario: Scenario, flight: Flight) -> dict[str, Any]:
    """The opinions a run was made under, as JSON-ready values."""
    network = flight.world.network
    activation = network.designation.activation_time
    options = scenario.network.model_dump(mode="json")
    refuges, cities = scenario.network.refuges, scenario.cities
    return {
        **network.options,
        "designation": options["designation"],
        "activation_year": activation if math.isfinite(activation) else None,
        "year": scenario.year,
        "avenger_knows": scenario.avenger.knows,
        "signposts": scenario.network.signposts,
        "capture_m": scenario.avenger.capture_m,
        "escorts": scenario.escorts.model_dump(),
        "refuges": {refuges: DISPUTES["network.refuges"].holds[refuges]},
        "added_cities": options["added_cities"],
        "knows_law_p": scenario.fugitive.knows_law_p,
        "cities": {
            **cities.model_dump(mode="json", exclude={"no_elders"}),
            "no_elders": {cities.no_elders: DISPUTES["cities.no_elders"].holds[cities.no_elders]},
        },
    }


def make_run(scenario: Scenario, seed: int, flight: Flight, life: ExileLife | None = None) -> Run:
    """Assemble a `Run` from the end state of the flight and of the exile (Simulation II).

    Parameters
    ----------
    scenario
        The scenario the run followed.
    seed
        The run's root seed (in its ``run_id`` and every table's ``seed`` column).
    flight
        The flight and pursuit, run to their end (`run_flight`).
    life
        The years in exile (`live_in_exile`); None if the scenario has no exile.

    Returns
    -------
    Run
        The events, trajectories, summary and opinions (and the exile's tables, with `life`).
    """
    release_freed(flight.world.n)  # what the flight's working arrays held, before the tables
    run_id = f"{scenario.name}-{scenario.key}-s{seed}"
    events = _events(flight, life, scenario, run_id, seed)
    tracks = _trajectories(flight, scenario, run_id, seed)
    summary = summarize(flight.outcomes, events)
    opinions = opinions_of(scenario, flight)
    summary["cities"] = flight.reception.summary()
    if flight.world.has_tree.any():
        summary["trees"] = trees_of(flight.world)
    if life is not None:
        opinions["exile"] = life.opinions
        summary["exile"] = summarize_exile(life)
    summary = {
        "run_id": run_id,
        "scenario": scenario.name,
        "seed": seed,
        "opinions": opinions,
        "parameters": parameters(scenario),
        **summary,
    }
    tables = () if life is None else _tables(life, events, run_id, seed)
    return Run(scenario, seed, run_id, events, tracks, summary, opinions, *tables)


def trees_of(world: World) -> list[dict[str, Any]]:
    """The trees the manslayers run for (Mishnah Makkot 2:7): per incident with a tree, its
    ``trunk`` and ``bough`` as WGS84 ``[lon, lat]`` (as the engine resolved them) and whether
    he stands ``at_trunk``."""
    idx = np.flatnonzero(world.has_tree)
    trunk = np.column_stack(to_lonlat(world.trunk[idx, 0], world.trunk[idx, 1])).round(6)
    bough = np.column_stack(to_lonlat(world.bough[idx, 0], world.bough[idx, 1])).round(6)
    return [
        {
            "incident": int(i),
            "trunk": trunk[k].tolist(),
            "bough": bough[k].tolist(),
            "at_trunk": bool(world.at_trunk[i]),
        }
        for k, i in enumerate(idx)
    ]


def _tables(
    life: ExileLife, events: pd.DataFrame, run_id: str, seed: int
) -> tuple[pd.DataFrame, ...]:
    """The exile's tables (manslayers with the rule and citation of each outcome, ledger,
    priests, residence) with the run's id and seed in front."""
    manslayers = life.manslayers.join(outcome_rules(life.manslayers["outcome"], events))
    tables = []
    for frame in (manslayers, life.ledger, life.priests, life.residence):
        table = as_table(frame)
        table.insert(0, "seed", seed)
        table.insert(0, "run_id", run_id)
        tables.append(table)
    return tuple(tables)


def as_table(frame: pd.DataFrame) -> pd.DataFrame:
    """An exile frame as a run's table holds it: a named index (``incident``) as a column, an
    unnamed one dropped."""
    return frame.reset_index(drop=frame.index.name is None)


def outcome_rules(outcome: pd.Series, events: pd.DataFrame) -> pd.DataFrame:
    """The ``rule`` and ``citation`` of each manslayer's outcome: those of the last event of his
    incident whose kind ends that way (`OUTCOME_EVENTS`), as the events table wrote them ("" if
    there is none); found by codes, no text per row."""
    import pandas as pd

    kinds = pd.Categorical(events["kind"])
    incident = events["incident"].to_numpy(np.int64)
    rows = np.flatnonzero(incident >= 0)
    key = incident[rows] * len(kinds.categories) + kinds.codes[rows]
    # each (incident, kind) once, with the row of its last event
    keys, from_end = np.unique(key[::-1], return_index=True)
    last = rows[::-1][from_end]
    kind = kinds.categories.get_indexer(pd.Index(outcome.map(OUTCOME_EVENTS).fillna("")))
    wanted = outcome.index.to_numpy(np.int64) * len(kinds.categories) + kind
    at = np.searchsorted(keys, wanted)
    found = (kind >= 0) & (at < len(keys))
    found[found] = keys[at[found]] == wanted[found]
    return pd.DataFrame(
        {name: _texts_at(events[name], last[at[found]], found) for name in ("rule", "citation")},
        index=outcome.index,
    )


def _texts_at(column: pd.Series, rows: NDArray[np.intp], found: NDArray[np.bool_]) -> NDArray[Any]:
    """The texts of a categorical `column` at `rows`, one for each True of `found`, and ""
    elsewhere (and for a missing value)."""
    texts = np.append(column.cat.categories.to_numpy(str), "")  # code -1 (missing) reads ""
    result = np.full(len(found), "", dtype=texts.dtype)
    result[found] = texts[column.cat.codes.to_numpy()[rows]]
    return result


def _clock(scenario: Scenario, elapsed_s: ArrayLike) -> pd.DatetimeIndex:
    import pandas as pd

    return pd.Timestamp(scenario.start) + pd.to_timedelta(
        np.asarray(elapsed_s, dtype=float), unit="s"
    )


def _events(
    flight: Flight, life: ExileLife | None, scenario: Scenario, run_id: str, seed: int
) -> pd.DataFrame:
    import pandas as pd

    raw = flight.events
    if life is not None:  # one clock: the exile's events after the flight's
        raw = concat_events([raw, life.events])
        order = np.lexsort((raw["incident"].to_numpy(), raw["t_s"].to_numpy()))
        raw = raw.take(order).reset_index(drop=True)
    lon, lat = to_lonlat(raw["x"].to_numpy(float), raw["y"].to_numpy(float))
    incident = raw["incident"].to_numpy(np.int64)
    t_s = raw["t_s"].to_numpy(float)
    events = pd.DataFrame(
        {
            "run_id": _one_text(run_id, len(raw)),
            "seed": seed,
            "incident": incident,
            "agent_id": _event_agents(raw, flight.world.n),
            "role": raw["role"],
            "kind": raw["kind"],
            "t": _clock(scenario, t_s),
            "elapsed_s": t_s,
            "since_killing_s": np.where(
                incident >= 0, t_s - flight.world.t0_s[np.maximum(incident, 0)], np.nan
            ),
            "step": raw["step"].to_numpy(np.int64),
            "lon": lon,
            "lat": lat,
            "city": raw["city"],
            "rule": raw["rule"],
            "citation": raw["citation"],
        },
        columns=list(EVENT_COLUMNS),
    )
    return events


def _event_agents(raw: pd.DataFrame, n: int) -> pd.Categorical:
    """The agent of each event: ``i0003-fugitive`` or ``i0003-avenger``; a priest's role
    (Simulation II: he is of no incident, incident -1)."""
    import pandas as pd

    incident = raw["incident"].to_numpy(np.int64)
    ours = incident >= 0
    role = pd.Categorical(raw["role"])  # (its codes: no string per row)
    code = np.where(role.codes == role.categories.get_indexer(pd.Index(["fugitive"]))[0], 0, 1)
    ids = agent_ids(incident[ours], code[ours], n)
    if ours.all():
        return ids
    priests = pd.Categorical(role.categories.to_numpy(str)[role.codes[~ours]])
    texts = [ids.categories.to_numpy(str), priests.categories.to_numpy(str)]
    categories = pd.Index(np.concatenate(texts), dtype="str")
    codes = np.empty(len(raw), dtype=np.int64)
    codes[ours] = ids.codes
    codes[~ours] = priests.codes.astype(np.int64) + len(ids.categories)
    return pd.Categorical.from_codes(codes, categories=categories)


def _trajectories(flight: Flight, scenario: Scenario, run_id: str, seed: int) -> pd.DataFrame:
    import pandas as pd

    tracks = flight.tracks  # the flight only: the years in the city are in `Run.residence`
    codes = [np.asarray(tracks["role"], dtype=np.int64)]  # 0 fugitive, 1 avenger
    if scenario.escorts.enabled:  # two disciples of the Sages walk with him (Mishnah Makkot 2:5)
        codes += [np.where(codes[0] == 0, escort, -1) for escort in (2, 3)]
    code = np.concatenate(codes)
    keep = np.flatnonzero(code >= 0)
    rows = np.tile(np.arange(len(codes[0])), len(codes))[keep]
    code = code[keep]
    by_name = np.argsort([suffix for _, suffix in AGENTS]).argsort()  # rows in agent_id order
    order = _lexorder(tracks["step"][rows], by_name[code], tracks["incident"][rows])
    rows, code = rows[order], code[order]
    incident = tracks["incident"][rows].astype(np.int64)
    step = tracks["step"][rows].astype(np.int64)
    city = tracks["city"][rows].astype(np.int64)
    # each recorded position unprojected once: an escort's rows are his fugitive's
    lon, lat = (degrees[rows] for degrees in to_lonlat(tracks["x"], tracks["y"]))
    elapsed = step * flight.dt_s
    names, role_codes = np.unique([role for role, _ in AGENTS], return_inverse=True)
    roles = pd.Categorical.from_codes(role_codes[code], categories=pd.Index(names, dtype="str"))
    return pd.DataFrame(
        {
            "run_id": _one_text(run_id, len(rows)),
            "seed": seed,
            "agent_id": agent_ids(incident, code, flight.world.n),
            "incident": incident,
            "role": roles,
            "t": _clock(scenario, elapsed),
            "step": step,
            "elapsed_s": elapsed.astype(float),
            "since_killing_s": elapsed - flight.world.t0_s[incident],
            "in_asylum": city >= 0,
            "city": pd.Categorical.from_codes(
                np.where(city >= 0, city, len(flight.world.city_ids)),
                categories=pd.Index([*flight.world.city_ids, ""], dtype="str"),
            ),
            "captured": tracks["captured"][rows].astype(bool),
            "lon": lon,
            "lat": lat,
        },
        columns=[*TRACK_COLUMNS, "lon", "lat"],
        copy=False,  # its columns are new arrays: kept as they are, not copied into 2-D blocks
    )


def _lexorder(*keys: NDArray[np.integer[Any]]) -> NDArray[np.intp]:
    """``np.lexsort(keys)`` (the last key sorts first) of integer keys, as one stable sort of a
    64-bit key made of them: a radix sort, several times faster on a run's rows (lexsort
    itself where a key is negative or the combined key would not fit); no sort at all where
    the rows are in order already (a run's trajectories, as `Run.lines` reads them)."""
    if len(keys[0]) == 0:
        return np.empty(0, dtype=np.intp)
    columns = [np.asarray(key, dtype=np.int64) for key in keys]
    spans = [int(column.max()) + 1 for column in columns]
    if min(int(column.min()) for column in columns) < 0 or math.prod(spans) >= 2**63:
        return np.lexsort(columns)
    combined = np.zeros(len(columns[0]), dtype=np.int64)
    for column, span in zip(columns[::-1], spans[::-1], strict=True):  # most significant first
        combined = combined * span + column
    if (combined[1:] >= combined[:-1]).all():
        return np.arange(len(combined))
    return np.argsort(combined, kind="stable")


def _stats(values: NDArray[np.float64], scale: float) -> dict[str, float] | None:
    # numpy, as pandas computes them (linear quantiles), without its per-call cost
    x = values[~np.isnan(values)] / scale
    if x.size == 0:
        return None
    return {
        "mean": round(float(x.mean()), 4),
        "median": round(float(np.median(x)), 4),
        "p90": round(float(np.quantile(x, 0.9)), 4),
        "max": round(float(x.max()), 4),
    }


def _columns(outcomes: Outcomes) -> dict[str, NDArray[Any]]:
    """The outcome columns `_block` reads, as numpy arrays (read once for every block): the
    ``outcome`` as its index in `FLIGHT_OUTCOMES` (-1 for none of them)."""
    return {
        "outcome": codes_of(outcomes["outcome"], FLIGHT_OUTCOMES),
        "deterred": np.asarray(outcomes["deterred"], dtype=bool),
        "gave_up": np.asarray(outcomes["gave_up"], dtype=bool),
        "end_s": np.asarray(outcomes["end_s"], dtype=np.float64),
        "run_m": np.asarray(outcomes["run_m"], dtype=np.float64),
    }


def _block(
    columns: dict[str, NDArray[Any]], rows: NDArray[np.intp] | None = None
) -> dict[str, Any]:
    c = columns if rows is None else {name: column[rows] for name, column in columns.items()}
    code = c["outcome"]
    counts = np.bincount(code[code >= 0], minlength=len(FLIGHT_OUTCOMES))
    arrived = code == FLIGHT_OUTCOMES.index(ARRIVAL)
    return {
        "incidents": len(code),
        "outcomes": dict(zip(FLIGHT_OUTCOMES, map(int, counts), strict=True)),
        "deterred": int(np.count_nonzero(c["deterred"])),
        "gave_up": int(np.count_nonzero(c["gave_up"])),
        "time_to_asylum_h": _stats(np.where(arrived, c["end_s"], np.nan), 3600.0),
        "distance_run_km": _stats(c["run_m"], 1000.0),
    }


def overall_of(outcomes: Outcomes) -> dict[str, Any]:
    """The ``overall`` block of `summarize` alone (all a replication's headline reads), of a
    flight's `outcomes` table or its `outcome_columns`."""
    return _block(_columns(outcomes))


def summarize(outcomes: pd.DataFrame, events: pd.DataFrame) -> dict[str, Any]:
    """Outcomes by kind, time to asylum (hours) and distance run (km), overall and by the city
    each manslayer ran for; plus the count of every event kind."""
    import pandas as pd

    columns = _columns(outcomes)
    heading, cities = pd.factorize(outcomes["heading"], sort=True)
    order = np.argsort(heading, kind="stable")  # each city's rows, in incident order
    ends = np.searchsorted(heading[order], np.arange(len(cities) + 1))
    by_city = {
        str(city): _block(columns, order[ends[k] : ends[k + 1]]) for k, city in enumerate(cities)
    }
    return {
        "overall": _block(columns),
        "by_city": by_city,
        "events": {str(k): int(v) for k, v in sorted(events["kind"].value_counts().items()) if v},
    }
