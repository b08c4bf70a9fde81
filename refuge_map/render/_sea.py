"""The Mediterranean as a shape to fill, for the HTML map and the static figures alike: the
shipped coastline closed to the west (and to the north and south-west along a schematic coast),
so that the sea reaches the edge of any view and the land does not end in a rectangle at the
data's region.
"""

from __future__ import annotations

import geopandas as gpd
import shapely

#: The coast beyond the data's region, schematic (lon, lat), north of where the shipped
#: coastline leaves the region: Sidon, Beirut, Tripoli, Latakia, the gulf of Iskenderun. It only
#: closes the sea beyond the data (the land beyond the region is the picture's background).
_COAST_BEYOND = ((35.37, 33.9), (35.84, 34.45), (35.77, 35.52), (36.0, 36.9))
#: The coast beyond the data's region to the south-west (lon, lat), from where the shipped
#: coastline leaves the region at 34 E: El Arish, the Bardawil bar, Port Said, the mouths of
#: the Nile at Damietta and Rosetta, Alexandria, El Alamein, Marsa Matruh, Sallum, Tobruk,
#: Derna, Benghazi. Closed along a parallel instead, the sea ended in a straight edge at the
#: coastline's last latitude (31.21 N), Sinai's and Egypt's coast drawn as land north of it.
_COAST_SOUTH = (
    (33.80, 31.15),
    (33.20, 31.23),
    (32.30, 31.27),
    (31.83, 31.52),
    (30.37, 31.47),
    (29.90, 31.21),
    (28.95, 30.84),
    (27.24, 31.36),
    (25.16, 31.57),
    (23.96, 32.09),
    (22.64, 32.77),
    (20.07, 32.12),
)
#: How far west and north the schematic sea reaches (degrees).
_SEA_WEST, _SEA_NORTH = 20.0, 37.0
#: The source of the sea's shape, as the maps' popups cite it.
SEA_SOURCE = "Natural Earth; beyond the data: schematic"


def sea_polygon(hydrography: gpd.GeoDataFrame) -> shapely.Polygon | None:
    """The sea (WGS84) from the network's hydrography in WGS84 (the lines of it suffice),
    or None where they hold no ``mediterranean_coast``."""
    coast = hydrography.set_index("id").geometry.get("mediterranean_coast")
    if coast is None:
        return None
    ring = list(coast.coords)
    if ring[0][1] < ring[-1][1]:
        ring.reverse()  # north to south
    ring += [point for point in _COAST_SOUTH if point[0] < ring[-1][0]]  # west of the data
    ring += [(_SEA_WEST, ring[-1][1]), (_SEA_WEST, _SEA_NORTH)]
    ring += [(lon, lat) for lon, lat in reversed(_COAST_BEYOND)]
    return shapely.Polygon(ring)
