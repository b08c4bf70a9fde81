"""The trial: the leg to the court of his town and back, the verdict, the sentence.

The trial leg is computed in closed form per manslayer (numpy over incidents): the road distance
from where he entered the refuge to the court of his own town, walked out and back at his road
speed in walking days (`travel`). The avenger who may attack him is the flight's own: only if he
still pursues (the escorts did not persuade him, his heart has not cooled: Deuteronomy 19:6),
at an exponential distance along each way, and never where the refuge protects (Mishnah Makkot
2:7: as the city protects, so does its boundary).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from geo.arrays import Bools, Floats, Ints
from refuge_map.law import Ruling
from refuge_map.simulation.events import ARRIVAL, EventLog
from refuge_map.simulation.exile.people import Manslayers
from refuge_map.simulation.exile.rules import SPARED_RULE, home_rule, spared, verdict_texts
from refuge_map.simulation.exile.runs import RunStreams, Successions
from refuge_map.simulation.persuasion import CITATION, RULE, persuader
from refuge_map.simulation.priesthood import YEAR_S
from refuge_map.simulation.scenario_exile import ExileOptions, Trial
from refuge_map.simulation.travel import DAY_S, arrival_s

if TYPE_CHECKING:
    from refuge_map.simulation._setup import World
    from refuge_map.simulation.engine import Outcomes


@dataclass(frozen=True)
class Leg:
    """The way between where he entered the refuge and the court of his town."""

    world: World
    start: tuple[Ints, Floats, Floats]
    court: tuple[Ints, Floats, Floats]
    dist_m: Floats
    speed: Floats
    walk_s_per_day: float

    @classmethod
    def of(cls, world: World, start_xy: Floats) -> Leg:
        """The leg of every incident from `start_xy` to his killer's home town (the straight
        line where the roads do not connect)."""
        start, court = world.snap(start_xy), world.snap(world.killer_home)
        road = world.graph.between(start, court)
        straight = np.hypot(*(start_xy - world.killer_home).T)
        dist = np.where(np.isfinite(road), road, straight)
        return cls(world, start, court, dist, world.fugitive_road, world.fugitive_walk_s)

    def arrival_s(self, idx: Ints, since_s: Floats, along_m: Floats) -> Floats:
        """When those of `idx` who set out at `since_s` have walked `along_m` metres."""
        return arrival_s(since_s, along_m / self.speed[idx], self.walk_s_per_day)

    def point(self, idx: Ints, along_m: Floats, *, outward: bool) -> Floats:
        """Road positions `along_m` metres from the refuge (outward) or from the court."""
        origin, target = (self.start, self.court) if outward else (self.court, self.start)
        budget = np.maximum(along_m - origin[2][idx], 0.0)
        graph = self.world.graph
        edge, s, _, _ = graph.walk(
            origin[0][idx], origin[1][idx], budget, target[0][idx], target[1][idx]
        )
        return np.column_stack(graph.xy(edge, s))


@dataclass
class TrialLeg:
    """The way to the court and back, with the log, the manslayers and the streams it uses
    (`RunStreams`: one per run).

    `avenger_off` holds, per incident, that the flight's avenger no longer pursues: the escorts
    persuaded him (in flight or on this road; a persuaded avenger does not come back) or he gave
    up; he also gives up at `give_up_s` (`World.give_up_s`). Under R. Meir (`plea`) the
    manslayer's own plea may persuade him too, with chance `plea_p` (Mishnah Makkot 2:5).
    """

    log: EventLog
    people: Manslayers
    leg: Leg
    trial: Trial
    rng: RunStreams
    avenger_off: Bools
    plea: bool = False
    plea_p: float = 0.0

    def _attack(
        self, idx: Ints, t_s: Floats, *, outward: bool
    ) -> tuple[Bools, NDArray[np.int64], Floats, Floats]:
        """Whether the avenger attacks on one way, who turns him back (`SPEAKERS` codes: the
        escorts, or under R. Meir his plea), when, where."""
        trial, rng, leg, world = self.trial, self.rng.rows(idx), self.leg, self.leg.world
        rate = trial.strike_per_100km / 100_000.0
        n = len(idx)
        along = rng.standard_exponential(n) / rate if rate > 0 else np.full(n, np.inf)
        speaker = persuader(
            rng, n, escorts=True, escorts_p=trial.persuade_p, plea=self.plea, plea_p=self.plea_p
        )
        on_way = along < leg.dist_m[idx]
        when = leg.arrival_s(idx, t_s, np.where(on_way, along, 0.0))
        pursuing = ~self.avenger_off[idx] & (when < world.give_up_s[idx])
        # where he would strike, for those he may: never where the refuge protects (2:7)
        may = np.flatnonzero(on_way & pursuing)
        where, protected = np.full((n, 2), np.nan), np.zeros(n, dtype=bool)
        if may.size:
            where[may] = leg.point(idx[may], along[may], outward=outward)
            x, y = where[may, 0], where[may, 1]
            protected[may] = world.network.city_xy(x, y, t=world.year[idx[may]])[0] >= 0
        struck = on_way & pursuing & ~protected
        return struck, np.where(struck, speaker, 0), when, where

    def way(self, idx: Ints, t_s: Floats, *, outward: bool) -> Bools:
        """Walk one way of the trial leg (Numbers 35:25, 27; Mishnah Makkot 2:5); log attacks;
        return who survives it."""
        struck, speaker, when, where = self._attack(idx, t_s, outward=outward)
        turned = speaker > 0
        killed = struck & ~turned
        log, people = self.log, self.people
        city = self.people.city[idx]
        log.event(
            "deterred",
            idx[turned],
            "avenger",
            when[turned],
            where[turned],
            city=self.leg.world.city_names(city[turned]),
            rule=RULE[speaker[turned]],
            citation=CITATION[speaker[turned]],
        )
        log.event(
            "killed_on_trial_road",
            idx[killed],
            "fugitive",
            when[killed],
            where[killed],
            city=self.leg.world.city_names(city[killed]),
        )
        people.count("deterred", idx[turned])
        self.avenger_off[idx[turned]] = True
        people.end(idx[killed], "killed_on_trial_road", when[killed] / YEAR_S)
        return ~killed


def trial(
    log: EventLog,
    world: World,
    outcomes: Outcomes,
    people: Manslayers,
    options: ExileOptions,
    succession: Successions,
    rulings: list[Ruling],
    rng: RunStreams,
) -> tuple[Ints, Floats]:
    """Fetch every arrived manslayer to trial and back (Numbers 35:24-25); return the exiles
    and when they are back in their city (years). `world` and `outcomes`
    (`Flight.outcome_columns`) are those of the flight."""
    arrived = np.flatnonzero(np.asarray(outcomes["outcome"], dtype=str) == ARRIVAL)
    end_xy = np.column_stack([np.asarray(outcomes[k], dtype=float) for k in ("x", "y")])
    leg = Leg.of(world, end_xy)
    deterred, gave_up = (np.asarray(outcomes[k], dtype=bool) for k in ("deterred", "gave_up"))
    avenger_off = deterred | gave_up
    walk = TrialLeg(log, people, leg, options.trial, rng, avenger_off, world.plea, world.plea_p)
    waited_s = DAY_S * rng.rows(arrived).uniform(*options.trial.days_until_trial, len(arrived))
    fetch_s = np.asarray(outcomes["end_s"], dtype=float)[arrived] + waited_s
    start_xy = end_xy[arrived]
    city_names = world.city_names(people.city[arrived])
    log.event("trial_start", arrived, "fugitive", fetch_s, start_xy, city=city_names, inside=True)
    alive = walk.way(arrived, fetch_s, outward=True)
    tried = arrived[alive]
    verdict_s = leg.arrival_s(arrived, fetch_s, leg.dist_m[arrived])[alive]
    court, city = world.killer_home[tried], world.city_names(people.city[tried])
    # the texts of the rules that decided, one per verdict: only for a log that is read
    rule, citation = verdict_texts(rulings, people.case[tried]) if log.keep else (None, None)
    log.event(
        "verdict", tried, "fugitive", verdict_s, court, city=city, rule=rule, citation=citation
    )
    people.try_(tried)
    verdict = people.verdict[tried]
    for kind, said in (("executed", "capital"), ("sent_home", "no_exile")):
        done = verdict == said
        read = kind == "sent_home" and log.keep
        home = home_rule(rulings, people.case[tried][done]) if read else None
        log.event(
            kind, tried[done], "fugitive", verdict_s[done], court[done], city=city[done], rule=home
        )
        people.end(tried[done], kind, verdict_s[done] / YEAR_S)
    exiled = verdict == "exile"
    return _sentence(walk, options, succession, tried[exiled], verdict_s[exiled])


def _sentence(
    walk: TrialLeg, options: ExileOptions, succession: Successions, idx: Ints, verdict_s: Floats
) -> tuple[Ints, Floats]:
    """The exile's term and his way back to the city (Numbers 35:25; Mishnah Makkot 2:6-7)."""
    log, people, leg = walk.log, walk.people, walk.leg
    war_priest = options.priesthood.war_priest
    release_y = succession.release(idx, verdict_s / YEAR_S, war_priest=war_priest)
    release_y = people.sentence(idx, release_y)
    delay_days = walk.rng.rows(idx).uniform(*options.trial.return_delay_days, len(idx))
    depart_s = verdict_s + DAY_S * delay_days
    back_s = leg.arrival_s(idx, depart_s, leg.dist_m[idx])
    freed = spared(release_y, back_s)
    court = leg.world.killer_home[idx]
    log.event(
        "sent_home",
        idx[freed],
        "fugitive",
        release_y[freed] * YEAR_S,
        court[freed],
        city=leg.world.city_names(people.city[idx][freed]),
        rule=SPARED_RULE,
    )
    people.end(idx[freed], "spared", release_y[freed])
    going = np.flatnonzero(~freed)
    alive = walk.way(idx[going], depart_s[going], outward=False)
    back = going[alive]
    exiles = idx[back]
    people.enter(exiles, back_s[back] / YEAR_S, release_y[back])
    log.event(
        "returned_to_city",
        exiles,
        "fugitive",
        back_s[back],
        leg.world.sites(people.city[exiles]),
        city=leg.world.city_names(people.city[exiles]),
        inside=True,
    )
    return exiles, back_s[back] / YEAR_S
