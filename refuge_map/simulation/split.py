"""Sharing a scenario's replications with a forked child: whether, and how many it lives.

`model.replicate` may fork a child (`refuge_map._aside`) that builds, flies and lives (the
exile and the headline) the last replications while this process does the others, the first
run in full among them; the child sends back only its headline rows. A run's results depend
on its seed alone (every draw is made from its own generators), so the split changes no byte
of them: only which process computes which rows.

The share balances the two processes' work. A replication costs about the same in either (its
world, its part of a stacked flight, its exile and headline: about 60 ms of CPU in the default
scenario of 1000 incidents); the first run costs this process more (its trajectories recorded,
its exile lived in full and its tables), and the child pays costs of its own (the pages it
copies, its rows sent back): `FIRST_RUN_EXTRA` is the difference, in replications' worth.
The child is forked once this process's flight has loaded the compiled kernels
(`model.replicate`), so the two share every fixed cost before it; what each pays after it (a
stack's first steps) is alike.
"""

from __future__ import annotations

from refuge_map import _aside
from refuge_map.simulation.scenario import Scenario, run_agent_steps, run_incidents
from refuge_map.simulation.stack import STACK_INCIDENTS

#: The first run's work in this process beyond a replication's, in replications' worth, less
#: what the child pays alone (its copied pages, its rows pickled and sent). In the default
#: scenario the first run's exile, tables and recording cost about 0.16 s of CPU against a
#: replication's 0.06 s, and the child's own costs as much: split 15/15, the two processes'
#: CPU after the fork was 0.97/1.00, 1.15/1.12 and 0.91/0.88 s; split 13/17 (this constant
#: at 4, session 6), this process ended 15-25% before the child (session 12, bench_run.py
#: prints both). An assumption elsewhere: without an exile, or recording more, the processes
#: end a little apart.
FIRST_RUN_EXTRA = 0.0
#: The least work worth a child, in agent-steps of the scenario's horizon (an incident's
#: manslayer and avenger each step): about 0.13 s of the default's flights (three of its
#: runs). Below it the fork's own cost (about 10 ms, and a second stack's steps) eats the gain.
MIN_CHILD_AGENT_STEPS = 20_000_000


def balanced(runs: int) -> int:
    """How many of `runs` replications a child lives so that it ends with this process, which
    lives the others and the first run in full (`FIRST_RUN_EXTRA`): at most ``runs - 1`` (a
    scenario has one run at least)."""
    return min(runs - 1, round((runs + FIRST_RUN_EXTRA) / 2))


def child_share(scenario: Scenario, *, split: bool | None = None) -> int:
    """How many of the scenario's replications (the last ones) a forked child lives.

    Parameters
    ----------
    scenario
        Its ``replications`` and the size of a run (`scenario.run_agent_steps`).
    split
        True: share them (`balanced`) wherever a child can be forked (`_aside.can_fork`);
        False: never; None: where moreover a core is spare (`_aside.spare_core`), the
        child's share is worth a process (`MIN_CHILD_AGENT_STEPS`) and a run is no larger
        than a stack (`stack.STACK_INCIDENTS`: larger runs fly one at a time, and two
        processes would hold two of them at once).

    Returns
    -------
    int
        0 where the replications are all lived here.
    """
    if split is False or not _aside.can_fork():
        return 0
    share = balanced(scenario.replications)
    worth = share * run_agent_steps(scenario) >= MIN_CHILD_AGENT_STEPS
    if split is None and not (
        worth and run_incidents(scenario) <= STACK_INCIDENTS and _aside.spare_core()
    ):
        return 0
    return share
