"""Simulation II: the manslayer's life after the flight: trial, verdict, the city, release.

Design. The trial leg is computed in closed form per manslayer (numpy over incidents): the road
distance from where he entered the refuge to the court of his own town, walked out and back at
his road speed; an attack by the avenger lies at an exponential distance along each way. The
years in the city run as a discrete-event loop whose rounds are vectorized over the exiles still
living there: each round draws, for all of them at once, the next time he goes out beyond the
boundary and the next time he kills again (competing exponential clocks, memoryless, so drawing
them anew each round is exact), and compares them with his release and his death. The loop runs
once per event of the busiest exile, never per agent or per year, so the cost is O(events).

Years are Julian years (`YEAR_S`) on the flight's clock: one clock, one events table, one Run.
All draws come from streams spawned from ``SeedSequence(seed, spawn_key=(EXILE_STREAM,))``, one
per purpose, so the flight's draws are untouched and an opinion changes only what it governs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd
import shapely
from numpy.typing import NDArray

from geo import BOUGH_OPINIONS, to_metric
from geo.gazetteer import named_places
from refuge_map.law import Case, Ruling, judge
from refuge_map.simulation.priesthood import (
    WAR_PRIEST_OPINIONS,
    YEAR_S,
    Succession,
    draw_succession,
)
from refuge_map.simulation.scenario_exile import (
    BOUNDARY_OPINIONS,
    OFFICE_OPINIONS,
    RENT_OPINIONS,
    ExileOptions,
)

if TYPE_CHECKING:
    from refuge_map.simulation._setup import World
    from refuge_map.simulation.engine import Flight

Floats = NDArray[np.float64]
Ints = NDArray[np.intp]
Bools = NDArray[np.bool_]

#: Spawn key of the exile's seed stream, far from the flight's streams (`_setup.STREAMS`).
EXILE_STREAM = 100
_STREAMS = ("cases", "people", "trial", "high_priests", "war_priests", "city")
DAY_S = 86_400.0
#: Metres between the Sabbath boundary and where a manslayer who goes out stands (or the tree's
#: trunk and its boughs), either side of the line.
OUTSIDE_M, BOUGH_M = 50.0, 10.0

#: Event kinds of Simulation II, each with its default rule and citation.
EXILE_KINDS: dict[str, tuple[str, str]] = {
    "trial_start": (
        "the court of his town sends for him: he is brought to trial under escort",
        "Numbers 35:24; Mishnah Makkot 2:5-6",
    ),
    "deterred": (
        "on the trial leg the escorts speak to the avenger and he desists",
        "Numbers 35:25; Mishnah Makkot 2:5",
    ),
    "killed_on_trial_road": (
        "outside the refuge, on the way to or from his trial, the avenger who kills him is "
        "not liable",
        "Numbers 35:27; Rambam, Rotzeach 5:9-10",
    ),
    "verdict": ("the assembly judges between the smiter and the avenger", "Numbers 35:24"),
    "executed": (
        "a murderer: the court of his town executes him",
        "Numbers 35:16-21; Mishnah Makkot 2:6 (R. Yose bar Judah)",
    ),
    "sent_home": ("he is not exiled: he goes home", "Mishnah Makkot 2:6"),
    "returned_to_city": (
        "the assembly restores him to the city of refuge to which he fled",
        "Numbers 35:25",
    ),
    "left_boundary": (
        "he goes out beyond the Sabbath boundary, which protects as the city does and no further",
        "Numbers 35:26-27; Mishnah Makkot 2:7",
    ),
    "in_boundary_tree": (
        "he is in a tree at the edge: it all follows the boughs",
        "Mishnah Makkot 2:7; Makkot 12a-b",
    ),
    "returned_inside": (
        "nobody found him outside; he goes back within the boundary",
        "Mishnah Makkot 2:7",
    ),
    "killed_outside_boundary": (
        "outside the boundary the avenger finds him and kills him (the rule text names the "
        "opinion followed)",
        "Numbers 35:27; Mishnah Makkot 2:7",
    ),
    "killed_again": (
        "he killed again in error inside the city of refuge",
        "Mishnah Makkot 2:7",
    ),
    "moved_neighbourhood": (
        "he is banished from one neighbourhood to another",
        "Mishnah Makkot 2:7; Makkot 12b",
    ),
    "moved_city": (
        "a Levite is banished from one city to another (here: the nearest other city by road)",
        "Mishnah Makkot 2:7; Makkot 12b",
    ),
    "high_priest_died": (
        "the high priest dies: those exiled in his days go home",
        "Numbers 35:25, 28; Mishnah Makkot 2:6",
    ),
    "released": (
        "at the death of the high priest he returns to the land of his possession",
        "Numbers 35:25, 28; Mishnah Makkot 2:6",
    ),
    "died_in_exile": (
        "he dies in his city of refuge ('there his death'); his bones go to his family's grave "
        "at the high priest's death",
        "Mishnah Makkot 2:7; Makkot 11b; Rambam, Rotzeach 7:3",
    ),
    "rent_paid": ("he pays rent to the Levites (R. Judah)", "Mishnah Makkot 2:8"),
    "exile_horizon": ("still in his city of refuge when the simulation ends", "Numbers 35:28"),
}

#: The outcome of every manslayer, flight included.
OUTCOMES = (
    "caught_in_flight",
    "flight_unfinished",
    "killed_on_trial_road",
    "executed",
    "sent_home",
    "spared",
    "released",
    "died_in_exile",
    "killed_outside_boundary",
    "in_exile_at_horizon",
)
#: Why an exile never leaves (Mishnah Makkot 2:7), keyed as in results.
LIFE_REASONS = {
    "he killed a high priest": "killed_high_priest",
    "a high priest killed": "high_priest_killed",
    "no high priest in office at the verdict": "no_high_priest_at_verdict",
}
_NO_HIGH_PRIEST = "no high priest in office at the verdict"
_EVENT_FIELDS = ("incident", "role", "kind", "t_s", "step", "x", "y", "city", "rule", "citation")


@dataclass
class _Log:
    """Events of the exile phase and the fugitive's trajectory rows (one per event)."""

    dt_s: float
    city_ids: tuple[str, ...]
    parts: list[dict[str, Any]] = field(default_factory=list)

    def add(
        self,
        kind: str,
        idx: Ints,
        t_s: Floats,
        xy: Floats,
        city: Ints,
        *,
        inside: Bools | bool = False,
        role: str = "fugitive",
        rule: Any = None,
        citation: Any = None,
    ) -> None:
        """Log `kind` for incidents `idx` at times `t_s` (seconds), positions `xy`, in `city`."""
        if len(idx) == 0:
            return
        default_rule, default_citation = EXILE_KINDS[kind]
        n = len(idx)
        names = np.array([*self.city_ids, ""])[np.asarray(city)]
        self.parts.append(
            {
                "incident": np.asarray(idx),
                "role": np.full(n, role),
                "kind": np.full(n, kind),
                "t_s": np.asarray(t_s, dtype=float),
                "step": np.rint(np.asarray(t_s) / self.dt_s).astype(np.int64),
                "x": xy[:, 0],
                "y": xy[:, 1],
                "city": names,
                "rule": np.broadcast_to(default_rule if rule is None else rule, n),
                "citation": np.broadcast_to(default_citation if citation is None else citation, n),
                "inside": np.broadcast_to(inside, n),
                "captured": np.full(n, kind in _DEATHS_BY_HAND),
            }
        )

    def frame(self) -> pd.DataFrame:
        """All events, ordered by time and incident."""
        if not self.parts:
            return pd.DataFrame(columns=[*_EVENT_FIELDS, "inside", "captured"])
        joined = pd.DataFrame(
            {k: np.concatenate([p[k] for p in self.parts]) for k in self.parts[0]}
        )
        return joined.sort_values(["t_s", "incident"], kind="stable").reset_index(drop=True)


