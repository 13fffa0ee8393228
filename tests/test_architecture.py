"""Architecture rules, checked on the source (``ast``) of every module of the two packages.

The repository holds two packages: the library ``fastmix`` (what a practitioner installs and
imports) and ``fastmix_companion``, the machinery that reproduces the papers and builds the book
(command line, parameters, results store, provenance, claims, pages, experiments and studies).

Rule 1: private names stay inside their module. A module may not use a private
name (one that starts with an underscore and is not a dunder such as ``__version__``) of another
module of either package: neither by importing it (``from fastmix.x import _y``, ``from .x import _y``,
``from . import _y``) nor as an attribute (``x._y``, ``fastmix.x._y``) of a name that an import
bound to a fastmix module. Two exceptions, both about code that is internal by construction:

* a private module (its own name starts with an underscore: ``fastmix._validation``,
  ``fastmix.accounting._checks``) exists to share helpers, so any module of the package that
  contains it (subpackages included) may import any of its names;
* the modules of a package in ``SPLIT_PACKAGES`` are one concept split into files, public only
  through the package's ``__init__``; they may use each other's private names. Outside the
  package its private names are as private as any other (``fastmix.accounting._x`` from
  ``fastmix.regression`` is a violation). ``fastmix_companion.studies`` is not such a package: each study
  is a module of its own.

Rule 2: every module has at most ``MAX_LINES`` lines, except the modules in
``LONG_MODULES``, which are still to be split.

Rule 3: layers. No module of ``fastmix`` imports ``fastmix_companion``, at the top of a file or
inside a function: ``import fastmix.<anything>`` never loads the book's machinery.

Rule 4: no import cycles between modules, imports inside functions included (a cycle hidden in a
function is still two modules that cannot be understood one without the other), except those in
``KNOWN_CYCLES``.

Rule 5: Dask behind one door. Only the Dask subpackage (``DASK_PACKAGE``) and the validation
helpers (``fastmix._validation``, whose ``dask_route`` sends a Dask array to the implementation the
subpackage registers) use ``is_dask_array``: the in-memory modules never test for Dask themselves.

``KNOWN``, ``LONG_MODULES`` and ``KNOWN_CYCLES`` record today's exceptions. Remove an entry when it
is fixed: the ``*_still_*`` tests fail on an entry that no longer applies, so the lists only shrink.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIBRARY, COMPANION = "fastmix", "fastmix_companion"
PACKAGES = (LIBRARY, COMPANION)

# Violations of rule 1 that exist today, as (importing module, module of the name, private name).
# Remove an entry when it is fixed (test_known_violations_still_occur enforces this).
KNOWN: set = set()

# Packages that are one module split into files (rule 1, second exception).
SPLIT_PACKAGES = {
    "fastmix.accounting",
    "fastmix.datasets",
    "fastmix.hadamard",
    "fastmix.kernels",
    "fastmix.mechanisms",
    "fastmix.regression",
}

MAX_LINES = 700
# Modules longer than MAX_LINES today (path relative to the repository). Remove an entry once the
# module is split (test_long_modules_still_long enforces this).
LONG_MODULES: set[str] = set()

# Import cycles that exist today (rule 4), each as the sorted tuple of its modules.
KNOWN_CYCLES: set[tuple[str, ...]] = set()


def _modules() -> dict[str, Path]:
    """Every module of both packages: dotted name -> source file."""
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _ours(name: str) -> bool:
    """Whether a dotted name is one of the two packages or inside one."""
    return any(name == p or name.startswith(p + ".") for p in PACKAGES)


MODULES = _modules()


def _package_of(module: str) -> str:
    """The package a module belongs to (a package's ``__init__`` belongs to the package itself)."""
    if MODULES[module].name == "__init__.py":
        return module
    return module.rpartition(".")[0]


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _allowed(importer: str, target: str) -> bool:
    """Whether ``importer`` may use private names of ``target`` (the two exceptions above)."""
    if importer == target:
        return True
    owner = target.rpartition(".")[0]
    if _is_private(target.rpartition(".")[2]) and (importer == owner or importer.startswith(owner + ".")):
        return True
    return _package_of(importer) in SPLIT_PACKAGES and _package_of(importer) == _package_of(target)


def _resolve(importer: str, module: str | None, level: int) -> str:
    """Absolute name of the module of ``from <dots><module> import ...`` inside ``importer``."""
    if level == 0:
        return module or ""
    base = _package_of(importer).split(".")
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def private_uses(module: str, source: str | None = None) -> set[tuple[str, str, str]]:
    """Every use of a private name of a fastmix module in ``module``, allowed or not.

    Each is ``(module, owner, name)``: ``owner`` is the module that defines ``name``, or, when
    ``name`` is itself a private submodule (``from . import _validation``), that submodule.
    ``source`` replaces the module's file (for testing the scanner).
    """
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8") if source is None else source)
    bound: dict[str, str] = {}  # local name -> fastmix module it was bound to by an import
    uses = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _ours(alias.name):
                    if alias.asname:
                        bound[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        bound[top] = top
        elif isinstance(node, ast.ImportFrom):
            source = _resolve(module, node.module, node.level)
            if not _ours(source):
                continue
            for alias in node.names:
                full = f"{source}.{alias.name}"
                if full in MODULES:  # a submodule
                    bound[alias.asname or alias.name] = full
                    if _is_private(alias.name):
                        uses.add((module, full, alias.name))
                elif _is_private(alias.name):
                    uses.add((module, source, alias.name))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_private(node.attr):
            chain, value = [], node.value
            while isinstance(value, ast.Attribute):
                chain.append(value.attr)
                value = value.value
            if not (isinstance(value, ast.Name) and value.id in bound):
                continue
            target = ".".join([bound[value.id], *reversed(chain)])
            if target in MODULES:
                full = f"{target}.{node.attr}"
                uses.add((module, full if full in MODULES else target, node.attr))
    return uses


def violations() -> set[tuple[str, str, str]]:
    """Uses of rule 1 that neither exception allows, over every module of the package."""
    return {use for module in MODULES for use in private_uses(module) if not _allowed(use[0], use[1])}


def test_scanner_sees_the_package():
    # a scanner that found nothing would pass every rule
    assert {"fastmix", "fastmix.accounting", "fastmix.accounting.renyi_bounds", "fastmix.audit"} <= set(MODULES)
    assert {"fastmix_companion", "fastmix_companion.run", "fastmix_companion.studies.figure2"} <= set(MODULES)
    uses = private_uses("fastmix.accounting.sketch_epsilon")
    assert ("fastmix.accounting.sketch_epsilon", "fastmix.accounting.renyi_bounds", "_alpha_max") in uses


def test_scanner_finds_every_form():
    source = """
import fastmix
import fastmix_companion
import fastmix.hadamard as H
from fastmix import srht
from . import accounting as acc, _validation
from fastmix_companion.provenance import _jsonable, collect_provenance
from fastmix_companion.studies import figure1

def f():
    from fastmix_companion.studies.kernel_rp_vs_rff import _plane_wave
    return H._CHUNK_BYTES, srht._sketch_quantities, acc._smallest_feasible, fastmix_companion.claims._welch, figure1._x
"""
    assert private_uses("fastmix.audit", source) == {
        ("fastmix.audit", "fastmix.hadamard", "_CHUNK_BYTES"),
        ("fastmix.audit", "fastmix.srht", "_sketch_quantities"),
        ("fastmix.audit", "fastmix.accounting", "_smallest_feasible"),
        ("fastmix.audit", "fastmix_companion.claims", "_welch"),
        ("fastmix.audit", "fastmix_companion.studies.figure1", "_x"),
        ("fastmix.audit", "fastmix_companion.provenance", "_jsonable"),
        ("fastmix.audit", "fastmix_companion.studies.kernel_rp_vs_rff", "_plane_wave"),
        ("fastmix.audit", "fastmix._validation", "_validation"),
    }
    # not fastmix modules, public names, dunders, and attributes of objects that are not modules
    assert not private_uses(
        "fastmix.audit",
        "import numpy as np\nfrom . import srht\nnp._x\nsrht.SRHT\n"
        "fastmix_version = srht.__doc__\nobj = srht.SRHT(4, 2)\nobj._seed\n",
    )


def test_rule_on_examples():
    assert _allowed("fastmix.srht", "fastmix._validation")  # private module, same package
    assert _allowed("fastmix.regression.data", "fastmix._validation")  # ... and below it
    assert not _allowed("fastmix_companion.studies.figure1", "fastmix._validation")  # the other package
    assert _allowed("fastmix.accounting.noise_scale", "fastmix.accounting.renyi_bounds")  # split package
    assert _allowed("fastmix.accounting.conversions", "fastmix.accounting._checks")
    assert not _allowed("fastmix.audit", "fastmix.accounting._checks")  # private module of another package
    assert not _allowed("fastmix.regression", "fastmix.accounting")  # outside the split package
    assert not _allowed("fastmix_companion.studies.kernel_rates", "fastmix_companion.studies.kernel_rp_vs_rff")
    assert not _allowed("fastmix.srht", "fastmix.hadamard")


def test_no_new_private_imports():
    new = violations() - KNOWN
    assert not new, (
        "modules use private names of other fastmix modules (give the helper a public, documented name "
        "or move it to the module that uses it):\n" + "\n".join(f"  {a} uses {b}.{c}" for a, b, c in sorted(new))
    )


def test_known_violations_still_occur():
    gone = KNOWN - violations()
    assert not gone, "fixed, so remove from KNOWN:\n" + "\n".join(f"  {e!r}," for e in sorted(gone))


def _line_count(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_modules_are_short():
    long = {str(p.relative_to(ROOT).as_posix()): _line_count(p) for p in MODULES.values() if _line_count(p) > MAX_LINES}
    new = {name: n for name, n in long.items() if name not in LONG_MODULES}
    assert not new, f"modules over {MAX_LINES} lines (split them by concept): {new}"


def test_long_modules_still_long():
    short = {name for name in LONG_MODULES if _line_count(ROOT / name) <= MAX_LINES}
    assert not short, f"now at most {MAX_LINES} lines, so remove from LONG_MODULES: {sorted(short)}"


# --------------------------------------------------------------------------- rules 3 and 4: layers and cycles


def imports_of(module: str, source: str | None = None) -> set[str]:
    """The modules of either package that ``module`` imports, anywhere in its file (functions included).

    ``from a import b`` counts as importing the module ``a.b`` when it is one, else ``a``;
    ``import a.b.c`` counts as importing ``a.b.c`` (or its longest prefix that is a module).
    """
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8") if source is None else source)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.name
                while name and name not in MODULES:
                    name = name.rpartition(".")[0]
                if name:
                    out.add(name)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, node.module, node.level)
            if not _ours(base):
                continue
            for alias in node.names:
                full = f"{base}.{alias.name}"
                out.add(full if full in MODULES else base)
    out.discard(module)
    return {name for name in out if name in MODULES}


def _graph() -> dict[str, set[str]]:
    return {module: imports_of(module) for module in MODULES}


def cycles(graph: dict[str, set[str]]) -> set[tuple[str, ...]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[tuple[str, ...]] = set()

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.add(tuple(sorted(component)))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_import_scanner_sees_every_form():
    source = """
import fastmix_companion.store
from fastmix_companion import claims
from .srht import SRHT
import numpy

def lazy():
    from fastmix_companion.studies import figure1
"""
    assert imports_of("fastmix.audit", source) == {
        "fastmix_companion.store",
        "fastmix_companion.claims",
        "fastmix.srht",
        "fastmix_companion.studies.figure1",
    }


def test_the_library_never_imports_the_companion():
    offending = {
        (module, target)
        for module, targets in _graph().items()
        if module.split(".")[0] == LIBRARY
        for target in targets
        if target.split(".")[0] == COMPANION
    }
    assert not offending, "the library imports the book's machinery:\n" + "\n".join(
        f"  {a} imports {b}" for a, b in sorted(offending)
    )


def test_cycles_are_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == {("a", "b", "c")}
    assert cycles({"a": {"b"}, "b": set()}) == set()


def test_no_new_import_cycles():
    new = cycles(_graph()) - KNOWN_CYCLES
    assert not new, "import cycles (lazy imports included); break them by moving the shared piece down a layer:\n" + (
        "\n".join(f"  {' <-> '.join(c)}" for c in sorted(new))
    )


def test_known_cycles_still_exist():
    gone = KNOWN_CYCLES - cycles(_graph())
    assert not gone, "fixed, so remove from KNOWN_CYCLES:\n" + "\n".join(f"  {c!r}," for c in sorted(gone))


# --------------------------------------------------------------------------- rule 5: Dask behind one door

DASK_PACKAGE = "fastmix.chunked"
DASK_CHECK = "is_dask_array"
DASK_CHECK_ALLOWED = {"fastmix._validation"}


def dask_check_uses(module: str, source: str | None = None) -> bool:
    """Whether ``module`` uses ``is_dask_array``: imports it, calls it, or reads it as an attribute."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8") if source is None else source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any(alias.name == DASK_CHECK for alias in node.names):
            return True
        if isinstance(node, ast.Name) and node.id == DASK_CHECK:
            return True
        if isinstance(node, ast.Attribute) and node.attr == DASK_CHECK:
            return True
    return False


def _may_test_for_dask(module: str) -> bool:
    return module in DASK_CHECK_ALLOWED or module == DASK_PACKAGE or module.startswith(DASK_PACKAGE + ".")


def dask_check_violations() -> set[str]:
    return {m for m in MODULES if m.split(".")[0] == LIBRARY and not _may_test_for_dask(m) and dask_check_uses(m)}


def test_the_dask_scanner_sees_every_form():
    assert dask_check_uses("fastmix.srht", "from ._validation import is_dask_array\n")
    assert dask_check_uses("fastmix.srht", "from . import _validation as v\nif v.is_dask_array(X):\n    pass\n")
    assert dask_check_uses("fastmix.srht", "def f(X):\n    from .._validation import check_matrix, is_dask_array\n")
    assert not dask_check_uses("fastmix.srht", "from ._validation import dask_route, check_matrix\nis_dask = 1\n")
    assert dask_check_uses("fastmix._validation") and dask_check_uses("fastmix.chunked.sketch")


def test_the_dask_rule_can_fail():
    assert not _may_test_for_dask("fastmix.srht")
    assert not _may_test_for_dask("fastmix.regression.data")
    assert not _may_test_for_dask("fastmix.chunked_mechanisms")  # a sibling whose name starts alike
    assert _may_test_for_dask("fastmix.chunked.routes") and _may_test_for_dask("fastmix._validation")


def test_only_the_dask_package_tests_for_dask():
    offending = dask_check_violations()
    assert not offending, (
        f"modules test for Dask arrays themselves; route the call through fastmix._validation.dask_route and "
        f"register the Dask implementation in {DASK_PACKAGE}:\n" + "\n".join(f"  {m}" for m in sorted(offending))
    )
