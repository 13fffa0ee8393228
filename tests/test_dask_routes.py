"""The one door between the in-memory code and its Dask paths (``fastmix._validation.dask_route``)."""

import ast
from pathlib import Path

import numpy as np
import pytest

from fastmix import _validation as V

ROOT = Path(__file__).resolve().parent.parent / "fastmix"


def _routed_names() -> set[str]:
    """Every route name given to ``@dask_route(...)`` in the library's source."""
    names = set()
    for path in ROOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", getattr(node.func, "attr", None)) == "dask_route"
            ):
                if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                    names.add(node.args[0].value)
    return names


def test_every_route_has_a_dask_implementation():
    pytest.importorskip("dask.array")
    names = _routed_names()
    assert len(names) >= 10  # the scanner sees the routes
    missing = []
    for name in sorted(names):
        try:
            V.dask_implementation(name)
        except LookupError:
            missing.append(name)
    assert not missing, f"routes without a Dask implementation: {missing}"


def test_an_unregistered_route_is_a_lookup_error():
    pytest.importorskip("dask.array")
    with pytest.raises(LookupError, match="no Dask implementation is registered for 'no such route'"):
        V.dask_implementation("no such route")


def test_the_route_sends_dask_input_to_the_dask_side_and_the_rest_to_the_function():
    da = pytest.importorskip("dask.array")
    calls = []

    @V.register_dask_route("test: double")
    def _on_dask(x, factor=2):
        calls.append("dask")
        return np.asarray(x.compute()) * factor

    @V.dask_route("test: double", on="x")
    def double(x, factor=2):
        calls.append("memory")
        return np.asarray(x) * factor

    x = np.arange(4.0)
    np.testing.assert_array_equal(double(x), 2 * x)
    np.testing.assert_array_equal(double(da.from_array(x, chunks=2), factor=3), 3 * x)
    np.testing.assert_array_equal(double(x=da.from_array(x, chunks=2)), 2 * x)  # found by keyword too
    assert calls == ["memory", "dask", "dask"]
