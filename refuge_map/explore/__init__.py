"""`refuge explore`: a local web app on the package's own engine (Starlette + a Leaflet page)."""

from refuge_map.explore.app import create_app

__all__ = ["create_app"]
