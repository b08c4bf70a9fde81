"""The law of exile: who goes into banishment, under every opinion, with citations.

Pure logic over the facts of a killing; it knows no geometry. Reading case files and
``--opinion`` settings (which raise `refuge_map.errors.RefugeError`) lives in
`refuge_map.law.casefiles`.
"""

from refuge_map.law.case import Case, ContradictoryFactsError, Killer, Victim
from refuge_map.law.judge import bearing_disputes, judge, rulings_across_opinions
from refuge_map.law.opinions import DISPUTES, PRESETS, Dispute, Opinions, preset
from refuge_map.law.ruling import Alternative, Consequences, Ruling, TraceStep, Verdict

__all__ = [
    "DISPUTES",
    "PRESETS",
    "Alternative",
    "Case",
    "Consequences",
    "ContradictoryFactsError",
    "Dispute",
    "Killer",
    "Opinions",
    "Ruling",
    "TraceStep",
    "Verdict",
    "Victim",
    "bearing_disputes",
    "judge",
    "preset",
    "rulings_across_opinions",
]
