"""The years in the city of refuge: going out beyond the boundary, killing again, moving, rent.

A discrete-event loop whose rounds are vectorized over the exiles still living there: each
round draws, for all of them at once, the next time he goes out beyond the boundary and the
next time he kills again (competing exponential clocks, memoryless, so drawing them anew each
round is exact), and compares them with his release and his death. The loop runs once per
event of the busiest exile, never per agent or per year, so the cost is O(events).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely

from geo.arrays import Bools, Floats, Ints
from refuge_map.simulation.events import EXILE_KINDS, Coded, EventLog
from refuge_map.simulation.exile.people import Manslayers
from refuge_map.simulation.exile.rules import (
    LEVITICAL_RENT,
    Place,
    avenger_kills_outside,
    holds,
    pays_rent,
)
from refuge_map.simulation.exile.runs import RunStreams, Successions
from refuge_map.simulation.priesthood import YEAR_S
from refuge_map.simulation.scenario_exile import ExileOptions

if TYPE_CHECKING:
    from refuge_map.simulation._setup import World


#: Metres between the Sabbath boundary and where a manslayer who goes out stands (or the tree's
#: trunk and its boughs), either side of the line (assumption: a stone's throw either way).
OUTSIDE_M, BOUGH_M = 50.0, 10.0
#: Columns of the rent ledger (Mishnah Makkot 2:8).
LEDGER = ("incident", "city", "from_y", "to_y", "years", "rent")


def _rate(p: float) -> float:
    """A yearly chance as a rate per year."""
    return -float(np.log1p(-p))


def _after(clock: Floats, draws: Floats, rate: float) -> Floats:
    """When a Poisson clock of `rate` per year next rings (never at rate 0)."""
    return clock + draws / rate if rate > 0 else np.full(len(clock), np.inf)


@dataclass
class City:
    """The years of the exiles in their cities, a round of events at a time (`rng` and
    `succession`: those of each run, `exile.runs`)."""

    log: EventLog
    world: World
    people: Manslayers
    options: ExileOptions
    succession: Successions
    placed: dict[tuple[int, bool], Place]
    rng: RunStreams
    clock: Floats
    stay_from: Floats
    ledger: list[dict[str, Any]] = field(default_factory=list)

    def live(self, exiles: Ints) -> None:
        """Run every exile's years until release, death or the horizon."""
        people, options = self.people, self.options
        students = exiles[people.student[exiles]]  # his teacher goes with him (Makkot 10a)
        self._log("teacher_exiled", students, self.clock[students] * YEAR_S, self._site(students))
        leave, again = _rate(options.boundary.leave_per_year), _rate(options.kill_again_per_year)
        live = exiles
        while live.size:  # one round per event of the busiest exile
            draws = self.rng.rows(live).standard_exponential((2, live.size))
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

    def _log(self, kind: str, idx: Ints, t_s: Floats, xy: Floats, **more: Any) -> None:
        """Log `kind` for exiles `idx`, in their (current) cities."""
        city = self.world.city_names(self.people.city[idx])
        self.log.event(kind, idx, "fugitive", t_s, xy, city=city, **more)

    def _log_inside(self, kind: str, idx: Ints, t_y: Floats, **more: Any) -> None:
        """Log `kind` for exiles `idx` at year `t_y`, inside their (current) cities, at each
        city's site."""
        self._log(kind, idx, t_y * YEAR_S, self._site(idx), inside=True, **more)

    def _site(self, idx: Ints) -> Floats:
        return self.world.sites(self.people.city[idx])

    def _pay_rent(self, idx: Ints, until_y: Floats) -> None:
        """Close each stay in a city; he pays the Levites for it in one of the 42 (Rambam,
        Rotzeach 8:10), and in the six under R. Judah (Mishnah Makkot 2:8)."""
        levitical = self.world.city_kinds(self.people.city[idx]) == "levitical"
        pays = pays_rent(self.options, levitical)
        self.stay_from[idx[~pays]] = until_y[~pays]
        idx, until_y, levitical = idx[pays], until_y[pays], levitical[pays]
        if len(idx):
            years = until_y - self.stay_from[idx]
            amount = years * self.options.rent_per_year
            self.ledger.append(
                {
                    "incident": idx,
                    "city": self.world.city_names(self.people.city[idx]),
                    "from_y": self.stay_from[idx],
                    "to_y": until_y,
                    "years": years,
                    "rent": amount,
                }
            )
            if self.log.keep:  # a text per stay: only for a log that is read
                self._log_rent(idx, until_y, amount, levitical)
        self.stay_from[idx] = until_y

    def _log_rent(self, idx: Ints, until_y: Floats, amount: Floats, levitical: Bools) -> None:
        """Log the rent each of `idx` paid at `until_y`, with the amount in its rule."""
        said = (holds("exile.rent", "judah"), LEVITICAL_RENT)
        paid = zip(levitical.tolist(), np.round(amount, 2).tolist(), strict=True)
        # Python's text of a float is numpy's (the shortest repr), a few times faster than
        # numpy's text arrays for the few stays a round closes
        rule = np.array([f"{said[lv]}: {x}" for lv, x in paid])
        citation = np.where(levitical, "Rambam, Rotzeach 8:10", EXILE_KINDS["rent_paid"][1])
        self._log_inside("rent_paid", idx, until_y, rule=rule, citation=citation)

    def _finish(self, idx: Ints, t_end: Floats) -> None:
        """Release at the high priest's death, death in exile, or the horizon."""
        people = self.people
        self._pay_rent(idx, t_end)
        released = people.release_y[idx] <= t_end
        died = ~released & (people.death_y[idx] <= t_end)
        office = people.office[idx] & released
        said = holds("exile.office", self.options.office)
        release_rule = EXILE_KINDS["released"][0]
        # by codes: no long text per row (the exiles of many runs end here at once)
        rules = np.array([release_rule, f"{release_rule}; {said}"])
        ends = (("released", released), ("died_in_exile", died))
        for kind, done in (*ends, ("exile_horizon", ~released & ~died)):
            release = Coded(office[done].astype(np.intp), rules) if kind == "released" else None
            self._log_inside(kind, idx[done], t_end[done], rule=release)
        outcome = np.where(
            released, "released", np.where(died, "died_in_exile", "in_exile_at_horizon")
        )
        people.end(idx, outcome, t_end)

    def _edge_points(self, idx: Ints, frac: Floats) -> tuple[Floats, Floats]:
        """A point on each exile's Sabbath boundary and the outward unit vector there."""
        zones = self.world.zones(self.people.city[idx])
        edge = shapely.get_coordinates(
            shapely.line_interpolate_point(shapely.get_exterior_ring(zones), frac, normalized=True)
        )
        centre = shapely.get_coordinates(shapely.centroid(zones))
        out = edge - centre
        return edge, out / np.hypot(*out.T)[:, None]

    def _go_out(self, idx: Ints, t_y: Floats) -> Ints:
        """He goes out beyond the boundary (Numbers 35:26-27); return those killed there."""
        boundary, people = self.options.boundary, self.people
        frac, tree, trunk_in, found, option = self.rng.rows(idx).uniform(size=(5, len(idx)))
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
        said = holds("network.bough_opinion", self.world.bough_opinion)
        bough_rule = f"in the boughs of a tree at the edge: {said}"
        t_s = t_y * YEAR_S
        self._log(
            "in_boundary_tree",
            idx[inside],
            t_s[inside],
            where[inside],
            inside=True,
            rule=bough_rule,
        )
        went = ~inside
        people.count("left", idx[went])
        rule = np.where(tree, bough_rule, EXILE_KINDS["left_boundary"][0])
        self._log("left_boundary", idx[went], t_s[went], where[went], rule=rule[went])
        takes = avenger_kills_outside(found, option, boundary)
        killed, safe = went & takes, went & ~takes
        self._log(
            "killed_outside_boundary",
            idx[killed],
            t_s[killed],
            where[killed],
            rule=holds("exile.boundary.opinion", boundary.opinion),
        )
        self._log(
            "returned_inside",
            idx[safe],
            t_s[safe] + 3600.0,
            self._site(idx[safe]),
            inside=True,
        )
        self._pay_rent(idx[killed], t_y[killed])
        people.end(idx[killed], "killed_outside_boundary", t_y[killed])
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
        people.count("killed_again", idx)
        self._log_inside("killed_again", idx, t_y, rule=finding, citation=citation)
        war_priest = self.options.priesthood.war_priest
        people.extend(idx, self.succession.release(idx, t_y, war_priest=war_priest))
        moves = within == "another_city"
        self._move_neighbourhood(idx[~moves], t_y[~moves])
        self._move_city(idx[moves], t_y[moves])

    def _move_neighbourhood(self, idx: Ints, t_y: Floats) -> None:
        """He is banished to another neighbourhood of his city (Makkot 12b)."""
        towns = self.world.towns(self.people.city[idx])
        ring = shapely.line_interpolate_point(
            shapely.get_exterior_ring(towns),
            self.rng.rows(idx).uniform(size=len(idx)),
            normalized=True,
        )
        centre = shapely.get_coordinates(shapely.centroid(towns))
        where = (shapely.get_coordinates(ring) + centre) / 2.0
        self._log("moved_neighbourhood", idx, t_y * YEAR_S + 3600.0, where, inside=True)

    def _move_city(self, idx: Ints, t_y: Floats) -> None:
        """A Levite is banished to the nearest other city by road (Makkot 12b)."""
        people, roads = self.people, self.world.city_roads
        to = np.argmin(roads[people.city[idx]], axis=1)
        walk_y = roads[people.city[idx], to] / self.world.fugitive_road[idx] / YEAR_S
        self._pay_rent(idx, t_y)
        people.move(idx, to)
        self.stay_from[idx] = t_y + walk_y
        self._log_inside("moved_city", idx, t_y + walk_y)