_DEATHS_BY_HAND = frozenset({"killed_on_trial_road", "killed_outside_boundary", "executed"})


@dataclass(frozen=True)
class ExileLife:
    """What Simulation II adds to a run.

    Attributes
    ----------
    events
        The flight's event columns (incident, role, kind, ``t_s``, step, metric x/y, city, rule,
        citation); priests' deaths have incident -1.
    tracks
        The fugitive's position at each of his events: incident, role code 0, step, x, y, city
        index (-1 outside asylum), captured.
    manslayers
        One row per incident: ``outcome`` (`OUTCOMES`), case, verdict, city, life exile and why,
        years in exile, Levite, office, moves and goings-out.
    ledger
        Rent paid to the Levites (Mishnah Makkot 2:8), one row per stay in a city; empty under
        R. Meir.
    priests
        The succession (`Succession.priests`).
    opinions
        The exile's opinions (law, boundary, war priest, office, rent, bough).
    """

    events: pd.DataFrame
    tracks: dict[str, NDArray[Any]]
    manslayers: pd.DataFrame
    ledger: pd.DataFrame
    priests: pd.DataFrame
    opinions: dict[str, Any]


@dataclass
class _People:
    """Per-incident facts and state, index ``i`` = incident ``i``."""

    case: Ints
    verdict: NDArray[np.str_]
    life_reason: NDArray[np.object_]  # "" unless he never leaves
    tried: Bools
    levite: Bools
    office: Bools
    death_y: Floats
    city: Ints
    outcome: NDArray[np.object_]
    entered_y: Floats
    end_y: Floats
    release_y: Floats
    deterred: NDArray[np.int64]
    left: NDArray[np.int64]
    killed_again: NDArray[np.int64]


def _rate(p: float) -> float:
    """A yearly chance as a rate per year."""
    return -float(np.log1p(-p))


def _rngs(seed: int) -> dict[str, np.random.Generator]:
    children = np.random.SeedSequence(seed, spawn_key=(EXILE_STREAM,)).spawn(len(_STREAMS))
    return dict(zip(_STREAMS, map(np.random.default_rng, children), strict=True))


