"""Paper-scale studies: the computations behind the book's figure pages.

Each module here computes what one notebook shows, split into resumable cells written to
the results store (:mod:`fastmix.store`). A notebook's smoke-scale run calls the same
function without a store, so the page's live cells and its stored figure come from one
piece of code.

``python -m fastmix.run --paper-scale NAME`` runs :func:`run_study` with the parameters
recorded in ``notebooks/paper_scale.json`` (each study's ``DEFAULTS`` updated by them).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["STUDIES", "CellTable", "has_study", "study_module", "study_parameters", "run_study"]


def _discover() -> dict[str, str]:
    """Notebook name -> module name, for every module here that declares ``NOTEBOOK``."""
    import ast
    from pathlib import Path

    found = {}
    for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
        if path.name.startswith("_"):
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and node.targets[0].id == "NOTEBOOK" and isinstance(node.value, ast.Constant)):
                found[str(node.value.value)] = path.stem
    return found


#: Notebook name -> module of :mod:`fastmix.studies` that computes its paper-scale results
#: (every module here that sets ``NOTEBOOK = "<notebook name>"``).
STUDIES = _discover()


def has_study(name: str) -> bool:
    """True when notebook ``name`` has a paper-scale study that writes the results store."""
    return name in STUDIES


def study_module(name: str):
    if name not in STUDIES:
        raise KeyError(f"No paper-scale study for {name!r}; studies exist for: {', '.join(sorted(STUDIES))}.")
    return importlib.import_module(f"{__name__}.{STUDIES[name]}")


def study_parameters(name: str, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The study's ``DEFAULTS`` updated by ``overrides``; unknown names raise with the valid ones."""
    module = study_module(name)
    params = dict(module.DEFAULTS)
    unknown = sorted(set(overrides or {}) - set(params))
    if unknown:
        raise ValueError(f"Unknown parameter(s) {unknown} for the {name} study; valid: {sorted(params)}.")
    params.update(overrides or {})
    return params


def run_study(name: str, overrides: Mapping[str, Any] | None = None, *, store=None,
              log: Callable[[str], None] | None = print, restart: bool = False):
    """Run study ``name`` with ``DEFAULTS`` updated by ``overrides``.

    With ``store`` (a :class:`fastmix.store.ResultsStore`) every finished cell is written to
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
        if self.log is not None:
            self.log(f"{self.table}: {key} ({len(frame)} rows, {time.time() - started:.1f} s)")

    def frame(self):
        import pandas as pd

        if self.store is not None:
            return self.store.table(self.table) if self.table in self.store.tables() else pd.DataFrame()
        return pd.concat(self._rows, ignore_index=True) if self._rows else pd.DataFrame()
