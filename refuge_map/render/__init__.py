"""Maps of the refuge network and of simulation runs: interactive HTML (folium) and PNG."""

from refuge_map.render.network_map import network_map
from refuge_map.render.run_layers import Run, read_run
from refuge_map.render.save import render_html, save_map

__all__ = ["Run", "network_map", "read_run", "render_html", "save_map"]