def _assign_cases(options: ExileOptions, n: int, rng: np.random.Generator) -> Ints:
    """The case of each incident: drawn by weight, or case ``i mod len`` in order."""
    if options.assign == "in_order":
        return np.arange(n) % len(options.cases)
    weights = np.array([choice.weight for choice in options.cases])
    return rng.choice(len(weights), size=n, p=weights / weights.sum())


def _again(case: Case, levite: bool) -> Case:
    """The same facts, the killing now inside the city of refuge, by a Levite or not."""
    data = case.model_dump()
    data["inside_city_of_refuge"] = True
    data["killer"]["levite"] = levite
    return Case.model_validate(data)


def _can_be_levite(case: Case) -> bool:
    return not case.killer.high_priest and case.killer.status == "israelite"


def _people(
    flight: Flight, options: ExileOptions, rulings: list[Ruling], rngs: dict[str, Any]
) -> _People:
    """The facts of every incident's case and the manslayer's age, lineage, office and death."""
    n, cases = flight.world.n, [choice.case for choice in options.cases]
    case = _assign_cases(options, n, rngs["cases"])
    rng = rngs["people"]
    age = rng.uniform(*options.age_years, n)
    levite_draw = rng.uniform(size=n) < options.levite_share
    office = rng.uniform(size=n) < options.office_share
    killed_y = flight.world.t0_s / YEAR_S
    death_y = killed_y + options.priesthood.mortality.remaining_years(rng, age)
    levite = np.array([c.killer.levite for c in cases])[case] | (
        levite_draw & np.array([_can_be_levite(c) for c in cases])[case]
    )
    reasons = [(r.consequences and r.consequences.life_exile_reason) or "" for r in rulings]
    city = pd.Index(flight.world.network.city_ids).get_indexer(flight.outcomes["city"])
    return _People(
        case=case,
        verdict=np.array([r.verdict for r in rulings])[case],
        life_reason=np.array(reasons, dtype=object)[case],
        tried=np.zeros(n, dtype=bool),
        levite=levite,
        office=office,
        death_y=death_y,
        city=city,
        outcome=np.where(flight.outcomes["outcome"] == "capture", "caught_in_flight", "").astype(
            object
        ),
        entered_y=np.full(n, np.nan),
        end_y=np.full(n, np.nan),
        release_y=np.full(n, np.inf),
        deterred=np.zeros(n, np.int64),
        left=np.zeros(n, np.int64),
        killed_again=np.zeros(n, np.int64),
    )


# --------------------------------------------------------------------------- the trial leg


@dataclass(frozen=True)
class _Leg:
    """The way between where he entered the refuge and the court of his town."""

    world: World
    start: tuple[Ints, Floats, Floats]
    court: tuple[Ints, Floats, Floats]
    dist_m: Floats
    speed: Floats

    @classmethod
    def of(cls, world: World, start_xy: Floats) -> _Leg:
        start, court = world.snap(start_xy), world.snap(world.killer_home)
        road = world.graph.road_distance(start[0], start[1], court[0], court[1])
        straight = np.hypot(*(start_xy - world.killer_home).T)
        dist = np.where(np.isfinite(road), start[2] + road + court[2], straight)
        return cls(world, start, court, dist, world.fugitive_road)

    def point(self, idx: Ints, along_m: Floats, *, outward: bool) -> Floats:
        """Road positions `along_m` metres from the refuge (outward) or from the court."""
        origin, target = (self.start, self.court) if outward else (self.court, self.start)
        budget = np.maximum(along_m - origin[2][idx], 0.0)
        graph = self.world.graph
        edge, s, _, _ = graph.walk(
            origin[0][idx], origin[1][idx], budget, target[0][idx], target[1][idx]
        )
        return np.column_stack(graph.xy(edge, s))


def _attack(
    leg: _Leg, idx: Ints, t_s: Floats, trial: Any, rng: np.random.Generator, *, outward: bool
) -> tuple[Bools, Bools, Floats, Floats]:
    """Whether the avenger attacks on one way, whether the escorts turn him back, when, where."""
    rate = trial.strike_per_100km / 100_000.0
    along = rng.standard_exponential(len(idx)) / rate if rate > 0 else np.full(len(idx), np.inf)
    persuaded = rng.uniform(size=len(idx)) < trial.persuade_p
    struck = along < leg.dist_m[idx]
    at = np.where(struck, along, 0.0)
    return (
        struck,
        struck & persuaded,
        t_s + at / leg.speed[idx],
        leg.point(idx, at, outward=outward),
    )


def _way(
    log: _Log,
    people: _People,
    leg: _Leg,
    idx: Ints,
    t_s: Floats,
    trial: Any,
    rng: np.random.Generator,
    *,
    outward: bool,
) -> Bools:
    """Walk one way of the trial leg; log attacks; return who survives it."""
    struck, turned, when, where = _attack(leg, idx, t_s, trial, rng, outward=outward)
    killed = struck & ~turned
    city = people.city[idx]
    log.add("deterred", idx[turned], when[turned], where[turned], city[turned], role="avenger")
    log.add("killed_on_trial_road", idx[killed], when[killed], where[killed], city[killed])
    people.deterred[idx[turned]] += 1
    people.outcome[idx[killed]] = "killed_on_trial_road"
    people.end_y[idx[killed]] = when[killed] / YEAR_S
    return ~killed


