"""Paper-scale studies: the computations behind the book's figure pages.

Each module here computes what one notebook shows, split into resumable cells written to
the results store (:mod:`fastmix_companion.store`). A notebook's smoke-scale run calls the same
function without a store, so the page's live cells and its stored figure come from one
piece of code.

``python -m fastmix_companion.run --paper-scale NAME`` runs :func:`run_study` with the parameters
recorded in ``notebooks/paper_scale.json`` (each study's ``DEFAULTS`` updated by them).
Each study also declares ``PARAMETERS``, what every parameter admits
(:mod:`fastmix_companion.parameters`); :func:`run_study` refuses values outside it before computing.

Progress: every cell a :class:`CellTable` computes is reported to its ``log`` callback and to
the callbacks registered with :func:`observe_cells`. When ``log`` is None (the notebooks'
smoke runs) and the environment variable ``FASTMIX_CELL_PROGRESS`` is set (as
``python -m fastmix_companion.run`` sets it for the kernel), the same line goes to standard error.

Helpers serve every study module: :func:`split_values` reads a list parameter given as
comma-separated text or as a sequence, and :func:`load_average` and :class:`CellLoad` record the
machine's load (and, with :func:`fastmix_companion.store.steal_seconds`, the CPU time a hypervisor took from
it) next to a timing.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Mapping
from contextlib import contextmanager
from typing import Any

from fastmix_companion.parameters import ChoiceList, Integer, ParameterError, check_parameters
from fastmix_companion.store import steal_seconds

__all__ = [
    "STUDIES",
    "CellTable",
    "has_study",
    "study_module",
    "study_parameters",
    "rules_for",
    "NOTEBOOK_PARAMETERS",
    "NOTEBOOK_COST_MODELS",
    "run_study",
    "observe_cells",
    "ENV_CELL_PROGRESS",
    "split_values",
    "load_average",
    "CellLoad",
]

ENV_CELL_PROGRESS = "FASTMIX_CELL_PROGRESS"
"""Set (to anything but ``""`` or ``0``) to print each computed cell to stderr when a study runs with ``log=None``."""


def split_values(text: Any, kind: Callable[[Any], Any] = float) -> tuple:
    """The values of a list parameter, each converted by ``kind``.

    ``text`` is either comma-separated text (``"0.5, 1,2"``; empty items are skipped) or a
    list or tuple of values. Returns a tuple, in the given order (duplicates kept).
    """
    if isinstance(text, (list, tuple)):
        return tuple(kind(v) for v in text)
    return tuple(kind(v) for v in str(text).split(",") if v.strip())


def load_average() -> float:
    """The one-minute load average of the machine, rounded to 0.01 (``nan`` where unavailable)."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return float("nan")


class CellLoad:
    """The machine's state over one cell of a timed study: started when created, read by :meth:`columns`.

    ``columns()`` gives the 1-minute load when the cell started and when it ended
    (``load1_before``, ``load1_after``, :func:`load_average`) and the CPU seconds a hypervisor
    took from the machine in between (``steal_s``, :func:`fastmix_companion.store.steal_seconds`), the
    columns every timed study stores beside its timings.
    """

    def __init__(self) -> None:
        self.before = load_average()
        self._steal = steal_seconds()

    def columns(self) -> dict[str, float]:
        return {
            "load1_before": self.before,
            "load1_after": load_average(),
            "steal_s": round(steal_seconds() - self._steal, 2),
        }


_observers: list[Callable[[str, str, int, float], None]] = []


def _discover() -> dict[str, str]:
    """Notebook name -> module name, for every module here that declares ``NOTEBOOK``."""
    import ast
    from pathlib import Path

    found = {}
    for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
        if path.name.startswith("_"):
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "NOTEBOOK"
                and isinstance(node.value, ast.Constant)
            ):
                found[str(node.value.value)] = path.stem
    return found


#: Notebook name -> module of :mod:`fastmix_companion.studies` that computes its paper-scale results
#: (every module here that sets ``NOTEBOOK = "<notebook name>"``).
STUDIES = _discover()


def has_study(name: str) -> bool:
    """True when notebook ``name`` has a paper-scale study that writes the results store."""
    return name in STUDIES


def study_module(name: str):
    if name not in STUDIES:
        raise KeyError(f"No paper-scale study for {name!r}; studies exist for: {', '.join(sorted(STUDIES))}.")
    return importlib.import_module(f"{__name__}.{STUDIES[name]}")


# --------------------------------------------------------------------------- notebooks without a study

#: Rules of the notebooks that have no study here (their parameters cells are checked against
#: this the way the studies' ``PARAMETERS`` are).
NOTEBOOK_PARAMETERS: dict[str, dict[str, Any]] = {
    "hello_fastmix": {
        "n": Integer(2, power_of_two=True),  # the Walsh-Hadamard transform needs a power of two
        "seed": Integer(0),  # numpy seeds are non-negative
    },
    # the summary page gathers the verdicts of these pages (empty: every page with stored results)
    "what_holds": {"notebooks": ChoiceList(options=tuple(sorted(STUDIES)), min_items=0)},
}


