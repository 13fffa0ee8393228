"""Re-run one companion notebook with new parameters, or compute its paper-scale results.

Usage (from the repository root)::

    python -m fastmix.run --list
    python -m fastmix.run hello_fastmix --help-notebook
    python -m fastmix.run hello_fastmix -p n 4096 -p seed 3
    python -m fastmix.run notebooks/hello_fastmix.py -p n 256 --output-dir /tmp/results
    python -m fastmix.run --paper-scale figure2_dp_ols -p trials 10

``NOTEBOOK`` is a notebook name (``hello_fastmix`` resolves to
``notebooks/hello_fastmix.py``, ``figure2`` to the one notebook whose name starts with
``figure2_``) or a path to a jupytext percent ``.py`` notebook. Each ``-p NAME VALUE``
overrides one entry of the notebook's ``parameters`` cell; values are parsed like
papermill's ``-p`` (``True``/``False``, ``None``, integers, floats) and, beyond that, Python
literals (``"[1, 2]"``, ``"(0.5, 1.0)"``); anything else stays a string, and a parameter
declared ``str`` takes the text as typed.

Parameters are checked before anything starts (:func:`check_notebook_parameters`): unknown
names, values of the wrong type, and values outside what each parameter admits (the rules of
:mod:`fastmix.parameters`, declared once per notebook: a study's ``PARAMETERS``, or
:data:`fastmix.parameters.NOTEBOOK_PARAMETERS`) end the command with a one-line message and
exit status 2, without importing papermill or starting a kernel. ``--help-notebook`` lists
each parameter with its default and what it admits.

The notebook is executed in process through papermill (``jupytext.read`` then
``papermill.execute_notebook``) with the notebook's folder as working directory, showing
papermill's cell progress bar and streaming what the cells print; a notebook that runs a
study also logs each cell of its experiment grid (the kernel inherits
``FASTMIX_CELL_PROGRESS``, see :mod:`fastmix.studies`). Outputs go to
``<output-dir>/<name>/<name>__<param>=<value>....ipynb`` (figures are embedded in the
executed notebook), together with ``<stem>.parameters.json`` (the overrides and the
effective parameters), ``<stem>.provenance.json`` (see
:func:`fastmix.provenance.collect_provenance`) and every figure of the executed notebook as a
file in ``<stem>.figures/``; the command ends with the list of what it wrote. If a cell
fails, the command names the cell and the first line of the error, says where the partial
executed notebook is (it holds the traceback), and exits with status 1; ``--verbose`` also
prints the traceback.

``--paper-scale`` starts from the paper's setting recorded for the notebook in
``notebooks/paper_scale.json`` (see :func:`paper_scale_parameters`); ``-p`` still overrides.
For a notebook with a paper-scale study (:mod:`fastmix.studies`) it does not execute the
notebook: it computes the notebook's entry in the results store, ``<output-dir>/<name>/``
(:mod:`fastmix.store`), cell by cell, and the same command resumes a stopped run
(``--restart`` discards the stored entry first). Each stored cell is logged with the cells
done out of the cells planned (the study's grid, walked once without computing) and a rough
estimate of the time left from the rate so far. The book's page then reads that entry.

Everything a run writes goes under ``--output-dir``. No study downloads data or caches
intermediate results; real data sets are only read, from the data directory
(:func:`fastmix.datasets.get_data_home`: ``$FASTMIX_DATA``, else ``data/cache/`` in a source
checkout).

:func:`papermill_command` writes the same run as a plain ``jupytext | papermill`` shell
command, and :func:`fastmix_run_command` as a ``python -m fastmix.run`` command: the forms
shown in the "Re-run this figure" box of each notebook page.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shlex
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "NotebookParameter",
    "RunResult",
    "default_notebooks_dir",
    "list_notebooks",
    "resolve_notebook",
    "parse_value",
    "inspect_parameters",
    "validate_parameters",
    "notebook_rules",
    "check_notebook_parameters",
    "output_stem",
    "PAPER_SCALE_FILE",
    "load_paper_scale",
    "paper_scale_parameters",
    "papermill_command",
    "fastmix_run_command",
    "export_figures",
    "ensure_kernel",
    "run_notebook",
    "main",
]

ENV_NOTEBOOKS_DIR = "FASTMIX_NOTEBOOKS_DIR"
PAPER_SCALE_FILE = "paper_scale.json"
_NOTEBOOK_SUFFIX = ".py"
_SAFE = re.compile(r"[^A-Za-z0-9._+-]+")


# --------------------------------------------------------------------------- finding notebooks


def default_notebooks_dir() -> Path:
    """The ``notebooks/`` folder: ``$FASTMIX_NOTEBOOKS_DIR``, else next to the package, else ``./notebooks``."""
    env = os.environ.get(ENV_NOTEBOOKS_DIR)
    if env:
        return Path(env)
    beside_package = Path(__file__).resolve().parent.parent / "notebooks"
    if beside_package.is_dir():
        return beside_package
    return Path.cwd() / "notebooks"


def _notebook_title(path: Path) -> str:
    """First markdown heading of a percent notebook, without reading it through jupytext."""
    in_markdown = False
    for line in path.read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if stripped.startswith("# %%"):
            in_markdown = "[markdown]" in stripped
            continue
        if in_markdown:
            text = stripped.lstrip("#").strip()
            if text:
                return text.lstrip("#").strip()
    return ""


def list_notebooks(directory: str | os.PathLike | None = None) -> list[tuple[str, str]]:
    """``(name, title)`` for every ``*.py`` notebook in ``directory``, sorted by name."""
    folder = Path(directory) if directory is not None else default_notebooks_dir()
    found = []
    for path in sorted(folder.glob(f"*{_NOTEBOOK_SUFFIX}")):
        if path.name.startswith(("_", ".")):
            continue
        found.append((path.stem, _notebook_title(path)))
    return found


def resolve_notebook(notebook: str | os.PathLike, directory: str | os.PathLike | None = None) -> Path:
    """Path of a notebook given by name, file name or path.

    ``figure2_dp_ols``, ``figure2_dp_ols.py`` and a path all work, and so does a short name such
    as ``figure2`` when exactly one notebook's name starts with ``figure2_``.

    Raises
    ------
    FileNotFoundError
        If nothing matches; the message lists the available notebook names.
    """
    text = os.fspath(notebook)
    candidate = Path(text)
    if candidate.suffix == _NOTEBOOK_SUFFIX and candidate.is_file():
        return candidate.resolve()
    folder = Path(directory) if directory is not None else default_notebooks_dir()
    name = candidate.name
    if name.endswith(_NOTEBOOK_SUFFIX):
        name = name[: -len(_NOTEBOOK_SUFFIX)]
    by_name = folder / f"{name}{_NOTEBOOK_SUFFIX}"
    if by_name.is_file():
        return by_name.resolve()
    if folder.is_dir():
        prefixed = sorted(p for p in folder.glob(f"{name}_*{_NOTEBOOK_SUFFIX}") if not p.name.startswith(("_", ".")))
        if len(prefixed) == 1:
            return prefixed[0].resolve()
        if len(prefixed) > 1:
            raise FileNotFoundError(
                f"Notebook name {text!r} is ambiguous: {', '.join(p.stem for p in prefixed)}. Use the full name."
            )
    available = ", ".join(n for n, _ in list_notebooks(folder)) if folder.is_dir() else "(none)"
    raise FileNotFoundError(
        f"No notebook {text!r}: expected a path to a .py notebook or a name in {folder}. "
        f"Available notebooks: {available or '(none)'}."
    )


# --------------------------------------------------------------------------- parameters


_TRUE = {"true", "yes", "on"}
_FALSE = {"false", "no", "off"}
_NONE = {"none", "null", "~"}


def parse_value(text: str) -> Any:
    """Parse a command-line value the way papermill's ``-p`` does, plus Python literals.

    ``True``/``true``/``yes``/``on`` and ``False``/``false``/``no``/``off`` give booleans,
    ``None``/``null``/``~`` gives ``None``, then integers (``1024``, ``-3``, ``1_000``),
    floats (``0.5``, ``1e-3``, ``inf``), then any Python literal (``[1, 2]``,
    ``(0.1, 1.0)``, ``"007"`` in quotes); everything else is returned unchanged as a string.
    """
    if not isinstance(text, str):
        return text
    stripped = text.strip()
    lowered = stripped.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    if lowered in _NONE:
        return None
    try:
        return int(stripped)
    except ValueError:
        pass
    try:
        return float(stripped)
    except ValueError:
        pass
    try:
        return ast.literal_eval(stripped)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


@dataclass(frozen=True)
class NotebookParameter:
    """One line ``name: type = default  # help`` of a notebook's ``parameters`` cell."""

    name: str
    type: str | None
    default: str
    help: str

    @property
    def default_value(self) -> Any:
        """The default as a Python value when it is a literal, else its source text."""
        try:
            return ast.literal_eval(self.default)
        except (ValueError, SyntaxError, TypeError):
            return self.default

    def describe(self) -> str:
        kind = f": {self.type}" if self.type else ""
        help_text = f"  # {self.help}" if self.help else ""
        return f"{self.name}{kind} = {self.default}{help_text}"


