"""MkDocs hooks: the pages generated from the code, so that nothing is written twice.

The command line, the law's rules and disputes, the shipped cases, the output files' columns and
the sources are rendered from the objects the package itself uses. The tutorials are the
notebooks of `notebooks/` (`docs/tutorials` links to that folder), executed at build time by
mkdocs-jupyter with the small CI parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import _pages  # type: ignore[import-not-found]  # docs/ is on sys.path while mkdocs runs hooks
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

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
