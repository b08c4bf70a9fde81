"""Write a map as an HTML page: with pinned CDN links, or self-contained with nothing to fetch."""

from __future__ import annotations

import html
import os
import re
from dataclasses import dataclass
from pathlib import Path

import folium

from refuge_map._atomic import atomic_file
from refuge_map.errors import RefugeError
from refuge_map.render.assets import inline_assets

#: The suffixes of an HTML map's file.
HTML_SUFFIXES = (".html", ".htm")


def render_html(fmap: folium.Map, *, self_contained: bool, node_modules: Path | None = None) -> str:
    """The page of `fmap` as text; self-contained: every script and stylesheet inlined.

    Parameters
    ----------
    fmap
        A map from `network_map`.
    self_contained
        Inline every script and stylesheet (from the installed packages); otherwise the page
        loads the pinned CDN URLs.
    node_modules
        Where the pinned packages are installed (default: beside `package.json`).

    Returns
    -------
    str
        The HTML page.

    Raises
    ------
    RefugeError
        For a self-contained page of a map with tiles (tiles load from the network), or an
        asset that is not pinned or not installed (see `inline_assets`).
    """
    if self_contained and any(isinstance(c, folium.TileLayer) for c in fmap._children.values()):
        raise RefugeError(
            "tiles load from the network: a self-contained map takes no tiles (--tiles none)",
            field="tiles",
        )
    page = _with_language(_stable_ids(fmap.get_root().render()))
    return inline_assets(page, node_modules) if self_contained else page


#: folium names every element with a random 32-hex id (e.g. ``feature_group_3f2a...``).
_FOLIUM_ID = re.compile(r"(?<=_)[0-9a-f]{32}(?![0-9a-f])")


def _stable_ids(page: str) -> str:
    """Number folium's random element ids in order of appearance, so that the same map gives
    the same page byte for byte."""
    ids: dict[str, str] = {}
    return _FOLIUM_ID.sub(lambda m: ids.setdefault(m.group(0), f"{len(ids):032x}"), page)


@dataclass(frozen=True)
class MapFrame:
    """A self-contained map page shown in a notebook (and on the documentation site) in an
    ``<iframe srcdoc>``: unlike folium's own display, it fetches nothing when opened.

    Attributes
    ----------
    page
        The self-contained page (`render_html`).
    height_px
        The frame's height.
    """

    page: str
    height_px: int = 520

    def _repr_html_(self) -> str:
        return (
            f'<iframe srcdoc="{html.escape(self.page, quote=True)}" title="map" '
            f'style="width:100%;height:{self.height_px}px;border:none"></iframe>'
        )


def map_frame(
    fmap: folium.Map, *, height_px: int = 520, node_modules: Path | None = None
) -> MapFrame:
    """`fmap` self-contained, for a notebook: every script and stylesheet inlined.

    Parameters
    ----------
    fmap
        A map from `network_map` (without tiles: they load from the network).
    height_px
        The frame's height in the notebook.
    node_modules
        Where the pinned packages are installed (default: beside `package.json`).

    Returns
    -------
    MapFrame
        Displayed by Jupyter (and on the documentation site) as a frame that fetches nothing.

    Raises
    ------
    RefugeError
        As `render_html` does (a map with tiles, an asset not installed: `make assets`).
    """
    return MapFrame(render_html(fmap, self_contained=True, node_modules=node_modules), height_px)


def html_path(path: str | os.PathLike[str]) -> Path:
    """`path`, if it names an HTML file.

    Raises
    ------
    RefugeError
        If its suffix is not ``.html`` (or ``.htm``).
    """
    target = Path(path)
    if target.suffix.lower() not in HTML_SUFFIXES:
        raise RefugeError(
            "an HTML map needs FILE.html (pictures: --png FILE.png, FILE.pdf or FILE.svg)",
            source=str(target),
        )
    return target


def _with_language(page: str) -> str:
    """The page's language declared (branca writes a bare ``<html>``): English, with the Hebrew
    names marked ``lang="he"`` where they appear."""
    return page.replace("<html>", '<html lang="en">', 1)


def save_map(
    fmap: folium.Map,
    path: str | os.PathLike[str],
    *,
    self_contained: bool = False,
    node_modules: Path | None = None,
) -> Path:
    """Write `fmap` to `path` atomically (a reader never sees half a page).

    Parameters
    ----------
    fmap
        A map from `network_map`.
    path
        The HTML file to write.
    self_contained
        Inline every script, stylesheet, font and image, so that the page makes no network
        request at all (from the packages `make assets` installed; nothing is downloaded).
        Otherwise the page loads the pinned CDN URLs.
    node_modules
        Where the pinned packages are installed (default: beside `package.json`).

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    RefugeError
        If `path` does not end in ``.html`` (or ``.htm``), or see `render_html`; `path` is then
        left as it was.
    """
    target = html_path(path)
    page = render_html(fmap, self_contained=self_contained, node_modules=node_modules)
    with atomic_file(target) as tmp:
        tmp.write_text(page, encoding="utf-8")
    return target