def _read_notebook(path: Path):
    import jupytext

    return jupytext.read(str(path))


def _parameters_cell_source(nb) -> str | None:
    for cell in nb.cells:
        if cell.cell_type == "code" and "parameters" in cell.get("metadata", {}).get("tags", []):
            return cell.source
    return None


def _parse_parameters_source(source: str) -> dict[str, NotebookParameter]:
    """The parameters of a ``parameters`` cell as papermill's Python translator reads them.

    The same reading as ``papermill --help-notebook``: one ``name: type = default  # help``
    (or ``name = default``) per line. Papermill skips, with a log message only, any line it
    cannot read (for instance a help comment containing ``=``); such a parameter would
    silently disappear from validation, so it is an error here, naming the line.
    """
    import nbformat
    from papermill.translators import PythonTranslator

    params: dict[str, NotebookParameter] = {}
    for p in PythonTranslator.inspect(nbformat.v4.new_code_cell(source)):
        kind = None if p.inferred_type_name in (None, "", "None") else p.inferred_type_name
        params[p.name] = NotebookParameter(p.name, kind, p.default.strip(), (p.help or "").strip())
    for node in ast.parse(source).body:  # every top-level assignment must be one papermill read
        targets = (
            [node.target]
            if isinstance(node, ast.AnnAssign) and node.value is not None
            else getattr(node, "targets", [])
            if isinstance(node, ast.Assign)
            else []
        )
        for target in targets:
            if isinstance(target, ast.Name) and target.id not in params:
                line = source.splitlines()[node.lineno - 1]
                raise ValueError(
                    f"papermill cannot read line {node.lineno} of the parameters cell, {line.strip()!r}: "
                    "write one 'name: type = default  # help' per line, with no '=' in the comment"
                )
    return params


