"""Maps of the refuge network and of simulation runs: interactive HTML (folium) and PNG."""

from refuge_map.render._coverage import read_coverage_file
from refuge_map.render.network_map import network_map
from refuge_map.render.run_layers import RunFiles, read_run_files
from refuge_map.render.save import MapFrame, map_frame, render_html, save_map

__all__ = [
    "MapFrame",
    "RunFiles",
    "map_frame",
    "network_map",
    "read_coverage_file",
    "read_run_files",
    "render_html",
    "save_map",
]
