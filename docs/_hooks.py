"""MkDocs hooks: the pages generated from the code, so that nothing is written twice.

The command line, the law's rules and disputes, the shipped cases, the output files' columns and
the sources are rendered from the objects the package itself uses. The tutorials are the
notebooks of `notebooks/` (`docs/tutorials` links to that folder), executed at build time by
mkdocs-jupyter with the small CI parameters.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html.parser import HTMLParser
from typing import Any

import _pages  # type: ignore[import-not-found]  # docs/ is on sys.path while mkdocs runs hooks
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

#: Every generated page: its path in the site and the function that writes it.
GENERATED: dict[str, Callable[[], str]] = {
    "cli.md": _pages.cli_page,
    "law/rules.md": _pages.rules_page,
    "law/disputes.md": _pages.disputes_page,
    "law/cases.md": _pages.cases_page,
    "files.md": _pages.files_page,
    "sources.md": _pages.sources_page,
}


def on_files(files: Files, config: MkDocsConfig, **_: Any) -> Files:
    """Add the generated pages to the site's files."""
    for uri, write in GENERATED.items():
        files.append(File.generated(config, uri, content=write()))
    return files


#: A URL that leaves the site: ``http://``, ``https://`` or protocol-relative ``//``.
_EXTERNAL = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)
_CSS_IMPORT = re.compile(r"@import\s+(?:url\()?\s*['\"]?((?:https?:)?//[^'\")\s]+)", re.I)


class _Assets(HTMLParser):
    """The external scripts, stylesheets and CSS imports of a page, and of the pages its
    frames hold in ``srcdoc`` (a notebook's map)."""

    def __init__(self) -> None:
        super().__init__()  # convert_charrefs: a srcdoc arrives unescaped
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag == "script" and _EXTERNAL.match(values.get("src", "")):
            self.found.append(values["src"])
        stylesheet = tag == "link" and "stylesheet" in values.get("rel", "").lower().split()
        if stylesheet and _EXTERNAL.match(values.get("href", "")):
            self.found.append(values["href"])
        if tag == "iframe" and values.get("srcdoc"):
            self.found += external_assets(values["srcdoc"])

    def handle_data(self, data: str) -> None:
        self.found += _CSS_IMPORT.findall(data)


def external_assets(html: str) -> list[str]:
    """Every script, stylesheet or CSS import the page (or a frame in it) loads from the
    network: the site must open with nothing fetched."""
    parser = _Assets()
    parser.feed(html)
    parser.close()
    return parser.found


def on_post_page(output: str, page: Page, **_: Any) -> str:
    """Fail the build on a page that would fetch a script or stylesheet when opened."""
    found = external_assets(output)
    if found:
        raise PluginError(f"{page.file.src_uri} loads from the network: {', '.join(found[:3])}")
    return output
