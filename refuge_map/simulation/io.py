"""Write a run's files atomically (events, trajectories, lines, summary) and read them back."""

from __future__ import annotations

import json
from pathlib import Path

import geopandas as gpd
import pandas as pd

from refuge_map._atomic import atomic_dir
from refuge_map.io import pinned_gpkg_date
from refuge_map.simulation.run import Run
from refuge_map.simulation.scenario import Scenario

#: The files of a run folder.
RUN_FILES = (
    "events.parquet",
    "trajectories.parquet",
    "trajectories.gpkg",
    "summary.json",
    "scenario.json",
)
#: The exile's tables (Simulation II), written when the run has them: one row per manslayer,
#: the rent ledger (Mishnah Makkot 2:8), the priests and the years in the city.
EXILE_FILES = ("manslayers.parquet", "ledger.parquet", "priests.parquet", "residence.parquet")
#: One row per replication (its seed and headline outcomes), written by `replicate`'s runs.
REPLICATIONS_FILE = "replications.parquet"


def write_run(run: Run, out_dir: str | Path) -> list[Path]:
    """Write `RUN_FILES` into `out_dir`, replacing it whole, atomically.

    ``events.parquet`` (the events table), ``trajectories.parquet`` (GeoParquet points, one row
    per agent and time), ``trajectories.gpkg`` (layer ``lines``: one LineString per agent, for
    QGIS), ``summary.json`` and ``scenario.json`` (the validated scenario, for `read_run`);
    with an exile, `EXILE_FILES` too; with replications (`replicate`), `REPLICATIONS_FILE`.

    Parameters
    ----------
    run
        The run to write.
    out_dir
        The folder: created, or replaced whole if it is empty or refuge-map wrote it.

    Returns
    -------
    list of Path
        The files written. On any failure nothing of `out_dir` is changed.

    Raises
    ------
    RefugeError
        If `out_dir` holds files refuge-map did not write (nothing is written then).
    """
    target = Path(out_dir)
    with atomic_dir(target) as tmp:
        run.events.to_parquet(tmp / "events.parquet", index=False)
        run.trajectories.to_parquet(tmp / "trajectories.parquet", index=False)
        with pinned_gpkg_date():
            run.lines().to_file(
                tmp / "trajectories.gpkg", layer="lines", driver="GPKG", engine="pyogrio"
            )
        (tmp / "summary.json").write_text(
            json.dumps(run.summary, indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )
        (tmp / "scenario.json").write_text(run.scenario.model_dump_json(indent=2) + "\n")
        extra: tuple[str, ...] = EXILE_FILES if run.ledger is not None else ()
        extra += (REPLICATIONS_FILE,) if run.replications is not None else ()
        for name in extra:
            getattr(run, name.removesuffix(".parquet")).to_parquet(tmp / name, index=False)
    return [target / name for name in (*RUN_FILES, *extra)]


def read_run(out_dir: str | Path) -> Run:
    """Read a run folder written by `write_run`.

    Parameters
    ----------
    out_dir
        The folder `write_run` wrote.

    Returns
    -------
    Run
        The run as written (its scenario validated again).

    Raises
    ------
    FileNotFoundError
        If a file of `RUN_FILES` is missing.
    """
    folder = Path(out_dir)
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    scenario = Scenario.model_validate_json((folder / "scenario.json").read_text())
    return Run(
        scenario=scenario,
        seed=int(summary["seed"]),
        run_id=str(summary["run_id"]),
        events=pd.read_parquet(folder / "events.parquet"),
        trajectories=gpd.read_parquet(folder / "trajectories.parquet"),
        summary=summary,
        opinions=summary["opinions"],
        **{
            name.removesuffix(".parquet"): pd.read_parquet(folder / name)
            for name in (*EXILE_FILES, REPLICATIONS_FILE)
            if (folder / name).exists()
        },
    )
