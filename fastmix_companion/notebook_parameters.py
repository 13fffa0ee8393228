"""The companion's notebooks as a runner sees them: where they are and what parameters they take.

A notebook is a jupytext percent ``.py`` file of the notebooks folder
(:func:`default_notebooks_dir`), found by name (:func:`resolve_notebook`). Its parameters are
the lines ``name: type = default  # help`` of its code cell tagged ``parameters``, read the
way papermill reads them (:func:`inspect_parameters`); overrides are checked against the
declared names and simple types (:func:`validate_parameters`) and against what each
parameter admits (:func:`check_notebook_parameters`, the rules of :mod:`fastmix_companion.parameters`).
The paper-scale registry ``notebooks/paper_scale.json`` records, per notebook, the setting of
the paper's figure (:func:`load_paper_scale`). :mod:`fastmix_companion.run` re-exports every public name.
"""

from __future__ import annotations

import ast
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "ENV_NOTEBOOKS_DIR",
    "NotebookParameter",
    "default_notebooks_dir",
    "notebook_title",
    "list_notebooks",
    "resolve_notebook",
    "parse_value",
    "read_notebook",
    "inspect_parameters",
    "validate_parameters",
    "notebook_rules",
    "check_notebook_parameters",
    "output_stem",
    "PAPER_SCALE_FILE",
    "load_paper_scale",
    "paper_scale_parameters",
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


def notebook_title(path: Path) -> str:
    """First markdown heading of a percent notebook (read as text, not through jupytext)."""
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
        found.append((path.stem, notebook_title(path)))
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


def read_notebook(path: str | os.PathLike) -> tuple[Any, dict[str, NotebookParameter] | None]:
    """The notebook read through jupytext, and the parameters of its ``parameters`` cell.

    The parameters are ``None`` when no code cell is tagged ``parameters`` (the notebook
    takes none); they are read as :func:`inspect_parameters` reads them.
    """
    nb = _read_notebook(Path(path))
    source = _parameters_cell_source(nb)
    return nb, (_parse_parameters_source(source) if source is not None else None)


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
        from fastmix_companion.parameters import ParameterError

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
    fastmix_companion.parameters.ParameterError
        A ``ValueError``, for an unknown name (the message lists the valid names with types,
        defaults and help; its ``summary`` is one line) or for a value that does not fit a
        declared ``int``/``float``/``bool``.
    """
    from fastmix_companion.parameters import ParameterError

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
    """What each parameter of ``notebook`` admits (:func:`fastmix_companion.studies.rules_for`), or None.

    Rules are looked up by the notebook's name, and only for a notebook of the notebooks
    folder (a notebook of your own elsewhere has none, even under the same name).
    """
    from fastmix_companion.studies import rules_for

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
    fastmix_companion.parameters.ParameterError
        One line naming each value that is not admissible and what is allowed.
    """
    from fastmix_companion.parameters import check_parameters

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
            f"{name} has no paper-scale setting in {PAPER_SCALE_FILE}; "
            f"notebooks with one: {', '.join(sorted(registry))}."
        )
    return dict(registry[name].get("parameters", {}))
