"""How much land the asylum covers under each cubit and each shape of the Sabbath boundary."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import shapely

from geo import RefugeNetwork
from geo.land_grid import study_area

#: Where the breadth, the cubit and the squaring come from.
TECHUM_SOURCE = (
    "Numbers 35:5 and Mishnah Makkot 2:7: the boundary protects as the city; Mishnah Eruvin 5:1, "
    "Eruvin 56a: the town squared like a tablet; the cubit after R. A. C. Naeh or the Chazon Ish"
)


def asylum_extent(networks: Mapping[str, RefugeNetwork]) -> pd.DataFrame:
    """The protecting land (towns and their boundaries) of networks loaded under other options.

    Parameters
    ----------
    networks
        Label -> network (e.g. ``load_network(cubit_m="chazon_ish", techum="round")``), all on
        the same data.

    Returns
    -------
    pandas.DataFrame
        One row per label: ``cubit_m``, ``techum``, ``belt_m`` (the boundary's breadth in
        metres), ``zone_km2`` (the six zones together), ``mean_zone_km2``,
        ``share_of_land`` (of the study area, `refuge_map.analysis.study_area`), and
        ``source``.
    """
    rows = []
    for label, network in networks.items():
        zones = network.zones.geometry.to_numpy()
        land = shapely.union_all(study_area(network).geometry.to_numpy())
        options = network.options
        rows.append(
            {
                "network": label,
                "cubit_m": float(options["cubit_m"]),
                "techum": str(options["techum"]),
                "belt_m": float(options["cubit_m"]) * float(options["techum_cubits"]),
                "zone_km2": float(shapely.area(zones).sum() / 1e6),
                "mean_zone_km2": float(shapely.area(zones).mean() / 1e6),
                "share_of_land": float(
                    shapely.area(shapely.intersection(shapely.union_all(zones), land))
                    / shapely.area(land)
                ),
                "source": TECHUM_SOURCE,
            }
        )
    return pd.DataFrame(rows).set_index("network")
