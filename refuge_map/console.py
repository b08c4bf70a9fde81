"""The `refuge` console script (``refuge = "refuge_map.console:script"``): its process's
environment set (`PROCESS_DEFAULTS`) before anything that reads it is imported, then the
command line (`refuge_map.cli.script`).

It is a module of its own because importing `refuge_map.cli` loads what reads part of that
environment: its commands' options name the law's opinions, pydantic models whose first
validator built (at a command's first input read) makes pydantic look for its plugins.
"""

from __future__ import annotations

import os
from typing import NoReturn

#: The environment variable of OpenBLAS's thread count (numpy's and scipy's both read it).
BLAS_THREADS = "OPENBLAS_NUM_THREADS"
#: The environment variable of Arrow's default memory pool (read at its first use).
ARROW_POOL = "ARROW_DEFAULT_MEMORY_POOL"
#: The environment variable of pydantic's plugins (read when its first validator is built).
PYDANTIC_PLUGINS = "PYDANTIC_DISABLE_PLUGINS"
#: What the console script's process and its children run with, unless the user set it.
PROCESS_DEFAULTS = {BLAS_THREADS: "1", ARROW_POOL: "system", PYDANTIC_PLUGINS: "__all__"}


def set_process_defaults() -> None:
    """Set `PROCESS_DEFAULTS` in this process's environment (and so its children's) where the
    user did not: before numpy, pyarrow and pydantic's first model are loaded (importing this
    module loads none of them). The same bytes come out either way; only the cost of making
    them changes.

    OpenBLAS on one thread: the package multiplies no matrices; yet numpy and scipy each load
    an OpenBLAS that starts a worker per core at import, and the workers spin before they
    sleep: 0.2 s of CPU of a default `refuge run` on 2 cores (CPU the other core's
    replications want), and 0.05 s of the wall of numpy's import. The parallelism of runs is
    across processes (a run's replications, a sweep's workers), and one BLAS thread each is
    what Dask's nanny sets for its workers too (``distributed.nanny.pre-spawn-environ``).

    Arrow's buffers (pandas' text columns, the files' tables) from the C library's allocator,
    not Arrow's default mimalloc: mimalloc asks for huge pages, and the kernel zeroes a 2 MB
    page for each one it begins to fill, in this process and again in each forked child (its
    heap's pages are new to it). Measured on a default `refuge run` (2 cores, 16 rounds in
    turn): system time 0.36 -> 0.31 s, the wall a median 0.97x.

    No pydantic plugins: pydantic finds them by reading the entry points of every installed
    distribution when its first validator is built (a model's, at its first validation:
    `refuge_map._strict.Strict`). In the project's environment (204 distributions) that cost
    importing `refuge_map.cli` 25-35 ms (0.15-0.18 -> 0.125-0.13 s, when the models' validators
    were built at import), about 10 ms of a `refuge run`'s start, which reads the libraries'
    metadata for its network's cache key anyway; more in a larger environment. A plugin only watches
    validations (it cannot change what a model holds), and the command's models are its own
    input's. ``PYDANTIC_DISABLE_PLUGINS=`` (empty) in the environment runs a command with
    them.
    """
    for name, value in PROCESS_DEFAULTS.items():
        os.environ.setdefault(name, value)


def script() -> NoReturn:
    """The `refuge` console script: `set_process_defaults`, then the command line."""
    set_process_defaults()
    from refuge_map.cli import script as command_line  # reads the environment just set

    command_line()
