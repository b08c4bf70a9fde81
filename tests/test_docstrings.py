"""The public API's docstrings: a numpydoc Parameters section naming every parameter, and a
Returns section wherever something is returned (what `__all__` of each public module names)."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import warnings
from collections.abc import Callable

import pytest
from numpydoc.docscrape import NumpyDocString
from pydantic import BaseModel

MODULES = [
    "geo",
    "refuge_map.law",
    "refuge_map.render",
    "refuge_map.sweep",
    "refuge_map.analysis",
    "refuge_map.simulation",
]


def _sections(obj: object) -> NumpyDocString:
    with warnings.catch_warnings():  # numpydoc warns about sections it does not know
        warnings.simplefilter("ignore")
        return NumpyDocString(inspect.getdoc(obj) or "")


def _named(doc: NumpyDocString, *sections: str) -> set[str]:
    """The names a docstring's sections document (``x, y`` documents both)."""
    return {
        name.strip().lstrip("*")
        for section in sections
        for entry in doc[section]
        for name in entry.name.split(",")
    }


def _parameters(obj: Callable[..., object]) -> list[str]:
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):  # a builtin or an alias without a signature
        return []
    return [name for name in signature.parameters if name not in ("self", "cls")]


def _problems(name: str, obj: object) -> list[str]:
    doc = _sections(obj)
    if isinstance(obj, type) and issubclass(obj, BaseModel):
        # A model's fields are documented once, in their `description` (the schema shows it).
        named = _named(doc, "Parameters", "Attributes")
        return [
            f"{name}.{field}: no description"
            for field, info in obj.model_fields.items()
            if not info.description and field not in named
        ]
    if isinstance(obj, type):
        fields = [
            f.name
            for f in (dataclasses.fields(obj) if dataclasses.is_dataclass(obj) else ())
            if f.init and not f.name.startswith("_")
        ]
        # A constructor is documented where it is defined (an error class inherits its base's).
        owner = next(c for c in obj.__mro__ if "__init__" in vars(c) or c is object)
        named = _named(doc, "Parameters", "Attributes") | _named(_sections(owner), "Parameters")
        wanted = fields or _parameters(obj)
        return [f"{name}: {p} not in Parameters or Attributes" for p in wanted if p not in named]
    if not inspect.isfunction(obj):
        return []
    named = _named(doc, "Parameters")
    problems = [f"{name}: {p} not in Parameters" for p in _parameters(obj) if p not in named]
    returns = inspect.signature(obj).return_annotation
    if returns not in (None, "None", inspect.Signature.empty) and not (
        doc["Returns"] or doc["Yields"]
    ):
        problems.append(f"{name}: no Returns section")
    return problems


@pytest.mark.parametrize("module_name", MODULES)
def test_every_export_documents_its_parameters_and_returns(module_name):
    module = importlib.import_module(module_name)
    problems = [
        problem
        for name in module.__all__
        for problem in _problems(f"{module_name}.{name}", getattr(module, name))
    ]
    assert problems == []


def test_the_check_sees_a_missing_parameter_and_return():
    def documented(a: int, b: int) -> int:  # noqa: D417  (`b` left out on purpose)
        """Add.

        Parameters
        ----------
        a
            One.
        """
        return a + b

    assert _problems("f", documented) == ["f: b not in Parameters", "f: no Returns section"]