_CELL_HEADER = re.compile(r"^# %%(.*)$")


def _percent_parameters_source(path: Path) -> str | None:
    """The ``parameters`` cell of a percent notebook read as plain text (None: ask jupytext).

    The common header ``# %% tags=["parameters"]`` is found without importing jupytext (which
    imports the Jupyter client), so checking parameters stays fast; anything unusual (no
    such header, or a cell jupytext might read differently) returns None.
    """
    lines = path.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        m = _CELL_HEADER.match(line)
        if not m or "[markdown]" in m.group(1) or "[raw]" in m.group(1):
            continue
        if not re.search(r"""tags\s*=\s*\[[^\]]*["']parameters["']""", m.group(1)):
            continue
        body = []
        for later in lines[i + 1 :]:
            if _CELL_HEADER.match(later):
                break
            body.append(later)
        while body and not body[-1].strip():
            body.pop()
        while body and not body[0].strip():
            body.pop(0)
        source = "\n".join(body)
        if any(b.lstrip().startswith(("%", "!", "?")) or b.startswith("# %") for b in body):
            return None  # magics: jupytext un-comments them
        return source
    return None


def inspect_parameters(notebook: str | os.PathLike) -> dict[str, NotebookParameter]:
    """The parameters declared in the notebook's cell tagged ``parameters``, in order.

    Raises
    ------
    ValueError
        If the notebook has no code cell tagged ``parameters``.
    """
    path = resolve_notebook(notebook)
    source = _percent_parameters_source(path) if path.suffix == _NOTEBOOK_SUFFIX else None
    if source is None:
        source = _parameters_cell_source(_read_notebook(path))
    if source is None:
        raise ValueError(
            f"{path.name} has no code cell tagged 'parameters'; add '# %% tags=[\"parameters\"]' "
            "above the cell that declares the defaults."
        )
    return _parse_parameters_source(source)


_SIMPLE_TYPES = {"int": int, "float": float, "bool": bool, "str": str}


def _coerce(param: NotebookParameter, value: Any) -> Any:
    """Check ``value`` against a simple declared type (int, float, bool, str) and convert losslessly."""
    kind = _SIMPLE_TYPES.get((param.type or "").strip())
    if kind is None or value is None:
        return value
    problem = None
    if kind is str:
        return value if isinstance(value, str) else str(value)
    if kind is bool:
        if not isinstance(value, bool):
            problem = "true or false"
    elif kind is int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            problem = "an integer"
    elif kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            problem = "a number"
        else:
            value = float(value)
    if problem:
        from fastmix.parameters import ParameterError

        raise ParameterError(
            f"parameter {param.name} = {value!r}: must be {problem} (declared `{param.name}: {param.type}`)"
        )
    return value


def _parameter_table(spec: Mapping[str, NotebookParameter]) -> str:
    return "\n".join(f"  {p.describe()}" for p in spec.values()) or "  (none)"


def validate_parameters(
    parameters: Mapping[str, Any], spec: Mapping[str, NotebookParameter], *, notebook: str = "the notebook"
) -> dict[str, Any]:
    """Check that every name is declared in ``spec`` and convert values to simple declared types.

    Only names and declared types are checked here; what each value admits is checked by
    :func:`check_notebook_parameters`.

    Raises
    ------
    fastmix.parameters.ParameterError
        A ``ValueError``, for an unknown name (the message lists the valid names with types,
        defaults and help; its ``summary`` is one line) or for a value that does not fit a
        declared ``int``/``float``/``bool``.
    """
    from fastmix.parameters import ParameterError

    unknown = [name for name in parameters if name not in spec]
    if unknown:
        head = f"Unknown parameter(s) {', '.join(map(repr, unknown))} for {notebook}"
        valid = (
            ", ".join(
                f"{p.name}: {p.type} = {p.default}" if p.type else f"{p.name} = {p.default}" for p in spec.values()
            )
            or "(none)"
        )
        raise ParameterError(
            f"{head}. Valid parameters:\n{_parameter_table(spec)}",
            summary=f"{head}; valid: {valid} (--help-notebook shows what each admits)",
        )
    return {name: _coerce(spec[name], value) for name, value in parameters.items()}


