"""Re-run one companion notebook with new parameters, or compute its paper-scale results.

Usage (from the repository root)::

    python -m fastmix_companion.run --list
    python -m fastmix_companion.run hello_fastmix --help-notebook
    python -m fastmix_companion.run hello_fastmix -p n 4096 -p seed 3
    python -m fastmix_companion.run notebooks/hello_fastmix.py -p n 256 --output-dir /tmp/results
    python -m fastmix_companion.run --paper-scale figure2_dp_ols -p trials 10

``NOTEBOOK`` is a notebook name (``hello_fastmix`` resolves to
``notebooks/hello_fastmix.py``, ``figure2`` to the one notebook whose name starts with
``figure2_``) or a path to a jupytext percent ``.py`` notebook. Each ``-p NAME VALUE``
overrides one entry of the notebook's ``parameters`` cell; values are parsed like
papermill's ``-p`` (``True``/``False``, ``None``, integers, floats) and, beyond that, Python
literals (``"[1, 2]"``, ``"(0.5, 1.0)"``); anything else stays a string, and a parameter
declared ``str`` takes the text as typed. A value may start with ``-`` (``-p eps_min -inf``):
the two words after ``-p`` are taken before the other options are parsed
(:func:`fastmix_companion.cli_checks.split_parameter_args`).

Parameters are checked before anything starts (:func:`check_notebook_parameters`): unknown
names, values of the wrong type, and values outside what each parameter admits (the rules of
:mod:`fastmix_companion.parameters`, declared once per notebook: a study's ``PARAMETERS``, or
:data:`fastmix_companion.studies.NOTEBOOK_PARAMETERS`) end the command with a one-line message and
exit status 2, without importing papermill or starting a kernel. ``--help-notebook`` lists
each parameter with its default and what it admits. A study may also estimate the cost of a
run (its ``cost_model``, see :func:`fastmix_companion.cli_checks.check_run_cost`): a run whose
memory estimate exceeds the memory available is refused the same way, and one estimated to
take more than an hour needs ``--yes``. A run that runs out of memory all the same (a
:class:`MemoryError` in a study computed in process or in the notebook's kernel) ends with one
line saying so, and exit status 2.

The notebook is executed in process through papermill (``jupytext.read`` then
``papermill.execute_notebook``) with the notebook's folder as working directory, showing
papermill's cell progress bar and streaming what the cells print; a notebook that runs a
study also logs each cell of its experiment grid (the kernel inherits
``FASTMIX_CELL_PROGRESS``, see :mod:`fastmix_companion.studies`). Outputs go to
``<output-dir>/<name>/<name>__<param>=<value>....ipynb`` (figures are embedded in the
executed notebook), together with ``<stem>.parameters.json`` (the overrides and the
effective parameters), ``<stem>.provenance.json`` (see
:func:`fastmix_companion.provenance.collect_provenance`) and every figure of the executed notebook as a
file in ``<stem>.figures/``, named after the figure (``figure2.png``, see
:func:`export_figures`); the command ends with the list of what it wrote. If a cell
fails, the command names the cell and the first line of the error, says where the partial
executed notebook is (it holds the traceback), and exits with status 1; ``--verbose`` also
prints the traceback.

``--paper-scale`` starts from the paper's setting recorded for the notebook in
``notebooks/paper_scale.json`` (see :func:`paper_scale_parameters`); ``-p`` still overrides.
For a notebook with a paper-scale study (:mod:`fastmix_companion.studies`) it does not execute the
notebook: it computes the notebook's entry in the results store, ``<output-dir>/<name>/``
(:mod:`fastmix_companion.store`), cell by cell, and the same command resumes a stopped run
(``--restart`` discards the stored entry first). Each stored cell is logged with the cells
done out of the cells planned (the study's grid, walked once without computing) and a rough
estimate of the time left from the rate so far. The book's page then reads that entry.

Everything a run writes goes under ``--output-dir``. No study downloads data or caches
intermediate results; real data sets are only read, from the data directory
(:func:`fastmix.datasets.get_data_home`: ``$FASTMIX_DATA``, else ``data/cache/`` in a source
checkout).

:func:`papermill_command` writes the same run as a plain ``jupytext | papermill`` shell
command, and :func:`fastmix_run_command` as a ``python -m fastmix_companion.run`` command: the forms
shown in the "Re-run this figure" box of each notebook page.

This module holds the command line and the execution of a notebook; finding notebooks and
reading and checking their parameters live in ``fastmix_companion.notebook_parameters``, the shell
commands in ``fastmix_companion.rerun_commands`` and the paper-scale run in
``fastmix_companion.paper_scale``. Every public name of those is importable from here.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastmix_companion.cli_checks import check_run_cost, out_of_memory_line, split_parameter_args
from fastmix_companion.notebook_parameters import ENV_NOTEBOOKS_DIR as ENV_NOTEBOOKS_DIR
from fastmix_companion.notebook_parameters import (
    PAPER_SCALE_FILE,
    NotebookParameter,
    check_notebook_parameters,
    default_notebooks_dir,
    inspect_parameters,
    list_notebooks,
    load_paper_scale,
    notebook_rules,
    notebook_title,
    output_stem,
    paper_scale_parameters,
    parse_value,
    read_notebook,
    resolve_notebook,
    validate_parameters,
)
from fastmix_companion.paper_scale import run_paper_scale
from fastmix_companion.rerun_commands import fastmix_run_command, papermill_command

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
    "kernel_transport_config",
    "run_notebook",
    "main",
]

# --------------------------------------------------------------------------- figures


_FIGURE_TYPES = {"image/png": ".png", "image/jpeg": ".jpg", "image/svg+xml": ".svg"}

#: The written-out label a figure caption starts with: "**Figure 2.**", "**Figure F.1 (smoke scale).**".
_CAPTION_LABEL = re.compile(r"^\W*Figure\s+((?:[A-Z]+\d*|\d+)(?:\.\d+)*)\s*(?:\(([^)]*)\))?")


def _slug(text: str) -> str:
    return re.sub(r"[^0-9A-Za-z]+", "-", text).strip("-")


def _figure_file_stem(cell: Mapping[str, Any], output: Mapping[str, Any]) -> str | None:
    """The file name (no suffix) of a figure output, from what it holds; None if nothing names it.

    In order: its caption's label (``"**Figure F.1 (smoke scale).**"`` -> ``figureF-1-smoke-scale``),
    the figure's name (``mystnb.figure.name``), its glue key (``scrapbook.name``), the cell's ``name``.
    """
    figure = ((cell.get("metadata") or {}).get("mystnb") or {}).get("figure") or {}
    match = _CAPTION_LABEL.match(str(figure.get("caption") or ""))
    if match:
        return "figure" + _slug(match.group(1)) + (f"-{_slug(match.group(2))}" if match.group(2) else "")
    scrapbook = (output.get("metadata") or {}).get("scrapbook") or {}
    names = (figure.get("name"), scrapbook.get("name"), (cell.get("metadata") or {}).get("name"))
    return next((_slug(str(n)) for n in names if n and _slug(str(n))), None)


def export_figures(executed_notebook: str | os.PathLike, out_dir: str | os.PathLike) -> list[Path]:
    """Write every image output of an executed notebook to ``out_dir`` and return the paths.

    A file is named after the figure it holds (:func:`_figure_file_stem`: ``figure2.png``,
    ``figureF-1-smoke-scale.png``, or the figure's name or glue key); a second image of the
    same figure gets ``-2``, ``-3``, ... An image that nothing names is ``cell<index>_<k>``,
    after its code cell (0-based, counting all cells) and its position in the cell.
    """
    import base64

    nb = json.loads(Path(executed_notebook).read_text(encoding="utf-8"))
    folder = Path(out_dir)
    written: list[Path] = []
    taken: set[str] = set()
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
                stem = _figure_file_stem(cell, output) or f"cell{index:03d}_{k}"
                name, n = stem, 1
                while name.lower() in taken:
                    n += 1
                    name = f"{stem}-{n}"
                taken.add(name.lower())
                target = folder / f"{name}{ext}"
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


def kernel_transport_config(kernel_name: str = "python3"):
    """The kernel manager's ``traitlets`` Config that keeps the kernel off unencrypted TCP.

    By default the kernel listens on plain TCP and ipykernel prints "[IPKernelApp] WARNING |
    Kernel is running over TCP without encryption" in every run's output. When pyzmq has
    CurveZMQ and the kernel spec declares ``supported_encryption: curve`` (ipykernel's does),
    the manager provisions CurveZMQ keys (``transport_encryption = "auto"``, jupyter_client
    8.10+); otherwise, on POSIX, the kernel uses local IPC sockets. Passed as ``config=`` to
    :func:`papermill.execute_notebook`, which hands it to the kernel manager.
    """
    import zmq
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
    from jupyter_client.manager import KernelManager
    from traitlets.config import Config

    config = Config()
    try:
        declared = KernelSpecManager().get_kernel_spec(kernel_name).metadata.get("supported_encryption") or ()
    except NoSuchKernel:
        declared = ()
    declared = {str(d).strip().lower() for d in ([declared] if isinstance(declared, str) else declared)}
    if zmq.has("curve") and "curve" in declared and "transport_encryption" in KernelManager.class_traits():
        config.KernelManager.transport_encryption = "auto"
    elif os.name == "posix":
        config.KernelManager.transport = "ipc"
    return config


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
    fastmix_companion.parameters.ParameterError
        Before anything runs, for an unknown name or a value outside the notebook's rules
        (:func:`check_notebook_parameters`).
    papermill.PapermillExecutionError
        If a cell raises; the executed notebook (with the traceback) is still written, and
        its path is the exception's ``output_notebook`` attribute.
    """
    from fastmix_companion.parameters import check_parameters

    path = resolve_notebook(notebook)
    nb, declared = read_notebook(path)
    spec = declared if declared is not None else {}
    params = {str(k): v for k, v in (parameters or {}).items()}
    if params and declared is None:
        raise ValueError(f"{path.name} has no cell tagged 'parameters', so it takes no parameters.")
    params = validate_parameters(params, spec, notebook=path.name)
    effective = {p.name: p.default_value for p in spec.values()}
    effective.update(params)
    check_parameters(effective, notebook_rules(path), notebook=path.stem)

    import papermill

    from fastmix_companion.provenance import collect_provenance

    name = path.stem
    stem = output_stem(name, params)
    out = Path(output_path) if output_path is not None else Path(output_dir) / name / f"{stem}.ipynb"
    out.parent.mkdir(parents=True, exist_ok=True)
    stem = out.name[: -len(".ipynb")] if out.name.endswith(".ipynb") else out.stem

    kernel = ensure_kernel(kernel_name)
    papermill_kwargs.setdefault("progress_bar", False)
    papermill_kwargs.setdefault("log_output", False)
    papermill_kwargs.setdefault("language", "python")
    papermill_kwargs.setdefault("config", kernel_transport_config(kernel))
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
  python -m fastmix_companion.run --list
  python -m fastmix_companion.run figure1 --help-notebook
  python -m fastmix_companion.run hello_fastmix -p n 4096 -p seed 1
  python -m fastmix_companion.run --paper-scale section3_fastmix

parameters:
  Every value is checked before anything starts: a name the notebook does not declare, or a
  value outside what the parameter admits (--help-notebook lists both), ends the command at
  once with a one-line message and exit status 2. A value may start with '-' (-p eps_min -1e3).
  A study that estimates its cost refuses a run needing more memory than is available, and
  asks for --yes before one estimated to take more than an hour. Running out of memory all
  the same ends the command with one line and exit status 2.

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
        prog="python -m fastmix_companion.run",
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
    parser.add_argument(
        "--yes", action="store_true", help="start a run even if its study estimates it takes more than an hour"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar, no streamed cell output")
    parser.add_argument("-v", "--verbose", action="store_true", help="on failure, also print the traceback")
    return parser


def _notebook_help(path: Path) -> str:
    spec = inspect_parameters(path)
    rules = notebook_rules(path) or {}
    lines = [f"{path.stem}: {notebook_title(path)}", "Parameters (name: type = default  # help; what it admits):"]
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

    0 on success, 2 for a usage error (unknown notebook or parameter, inadmissible value, a
    run its study's cost model refuses; reported in one line before anything starts) or for a
    run that ran out of memory (one line), 1 when the notebook or study fails otherwise.
    """
    from fastmix_companion.parameters import ParameterError

    parser = _build_parser()
    rest, pairs = split_parameter_args(sys.argv[1:] if argv is None else list(argv), parser)
    args = parser.parse_args(rest)
    args.parameter = [*pairs, *args.parameter]
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
            declared = (spec[name].type or "").strip() if name in spec else ""
            overrides[name] = value if declared == "str" else parse_value(value)
        overrides = validate_parameters(overrides, spec, notebook=path.name)
        check_notebook_parameters(path, overrides, spec)
        _check_run_options(path, args)
        effective = {**{name: p.default_value for name, p in spec.items()}, **overrides}
        note = check_run_cost(path, effective, assume_yes=args.yes)
        if note:
            print(note, file=sys.stderr, flush=True)
    except ParameterError as exc:
        print(f"error: {exc.summary}", file=sys.stderr)
        return 2
    except (FileNotFoundError, ValueError, KeyError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"error: {' '.join(str(message).split())}", file=sys.stderr)
        return 2

    try:
        if args.paper_scale:
            from fastmix_companion.studies import has_study

            if has_study(path.stem):
                return run_paper_scale(
                    path,
                    spec,
                    overrides,
                    output_dir=args.output_dir,
                    restart=args.restart,
                    progress=not args.no_progress,
                )
        return _run_notebook_cli(path, overrides, args)
    except ParameterError as exc:  # a rule a study checks itself
        print(f"error: {exc.summary}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except MemoryError as exc:  # a study computed in this process
        from fastmix_companion.studies import has_study

        stored = args.paper_scale and has_study(path.stem)  # its finished cells are in the results store
        print(out_of_memory_line(path.stem, exc, stored=stored), file=sys.stderr)
        _traceback_if_verbose(args)
        return 2
    except Exception as exc:  # papermill execution errors, study failures and the like
        if type(exc).__name__ == "PapermillExecutionError":
            if getattr(exc, "ename", None) == "MemoryError":  # raised in the kernel
                print(out_of_memory_line(path.stem, exc), file=sys.stderr)
                trace = getattr(exc, "traceback", None) or []
                if args.verbose and trace:
                    print(_ANSI.sub("", "\n".join(trace)), file=sys.stderr)
                return 2
            _report_cell_failure(exc, path, args)
            return 1
        if type(exc).__name__ == "StoredParametersDiffer":  # fastmix_companion.store: a usage error, not a failure
            print(f"error: {_first_line(exc)}", file=sys.stderr)
            return 2
        print(f"error: {type(exc).__name__} while running {path.stem}: {_first_line(exc)}", file=sys.stderr)
        if not _traceback_if_verbose(args):
            print("  (--verbose prints the traceback)", file=sys.stderr)
        return 1


def _traceback_if_verbose(args) -> bool:
    """With ``--verbose``, print the traceback of the exception being handled; True if printed."""
    if args.verbose:
        import traceback

        traceback.print_exc()
    return bool(args.verbose)


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
    from fastmix_companion.studies import has_study

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
    from fastmix_companion.studies import ENV_CELL_PROGRESS

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


if __name__ == "__main__":
    raise SystemExit(main())