#: Cost models of the notebooks that have no study: notebook -> ``"<module>.<function>"`` of this
#: package (resolved when a run is checked, like :data:`STUDIES`), called with the notebook's
#: parameters and returning a :class:`fastmix_companion.cli_checks.RunCost`.
NOTEBOOK_COST_MODELS: dict[str, str] = {"hello_fastmix": "cost_models.hello_fastmix_cost"}


def rules_for(notebook: str) -> Mapping[str, Any] | None:
    """The rules of notebook ``notebook`` (its name, e.g. ``"figure1_noise_scale"``), or None.

    A notebook with a study takes the study's ``PARAMETERS``; the others take their entry of
    :data:`NOTEBOOK_PARAMETERS`; a notebook in neither (one of your own) has no rules, and
    only its declared types are checked.
    """
    if notebook in STUDIES:
        return getattr(study_module(notebook), "PARAMETERS", None)
    return NOTEBOOK_PARAMETERS.get(notebook)


def study_parameters(name: str, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The study's ``DEFAULTS`` updated by ``overrides``.

    Raises :class:`fastmix_companion.parameters.ParameterError` (a ``ValueError``) for an unknown name
    (with the valid ones) or a value outside the study's ``PARAMETERS``.
    """

    module = study_module(name)
    params = dict(module.DEFAULTS)
    unknown = sorted(set(overrides or {}) - set(params))
    if unknown:
        raise ParameterError(f"Unknown parameter(s) {unknown} for the {name} study; valid: {sorted(params)}.")
    params.update(overrides or {})
    check_parameters(params, getattr(module, "PARAMETERS", None), notebook=name)
    return params


def run_study(
    name: str,
    overrides: Mapping[str, Any] | None = None,
    *,
    store=None,
    log: Callable[[str], None] | None = print,
    restart: bool = False,
):
    """Run study ``name`` with ``DEFAULTS`` updated by ``overrides``.

    With ``store`` (a :class:`fastmix_companion.store.ResultsStore`) every finished cell is written to
    it and cells already stored are skipped; without, everything is computed in memory.
    Returns the study's tables as a dict of DataFrames.
    """
    module = study_module(name)
    params = study_parameters(name, overrides)
    if store is None:
        return module.run(params, store=None, log=log)
    with store.sitting(params, restart=restart) as s:
        tables = module.run(params, store=s, log=log)
    store.mark_complete()
    return tables


@contextmanager
def observe_cells(callback: Callable[[str, str, int, float], None]):
    """Call ``callback(table, key, rows, seconds)`` for every cell computed inside the ``with`` block."""
    _observers.append(callback)
    try:
        yield callback
    finally:
        _observers.remove(callback)


def _progress_to_stderr() -> bool:
    return os.environ.get(ENV_CELL_PROGRESS, "").strip() not in ("", "0")


class CellTable:
    """One table of a study, computed cell by cell.

    With a store, cells already stored are skipped and each newly computed cell is written
    at once; without, the rows are kept in memory. :meth:`frame` returns the whole table.
    """

    def __init__(self, store, table: str, log: Callable[[str], None] | None = print):
        self.store, self.table, self.log = store, table, log
        self._rows: list = []
        self._keys: set[str] = set()

    def done(self, key: str) -> bool:
        key = str(key)
        return key in self._keys or (self.store is not None and key in self.store.cells_done(self.table))

    def compute(self, key: str, fn: Callable[[], Any]) -> None:
        """Compute cell ``key`` with ``fn()`` (a DataFrame or list of dicts) unless it is stored."""
        import time

        import pandas as pd

        key = str(key)
        if self.done(key):
            return
        started = time.time()
        rows = fn()
        frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
        if self.store is not None:
            self.store.add_cell(self.table, key, frame)
        else:
            frame = frame.copy()
            frame.insert(0, "cell", key)
            self._rows.append(frame)
        self._keys.add(key)
        seconds = time.time() - started
        message = f"{self.table}: {key} ({len(frame)} rows, {seconds:.1f} s)"
        if self.log is not None:
            self.log(message)
        elif _progress_to_stderr():
            print(time.strftime("%H:%M:%S"), message, file=sys.stderr, flush=True)
        for callback in list(_observers):
            callback(self.table, key, len(frame), seconds)

    def frame(self):
        import pandas as pd

        if self.store is not None:
            return self.store.table(self.table) if self.table in self.store.tables() else pd.DataFrame()
        return pd.concat(self._rows, ignore_index=True) if self._rows else pd.DataFrame()