def _verdict_texts(rulings: list[Ruling], case: Ints) -> tuple[NDArray[Any], NDArray[Any]]:
    """The finding and the citation of the rule that decided each incident's verdict."""
    deciding = [next(s for s in r.trace if s.decides) for r in rulings]
    rule = np.array([f"{r.verdict}: {s.finding}" for r, s in zip(rulings, deciding, strict=True)])
    return rule[case], np.array([s.citation for s in deciding])[case]


def _home_rule(rulings: list[Ruling], case: Ints) -> NDArray[Any]:
    """What the sources say of the avenger once one not exiled goes home."""
    texts = []
    for ruling in rulings:
        rule = next((s.rule for s in ruling.trace if s.decides), "")
        texts.append(
            "an enemy gets no refuge (close to deliberate): an avenger who kills him is not "
            "liable (Rambam, Rotzeach 6); not simulated"
            if rule == "enemy"
            else "not exiled: he goes home free; the sources read here say nothing more of the "
            "avenger"
        )
    return np.array(texts)[case]


def _trial(
    log: _Log,
    flight: Flight,
    people: _People,
    options: ExileOptions,
    succession: Succession,
    rulings: list[Ruling],
    rng: np.random.Generator,
) -> tuple[Ints, Floats]:
    """Fetch every arrived manslayer to trial and back; return the exiles and when they are back
    in their city (years)."""
    outcomes, trial = flight.outcomes, options.trial
    arrived = np.flatnonzero(outcomes["outcome"].to_numpy() == "arrival")
    people.outcome[outcomes["outcome"].to_numpy() == "horizon"] = "flight_unfinished"
    leg = _Leg.of(flight.world, outcomes[["x", "y"]].to_numpy(float))
    fetch_s = outcomes["end_s"].to_numpy(float)[arrived] + DAY_S * rng.uniform(
        *trial.days_until_trial, len(arrived)
    )
    start_xy = outcomes[["x", "y"]].to_numpy(float)[arrived]
    log.add("trial_start", arrived, fetch_s, start_xy, people.city[arrived], inside=True)
    alive = _way(log, people, leg, arrived, fetch_s, trial, rng, outward=True)
    tried, verdict_s = arrived[alive], (fetch_s + leg.dist_m[arrived] / leg.speed[arrived])[alive]
    court, city = flight.world.killer_home[tried], people.city[tried]
    rule, citation = _verdict_texts(rulings, people.case[tried])
    log.add("verdict", tried, verdict_s, court, city, rule=rule, citation=citation)
    people.tried[tried] = True
    verdict = people.verdict[tried]
    for kind, said in (("executed", "capital"), ("sent_home", "no_exile")):
        done = verdict == said
        rule = _home_rule(rulings, people.case[tried][done]) if kind == "sent_home" else None
        log.add(kind, tried[done], verdict_s[done], court[done], city[done], rule=rule)
        people.outcome[tried[done]] = kind
        people.end_y[tried[done]] = verdict_s[done] / YEAR_S
    exiled = verdict == "exile"
    return _sentence(log, people, leg, options, succession, tried[exiled], verdict_s[exiled], rng)


def _sentence(
    log: _Log,
    people: _People,
    leg: _Leg,
    options: ExileOptions,
    succession: Succession,
    idx: Ints,
    verdict_s: Floats,
    rng: np.random.Generator,
) -> tuple[Ints, Floats]:
    """The exile's term and his way back to the city (Numbers 35:25; Mishnah Makkot 2:6-7)."""
    release_y, _ = succession.release(verdict_s / YEAR_S, war_priest=options.priesthood.war_priest)
    reason = people.life_reason[idx]
    reason = np.where((reason == "") & ~np.isfinite(release_y), _NO_HIGH_PRIEST, reason)
    people.life_reason[idx] = reason
    life = reason != ""
    release_y = np.where(life, np.inf, release_y)
    depart_s = verdict_s + DAY_S * rng.uniform(*options.trial.return_delay_days, len(idx))
    back_s = depart_s + leg.dist_m[idx] / leg.speed[idx]
    # Mishnah Makkot 2:6: the verdict was given and the high priest died: he is not exiled.
    spared = release_y * YEAR_S < back_s
    court = leg.world.killer_home[idx]
    log.add(
        "sent_home",
        idx[spared],
        release_y[spared] * YEAR_S,
        court[spared],
        people.city[idx][spared],
        rule="the high priest died after the verdict, before he went into exile: he is not exiled",
    )
    people.outcome[idx[spared]] = "spared"
    people.end_y[idx[spared]] = release_y[spared]
    going = np.flatnonzero(~spared)
    alive = _way(log, people, leg, idx[going], depart_s[going], options.trial, rng, outward=False)
    back = going[alive]
    exiles = idx[back]
    people.release_y[exiles] = release_y[back]
    people.entered_y[exiles] = back_s[back] / YEAR_S
    log.add(
        "returned_to_city",
        exiles,
        back_s[back],
        _site_xy(leg.world, people.city[exiles]),
        people.city[exiles],
        inside=True,
    )
    return exiles, back_s[back] / YEAR_S


