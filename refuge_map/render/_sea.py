"""The Mediterranean as a shape to fill, for the HTML map and the static figures alike: the
shipped coastline closed to the west (and to the north along a schematic coast), so that the
sea reaches the edge of any view and the land does not end in a rectangle at the data's region.
"""

from __future__ import annotations

import geopandas as gpd
import shapely

#: The coast beyond the data's region, schematic (lon, lat), north of where the shipped
#: coastline leaves the region: Sidon, Beirut, Tripoli, Latakia, the gulf of Iskenderun. It only
#: closes the sea beyond the data (the land beyond the region is the picture's background).
_COAST_BEYOND = ((35.37, 33.9), (35.84, 34.45), (35.77, 35.52), (36.0, 36.9))
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
    (_, south_lat) = ring[-1]
    ring += [(_SEA_WEST, south_lat), (_SEA_WEST, _SEA_NORTH)]
    ring += [(lon, lat) for lon, lat in reversed(_COAST_BEYOND)]
    return shapely.Polygon(ring)
