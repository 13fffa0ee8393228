"""The ``--paper-scale`` run of a notebook with a study: its results store entry, with progress.

:func:`run_paper_scale` computes the entry of :mod:`fastmix_companion.store` through
:func:`fastmix_companion.studies.run_study`. Before it starts, :func:`plan_cells` walks the study's grid
against a store that claims to hold every cell, which lists the cells of the run without
computing one; each stored cell is then logged with the cells done out of the cells planned
and a rough estimate of the time left from the rate so far.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fastmix_companion.notebook_parameters import NotebookParameter, validate_parameters

__all__ = ["plan_cells", "run_paper_scale"]


class _PlanningStore:
    """A stand-in results store that reports every cell as stored and records which were asked for.

    Running a study against it walks the study's grid without computing a cell, which gives
    the cells a run will compute (those the study asks about through :class:`CellTable`).
    """

    class _Everything:
        def __init__(self, seen: set, table: str):
            self.seen, self.table = seen, table

        def __contains__(self, key) -> bool:
            self.seen.add((self.table, str(key)))
            return True

    def __init__(self):
        self.cells: set[tuple[str, str]] = set()

    def cells_done(self, table: str):
        return self._Everything(self.cells, table)

    def tables(self) -> list[str]:
        return []

    def add_cell(self, *args, **kwargs) -> None:
        pass

    def put_table(self, *args, **kwargs) -> None:
        pass

    def add_data_sources(self, *args, **kwargs) -> None:
        pass


class _PlanningTimeout(Exception):
    pass


def plan_cells(name: str, params: Mapping[str, Any], limit: float = 10.0) -> set[tuple[str, str]] | None:
    """The ``(table, cell)`` pairs a study's run consists of, or None if they cannot be listed.

    The study's ``run`` walks its grid against :class:`_PlanningStore`. A study whose walk
    needs the values of earlier cells (or takes more than ``limit`` seconds of CPU time, where
    the platform has ``SIGPROF``; CPU time, so that a busy machine does not cut the walk short)
    gets no plan: its progress is then reported without a total.
    """
    import signal
    import threading

    from fastmix_companion.studies import study_module

    planner = _PlanningStore()
    timed = hasattr(signal, "SIGPROF") and threading.current_thread() is threading.main_thread()

    def give_up(signum, frame):
        raise _PlanningTimeout()

    previous = signal.signal(signal.SIGPROF, give_up) if timed else None
    try:
        if timed:
            signal.setitimer(signal.ITIMER_PROF, limit)
        study_module(name).run(dict(params), store=planner, log=None)
    except Exception:  # _PlanningTimeout, or a walk that needs real tables: no plan, no estimate
        return None
    finally:
        if timed:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, previous)
    return planner.cells or None


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class _CellProgress:
    """Logs each stored cell with the count of cells done and a rough estimate of the time left."""

    def __init__(self, plan: set[tuple[str, str]] | None, done_before: int):
        self.plan, self.done = plan, done_before
        self.computed, self.started = 0, time.time()
        self._pending: str | None = None

    def log(self, message: str) -> None:
        self.flush()
        self._pending = f"{time.strftime('%H:%M:%S')} {message}"

    def __call__(self, table: str, key: str, rows: int, seconds: float) -> None:
        line, self._pending = self._pending or f"{time.strftime('%H:%M:%S')} {table}: {key}", None
        if self.plan is not None and (table, key) in self.plan:
            self.done += 1
            self.computed += 1
            total = len(self.plan)
            elapsed = time.time() - self.started
            left = (total - self.done) * elapsed / self.computed
            line += f"  [{self.done}/{total} cells, {100 * self.done / total:.0f}%; {_duration(elapsed)} so far"
            line += f", about {_duration(left)} left at this rate]" if self.done < total else "]"
        elif self.plan is None:
            self.computed += 1
            line += f"  [{self.computed} cells this sitting, {_duration(time.time() - self.started)}]"
        print(line, flush=True)

    def flush(self) -> None:
        if self._pending is not None:
            print(self._pending, flush=True)
            self._pending = None


def run_paper_scale(
    path: Path,
    spec: Mapping[str, NotebookParameter],
    overrides: Mapping[str, Any],
    *,
    output_dir: str | os.PathLike = "results",
    restart: bool = False,
    progress: bool = True,
) -> int:
    """``--paper-scale`` for a notebook with a study: compute its results store entry, cell by cell.

    The entry's parameters are the notebook's defaults (``spec``) updated by ``overrides``
    (the registry's and the ``-p`` ones), so the stored run is the one the registry
    describes. Cells already in the store are skipped: the same call resumes a stopped run;
    ``restart`` discards the stored entry first. With ``progress``, the cells are planned
    first (:func:`plan_cells`) and each stored cell is logged with the count done and the
    time left. Returns the exit status, 0.
    """
    from fastmix_companion.store import ResultsStore
    from fastmix_companion.studies import observe_cells, run_study, study_module, study_parameters

    overrides = validate_parameters(dict(overrides), spec, notebook=path.name)
    defaults = {name: p.default_value for name, p in spec.items() if name in study_module(path.stem).DEFAULTS}
    params = study_parameters(path.stem, {**defaults, **overrides})  # checks the study's rules
    store = ResultsStore(path.stem, output_dir)
    print(f"results store entry: {store.path}", flush=True)
    plan = plan_cells(path.stem, params) if progress else None
    done_before = 0
    if plan is not None and not restart and store.exists():
        stored = {table: store.cells_done(table) for table in {t for t, _ in plan}}
        done_before = sum(1 for table, key in plan if key in stored[table])
    if plan is not None:
        print(f"{len(plan)} cells in this run, {done_before} already stored", flush=True)
    elif progress:
        print("(this study's cells cannot be listed in advance: progress counts the cells computed)", flush=True)
    cells = _CellProgress(plan, done_before)
    started = time.time()
    with observe_cells(cells):
        run_study(path.stem, params, store=store, log=cells.log, restart=restart)
    cells.flush()
    print(
        f"complete: {store.path} ({_duration(time.time() - started)} this sitting, "
        f"{cells.computed} cells computed); the entry holds:"
    )
    for file in sorted(store.path.iterdir()):
        if file.is_file():
            print(f"  {file}  ({file.stat().st_size / 1024:.0f} KiB)")
    return 0