def _site_xy(world: World, city: Ints) -> Floats:
    """Metric positions of the cities' chosen sites (he dwells in the city itself, Makkot 12a)."""
    sites = world.network.cities["site"]
    return np.column_stack([shapely.get_x(sites.to_numpy()), shapely.get_y(sites.to_numpy())])[city]


# --------------------------------------------------------------------------- the years in the city


def _after(clock: Floats, draws: Floats, rate: float) -> Floats:
    """When a Poisson clock of `rate` per year next rings (never at rate 0)."""
    return clock + draws / rate if rate > 0 else np.full(len(clock), np.inf)


def _city_roads(world: World) -> Floats:
    """Road distance (metres) between the sites of every two cities; inf on the diagonal."""
    xy = _site_xy(world, np.arange(len(world.network.city_ids)))
    edge, s, off = world.snap(xy)
    k = len(xy)
    a, b = np.repeat(np.arange(k), k), np.tile(np.arange(k), k)
    dist = world.graph.road_distance(edge[a], s[a], edge[b], s[b]) + off[a] + off[b]
    return np.where(a == b, np.inf, dist).reshape(k, k)


@dataclass
class _City:
    """The years of the exiles in their cities, a round of events at a time."""

    log: _Log
    world: World
    people: _People
    options: ExileOptions
    succession: Succession
    placed: dict[tuple[int, bool], _Place]
    rng: np.random.Generator
    clock: Floats
    stay_from: Floats
    ledger: list[dict[str, Any]] = field(default_factory=list)

    def live(self, exiles: Ints) -> None:
        """Run every exile's years until release, death or the horizon."""
        people, options = self.people, self.options
        leave, again = _rate(options.boundary.leave_per_year), _rate(options.kill_again_per_year)
        live = exiles
        while live.size:  # one round per event of the busiest exile
            draws = self.rng.standard_exponential((2, live.size))
            t_leave = _after(self.clock[live], draws[0], leave)
            t_again = _after(self.clock[live], draws[1], again)
            t_end = np.minimum(
                np.minimum(people.release_y[live], people.death_y[live]), options.horizon_years
            )
            first = np.minimum(t_leave, t_again)
            ends = t_end <= first
            leaves = ~ends & (t_leave <= t_again)
            kills = ~ends & ~leaves
            self._finish(live[ends], t_end[ends])
            killed = self._go_out(live[leaves], t_leave[leaves])
            self._kill_again(live[kills], t_again[kills])
            self.clock[live] = np.minimum(first, t_end)
            live = np.setdiff1d(live[~ends], killed)

    def _site(self, idx: Ints) -> Floats:
        return _site_xy(self.world, self.people.city[idx])

    def _pay_rent(self, idx: Ints, until_y: Floats) -> None:
        """Close each stay in a city; under R. Judah he pays the Levites for it (2:8)."""
        if self.options.rent == "judah" and len(idx):
            years = until_y - self.stay_from[idx]
            amount = years * self.options.rent_per_year
            self.ledger.append(
                {
                    "incident": idx,
                    "city": np.array(self.world.network.city_ids)[self.people.city[idx]],
                    "from_y": self.stay_from[idx],
                    "to_y": until_y,
                    "years": years,
                    "rent": amount,
                }
            )
            rule = np.char.add(f"{RENT_OPINIONS['judah']}: ", np.round(amount, 2).astype(str))
            self.log.add(
                "rent_paid",
                idx,
                until_y * YEAR_S,
                self._site(idx),
                self.people.city[idx],
                inside=True,
                rule=rule,
            )
        self.stay_from[idx] = until_y

    def _finish(self, idx: Ints, t_end: Floats) -> None:
        """Release at the high priest's death, death in exile, or the horizon."""
        people = self.people
        self._pay_rent(idx, t_end)
        released = people.release_y[idx] <= t_end
        died = ~released & (people.death_y[idx] <= t_end)
        office = people.office[idx] & released
        rule = np.where(
            office,
            f"{EXILE_KINDS['released'][0]}; {OFFICE_OPINIONS[self.options.office]}",
            EXILE_KINDS["released"][0],
        )
        ends = (("released", released), ("died_in_exile", died))
        for kind, done in (*ends, ("exile_horizon", ~released & ~died)):
            self.log.add(
                kind,
                idx[done],
                t_end[done] * YEAR_S,
                self._site(idx[done]),
                people.city[idx[done]],
                inside=True,
                rule=rule[done] if kind == "released" else None,
            )
        people.outcome[idx] = np.where(
            released, "released", np.where(died, "died_in_exile", "in_exile_at_horizon")
        )
        people.end_y[idx] = t_end

    def _edge_points(self, idx: Ints, frac: Floats) -> tuple[Floats, Floats]:
        """A point on each exile's Sabbath boundary and the outward unit vector there."""
        zones = self.world.network.zones.geometry.to_numpy()[self.people.city[idx]]
        edge = shapely.get_coordinates(
            shapely.line_interpolate_point(shapely.get_exterior_ring(zones), frac, normalized=True)
        )
        centre = shapely.get_coordinates(shapely.centroid(zones))
        out = edge - centre
        return edge, out / np.hypot(*out.T)[:, None]

    def _go_out(self, idx: Ints, t_y: Floats) -> Ints:
        """He goes out beyond the boundary (Numbers 35:26-27); return those killed there."""
        boundary, people = self.options.boundary, self.people
        frac, tree, trunk_in, found, option = self.rng.uniform(size=(5, len(idx)))
        edge, out = self._edge_points(idx, frac)
        tree = tree < boundary.tree_share
        sign = np.where(trunk_in < 0.5, -1.0, 1.0)[:, None]
        trunk = np.where(tree[:, None], edge + sign * BOUGH_M * out, edge + OUTSIDE_M * out)
        bough = np.where(tree[:, None], edge - sign * BOUGH_M * out, np.nan)
        inside = (
            self.world.network.city_xy(
                trunk[:, 0],
                trunk[:, 1],
                bough_x=bough[:, 0],
                bough_y=bough[:, 1],
                t=self.world.year[idx],
            )[0]
            >= 0
        )
        where = np.where(tree[:, None], bough, trunk)
        opinion = self.world.network.options["bough_opinion"]
        bough_rule = f"in the boughs of a tree at the edge: {BOUGH_OPINIONS[opinion]}"
        city, t_s = people.city[idx], t_y * YEAR_S
        self.log.add(
            "in_boundary_tree",
            idx[inside],
            t_s[inside],
            where[inside],
            city[inside],
            inside=True,
            rule=bough_rule,
        )
        went = ~inside
        people.left[idx[went]] += 1
        rule = np.where(tree, bough_rule, EXILE_KINDS["left_boundary"][0])
        self.log.add(
            "left_boundary", idx[went], t_s[went], where[went], city[went], rule=rule[went]
        )
        takes = found < boundary.avenger_finds_p
        if boundary.opinion == "akiva":
            takes &= option < boundary.option_taken_p
        killed, safe = went & takes, went & ~takes
        self.log.add(
            "killed_outside_boundary",
            idx[killed],
            t_s[killed],
            where[killed],
            city[killed],
            rule=BOUNDARY_OPINIONS[boundary.opinion],
        )
        self.log.add(
            "returned_inside",
            idx[safe],
            t_s[safe] + 3600.0,
            self._site(idx[safe]),
            city[safe],
            inside=True,
        )
        self._pay_rent(idx[killed], t_y[killed])
        people.outcome[idx[killed]] = "killed_outside_boundary"
        people.end_y[idx[killed]] = t_y[killed]
        return idx[killed]

    def _kill_again(self, idx: Ints, t_y: Floats) -> None:
        """He kills again in error inside the city (Mishnah Makkot 2:7): a new term, and a move."""
        people = self.people
        if len(idx) == 0:
            return
        places = [
            self.placed[(int(c), bool(lv))]
            for c, lv in zip(people.case[idx], people.levite[idx], strict=True)
        ]
        within, finding, citation = (np.array(column) for column in zip(*places, strict=True))
        people.killed_again[idx] += 1
        self.log.add(
            "killed_again",
            idx,
            t_y * YEAR_S,
            self._site(idx),
            people.city[idx],
            inside=True,
            rule=finding,
            citation=citation,
        )
        self._new_term(idx, t_y)
        moves = within == "another_city"
        self._move_neighbourhood(idx[~moves], t_y[~moves])
        self._move_city(idx[moves], t_y[moves])

    def _new_term(self, idx: Ints, t_y: Floats) -> None:
        """He stays until the high priest of this verdict dies too; for life in a vacancy."""
        people = self.people
        release_y, _ = self.succession.release(t_y, war_priest=self.options.priesthood.war_priest)
        reason = people.life_reason[idx]
        people.life_reason[idx] = np.where(
            (reason == "") & ~np.isfinite(release_y), _NO_HIGH_PRIEST, reason
        )
        people.release_y[idx] = np.maximum(people.release_y[idx], release_y)

    def _move_neighbourhood(self, idx: Ints, t_y: Floats) -> None:
        towns = self.world.network.cities.geometry.to_numpy()[self.people.city[idx]]
        ring = shapely.line_interpolate_point(
            shapely.get_exterior_ring(towns), self.rng.uniform(size=len(idx)), normalized=True
        )
        centre = shapely.get_coordinates(shapely.centroid(towns))
        where = (shapely.get_coordinates(ring) + centre) / 2.0
        self.log.add(
            "moved_neighbourhood",
            idx,
            t_y * YEAR_S + 3600.0,
            where,
            self.people.city[idx],
            inside=True,
        )

    def _move_city(self, idx: Ints, t_y: Floats) -> None:
        people, roads = self.people, _city_roads(self.world)
        to = np.argmin(roads[people.city[idx]], axis=1)
        walk_y = roads[people.city[idx], to] / self.world.fugitive_road[idx] / YEAR_S
        self._pay_rent(idx, t_y)
        people.city[idx] = to
        self.stay_from[idx] = t_y + walk_y
        self.log.add("moved_city", idx, (t_y + walk_y) * YEAR_S, self._site(idx), to, inside=True)


