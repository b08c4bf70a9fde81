"""Packages whose public names load on first use (`refuge_map._lazy`): every name is what the
package exports, in whatever order its modules were imported."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

#: Each lazy package, and the modules that hold its public names.
LAZY = {
    "refuge_map.law": ("case", "judging", "opinions", "ruling"),
    "refuge_map.render": ("_coverage", "html_map", "run_files", "save"),
}


@pytest.mark.parametrize("package", sorted(LAZY))
def test_every_public_name_is_its_modules_after_any_module_was_imported_first(
    package: str,
) -> None:
    """In a fresh interpreter per module imported first: a package attribute of a submodule's
    name would shadow the exported name of that name (``refuge_map.law.judge``)."""
    homes = [f"{package}.{module}" for module in LAZY[package]]
    for first in homes:
        code = (
            f"import importlib, types, {first}\n"
            f"package = importlib.import_module({package!r})\n"
            f"homes = [importlib.import_module(home) for home in {homes!r}]\n"
            "for name in package.__all__:\n"
            "    value = getattr(package, name)\n"
            "    assert not isinstance(value, types.ModuleType), name\n"
            "    assert any(getattr(home, name, None) is value for home in homes), name\n"
            "print('ok')\n"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert done.stdout.strip() == "ok", (first, done.stderr)


@pytest.mark.parametrize("package", sorted(LAZY))
def test_a_name_the_package_lacks_is_an_attribute_error(package: str) -> None:
    with pytest.raises(AttributeError, match="no attribute 'nothing_of_the_kind'"):
        getattr(importlib.import_module(package), "nothing_of_the_kind")  # noqa: B009


def test_a_module_named_as_an_exported_name_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "shadowing"
    package.mkdir()
    (package / "judge.py").write_text("def judge():\n    return 1\n")
    (package / "__init__.py").write_text(
        "from refuge_map._lazy import lazy_names\n"
        "__getattr__, __dir__ = lazy_names(globals(), {'judge': 'judge'})\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(
        ImportError, match=r"shadowing: modules named as names it exports: \['judge'\]"
    ):
        importlib.import_module("shadowing")
