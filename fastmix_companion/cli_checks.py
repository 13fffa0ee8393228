"""Checks of ``python -m fastmix_companion.run`` that end a command in one line: arguments, cost, memory.

Three things the command line needs beyond :mod:`argparse` and the parameters' rules:

* :func:`split_parameter_args` takes every ``-p NAME VALUE`` out of the arguments before
  :mod:`argparse` sees them, so that a value starting with ``-`` (``-inf``, ``-1e3``, ``-.5``)
  is a value, not an unknown option: argparse only takes ``-1`` and ``-0.5`` as numbers, and
  otherwise stops with a usage message of several lines. The value then meets the parameter's
  rule, whose refusal is one line.
* :func:`check_run_cost` asks a study for the cost of a run before it starts. A study module
  (:mod:`fastmix_companion.studies`) may define ``cost_model(params)``, returning a
  :class:`RunCost` (or a mapping with its fields) estimated from the study's parameters: a run
  whose memory estimate exceeds the memory available is refused, and one estimated to take more
  than :data:`LONG_RUN_SECONDS` needs ``--yes``. A study without ``cost_model`` is not checked.
  A notebook without a study is checked with its entry of
  :data:`fastmix_companion.studies.NOTEBOOK_COST_MODELS` (:func:`notebook_cost`).
* :func:`out_of_memory_line` is the one line a :class:`MemoryError` ends a run with, raised in
  this process (a study computed in process) or in a notebook's kernel (papermill's
  ``PapermillExecutionError`` whose ``ename`` is ``MemoryError``).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "split_parameter_args",
    "RunCost",
    "LONG_RUN_SECONDS",
    "available_memory",
    "study_cost",
    "notebook_cost",
    "check_run_cost",
    "out_of_memory_line",
]

_PARAMETER_OPTIONS = ("-p", "--parameter")


def _option_arity(parser: argparse.ArgumentParser) -> dict[str, int]:
    """Each option string of ``parser`` -> the number of values it takes (0 for a flag)."""
    arity: dict[str, int] = {}
    for action in parser._actions:  # argparse keeps no public list of its actions
        n = 1 if action.nargs is None else action.nargs if isinstance(action.nargs, int) else 0
        for option in action.option_strings:
            arity[option] = n
    return arity


def _is_parameter_option(token: str, options: Sequence[str]) -> bool:
    """``-p``, ``--parameter``, or an abbreviation argparse would expand to ``--parameter`` alone."""
    if token in _PARAMETER_OPTIONS:
        return True
    if not token.startswith("--") or len(token) < 3 or "=" in token:
        return False
    return [o for o in options if o.startswith(token)] == ["--parameter"]


def split_parameter_args(
    argv: Sequence[str], parser: argparse.ArgumentParser
) -> tuple[list[str], list[tuple[str, str]]]:
    """Split ``argv`` into what ``parser`` should parse and the ``(NAME, VALUE)`` pairs of ``-p``.

    The two words after ``-p`` (or ``--parameter``) are taken as they are, whatever they start
    with, unless one of them is an option of ``parser`` (``-p eps --verbose`` lacks a value:
    those words are left to argparse, which says so). Values of the other options are skipped
    over, and everything after ``--`` is left alone.

    Returns
    -------
    rest : list of str
        The arguments without the pairs taken out.
    pairs : list of (str, str)
        The pairs, in the order given.
    """
    arity = _option_arity(parser)
    options = sorted(arity)
    rest: list[str] = []
    pairs: list[tuple[str, str]] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        if token == "--":
            rest.extend(argv[i:])
            break
        if _is_parameter_option(token, options):
            words = list(argv[i + 1 : i + 3])
            if len(words) == 2 and not any(w in arity for w in words):
                pairs.append((words[0], words[1]))
                i += 3
                continue
            rest.append(token)
            i += 1
            continue
        skip = 0 if "=" in token else arity.get(token, 0)
        rest.extend(argv[i : i + 1 + skip])
        i += 1 + skip
    return rest, pairs


# --------------------------------------------------------------------------- cost of a run

#: Above this estimated duration (seconds) a run needs ``--yes``.
LONG_RUN_SECONDS = 3600.0


@dataclass(frozen=True)
class RunCost:
    """What a study's ``cost_model(params)`` estimates for one run at ``params``.

    Attributes
    ----------
    memory_bytes : float, optional
        Peak memory of the run, in bytes (None: not estimated).
    seconds : float, optional
        Duration of the whole run on a typical machine (None: not estimated).
    note : str, default=""
        What dominates the estimate, shown in the message (e.g. ``"the 2^22 x 500 design matrix"``).
    """

    memory_bytes: float | None = None
    seconds: float | None = None
    note: str = ""


def available_memory() -> int | None:
    """Bytes of memory available to a new computation (``MemAvailable`` on Linux), or None if unknown."""
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except Exception:  # not installed, or no answer on this platform
        pass
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def _bytes(n: float) -> str:
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n:.0f} bytes"


def _duration(seconds: float) -> str:
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def study_cost(name: str, params: Mapping[str, Any]) -> RunCost | None:
    """The estimate of study ``name``'s ``cost_model`` at ``params``, or None (no study, or no model).

    ``params`` are the notebook's effective parameters; those the study does not take are
    left out before its ``DEFAULTS`` are updated and checked
    (:func:`fastmix_companion.studies.study_parameters`).
    """
    from fastmix_companion.studies import has_study, study_module, study_parameters

    if not has_study(name):
        return notebook_cost(name, params)
    module = study_module(name)
    model = getattr(module, "cost_model", None)
    if model is None:
        return None
    defaults = getattr(module, "DEFAULTS", {})
    cost = model(study_parameters(name, {k: v for k, v in params.items() if k in defaults}))
    if cost is None or isinstance(cost, RunCost):
        return cost
    if isinstance(cost, Mapping):
        return RunCost(**cost)
    raise TypeError(f"cost_model of the {name} study returned {type(cost).__name__}; return a RunCost or None")


def notebook_cost(name: str, params: Mapping[str, Any]) -> RunCost | None:
    """The estimate for notebook ``name`` that has no study, or None (no model).

    Its model is named by :data:`fastmix_companion.studies.NOTEBOOK_COST_MODELS` (beside the
    notebook's rules in :data:`fastmix_companion.studies.NOTEBOOK_PARAMETERS`) and called with
    the notebook's effective parameters.
    """
    import importlib

    from fastmix_companion.studies import NOTEBOOK_COST_MODELS

    where = NOTEBOOK_COST_MODELS.get(name)
    if where is None:
        return None
    module, function = where.rsplit(".", 1)
    return getattr(importlib.import_module(f"fastmix_companion.studies.{module}"), function)(dict(params))


def check_run_cost(
    path: Path, params: Mapping[str, Any], *, assume_yes: bool = False, memory: int | None = None
) -> str | None:
    """Refuse a run its study's cost model says cannot or should not start unasked.

    Parameters
    ----------
    path : path
        The notebook (its stem names the study).
    params : mapping
        The run's effective parameters.
    assume_yes : bool, default=False
        ``--yes``: start a run estimated to take longer than :data:`LONG_RUN_SECONDS`.
    memory : int, optional
        Bytes available; default :func:`available_memory` (None there: memory is not checked).

    Returns
    -------
    str or None
        A line to show before a long run that ``assume_yes`` lets start, else None.

    Raises
    ------
    ValueError
        With a one-line message: the memory estimate exceeds the memory available (``--yes``
        does not override this), or the run is long and ``assume_yes`` is False.
    """
    from fastmix_companion.parameters import ParameterError

    name = Path(path).stem
    try:
        cost = study_cost(name, params)
    except ParameterError:  # a value the study's rules refuse: the caller's one-line message
        raise
    except Exception as exc:  # a broken estimate must not stop a run it cannot judge
        return f"warning: the cost model of {name} failed ({type(exc).__name__}: {exc}); no estimate of this run"
    if cost is None:
        return None
    about = f" ({cost.note})" if cost.note else ""
    if cost.memory_bytes is not None:
        free = available_memory() if memory is None else memory
        if free is not None and cost.memory_bytes > free:
            raise ValueError(
                f"{name} at these parameters needs about {_bytes(cost.memory_bytes)} of memory{about}, more than "
                f"the {_bytes(free)} available; lower its sizes (--help-notebook lists them) or free memory"
            )
    if cost.seconds is not None and cost.seconds > LONG_RUN_SECONDS:
        estimate = f"{name} at these parameters is estimated to take about {_duration(cost.seconds)}{about}"
        if not assume_yes:
            raise ValueError(f"{estimate}; add --yes to start it anyway")
        return f"note: {estimate}; starting it (--yes)"
    return None


# --------------------------------------------------------------------------- running out of memory


def _first_line(text: Any) -> str:
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    return lines[0] if lines else ""


def out_of_memory_line(name: str, exc: BaseException, *, stored: bool = False) -> str:
    """The one line that ends a run ``name`` stopped by a :class:`MemoryError`.

    ``exc`` is the :class:`MemoryError` itself, or papermill's execution error for one raised in
    the kernel (then the cell and the partial executed notebook are named). ``stored``: the run
    writes a results store entry, whose finished cells are kept and resumed by the same command.
    """
    detail = _first_line(getattr(exc, "evalue", None) or exc)
    error = f"MemoryError: {detail}" if detail else "MemoryError"
    where = ""
    index = getattr(exc, "cell_index", None)
    if index is not None:
        where = f" in cell {index + 1} of the executed notebook"
        count = getattr(exc, "exec_count", None)
        if count is not None:
            where += f" (In [{count}])"
    line = f"error: {name} ran out of memory{where} ({error}); lower its sizes or free memory"
    if stored:
        line += ", then run the same command: the cells stored so far are kept"
    notebook = getattr(exc, "output_notebook", None)
    if notebook is not None:
        line += f"; partial executed notebook: {notebook}"
    return line
