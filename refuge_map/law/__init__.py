"""The law of exile: who goes into banishment, under every opinion, with citations.

Pure logic over the facts of a killing; it knows no geometry. Reading case files and
``--opinion`` settings (which raise `refuge_map.errors.RefugeError`) lives in
`refuge_map.law.casefiles`.

The public names load their modules on first use (`refuge_map._lazy`): the opinions'
vocabulary, which every command's help names, does not bring the case models with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from refuge_map._lazy import lazy_names

if TYPE_CHECKING:  # (`as`: the names are this package's, for the type checker)
    from refuge_map.law.case import Case as Case
    from refuge_map.law.case import ContradictoryFactsError as ContradictoryFactsError
    from refuge_map.law.case import Killer as Killer
    from refuge_map.law.case import Victim as Victim
    from refuge_map.law.judging import bearing_disputes as bearing_disputes
    from refuge_map.law.judging import judge as judge
    from refuge_map.law.judging import rulings_across_opinions as rulings_across_opinions
    from refuge_map.law.opinions import DISPUTES as DISPUTES
    from refuge_map.law.opinions import PRESETS as PRESETS
    from refuge_map.law.opinions import Dispute as Dispute
    from refuge_map.law.opinions import Opinions as Opinions
    from refuge_map.law.opinions import preset as preset
    from refuge_map.law.ruling import Alternative as Alternative
    from refuge_map.law.ruling import Consequences as Consequences
    from refuge_map.law.ruling import Ruling as Ruling
    from refuge_map.law.ruling import TraceStep as TraceStep
    from refuge_map.law.ruling import Verdict as Verdict

#: The module of each public name.
_HOMES = {
    **dict.fromkeys(["Case", "ContradictoryFactsError", "Killer", "Victim"], "case"),
    **dict.fromkeys(["bearing_disputes", "judge", "rulings_across_opinions"], "judging"),
    **dict.fromkeys(["DISPUTES", "PRESETS", "Dispute", "Opinions", "preset"], "opinions"),
    **dict.fromkeys(["Alternative", "Consequences", "Ruling", "TraceStep", "Verdict"], "ruling"),
}

__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_names(globals(), _HOMES)