def notebook_rules(notebook: str | os.PathLike):
    """What each parameter of ``notebook`` admits (:func:`fastmix.parameters.rules_for`), or None.

    Rules are looked up by the notebook's name, and only for a notebook of the notebooks
    folder (a notebook of your own elsewhere has none, even under the same name).
    """
    from fastmix.parameters import rules_for

    path = resolve_notebook(notebook)
    if path.parent != default_notebooks_dir().resolve():
        return None
    return rules_for(path.stem)


def check_notebook_parameters(
    notebook: str | os.PathLike,
    parameters: Mapping[str, Any] | None = None,
    spec: Mapping[str, NotebookParameter] | None = None,
) -> dict[str, Any]:
    """Validate ``parameters`` for ``notebook`` completely and return the effective values.

    Names and declared types are checked as in :func:`validate_parameters`; then every value
    of the run (defaults updated by ``parameters``) is checked against the notebook's rules
    (:func:`notebook_rules`). Imports neither papermill nor a kernel: this is what makes a
    bad value fail at once.

    Raises
    ------
    fastmix.parameters.ParameterError
        One line naming each value that is not admissible and what is allowed.
    """
    from fastmix.parameters import check_parameters

    path = resolve_notebook(notebook)
    spec = inspect_parameters(path) if spec is None else spec
    overrides = validate_parameters(dict(parameters or {}), spec, notebook=path.name)
    effective = {p.name: p.default_value for p in spec.values()}
    effective.update(overrides)
    check_parameters(effective, notebook_rules(path), notebook=path.stem)
    return effective


def output_stem(name: str, parameters: Mapping[str, Any]) -> str:
    """File stem ``<name>__<param>=<value>...`` (``<name>__defaults`` without overrides)."""
    if not parameters:
        return f"{name}__defaults"
    parts = []
    for key, value in parameters.items():
        text = json.dumps(value) if not isinstance(value, str) else value
        parts.append(f"{key}={_SAFE.sub('_', text).strip('_') or 'empty'}")
    stem = f"{name}__" + "__".join(parts)
    return stem[:200]


# --------------------------------------------------------------------------- paper scale


def load_paper_scale(directory: str | os.PathLike | None = None) -> dict[str, dict[str, Any]]:
    """The paper-scale registry ``notebooks/paper_scale.json``: name -> {"parameters", "note"}.

    The notebooks' defaults are quick (the book executes them on every build); the registry
    records, for each notebook that has one, the larger setting of the paper's figure. Keys
    starting with ``_`` are comments.
    """
    folder = Path(directory) if directory is not None else default_notebooks_dir()
    path = folder / PAPER_SCALE_FILE
    if not path.is_file():
        raise FileNotFoundError(f"No paper-scale registry at {path}.")
    data = json.loads(path.read_text(encoding="utf-8"))
    return {name: entry for name, entry in data.items() if not name.startswith("_")}


def paper_scale_parameters(notebook: str | os.PathLike, directory: str | os.PathLike | None = None) -> dict[str, Any]:
    """Parameters of ``notebook``'s paper-scale setting (see :func:`load_paper_scale`).

    Raises
    ------
    KeyError
        If the registry has no entry for the notebook; the message lists those it has.
    """
    name = resolve_notebook(notebook, directory).stem
    registry = load_paper_scale(directory)
    if name not in registry:
        raise KeyError(
            f"{name} has no paper-scale setting in {PAPER_SCALE_FILE}; notebooks with one: {', '.join(sorted(registry))}."
        )
    return dict(registry[name].get("parameters", {}))


# --------------------------------------------------------------------------- shell commands


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
    """The equivalent ``python -m fastmix.run`` command (overrides only; outputs under ``results/``)."""
    path = resolve_notebook(notebook)
    parts = ["python -m fastmix.run"]
    if paper_scale:
        parts.append("--paper-scale")
    parts.append(path.stem)
    spec = inspect_parameters(path)
    for name, value in validate_parameters(dict(parameters or {}), spec, notebook=path.name).items():
        parts.append(f"-p {name} {shlex.quote(_command_value(spec[name], value)[1])}")
    return " ".join(parts)


# --------------------------------------------------------------------------- figures


_FIGURE_TYPES = {"image/png": ".png", "image/jpeg": ".jpg", "image/svg+xml": ".svg"}


