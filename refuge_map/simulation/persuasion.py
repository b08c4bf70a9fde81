"""Who speaks to the avenger when he reaches the manslayer: the escorts, and under R. Meir the
manslayer himself (Mishnah Makkot 2:5; the dispute ``exile.law.plead`` of the registry).

Persuasion happens at the encounter: for each incident it is drawn once (the escorts' chance and,
under R. Meir, the plea's), and it decides only if the avenger reaches him. The flight and the
trial road both read it, with the rule and the citation of whoever persuaded him.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from refuge_map.law.exile_rules import ESCORTS_SPEAK, PLEADS_HIMSELF
from refuge_map.simulation.seeds import Draws

if TYPE_CHECKING:
    from refuge_map.simulation.scenario import Scenario


#: Who persuaded the avenger, by code: 0 nobody, 1 the escorts, 2 his own plea.
SPEAKERS = ("", "escorts", "plea")
RULE = np.array(["", ESCORTS_SPEAK.text, PLEADS_HIMSELF.text])
CITATION = np.array(["", ESCORTS_SPEAK.citation, PLEADS_HIMSELF.citation])


def pleads_himself(scenario: Scenario) -> bool:
    """Whether the scenario follows R. Meir: he may plead his cause himself (Mishnah Makkot
    2:5), chosen at ``exile.law.plead`` (the first Tanna's escorts alone without an exile)."""
    return scenario.exile is not None and scenario.exile.law.plead == "meir"


def persuader(
    rng: Draws,
    n: int,
    *,
    escorts: bool,
    escorts_p: float,
    plea: bool,
    plea_p: float,
) -> NDArray[np.int64]:
    """Who would persuade each avenger at the encounter (`SPEAKERS` codes): the escorts with
    chance `escorts_p` if he has them, else, under R. Meir (`plea`), his plea with `plea_p`.
    Two uniform draws per incident, whatever the options (so that they leave other draws)."""
    u = rng.uniform(size=(2, n))
    by_escorts = escorts & (u[0] < escorts_p)
    by_plea = plea & (u[1] < plea_p)
    return np.where(by_escorts, 1, np.where(by_plea, 2, 0))
