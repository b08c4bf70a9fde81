"""The pinned JavaScript and CSS of the maps: their CDN URLs, their installed files, inlining."""

from __future__ import annotations

import base64
import json
import mimetypes
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from refuge_map.errors import RefugeError

#: Where `package.json` and `package-lock.json` pin the assets; `make assets` runs `npm ci` here.
ASSETS_DIR = Path(__file__).resolve().parent / "assets"
INSTALL_HINT = "run `make assets` (npm ci --prefix refuge_map/render/assets)"


@dataclass(frozen=True)
class Asset:
    """One file of an npm package at a pinned version.

    Parameters
    ----------
    package, version
        The npm package and its exact version (as `package.json` pins it).
    path
        The file inside the package.
    """

    package: str
    version: str
    path: str

    @property
    def url(self) -> str:
        """The file's CDN URL at exactly the pinned version."""
        return f"https://cdn.jsdelivr.net/npm/{self.package}@{self.version}/{self.path}"

    def local(self, node_modules: Path) -> Path:
        """The installed file under `node_modules`."""
        return node_modules / self.package / self.path


LEAFLET_JS = Asset("leaflet", "1.9.3", "dist/leaflet.js")
LEAFLET_CSS = Asset("leaflet", "1.9.3", "dist/leaflet.css")
JQUERY_JS = Asset("jquery", "3.7.1", "dist/jquery.min.js")
ISO8601_JS = Asset("iso8601-js-period", "0.2.1", "iso8601.js")
TIMEDIMENSION_JS = Asset("leaflet-timedimension", "1.1.1", "dist/leaflet.timedimension.min.js")
TIMEDIMENSION_CSS = Asset(
    "leaflet-timedimension", "1.1.1", "dist/leaflet.timedimension.control.css"
)
MOMENT_JS = Asset("moment", "2.18.1", "min/moment.min.js")
MARKERCLUSTER_JS = Asset("leaflet.markercluster", "1.5.3", "dist/leaflet.markercluster.js")
MARKERCLUSTER_CSS = Asset("leaflet.markercluster", "1.5.3", "dist/MarkerCluster.css")

#: What a map needs: folium's (name, URL) pairs for `Map.default_js` and `default_css` (its
#: popups build their content with jQuery). The map draws its markers itself, so folium's
#: awesome-markers, font-awesome and bootstrap are left out.
MAP_JS: tuple[tuple[str, Asset], ...] = (("leaflet", LEAFLET_JS), ("jquery", JQUERY_JS))
MAP_CSS: tuple[tuple[str, Asset], ...] = (("leaflet_css", LEAFLET_CSS),)
#: What the time slider needs: leaflet-timedimension, its ISO 8601 periods, and moment for the
#: date it shows.
SLIDER_JS: tuple[tuple[str, Asset], ...] = (
    ("iso8601", ISO8601_JS),
    ("leaflet.timedimension", TIMEDIMENSION_JS),
    ("moment", MOMENT_JS),
)
SLIDER_CSS: tuple[tuple[str, Asset], ...] = (("leaflet.timedimension_css", TIMEDIMENSION_CSS),)
#: What the clusters of events need (their icons are styled by the page itself).
CLUSTER_JS: tuple[tuple[str, Asset], ...] = (("leaflet.markercluster", MARKERCLUSTER_JS),)
CLUSTER_CSS: tuple[tuple[str, Asset], ...] = (("leaflet.markercluster_css", MARKERCLUSTER_CSS),)

#: Absolute URLs inside the pinned CSS, and the pinned package folder that serves them when
#: inlined. The time slider's CSS loads the Glyphicons font of Bootstrap 3.0.0, which npm does
#: not hold; Bootstrap 3.4.1 carries the same glyphs at the same code points.
CSS_URL_SOURCES: dict[str, Asset] = {
    "//netdna.bootstrapcdn.com/bootstrap/3.0.0/fonts/": Asset("bootstrap", "3.4.1", "fonts/"),
}

#: The files a page links to, and with the fonts their CSS loads, every pinned package.
LINKED: tuple[Asset, ...] = tuple(
    asset for _, asset in (*MAP_JS, *MAP_CSS, *SLIDER_JS, *SLIDER_CSS, *CLUSTER_JS, *CLUSTER_CSS)
)
PINNED: tuple[Asset, ...] = LINKED + tuple(CSS_URL_SOURCES.values())

_SCRIPT = re.compile(r'<script src="([^"]*)"></script>')
_STYLESHEET = re.compile(r'<link rel="stylesheet" href="([^"]*)"\s*/?>')
_CSS_URL = re.compile(r"""url\(\s*(['"]?)([^'")]+)\1\s*\)""")
_FONT_TYPES = {".woff": "font/woff", ".woff2": "font/woff2", ".ttf": "font/ttf"}
#: One ``src`` of a ``@font-face``: a declaration, or one entry of its comma-separated list.
_FONT_SOURCE = re.compile(r"""(src:\s*|,\s*)url\(([^)]*)\)(\s*format\((['"]?)([\w-]+)\4\))?""")
#: The font formats every browser that runs the map reads; a page inlines only these (the
#: legacy formats of old browsers, EOT, TrueType and SVG, would weigh five times as much).
_WEB_FONTS = frozenset({"woff", "woff2"})