# --------------------------------------------------------------------------- the whole life


def _priest_deaths(log: _Log, succession: Succession, options: ExileOptions) -> None:
    """One event per priest who dies within the horizon (they release, Mishnah Makkot 2:6)."""
    priests = succession.priests
    dead = priests[priests["died_y"] <= options.horizon_years]
    lon, lat = named_places()["jerusalem"]
    temple = np.tile(np.concatenate(to_metric(lon, lat), axis=None), (len(dead), 1))
    war = WAR_PRIEST_OPINIONS[options.priesthood.war_priest]
    rule = np.select(
        [dead["office"] == "war_priest", dead["stood_down"]],
        [f"the priest anointed for war died; {war}", "a high priest who had stood down died"],
        "the high priest died",
    )
    for office in ("high_priest", "war_priest"):
        rows = (dead["office"] == office).to_numpy()
        log.add(
            "high_priest_died",
            np.full(rows.sum(), -1),
            dead["died_y"].to_numpy()[rows] * YEAR_S,
            temple[rows],
            np.full(rows.sum(), -1),
            role=office,
            rule=rule[rows],
        )


def _tracks(events: pd.DataFrame, city_ids: tuple[str, ...]) -> dict[str, NDArray[Any]]:
    """The fugitive's position at each of his events; one row per step (the last event)."""
    mine = events[events["role"] == "fugitive"].drop_duplicates(["incident", "step"], keep="last")
    city = pd.Index(city_ids).get_indexer(mine["city"])
    return {
        "incident": mine["incident"].to_numpy(np.int64),
        "role": np.zeros(len(mine), np.int64),
        "step": mine["step"].to_numpy(np.int64),
        "x": mine["x"].to_numpy(float),
        "y": mine["y"].to_numpy(float),
        "city": np.where(mine["inside"].to_numpy(bool), city, -1),
        "captured": mine["captured"].to_numpy(bool),
    }


