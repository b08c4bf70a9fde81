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
copies, its rows sent back): `FIRST_RUN_EXTRA` is the difference, in replications' worth,
and `FIRST_RUN_WRITING` the first run's files where this process writes them meanwhile.
The child is forked once this process has built the first run's world with the compiled
kernels loaded (`model.replicate`), so the two share the imports, the network and its lookups
and the kernels; after it each builds its own runs' worlds and steps its own stack from the
first step.

In a `refuge run` neither process has pandas then (nor pyarrow, nor geopandas): the
simulation's modules import them where a table is made, and the network, the worlds, the
flights (`Flight.outcome_columns`) and the replications' headlines need none. This process
imports them after the fork, for the first run's tables, while the child works
(`TABLES_IMPORT`); the child never does.
"""

from __future__ import annotations

import sys

from refuge_map import _aside
from refuge_map.simulation.scenario import Scenario, run_agent_steps, run_incidents
from refuge_map.simulation.stack import STACK_INCIDENTS

#: The first run's work in this process beyond a replication's, in replications' worth, less
#: what the child pays alone (its copied pages, its rows pickled and sent). Measured in the
#: default scenario (session 18, forked once the first world is built, the others' events not
#: kept; `bench_run.py` and the processes' ends timed, 4 runs each): at 0 (15/15) the child
#: ended 0.11-0.17 s before this process, at 2 (14/16) 0.08-0.12 s, at 4 (13/17) 0.02-0.08 s
#: before, at 6 (12/18) 0.02-0.05 s after; on a slower, noisier machine of the same kind
#: (session 19, 20 runs each) the child ended a median 0.037 s before it at 2 and 0.004 s
#: before at 4. (Forked after the first step, 0 balanced them: sessions 12-17.) An
#: assumption elsewhere: without an exile, or recording more, the processes end a little
#: apart.
FIRST_RUN_EXTRA = 4.0
#: The first run's files written by this process while the child works (`refuge run`:
#: `model.replicate`'s ``beside``), in replications' worth: about 0.13 s of CPU in the default
#: scenario, events, trajectories and the GeoPackage (then written here, the cores both busy)
#: against a replication's ~0.05 s. Measured (session 19, 20 rounds of the three in turn, the
#: wall's median ratio to the files written after the child's rows): 0.92 at 2 (18/12 of 30),
#: 0.94 at 4 (19/11). Since the console script has Arrow's buffers from the system's
#: allocator (its process defaults), the child pays no huge pages of its own and ends earlier
#: (session 20, 12 runs each, the child's end less the first run's files written here,
#: median): -0.18 s at 2, -0.10 s at 4, -0.06 s at 6 (20/10), +0.025 s at 8 (21/9); the wall,
#: 20 and 30 rounds in turn, a median 0.944 and 0.981 of 2's at 6. An assumption elsewhere
#: (Arrow's own allocator too), as `FIRST_RUN_EXTRA`.
FIRST_RUN_WRITING = 6.0
#: The least work worth a child, in agent-steps of the scenario's horizon (an incident's
#: manslayer and avenger each step): about 0.13 s of the default's flights (three of its
#: runs). Below it the fork's own cost (about 10 ms, and a second stack's steps) eats the gain.
MIN_CHILD_AGENT_STEPS = 20_000_000


#: The tables' libraries (pandas, and pyarrow and geopandas with it) imported by this process
#: after the fork where none is loaded before it (a `refuge run`: the network, the worlds and
#: the flights need none, and the child never imports them), in replications' worth: about
#: 0.2 s of CPU against a replication's ~0.035 s. Measured (session 25, the default scenario,
#: `refuge run`, 10 runs each in turn, the processes' ends timed; this process's own end
#: after the child's rows, its summary and report, is 0.06-0.08 s): the child ended a median
#: 0.27-0.32 s before this process at 0, 0.19 s at 4, 0.058 s at 8 and 0.062 s at 12 (20/10,
#: 22/8 and 24/6 of 30); the wall 1.575, 1.500 and 1.550 s. An assumption elsewhere, as
#: `FIRST_RUN_EXTRA`.
TABLES_IMPORT = 8.0
#: The module whose import `TABLES_IMPORT` is: loaded already (a notebook, a sweep's worker, a
#: second run in one process), this process pays nothing for it after the fork.
TABLES_LIBRARY = "pandas"


def balanced(runs: int, *, writing: bool = False, importing: bool = False) -> int:
    """How many of `runs` replications a child lives so that it ends with this process, which
    lives the others and the first run in full (`FIRST_RUN_EXTRA`), with `writing` writes its
    files meanwhile (`FIRST_RUN_WRITING`) and with `importing` imports the tables' libraries
    first (`TABLES_IMPORT`): at most ``runs - 1`` (a scenario has one run at least)."""
    extra = FIRST_RUN_EXTRA + (FIRST_RUN_WRITING if writing else 0.0)
    extra += TABLES_IMPORT if importing else 0.0
    return min(runs - 1, round((runs + extra) / 2))


def child_share(scenario: Scenario, *, split: bool | None = None, writing: bool = False) -> int:
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
    writing
        Whether this process writes the first run's files while the child works (`balanced`).
        Whether it imports the tables' libraries after the fork is asked of this process
        (`TABLES_LIBRARY`).

    Returns
    -------
    int
        0 where the replications are all lived here.
    """
    if split is False or not _aside.can_fork():
        return 0
    importing = TABLES_LIBRARY not in sys.modules
    share = balanced(scenario.replications, writing=writing, importing=importing)
    worth = share * run_agent_steps(scenario) >= MIN_CHILD_AGENT_STEPS
    if split is None and not (
        worth and run_incidents(scenario) <= STACK_INCIDENTS and _aside.spare_core()
    ):
        return 0
    return share