def folium_links(assets: tuple[tuple[str, Asset], ...]) -> list[tuple[str, str]]:
    """The (name, URL) pairs folium takes as `default_js` / `default_css`."""
    return [(name, asset.url) for name, asset in assets]


def pinned_versions() -> dict[str, str]:
    """Package -> pinned version, as `package.json` must list them."""
    return {asset.package: asset.version for asset in PINNED}


def pinned_urls() -> frozenset[str]:
    """Every URL a normal (not self-contained) page may load."""
    return frozenset(asset.url for asset in LINKED)


def inline_assets(html: str, node_modules: Path | None = None) -> str:
    """Replace every pinned ``<script src>`` and stylesheet link of a page by the file inlined.

    CSS ``url(...)`` references (images, fonts) become ``data:`` URIs, so the page loads
    nothing from the network.

    Parameters
    ----------
    html
        A page rendered by folium.
    node_modules
        Where `npm ci` installed the packages (default: beside `package.json`).

    Raises
    ------
    RefugeError
        If the page loads a URL that is not pinned, or a pinned file is not installed (the
        message names it and the command that installs it). Nothing is ever downloaded.
    """
    folder = node_modules if node_modules is not None else ASSETS_DIR / "node_modules"
    by_url = {asset.url: asset for asset in LINKED}

    def pinned(url: str) -> Asset:
        if url not in by_url:
            raise RefugeError("the map loads an asset that is not pinned", value=url)
        return by_url[url]

    def script(match: re.Match[str]) -> str:
        code = _read(pinned(match[1]), folder).decode("utf-8")
        # Neither "</script" nor "<!--" may appear raw in a script element (HTML 13.2.5.5).
        code = code.replace("</script", "<\\/script").replace("<!--", "<\\!--")
        return f"<script>{code}</script>"

    def stylesheet(match: re.Match[str]) -> str:
        asset = pinned(match[1])
        css = _inline_css_urls(_read(asset, folder).decode("utf-8"), asset, folder)
        css = css.replace("</style", "<\\/style")
        return f"<style>{css}</style>"

    return _STYLESHEET.sub(stylesheet, _SCRIPT.sub(script, html))


def _read(asset: Asset, node_modules: Path) -> bytes:
    """The installed file of `asset`, checked against the pinned version."""
    path = asset.local(node_modules)
    manifest = node_modules / asset.package / "package.json"
    if not path.is_file() or not manifest.is_file():
        raise RefugeError(
            f"asset not installed at {path}; {INSTALL_HINT}",
            source=f"{asset.package}@{asset.version}/{asset.path}",
        )
    installed = json.loads(manifest.read_text(encoding="utf-8")).get("version")
    if installed != asset.version:
        raise RefugeError(
            f"installed version {installed}, pinned {asset.version}; {INSTALL_HINT}",
            source=f"{asset.package}@{asset.version}",
        )
    return path.read_bytes()


def _inline_css_urls(css: str, asset: Asset, node_modules: Path) -> str:
    """`css` with every ``url(...)`` it references turned into a ``data:`` URI."""

    def data_uri(match: re.Match[str]) -> str:
        url = match[2].strip()
        if url.startswith(("data:", "#")):
            return match[0]
        target = _css_target(url, asset)
        payload = base64.b64encode(_read(target, node_modules)).decode("ascii")
        return f'url("data:{_media_type(target.path)};base64,{payload}")'

    return _CSS_URL.sub(data_uri, _web_fonts_only(css))


def _web_fonts_only(css: str) -> str:
    """`css` with the ``@font-face`` sources in legacy formats left out (see `_WEB_FONTS`): a
    declaration without a format goes if it names an ``.eot``; a list keeps its web fonts."""

    def keep(match: re.Match[str]) -> str:
        fmt = match[5]
        legacy = (
            fmt not in _WEB_FONTS if fmt else match[2].strip("'\" ").split("?")[0].endswith(".eot")
        )
        if not legacy:
            return match[0]
        return match[1] if match[1].startswith("src") else ""  # the list's head stays

    kept = _FONT_SOURCE.sub(keep, css)
    kept = re.sub(r"src:\s*;", "", kept)  # a declaration whose sources all went
    return re.sub(r"src:\s*,\s*", "src: ", kept)  # a list that lost its first entries


def _css_target(url: str, asset: Asset) -> Asset:
    """The pinned file a CSS ``url(...)`` of `asset` points at (query and fragment dropped)."""
    path = re.split(r"[?#]", url, maxsplit=1)[0]
    for prefix, source in CSS_URL_SOURCES.items():
        if path.startswith(prefix):
            return Asset(source.package, source.version, source.path + path[len(prefix) :])
    if path.startswith(("//", "http:", "https:", "/")):
        raise RefugeError("the CSS loads a URL that is not pinned", source=asset.url, value=url)
    folder = posixpath.dirname(asset.path)
    return Asset(asset.package, asset.version, posixpath.normpath(posixpath.join(folder, path)))


def _media_type(path: str) -> str:
    suffix = Path(path).suffix.lower()
    return _FONT_TYPES.get(suffix) or mimetypes.guess_type(path)[0] or "application/octet-stream"