def export_figures(executed_notebook: str | os.PathLike, out_dir: str | os.PathLike) -> list[Path]:
    """Write every image output of an executed notebook to ``out_dir`` and return the paths.

    Files are named ``cell<index>_<k><ext>`` after the code cell (0-based, counting all
    cells) and the output's position in it, so a figure can be traced back to its cell.
    """
    import base64

    nb = json.loads(Path(executed_notebook).read_text(encoding="utf-8"))
    folder = Path(out_dir)
    written: list[Path] = []
    for index, cell in enumerate(nb.get("cells", [])):
        k = 0
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            for mime, ext in _FIGURE_TYPES.items():
                if mime not in data:
                    continue
                payload = data[mime]
                if isinstance(payload, list):
                    payload = "".join(payload)
                folder.mkdir(parents=True, exist_ok=True)
                target = folder / f"cell{index:03d}_{k}{ext}"
                if mime == "image/svg+xml":
                    target.write_text(payload, encoding="utf-8")
                else:
                    target.write_bytes(base64.b64decode(payload))
                written.append(target)
                k += 1
                break  # one file per output: the first of png, jpeg, svg
    return written


# --------------------------------------------------------------------------- kernel


def ensure_kernel(kernel_name: str = "python3") -> str:
    """Make sure ``kernel_name`` is a registered Jupyter kernel and return its name.

    If no ``python3`` kernel is registered (a fresh environment), the current
    interpreter's ipykernel is registered under that name in ``sys.prefix`` (or for the
    user when ``sys.prefix`` is not writable). Jupyter replaces a kernel command
    ``python`` with the running interpreter, so the default spec runs this Python.
    """
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        KernelSpecManager().get_kernel_spec(kernel_name)
        return kernel_name
    except NoSuchKernel:
        if kernel_name != "python3":
            raise
    from ipykernel import kernelspec

    prefix_writable = os.access(sys.prefix, os.W_OK)
    kernelspec.install(
        kernel_name=kernel_name,
        display_name="Python 3 (ipykernel)",
        user=not prefix_writable,
        prefix=sys.prefix if prefix_writable else None,
    )
    return kernel_name


# --------------------------------------------------------------------------- running


@dataclass(frozen=True)
class RunResult:
    """Where :func:`run_notebook` wrote its outputs."""

    notebook: Path
    parameters: dict
    output_notebook: Path
    parameters_json: Path
    provenance_json: Path
    seconds: float
    figures: tuple[Path, ...] = ()


def run_notebook(
    notebook: str | os.PathLike,
    parameters: Mapping[str, Any] | None = None,
    *,
    output_dir: str | os.PathLike = "results",
    output_path: str | os.PathLike | None = None,
    kernel_name: str = "python3",
    write_metadata: bool = True,
    **papermill_kwargs: Any,
) -> RunResult:
    """Execute a jupytext notebook with papermill after injecting ``parameters``.

    Parameters
    ----------
    notebook : str or path
        Notebook name (``"hello_fastmix"``) or path to a percent ``.py`` notebook.
    parameters : mapping, optional
        Overrides for the ``parameters`` cell; names are validated and simple declared
        types (int, float, bool, str) are checked.
    output_dir : str or path, default="results"
        The executed notebook goes to ``output_dir/<name>/<stem>.ipynb``.
    output_path : str or path, optional
        Explicit path for the executed notebook (overrides ``output_dir``).
    kernel_name : str, default="python3"
        Jupyter kernel; see :func:`ensure_kernel`.
    write_metadata : bool, default=True
        Also write ``<stem>.parameters.json``, ``<stem>.provenance.json`` and the figures
        (:func:`export_figures`, into ``<stem>.figures/``).
    **papermill_kwargs
        Passed to :func:`papermill.execute_notebook` (for example ``execution_timeout``).

    Raises
    ------
    fastmix.parameters.ParameterError
        Before anything runs, for an unknown name or a value outside the notebook's rules
        (:func:`check_notebook_parameters`).
    papermill.PapermillExecutionError
        If a cell raises; the executed notebook (with the traceback) is still written, and
        its path is the exception's ``output_notebook`` attribute.
    """
    from fastmix.parameters import check_parameters

    path = resolve_notebook(notebook)
    nb = _read_notebook(path)
    source = _parameters_cell_source(nb)
    spec = _parse_parameters_source(source) if source is not None else {}
    params = {str(k): v for k, v in (parameters or {}).items()}
    if params and source is None:
        raise ValueError(f"{path.name} has no cell tagged 'parameters', so it takes no parameters.")
    params = validate_parameters(params, spec, notebook=path.name)
    effective = {p.name: p.default_value for p in spec.values()}
    effective.update(params)
    check_parameters(effective, notebook_rules(path), notebook=path.stem)

    import papermill

    from fastmix.provenance import collect_provenance

    name = path.stem
    stem = output_stem(name, params)
    out = Path(output_path) if output_path is not None else Path(output_dir) / name / f"{stem}.ipynb"
    out.parent.mkdir(parents=True, exist_ok=True)
    stem = out.name[: -len(".ipynb")] if out.name.endswith(".ipynb") else out.stem

    kernel = ensure_kernel(kernel_name)
    papermill_kwargs.setdefault("progress_bar", False)
    papermill_kwargs.setdefault("log_output", False)
    papermill_kwargs.setdefault("language", "python")
    started = time.time()
    try:
        papermill.execute_notebook(
            nb, str(out), parameters=params, kernel_name=kernel, cwd=str(path.parent), **papermill_kwargs
        )
    except papermill.PapermillExecutionError as exc:
        exc.output_notebook = out
        raise
    seconds = time.time() - started

    params_json = out.parent / f"{stem}.parameters.json"
    prov_json = out.parent / f"{stem}.provenance.json"
    if write_metadata:
        params_json.write_text(
            json.dumps({"notebook": str(path), "overrides": params, "effective": effective}, indent=2, default=repr)
            + "\n",
            encoding="utf-8",
        )
        record = collect_provenance(effective, seed=effective.get("seed"), started_at=started)
        record["notebook"] = str(path)
        record["output_notebook"] = str(out)
        prov_json.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    figures = tuple(export_figures(out, out.parent / f"{stem}.figures")) if write_metadata else ()
    return RunResult(path, params, out, params_json, prov_json, seconds, figures)


