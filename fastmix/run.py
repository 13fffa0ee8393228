"""Re-run one companion notebook with new parameters.

Usage (from the repository root)::

    python -m fastmix.run --list
    python -m fastmix.run hello_fastmix --help-notebook
    python -m fastmix.run hello_fastmix -p n 4096 -p seed 3
    python -m fastmix.run notebooks/hello_fastmix.py -p n 256 --output-dir /tmp/results
    python -m fastmix.run --paper-scale figure2_dp_ols -p trials 10

``NOTEBOOK`` is a notebook name (``hello_fastmix`` resolves to
``notebooks/hello_fastmix.py``) or a path to a jupytext percent ``.py`` notebook.
Each ``-p NAME VALUE`` overrides one entry of the notebook's ``parameters`` cell;
values are parsed like papermill's ``-p`` (``True``/``False``, ``None``, integers,
floats) and, beyond that, Python literals (``"[1, 2]"``, ``"(0.5, 1.0)"``); anything
else stays a string. Unknown names are rejected with the list of valid ones.

The notebook is executed in process through papermill (``jupytext.read`` then
``papermill.execute_notebook``) with the notebook's folder as working directory.
Outputs go to ``<output-dir>/<name>/<name>__<param>=<value>....ipynb`` (figures are
embedded in the executed notebook), together with ``<stem>.parameters.json`` (the
overrides and the effective parameters), ``<stem>.provenance.json`` (see
:func:`fastmix.provenance.collect_provenance`) and every figure of the executed notebook
as a file in ``<stem>.figures/``.

``--paper-scale`` starts from the paper's setting recorded for the notebook in
``notebooks/paper_scale.json`` (see :func:`paper_scale_parameters`); ``-p`` still overrides.
For a notebook with a paper-scale study (:mod:`fastmix.studies`) it does not execute the
notebook: it computes the notebook's entry in the results store, ``<output-dir>/<name>/``
(:mod:`fastmix.store`), cell by cell, and the same command resumes a stopped run
(``--restart`` discards the stored entry first). The book's page then reads that entry.
:func:`papermill_command` writes the same run as a plain ``jupytext | papermill`` shell
command, the form shown in the "Re-run this figure" box of each notebook page.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import os
import re
import shlex
import sys
import time
import tokenize
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
    comments: dict[int, str] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                comments[tok.start[0]] = tok.string.lstrip("#").strip()
    except (tokenize.TokenError, IndentationError):
        pass
    tree = ast.parse(source)
    params: dict[str, NotebookParameter] = {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            names, kind, value = [node.target.id], ast.unparse(node.annotation), node.value
        elif isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
            names, kind, value = [t.id for t in node.targets], None, node.value
        else:
            continue
        last_line = getattr(node, "end_lineno", node.lineno)
        help_text = comments.get(last_line, comments.get(node.lineno, ""))
        for name in names:
            params[name] = NotebookParameter(name, kind, ast.unparse(value), help_text)
    return params


def inspect_parameters(notebook: str | os.PathLike) -> dict[str, NotebookParameter]:
    """The parameters declared in the notebook's cell tagged ``parameters``, in order.

    Raises
    ------
    ValueError
        If the notebook has no code cell tagged ``parameters``.
    """
    path = resolve_notebook(notebook)
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
        raise ValueError(
            f"Parameter {param.name!r} must be {problem} (declared `{param.describe()}`); got {value!r}."
        )
    return value


def _parameter_table(spec: Mapping[str, NotebookParameter]) -> str:
    return "\n".join(f"  {p.describe()}" for p in spec.values()) or "  (none)"


def validate_parameters(
    parameters: Mapping[str, Any], spec: Mapping[str, NotebookParameter], *, notebook: str = "the notebook"
) -> dict[str, Any]:
    """Check that every name is declared in ``spec`` and convert values to simple declared types.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the valid names with types, defaults and
        help) or for a value that does not fit a declared ``int``/``float``/``bool``.
    """
    unknown = [name for name in parameters if name not in spec]
    if unknown:
        raise ValueError(
            f"Unknown parameter(s) {', '.join(map(repr, unknown))} for {notebook}. "
            f"Valid parameters:\n{_parameter_table(spec)}"
        )
    return {name: _coerce(spec[name], value) for name, value in parameters.items()}


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
    papermill.PapermillExecutionError
        If a cell raises; the executed notebook (with the traceback) is still written.
    """
    import papermill

    from fastmix.provenance import collect_provenance

    path = resolve_notebook(notebook)
    nb = _read_notebook(path)
    source = _parameters_cell_source(nb)
    spec = _parse_parameters_source(source) if source is not None else {}
    params = {str(k): v for k, v in (parameters or {}).items()}
    if params and source is None:
        raise ValueError(f"{path.name} has no cell tagged 'parameters', so it takes no parameters.")
    params = validate_parameters(params, spec, notebook=path.name)

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
    papermill.execute_notebook(
        nb,
        str(out),
        parameters=params,
        kernel_name=kernel,
        cwd=str(path.parent),
        **papermill_kwargs,
    )
    seconds = time.time() - started

    effective = {p.name: p.default_value for p in spec.values()}
    effective.update(params)
    params_json = out.parent / f"{stem}.parameters.json"
    prov_json = out.parent / f"{stem}.provenance.json"
    if write_metadata:
        params_json.write_text(
            json.dumps(
                {"notebook": str(path), "overrides": params, "effective": effective},
                indent=2,
                default=repr,
            )
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


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m fastmix.run",
        description="Execute a companion notebook (notebooks/<name>.py) with new parameters via papermill.",
        epilog="Example: python -m fastmix.run hello_fastmix -p n 4096 -p seed 1",
    )
    parser.add_argument("notebook", nargs="?", help="notebook name (e.g. figure2) or path to a .py notebook")
    parser.add_argument(
        "-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
        help="override one parameter (repeatable); values parsed like papermill -p",
    )
    parser.add_argument(
        "--output-dir", default="results",
        help="root folder for outputs (default: results); with --paper-scale, the results store's folder",
    )
    parser.add_argument("--kernel", default="python3", help="Jupyter kernel name (default: python3)")
    parser.add_argument("--list", action="store_true", help="list the available notebooks and exit")
    parser.add_argument(
        "--paper-scale", action="store_true",
        help="start from the paper's setting in notebooks/paper_scale.json (-p still overrides)",
    )
    parser.add_argument(
        "--restart", action="store_true",
        help="with --paper-scale: discard the stored results of the notebook and compute them afresh",
    )
    parser.add_argument(
        "--help-notebook", action="store_true", help="show the notebook's parameters with defaults and exit"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the process exit status."""
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
            print(f"{path.stem}: {_notebook_title(path)}\nParameters:\n{_parameter_table(inspect_parameters(path))}")
            return 0
        spec = inspect_parameters(path)
        overrides: dict[str, Any] = paper_scale_parameters(path) if args.paper_scale else {}
        for name, value in args.parameter:
            # a parameter declared `str` takes the text as typed ("12,16" stays "12,16")
            declared = spec[name].type.strip() if name in spec and spec[name].type else ""
            overrides[name] = value if declared == "str" else parse_value(value)
        if args.paper_scale:
            from fastmix.studies import has_study

            if has_study(path.stem):
                return _run_paper_scale(path, spec, overrides, args)
        result = run_notebook(path, overrides, output_dir=args.output_dir, kernel_name=args.kernel)
    except (FileNotFoundError, ValueError, KeyError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"error: {message}", file=sys.stderr)
        return 2
    except Exception as exc:  # papermill execution errors and the like
        name = type(exc).__name__
        print(f"error: {name} while running {args.notebook}:\n{exc}", file=sys.stderr)
        return 1
    print(f"wrote {result.output_notebook} ({result.seconds:.1f} s)")
    print(f"wrote {result.parameters_json}")
    print(f"wrote {result.provenance_json}")
    if result.figures:
        print(f"wrote {len(result.figures)} figure(s) to {result.figures[0].parent}")
    return 0


def _run_paper_scale(path: Path, spec, overrides: Mapping[str, Any], args) -> int:
    """``--paper-scale`` for a notebook with a study: compute its results store entry, cell by cell.

    The entry's parameters are the notebook's defaults updated by the registry's and the
    ``-p`` overrides, so the stored run is the one the registry describes. Cells already in
    the store are skipped: the same command resumes a stopped run.
    """
    from fastmix.store import ResultsStore
    from fastmix.studies import run_study, study_module

    overrides = validate_parameters(dict(overrides), spec, notebook=path.name)
    defaults = {name: p.default_value for name, p in spec.items() if name in study_module(path.stem).DEFAULTS}
    params = {**defaults, **overrides}
    store = ResultsStore(path.stem, args.output_dir)
    print(f"results store entry: {store.path}", flush=True)

    def log(message: str) -> None:
        print(time.strftime("%H:%M:%S"), message, flush=True)

    started = time.time()
    run_study(path.stem, params, store=store, log=log, restart=args.restart)
    print(f"complete: {store.path} ({time.time() - started:.1f} s this sitting)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
