"""The one vocabulary of the simulation and its one event log.

Event kinds of both phases (the flight, Simulation I; the exile, Simulation II) with the rule
and the citation written beside each in the events table, the agents' roles, the outcomes of
each phase, and `EventLog`, the one log every phase appends its events and trajectory rows to.
Every other module imports these names; none repeats them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    import pandas as pd

#: Event kinds of Simulation I (the flight), each with its rule and citation.
EVENT_KINDS: dict[str, tuple[str, str]] = {
    "flight_start": (
        "the manslayer flees at once to a city of refuge; the assembly judges later",
        "Numbers 35:11-12, 24",
    ),
    "avenger_sets_out": (
        "the blood avenger learns of the death and pursues, while his heart is hot",
        "Deuteronomy 19:6",
    ),
    "avenger_gives_up": (
        "his heart cools: the avenger gives up the pursuit",
        "Deuteronomy 19:6 ('while his heart is hot')",
    ),
    "sees_avenger": (
        "he sees the avenger within sight (avenger.sight_m, an assumption), who chases him "
        "while he sees him",
        "Deuteronomy 19:6 ('pursue ... and overtake him'); sight: an assumption",
    ),
    "leaves_road": (
        "seeing the avenger, he leaves the road and goes across country straight for his "
        "refuge (fugitive.leave_road_p: the texts say nothing of it, an assumption)",
        "no text (an assumption); the prepared road: Deuteronomy 19:3; Rambam, Rotzeach 8:5",
    ),
    "climbs_tree": (
        "he climbs a tree at the boundary: it all follows the boughs",
        "Mishnah Makkot 2:7",
    ),
    "arrival": (
        "as the city protects, so does its boundary: here the avenger may not kill him",
        "Numbers 35:11-12; Mishnah Makkot 2:7",
    ),
    "reached_unprotected": (
        "no city protects until all six are designated",
        "Mishnah Makkot 2:4; Numbers 35:13",
    ),
    "capture": (
        "outside the refuge the avenger kills him on the way and is not liable",
        "Deuteronomy 19:6; Numbers 35:27; Rambam, Rotzeach 5:9-10",
    ),
    "deterred": (
        "the two disciples of the Sages speak to the avenger and he desists",
        "Mishnah Makkot 2:5",
    ),
    "horizon": (
        "still on the road when the simulation ends, because the way is long",
        "Deuteronomy 19:6",
    ),
    "turned_away": (
        "the majority of the city are manslayers: it takes no more; he goes on to the next",
        "Makkot 10b (R. Elazar); Rambam, Rotzeach 7:6",
    ),
}

#: The rule and citation of an arrival in one of the 42 Levitical cities (beside the six's,
#: `EVENT_KINDS["arrival"]`): it receives him because he entered it intending refuge.
LEVITICAL_ARRIVAL = (
    "he entered a Levitical city intending refuge: it receives him as the six do",
    "Numbers 35:6; Makkot 10a (Abaye); Rambam, Rotzeach 8:9-10",
)

#: Event kinds of Simulation II (trial, the city, release), each with its default rule and
#: citation.
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
    "teacher_exiled": (
        "a student who is exiled, his teacher is exiled with him, and a teacher's school goes "
        "with the teacher (the school's size is not modelled)",
        "Makkot 10a; Rambam, Rotzeach 7:1",
    ),
    "exile_horizon": ("still in his city of refuge when the simulation ends", "Numbers 35:28"),
}

#: The event kind that ends a manslayer each way (`EXILE_OUTCOMES`): its rule and citation are the
#: outcome's (the spared are sent home by the high priest's death, Mishnah Makkot 2:6).
OUTCOME_EVENTS = {
    "caught_in_flight": "capture",
    "flight_unfinished": "horizon",
    "killed_on_trial_road": "killed_on_trial_road",
    "executed": "executed",
    "sent_home": "sent_home",
    "spared": "sent_home",
    "released": "released",
    "died_in_exile": "died_in_exile",
    "killed_outside_boundary": "killed_outside_boundary",
    "in_exile_at_horizon": "exile_horizon",
}
#: Kinds of the exile's years in the city, the rows of the residence table.
RESIDENCE_KINDS = (
    "returned_to_city",
    "left_boundary",
    "in_boundary_tree",
    "returned_inside",
    "killed_outside_boundary",
    "killed_again",
    "moved_neighbourhood",
    "moved_city",
    "rent_paid",
    "released",
    "died_in_exile",
    "exile_horizon",
)
#: Agent roles; escorts walk with their fugitive (Mishnah Makkot 2:5).
ROLES = ("fugitive", "avenger", "escort")
FUGITIVE, AVENGER = 0, 1
#: The roles of the priests' events (of no incident: incident -1).
OFFICES = ("high_priest", "war_priest")

#: How a flight ends, per incident (`Flight.outcomes["outcome"]`).
FLIGHT_OUTCOMES = ("arrival", "capture", "horizon")
ARRIVAL, CAPTURE, HORIZON = FLIGHT_OUTCOMES

#: The outcome of every manslayer, flight included (`ExileLife.manslayers["outcome"]`).
EXILE_OUTCOMES = (
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

#: Kinds at which the manslayer dies by another's hand (his trajectory row is ``captured``).
KILLINGS = frozenset({"capture", "killed_on_trial_road", "killed_outside_boundary", "executed"})

#: Columns of a phase's events table, in order (`EventLog.frame` adds ``inside`` and
#: ``captured`` for the exile's trajectory rows).
EVENT_FIELDS = ("incident", "role", "kind", "t_s", "step", "x", "y", "city", "rule", "citation")
_LOG_FIELDS = (*EVENT_FIELDS, "inside", "captured")
_ROW_FIELDS = ("incident", "role", "step", "x", "y", "city", "captured")
#: The text fields of events, categorical in `EventLog.frame` (a few distinct texts each).
TEXT_FIELDS = ("role", "kind", "city", "rule", "citation")
#: The events' fields that are not float where a log kept none (`EventLog.keep`).
_EVENT_DTYPES = {"incident": np.intp, "step": np.int64, "inside": np.bool_, "captured": np.bool_}


@dataclass(frozen=True)
class Coded:
    """A text field given as codes into a table of texts: each row's text is
    ``texts[codes[row]]`` (no string per row, and no pandas object made in a stepping loop;
    the join (`EventLog.frame`) reads it as it reads a `pandas.Categorical`)."""

    codes: NDArray[np.intp]
    texts: NDArray[np.str_]

    def __len__(self) -> int:
        return len(self.codes)


@dataclass
class EventLog:
    """Events and trajectory rows, gathered as arrays and joined once.

    A part's field is an array (one value per incident logged) or a scalar that stands for
    all of them: broadcasting waits for the join, out of the stepping loop's way.

    Parameters
    ----------
    dt_s
        The time step (seconds): an event logged without a step gets the step of its time.
    kinds
        The phase's event kinds (`EVENT_KINDS` or `EXILE_KINDS`): each event's default rule
        and citation.
    keep
        False: a log that keeps no event (of a phase whose events nobody reads: the exiles
        lived for the replications' headlines alone); a caller may skip making their texts.
        An array (by incident number): the events of the incidents where it holds (a stack
        of runs of which only some are read: `refuge_map.simulation.stack.fly_stacked`); one
        that holds everywhere or nowhere is kept as True or False (no event then looks it up).
    """

    dt_s: float
    kinds: dict[str, tuple[str, str]]
    events: list[dict[str, Any]] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)
    keep: bool | NDArray[np.bool_] = True

    def __post_init__(self) -> None:
        if not isinstance(self.keep, bool) and (self.keep.all() or not self.keep.any()):
            self.keep = bool(self.keep.all())

    def event(
        self,
        kind: str,
        idx: NDArray[np.intp],
        role: str,
        t_s: NDArray[np.float64] | float,
        xy: NDArray[np.float64],
        *,
        step: int | None = None,
        city: NDArray[np.str_] | pd.Categorical | Coded | str = "",
        rule: Any = None,
        citation: Any = None,
        inside: NDArray[np.bool_] | bool = False,
    ) -> None:
        """Log `kind` for incidents `idx` (one value per incident in `t_s`, `xy` (n, 2) and
        the other arrays, or a scalar for all; a text field may be a `Coded` or a
        `pandas.Categorical`, codes into a table of texts), with the kind's rule and citation
        unless given."""
        if len(idx) == 0 or self.keep is False:
            return
        default_rule, default_citation = self.kinds[kind]
        if step is None:
            steps: Any = np.rint(np.asarray(t_s) / self.dt_s).astype(np.int64)
        else:
            steps = step
        part = {
            "incident": np.asarray(idx),
            "role": role,
            "kind": kind,
            "t_s": t_s,
            "step": steps,
            "xy": xy,
            "city": city,
            "rule": default_rule if rule is None else rule,
            "citation": default_citation if citation is None else citation,
            "inside": inside,
        }
        if self.keep is not True:
            kept = self.keep[part["incident"]]
            if not kept.any():
                return
            if not kept.all():
                part = {name: _rows_of(value, kept) for name, value in part.items()}
        xy = part.pop("xy")
        self.events.append({**part, "x": xy[:, 0], "y": xy[:, 1], "captured": kind in KILLINGS})

    def row(
        self,
        mask: NDArray[np.bool_],
        role: int,
        step: int,
        xy: NDArray[np.float64],
        city: NDArray[np.intp],
        captured: NDArray[np.bool_],
        *,
        ids: NDArray[np.intp] | None = None,
    ) -> None:
        """Log a trajectory row for the agents of `role` where `mask` holds; `ids` gives each
        row's incident (default: row ``i`` is incident ``i``)."""
        idx = mask.nonzero()[0]
        if idx.size:
            incident = idx if ids is None else ids[idx]
            columns = (incident, role, step, xy[idx, 0], xy[idx, 1], city[idx], captured[idx])
            self.rows.append(dict(zip(_ROW_FIELDS, columns, strict=True)))

    def frame(self) -> pd.DataFrame:
        """All events (`EVENT_FIELDS`, ``inside``, ``captured``), ordered by time, incident and
        step; the text fields (`TEXT_FIELDS`) categorical."""
        import pandas as pd

        events = pd.DataFrame(
            _join(self.events, _LOG_FIELDS, text=TEXT_FIELDS, dtypes=_EVENT_DTYPES)
        )
        order = np.lexsort((events["step"], events["incident"], events["t_s"]))
        return events.take(order).reset_index(drop=True)

    def take_tracks(self) -> dict[str, NDArray[Any]]:
        """All trajectory rows as arrays (`city` is a city index, -1 outside asylum), the
        log's rows dropped (the arrays hold them now)."""
        tracks = _join(self.rows, _ROW_FIELDS)
        self.rows.clear()
        return tracks

    def take_frame(self) -> pd.DataFrame:
        """`frame`, the log's events dropped (the table holds them now)."""
        events = self.frame()
        self.events.clear()
        return events


def _rows_of(value: Any, kept: NDArray[np.bool_]) -> Any:
    """The `kept` rows of an event's field: an array's, a `Coded` field's codes (its texts
    as they are), a categorical's; a scalar stands for all rows still. (Asked of its ``ndim``,
    not its type: a stack's first run logs in a process that has not imported pandas yet.)"""
    if isinstance(value, Coded):
        return Coded(value.codes[kept], value.texts)
    if getattr(value, "ndim", 0):  # an array's or a categorical's (a number's or text's is 0)
        return value[kept]
    return value


def _join(
    parts: list[dict[str, Any]],
    fields: tuple[str, ...],
    *,
    text: tuple[str, ...] = (),
    dtypes: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The parts' fields end to end; each part's length is that of its first field (an array).
    The `text` fields are categorical (`_text_column`); without parts, the others are empty
    arrays of their `dtypes` (float where none is given)."""
    if not parts:
        kinds = dtypes or {}
        return {
            k: _text_column([], []) if k in text else np.empty(0, kinds.get(k, np.float64))
            for k in fields
        }
    sizes = [len(part[fields[0]]) for part in parts]
    return {
        k: (_text_column if k in text else _column)([part[k] for part in parts], sizes)
        for k in fields
    }


def _column(values: list[Any], sizes: list[int]) -> NDArray[Any]:
    """One field of all parts: arrays as they are, a scalar repeated over its part's length
    (the same values and dtype as broadcasting each scalar and concatenating)."""
    if not any(isinstance(v, np.ndarray) for v in values):
        return np.repeat(np.array(values), sizes)
    return np.concatenate(
        [
            v if isinstance(v, np.ndarray) else np.full(n, v)
            for v, n in zip(values, sizes, strict=True)
        ]
    )


def _text_column(values: list[Any], sizes: list[int]) -> pd.Categorical:
    """One text field of all parts as a categorical (its distinct texts sorted, each once),
    without a string per row: a scalar is one category for its whole part, a categorical part
    keeps its codes (its texts used only: `_coded_texts`), the arrays' texts are hashed
    (`pandas.factorize`) and only their distinct texts sorted."""
    import pandas as pd

    is_array = np.array([isinstance(v, np.ndarray) for v in values], dtype=bool)
    is_coded = np.array([isinstance(v, pd.Categorical | Coded) for v in values], dtype=bool)
    arrays = [v.astype(str) for v in values if isinstance(v, np.ndarray)]
    row_code, distinct = pd.factorize(np.concatenate(arrays) if arrays else np.array([], str))
    distinct = np.asarray(distinct, dtype=str)
    coded_code, table, used = _coded_texts([values[k] for k in np.flatnonzero(is_coded)])
    scalar = ~is_array & ~is_coded
    scalars = np.array([str(values[k]) for k in np.flatnonzero(scalar)], dtype=str)
    # thousands of parts name a few scalars: a set of them, not all, goes into the sort
    once = np.array(list(set(scalars.tolist())), dtype=str)
    categories = np.unique(np.concatenate([distinct, once, table[used]]))
    part_code = np.full(len(values), -1, dtype=np.intp)
    part_code[scalar] = np.searchsorted(categories, scalars)
    codes = np.repeat(part_code, sizes)
    codes[np.repeat(is_array, sizes)] = np.searchsorted(categories, distinct)[row_code]
    codes[np.repeat(is_coded, sizes)] = np.searchsorted(categories, table)[coded_code]
    return pd.Categorical.from_codes(codes, categories=pd.Index(categories, dtype="str"))


def _coded_texts(
    parts: list[pd.Categorical | Coded],
) -> tuple[NDArray[np.intp], NDArray[np.str_], NDArray[np.bool_]]:
    """The coded parts' rows end to end as codes into one table of texts, that table (each
    table the parts share once: thousands of parts name a few tables) and which of its texts
    the rows use: one pass over the rows, not a `numpy.unique` per part. (A code of -1 reads
    its table's last text, as indexing the table with it would.)"""
    if not parts:
        return np.array([], np.intp), np.array([], str), np.array([], bool)
    start: dict[int, int] = {}  # by the identity of a part's table: where it starts in `table`
    tables: list[NDArray[np.str_]] = []
    at, size = np.empty(len(parts), dtype=np.intp), np.empty(len(parts), dtype=np.intp)
    for k, part in enumerate(parts):
        texts = part.texts if isinstance(part, Coded) else part.categories
        if id(texts) not in start:
            start[id(texts)] = sum(len(t) for t in tables)
            tables.append(np.asarray(texts, dtype=str))
        at[k], size[k] = start[id(texts)], len(texts)
    table = np.concatenate(tables)
    rows = [len(part) for part in parts]
    code = np.concatenate([part.codes for part in parts], dtype=np.intp)
    code += np.repeat(at, rows) + np.where(code < 0, np.repeat(size, rows), 0)
    used = np.zeros(len(table), dtype=bool)
    used[code] = True
    return code, table, used


def codes_of(column: Any, texts: tuple[str, ...]) -> NDArray[np.intp]:
    """Each row's index in `texts` (-1 for none of them, or a missing value): a numpy array of
    texts compared with each of `texts` (a few: no pandas needed, in a forked child that flies
    replications); any other column (pandas') hashed (`pandas.factorize`): no string per row."""
    if isinstance(column, np.ndarray):
        codes = np.full(len(column), -1, dtype=np.intp)
        for i, text in enumerate(texts):
            codes[column == text] = i
        return codes
    import pandas as pd

    codes, found = pd.factorize(column)
    lookup = np.array([*(texts.index(t) if t in texts else -1 for t in found), -1])
    return lookup[codes]  # a missing value (-1) reads the -1 at the end


def concat_events(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """Event frames end to end (index renumbered), their categorical columns on the union of
    their categories (sorted) rather than falling back to strings per row."""
    import pandas as pd
    from pandas.api.types import union_categoricals

    columns = list(frames[0].columns)
    text = [c for c in columns if isinstance(frames[0][c].dtype, pd.CategoricalDtype)]
    joined = pd.concat([f.drop(columns=text) for f in frames], ignore_index=True)
    for name in text:
        joined[name] = union_categoricals([f[name] for f in frames], sort_categories=True)
    return joined[columns]