# --------------------------------------------------------------------------- command line


_EPILOG = """\
examples:
  python -m fastmix.run --list
  python -m fastmix.run figure1 --help-notebook
  python -m fastmix.run hello_fastmix -p n 4096 -p seed 1
  python -m fastmix.run --paper-scale section3_fastmix

parameters:
  Every value is checked before anything starts: a name the notebook does not declare, or a
  value outside what the parameter admits (--help-notebook lists both), ends the command at
  once with a one-line message and exit status 2.

progress and failures:
  A notebook run shows papermill's cell progress bar, streams what the cells print and, for
  notebooks computed through a study, each finished cell of the experiment grid. A
  --paper-scale run logs every cell it stores with the cells done out of the cells planned
  and a rough estimate of the time left (from the rate so far). If a cell of a notebook
  fails, the command names the cell and the error, says where the partial executed notebook
  is, and exits with status 1 (--verbose adds the kernel's traceback).

files:
  Everything a run writes goes under --output-dir: <output-dir>/<name>/ holds the executed
  notebook, its .parameters.json and .provenance.json and a .figures/ folder, or, with
  --paper-scale, the results store entry. No study downloads data or keeps a cache of
  intermediate results: real data sets are only read, from the data directory
  ($FASTMIX_DATA, else data/cache/ in a source checkout; see data/README.md), and a data
  set that is not there is replaced by its stated stand-in.
"""


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m fastmix.run",
        description="Execute a companion notebook (notebooks/<name>.py) with new parameters via papermill, "
        "or compute its paper-scale results store entry (--paper-scale).",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("notebook", nargs="?", help="notebook name (e.g. figure2) or path to a .py notebook")
    parser.add_argument(
        "-p",
        "--parameter",
        nargs=2,
        action="append",
        default=[],
        metavar=("NAME", "VALUE"),
        help="override one parameter (repeatable); values parsed like papermill -p",
    )
    parser.add_argument(
        "--output-dir",
        default="results",
        help="root folder for everything the run writes (default: results); with --paper-scale, "
        "the results store's folder",
    )
    parser.add_argument("--kernel", default="python3", help="Jupyter kernel name (default: python3)")
    parser.add_argument("--list", action="store_true", help="list the available notebooks and exit")
    parser.add_argument(
        "--paper-scale",
        action="store_true",
        help="start from the paper's setting in notebooks/paper_scale.json (-p still overrides)",
    )
    parser.add_argument(
        "--restart",
        action="store_true",
        help="with --paper-scale: discard the stored results of the notebook and compute them afresh",
    )
    parser.add_argument(
        "--help-notebook",
        action="store_true",
        help="show the notebook's parameters with their defaults and what each admits, and exit",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar, no streamed cell output")
    parser.add_argument("-v", "--verbose", action="store_true", help="on failure, also print the traceback")
    return parser


def _notebook_help(path: Path) -> str:
    spec = inspect_parameters(path)
    rules = notebook_rules(path) or {}
    lines = [f"{path.stem}: {_notebook_title(path)}", "Parameters (name: type = default  # help; what it admits):"]
    for p in spec.values():
        lines.append(f"  {p.describe()}")
        rule = rules.get(p.name)
        lines.append(f"      admits: {rule.describe() if rule is not None else 'any value of the declared type'}")
    if not spec:
        lines.append("  (none)")
    return "\n".join(lines)


def _first_line(text: Any) -> str:
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    return lines[0] if lines else ""


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class _AboveProgressBar:
    """A text stream that writes above tqdm's progress bars (clears and redraws them)."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, text: str) -> int:
        try:
            from tqdm.auto import tqdm
        except ImportError:  # pragma: no cover - papermill depends on tqdm
            self.stream.write(text)
        else:
            with tqdm.external_write_mode(file=self.stream):
                self.stream.write(text)
        self.stream.flush()
        return len(text)

    def flush(self) -> None:
        self.stream.flush()


def _report_cell_failure(exc, path: Path, args) -> None:
    """What failed, where, and where the partial executed notebook is (no traceback unless --verbose)."""
    where = getattr(exc, "output_notebook", None)
    index = getattr(exc, "cell_index", None)
    count = getattr(exc, "exec_count", None)
    cell = f"cell {index + 1} of the executed notebook" if index is not None else "a cell"
    if count is not None:
        cell += f" (In [{count}])"
    error = f"{getattr(exc, 'ename', type(exc).__name__)}: {_first_line(getattr(exc, 'evalue', exc))}"
    print(f"error: {path.stem} failed in {cell}: {error}", file=sys.stderr)
    source = _first_line(getattr(exc, "source", ""))
    if source:
        print(f"  the cell begins: {source}", file=sys.stderr)
    if where is not None:
        print(f"  partial executed notebook (cells up to the failure, with the traceback): {where}", file=sys.stderr)
    if args.verbose:
        trace = getattr(exc, "traceback", None)
        if trace:
            print(_ANSI.sub("", "\n".join(trace)), file=sys.stderr)
    else:
        print("  (--verbose prints the traceback)", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the process exit status.

    0 on success, 2 for a usage error (unknown notebook or parameter, inadmissible value;
    reported in one line before anything starts), 1 when the notebook or study fails.
    """
    from fastmix.parameters import ParameterError

    parser = _build_parser()
    args = parser.parse_args(argv)
    if args.list:
        rows = list_notebooks()
        width = max((len(n) for n, _ in rows), default=0)
        for name, title in rows:
            print(f"{name.ljust(width)}  {title}")
        return 0
    if not args.notebook:
        parser.error("a NOTEBOOK is required (use --list to see the available ones)")
    try:
        path = resolve_notebook(args.notebook)
        if args.help_notebook:
            print(_notebook_help(path))
            return 0
        spec = inspect_parameters(path)
        overrides: dict[str, Any] = paper_scale_parameters(path) if args.paper_scale else {}
        for name, value in args.parameter:
            # a parameter declared `str` takes the text as typed ("12,16" stays "12,16")
            declared = spec[name].type.strip() if name in spec and spec[name].type else ""
            overrides[name] = value if declared == "str" else parse_value(value)
        overrides = validate_parameters(overrides, spec, notebook=path.name)
        check_notebook_parameters(path, overrides, spec)
        _check_run_options(path, args)
    except ParameterError as exc:
        print(f"error: {exc.summary}", file=sys.stderr)
        return 2
    except (FileNotFoundError, ValueError, KeyError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"error: {' '.join(str(message).split())}", file=sys.stderr)
        return 2

    try:
        if args.paper_scale:
            from fastmix.studies import has_study

            if has_study(path.stem):
                return _run_paper_scale(path, spec, overrides, args)
        return _run_notebook_cli(path, overrides, args)
    except ParameterError as exc:  # a rule a study checks itself
        print(f"error: {exc.summary}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # papermill execution errors, study failures and the like
        if type(exc).__name__ == "PapermillExecutionError":
            _report_cell_failure(exc, path, args)
            return 1
        if type(exc).__name__ == "StoredParametersDiffer":  # fastmix.store: a usage error, not a failure
            print(f"error: {_first_line(exc)}", file=sys.stderr)
            return 2
        print(f"error: {type(exc).__name__} while running {path.stem}: {_first_line(exc)}", file=sys.stderr)
        if args.verbose:
            import traceback

            traceback.print_exc()
        else:
            print("  (--verbose prints the traceback)", file=sys.stderr)
        return 1


def _check_run_options(path: Path, args) -> None:
    """Refuse, before anything starts, options that cannot work (ValueError with a one-line message).

    ``--restart`` without ``--paper-scale``; an ``--output-dir`` that is a file or cannot be
    created; a ``--kernel`` that is not installed (only when a kernel will be started; the
    default ``python3`` is registered on demand by :func:`ensure_kernel`).
    """
    if args.restart and not args.paper_scale:
        raise ValueError(
            "--restart only applies with --paper-scale (it discards a stored results entry); "
            "drop --restart, or add --paper-scale"
        )
    out = Path(args.output_dir)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--output-dir {out} is a file, not a folder; give a folder (it is created if missing)")
    existing = next((p for p in [out, *out.absolute().parents] if p.exists()), None)
    if existing is not None and existing != out and (not existing.is_dir() or not os.access(existing, os.W_OK)):
        what = "is a file" if not existing.is_dir() else "is not writable"
        raise ValueError(f"--output-dir {out} cannot be created: {existing} {what}; give a folder you can write to")
    if out.exists() and not os.access(out, os.W_OK):
        raise ValueError(f"--output-dir {out} is not writable; give a folder you can write to")
    from fastmix.studies import has_study

    starts_kernel = not (args.paper_scale and has_study(path.stem))
    if starts_kernel and args.kernel != "python3":
        from jupyter_client.kernelspec import KernelSpecManager

        installed = sorted(KernelSpecManager().find_kernel_specs())
        if args.kernel not in installed:
            raise ValueError(
                f"--kernel {args.kernel}: no Jupyter kernel of that name is installed (installed: "
                f"{', '.join(installed) or 'none'}); drop --kernel to use python3"
            )


def _run_notebook_cli(path: Path, overrides: Mapping[str, Any], args) -> int:
    """Execute the notebook with progress on the terminal; print what was written where."""
    out = Path(args.output_dir) / path.stem / f"{output_stem(path.stem, overrides)}.ipynb"
    from fastmix.studies import ENV_CELL_PROGRESS

    kwargs: dict[str, Any] = {}
    previous = os.environ.get(ENV_CELL_PROGRESS)
    if not args.no_progress:
        os.environ[ENV_CELL_PROGRESS] = "1"  # the kernel inherits it: a study logs its cells to stderr
        kwargs.update(
            progress_bar=True, stdout_file=_AboveProgressBar(sys.stdout), stderr_file=_AboveProgressBar(sys.stderr)
        )
    print(f"running {path.name} -> {out}", flush=True)
    try:
        result = run_notebook(path, overrides, output_dir=args.output_dir, kernel_name=args.kernel, **kwargs)
    finally:
        if previous is None:
            os.environ.pop(ENV_CELL_PROGRESS, None)
        else:
            os.environ[ENV_CELL_PROGRESS] = previous
    print(f"done in {result.seconds:.1f} s; wrote:")
    print(f"  {result.output_notebook}  (executed notebook)")
    print(f"  {result.parameters_json}  (overrides and effective parameters)")
    print(f"  {result.provenance_json}  (provenance)")
    if result.figures:
        print(
            f"  {len(result.figures)} figure(s) in {result.figures[0].parent}/: "
            + ", ".join(f.name for f in result.figures)
        )
    else:
        print("  (no figures)")
    return 0


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


def _plan_cells(name: str, params: Mapping[str, Any], limit: float = 10.0) -> set[tuple[str, str]] | None:
    """The ``(table, cell)`` pairs a study's run consists of, or None if they cannot be listed.

    The study's ``run`` walks its grid against :class:`_PlanningStore`. A study whose walk
    needs the values of earlier cells (or takes more than ``limit`` seconds of CPU time, where
    the platform has ``SIGPROF``; CPU time, so that a busy machine does not cut the walk short)
    gets no plan: its progress is then reported without a total.
    """
    import signal
    import threading

    from fastmix.studies import study_module

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


def _run_paper_scale(path: Path, spec, overrides: Mapping[str, Any], args) -> int:
    """``--paper-scale`` for a notebook with a study: compute its results store entry, cell by cell.

    The entry's parameters are the notebook's defaults updated by the registry's and the
    ``-p`` overrides, so the stored run is the one the registry describes. Cells already in
    the store are skipped: the same command resumes a stopped run.
    """
    from fastmix.store import ResultsStore
    from fastmix.studies import observe_cells, run_study, study_module, study_parameters

    overrides = validate_parameters(dict(overrides), spec, notebook=path.name)
    defaults = {name: p.default_value for name, p in spec.items() if name in study_module(path.stem).DEFAULTS}
    params = study_parameters(path.stem, {**defaults, **overrides})  # checks the study's rules
    store = ResultsStore(path.stem, args.output_dir)
    print(f"results store entry: {store.path}", flush=True)
    plan = None if args.no_progress else _plan_cells(path.stem, params)
    done_before = 0
    if plan is not None and not args.restart and store.exists():
        stored = {table: store.cells_done(table) for table in {t for t, _ in plan}}
        done_before = sum(1 for table, key in plan if key in stored[table])
    if plan is not None:
        print(f"{len(plan)} cells in this run, {done_before} already stored", flush=True)
    elif not args.no_progress:
        print("(this study's cells cannot be listed in advance: progress counts the cells computed)", flush=True)
    progress = _CellProgress(plan, done_before)
    started = time.time()
    with observe_cells(progress):
        run_study(path.stem, params, store=store, log=progress.log, restart=args.restart)
    progress.flush()
    print(
        f"complete: {store.path} ({_duration(time.time() - started)} this sitting, "
        f"{progress.computed} cells computed); the entry holds:"
    )
    for file in sorted(store.path.iterdir()):
        if file.is_file():
            print(f"  {file}  ({file.stat().st_size / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