def _manslayers(flight: Flight, people: _People, options: ExileOptions) -> pd.DataFrame:
    """One row per incident: his outcome, case, verdict, term and life in the city."""
    labels = np.array([choice.label for choice in options.cases])
    reason = pd.Series(people.life_reason).map(LIFE_REASONS).fillna("").to_numpy(str)
    entered = np.isfinite(people.entered_y)
    frame = pd.DataFrame(
        {
            "outcome": people.outcome.astype(str),
            "fled_to": flight.outcomes["city"].to_numpy(str),
            "city": np.where(
                people.city >= 0, np.array([*flight.world.network.city_ids, ""])[people.city], ""
            ),
            "case": labels[people.case],
            "verdict": np.where(people.tried, people.verdict, ""),
            "life_exile": entered & (reason != ""),
            "life_reason": np.where(entered, reason, ""),
            "levite": people.levite,
            "held_office": people.office,
            "office_restored": people.office
            & (people.outcome == "released")
            & (options.office == "meir"),
            "entered_y": people.entered_y,
            "end_y": people.end_y,
            "years_in_exile": people.end_y - people.entered_y,
            "deterred_on_trial_road": people.deterred,
            "went_out": people.left,
            "killed_again": people.killed_again,
        }
    )
    frame.index.name = "incident"
    return frame


class _Place(NamedTuple):
    """Where one who kills again inside his city goes, and the rule that says so (2:7)."""

    within: str
    finding: str
    citation: str


def _placed(options: ExileOptions) -> dict[tuple[int, bool], _Place]:
    """Each exile case judged again as a killing inside the city, by a Levite or not."""
    placed = {}
    for k, choice in enumerate(options.cases):
        for levite in (
            (False, True) if _can_be_levite(choice.case) else (choice.case.killer.levite,)
        ):
            ruling = judge(_again(choice.case, levite), options.law)
            if ruling.consequences is not None:  # only an exile lives in the city to kill again
                step = next(s for s in ruling.trace if s.rule == "place_of_exile")
                within = ruling.consequences.exile_within
                placed[(k, levite)] = _Place(within, step.finding, step.citation)
    return placed


