"""Shell commands that re-run a notebook: ``jupytext | papermill`` and ``python -m fastmix_companion.run``.

Both forms appear in the "Re-run this figure" box of each notebook page. Every value is
written so that the notebook receives it exactly (:func:`papermill_command` picks
papermill's ``-r``, ``-p`` or ``-y`` per value). :mod:`fastmix_companion.run` re-exports both functions.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fastmix_companion.notebook_parameters import (
    NotebookParameter,
    inspect_parameters,
    resolve_notebook,
    validate_parameters,
)

__all__ = ["papermill_command", "fastmix_run_command"]


def _command_value(param: NotebookParameter, value: Any) -> tuple[str, str]:
    """``(kind, text)`` of a parameter value on a command line.

    ``kind`` is ``"text"`` for a parameter declared ``str`` (or an undeclared string), which
    must reach the notebook as typed; ``"scalar"`` for None, booleans and numbers, whose
    ``repr`` papermill's ``-p`` and :func:`parse_value` both read back; ``"structure"`` for
    anything else, written as JSON (valid YAML and, for numbers and strings, a Python literal).
    """
    declared = (param.type or "").strip()
    if declared == "str" or (not declared and isinstance(value, str)):
        return "text", str(value)
    if value is None or isinstance(value, (bool, int, float)):
        return "scalar", repr(value)
    return "structure", json.dumps(list(value) if isinstance(value, tuple) else value)


def _papermill_option(param: NotebookParameter, value: Any) -> str:
    """One papermill CLI option that reproduces ``value`` exactly in the notebook.

    papermill's ``-p`` guesses the type of its text (``"1.259"`` would become a float), so
    text goes through ``-r`` (raw), numbers and booleans through ``-p``, and anything else
    (lists, tuples, dicts) as YAML through ``-y``.
    """
    kind, text = _command_value(param, value)
    if kind == "text":
        return f"-r {param.name} {shlex.quote(text)}"
    if kind == "scalar":
        return f"-p {param.name} {text}"
    return f"-y {shlex.quote(param.name + ': ' + text)}"


def papermill_command(
    notebook: str | os.PathLike,
    parameters: Mapping[str, Any] | None = None,
    *,
    output: str | None = None,
    root: str | os.PathLike | None = None,
) -> str:
    """The ``jupytext | papermill`` shell command that re-runs ``notebook`` with every parameter explicit.

    Every parameter of the notebook's ``parameters`` cell appears with its default value,
    replaced by ``parameters`` where given, so the reader can edit any of them in place.
    papermill cannot read percent ``.py`` notebooks; jupytext converts on the fly.

    Parameters
    ----------
    notebook : str or path
        Notebook name or path.
    parameters : mapping, optional
        Values that replace the defaults (validated like :func:`run_notebook`).
    output : str, optional
        Executed-notebook path; default ``results/<name>.ipynb``.
    root : str or path, optional
        Folder the command is run from (paths are written relative to it); default the
        folder above ``notebooks/``, the repository root.
    """
    path = resolve_notebook(notebook)
    spec = inspect_parameters(path)
    values = {p.name: p.default_value for p in spec.values()}
    values.update(validate_parameters(dict(parameters or {}), spec, notebook=path.name))
    base = Path(root) if root is not None else path.parent.parent
    rel = Path(os.path.relpath(path, base)).as_posix()
    folder = Path(os.path.relpath(path.parent, base)).as_posix()
    out = output or f"results/{path.stem}.ipynb"
    out_dir = Path(out).parent.as_posix()
    lines = []
    if out_dir not in ("", "."):
        lines.append(f"mkdir -p {shlex.quote(out_dir)} && \\")
    lines.append(f"jupytext --to ipynb -o - {shlex.quote(rel)} \\")
    head = f"  | papermill - {shlex.quote(out)} --cwd {shlex.quote(folder)} -k python3 --language python"
    options = [_papermill_option(spec[name], value) for name, value in values.items()]
    if options:
        lines.append(head + " \\")
        lines.extend(f"      {opt} \\" for opt in options[:-1])
        lines.append(f"      {options[-1]}")
    else:
        lines.append(head)
    return "\n".join(lines)


def fastmix_run_command(
    notebook: str | os.PathLike, parameters: Mapping[str, Any] | None = None, *, paper_scale: bool = False
) -> str:
    """The equivalent ``python -m fastmix_companion.run`` command (overrides only; outputs under ``results/``)."""
    path = resolve_notebook(notebook)
    parts = ["python -m fastmix_companion.run"]
    if paper_scale:
        parts.append("--paper-scale")
    parts.append(path.stem)
    spec = inspect_parameters(path)
    for name, value in validate_parameters(dict(parameters or {}), spec, notebook=path.name).items():
        parts.append(f"-p {name} {shlex.quote(_command_value(spec[name], value)[1])}")
    return " ".join(parts)
