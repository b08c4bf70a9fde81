"""Maps of the refuge network and of simulation runs: interactive HTML (folium) and PNG.

The public names load their modules on first use (PEP 562), so that a light module of this
package (`qgis`'s layer styles, `_style`'s palette), which the GeoPackage writers import, does
not load folium and geopandas's plotting with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from refuge_map._lazy import lazy_names

if TYPE_CHECKING:  # (`as`: the names are this package's, for the type checker)
    from refuge_map.render._coverage import read_coverage_file as read_coverage_file
    from refuge_map.render.html_map import network_map as network_map
    from refuge_map.render.run_files import RunFiles as RunFiles
    from refuge_map.render.run_files import read_run_files as read_run_files
    from refuge_map.render.save import MapFrame as MapFrame
    from refuge_map.render.save import map_frame as map_frame
    from refuge_map.render.save import render_html as render_html
    from refuge_map.render.save import save_map as save_map

#: The module of each public name.
_HOMES = {
    "MapFrame": "save",
    "RunFiles": "run_files",
    "map_frame": "save",
    "network_map": "html_map",
    "read_coverage_file": "_coverage",
    "read_run_files": "run_files",
    "render_html": "save",
    "save_map": "save",
}

__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_names(globals(), _HOMES)