def exile_opinions(options: ExileOptions, bough_opinion: str) -> dict[str, Any]:
    """Every opinion the exile phase follows, with what each holds."""
    boundary, priesthood = options.boundary, options.priesthood
    return {
        "law": options.law.model_dump(),
        "outside_boundary": {boundary.opinion: BOUNDARY_OPINIONS[boundary.opinion]},
        "war_priest": {priesthood.war_priest: WAR_PRIEST_OPINIONS[priesthood.war_priest]},
        "office": {options.office: OFFICE_OPINIONS[options.office]},
        "rent": {options.rent: RENT_OPINIONS[options.rent]},
        "bough": {bough_opinion: BOUGH_OPINIONS[bough_opinion]},
        "mortality": {
            "model": "gompertz",
            "alpha_per_year": priesthood.alpha_per_year,
            "beta_per_year": priesthood.beta_per_year,
            "base_age_years": priesthood.base_age_years,
        },
        "year_s": YEAR_S,
    }


def live_in_exile(flight: Flight, options: ExileOptions, seed: int) -> ExileLife:
    """Simulation II: trial, verdict, the years in the city and release, for every manslayer.

    Parameters
    ----------
    flight
        The end of the flight (`run_flight`); only those who arrived go on to trial.
    options
        The scenario's `exile:` section.
    seed
        The run's root seed; the phase draws from its own spawned streams.

    Returns
    -------
    ExileLife
        Events and trajectory rows on the flight's clock, one row per manslayer, the rent
        ledger, the priests and the opinions.
    """
    rngs, world = _rngs(seed), flight.world
    rulings = [judge(choice.case, options.law) for choice in options.cases]
    people = _people(flight, options, rulings, rngs)
    priesthood = options.priesthood
    succession = draw_succession(
        priesthood.chain(high_priest=True),
        priesthood.chain(high_priest=False) if priesthood.war_priest == "judah" else None,
        (rngs["high_priests"], rngs["war_priests"]),
        options.horizon_years,
    )
    log = _Log(flight.dt_s, world.network.city_ids)
    exiles, back_y = _trial(log, flight, people, options, succession, rulings, rngs["trial"])
    clock = np.full(world.n, np.nan)
    clock[exiles] = back_y
    city = _City(
        log, world, people, options, succession, _placed(options), rngs["city"], clock, clock.copy()
    )
    city.live(exiles)
    _priest_deaths(log, succession, options)
    events = log.frame()
    ledger = pd.DataFrame(
        {k: np.concatenate([part[k] for part in city.ledger]) for k in _LEDGER}
        if city.ledger
        else {k: [] for k in _LEDGER}
    )
    return ExileLife(
        events=events[list(_EVENT_FIELDS)],
        tracks=_tracks(events, world.network.city_ids),
        manslayers=_manslayers(flight, people, options),
        ledger=ledger.sort_values(["incident", "from_y"], kind="stable").reset_index(drop=True),
        priests=succession.priests,
        opinions=exile_opinions(options, world.network.options["bough_opinion"]),
    )


_LEDGER = ("incident", "city", "from_y", "to_y", "years", "rent")


# --------------------------------------------------------------------------- summary


def _years(values: pd.Series) -> dict[str, Any] | None:
    """Quantiles and a histogram of years in exile."""
    values = values.dropna()
    if values.empty:
        return None
    bins = [0, 1, 5, 10, 20, 40, np.inf]
    counts = pd.cut(values, bins, right=False).value_counts(sort=False)
    return {
        "n": len(values),
        "mean": round(float(values.mean()), 3),
        **{f"p{q}": round(float(values.quantile(q / 100)), 3) for q in (10, 50, 90)},
        "max": round(float(values.max()), 3),
        "histogram": {str(k): int(v) for k, v in counts.items()},
    }


def _outcome_counts(frame: pd.DataFrame) -> dict[str, int]:
    counts = frame["outcome"].value_counts()
    return {kind: int(counts.get(kind, 0)) for kind in OUTCOMES}


def summarize_exile(life: ExileLife) -> dict[str, Any]:
    """Outcomes of every manslayer (overall, by city fled to, by verdict, by case), years in
    exile, life exiles and why, goings-out, killings inside, office and rent, the opinions."""
    frame, ledger = life.manslayers, life.ledger
    entered = frame["entered_y"].notna()
    groups = {
        key: {str(k): _outcome_counts(g) for k, g in frame[frame[key] != ""].groupby(key)}
        for key in ("fled_to", "verdict", "case")
    }
    return {
        "outcomes": _outcome_counts(frame),
        "by_city": groups["fled_to"],
        "by_verdict": groups["verdict"],
        "by_case": groups["case"],
        "life_exiles": {
            key: int((frame["life_reason"][entered] == key).sum()) for key in LIFE_REASONS.values()
        },
        "years_in_exile": {
            "released": _years(frame["years_in_exile"][frame["outcome"] == "released"]),
            "all_exiles": _years(frame["years_in_exile"][entered]),
        },
        "deterred_on_trial_road": int(frame["deterred_on_trial_road"].sum()),
        "went_out": int(frame["went_out"].sum()),
        "killed_again": int(frame["killed_again"].sum()),
        "office": {
            "held": int(frame["held_office"].sum()),
            "restored": int(frame["office_restored"].sum()),
        },
        "rent": {"stays": len(ledger), "total": round(float(ledger["rent"].sum()), 3)},
        "high_priests": int((life.priests["office"] == "high_priest").sum()),
        "opinions": life.opinions,
    }
