"""The contributors' tooling: ruff and mypy settings in ``pyproject.toml``, the pre-commit hooks
and the checks of ``.ci/run``.

Ruff lints and formats the whole tree and mypy checks the files ``[tool.mypy]`` lists; CI runs
all three (``.ci/run``) and fails on any finding. These tests keep that scope whole: ruff's
settings leave out no source file, each source folder still gets reported, the pre-commit hooks
take every Python file, and ``.ci/run`` runs the checks before the book build. They also hold
the notebooks' lines, which ruff's E501 skips (pyproject.toml says why), to the line length.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: no TOML reader in the standard library
    tomllib = None  # type: ignore[assignment]

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = REPO / "pyproject.toml"
PRE_COMMIT = REPO / ".pre-commit-config.yaml"
CI_SCRIPT = REPO / ".ci" / "run"
#: The line length chosen for the code base (its 99th percentile of line lengths was 117).
LINE_LENGTH = 120
#: The folders of Python sources; each must stay within ruff's reach.
SOURCE_FOLDERS = ["fastmix", "tests", "tools", "notebooks", "benchmarks", "book"]
#: Folders that are not the project's sources.
NOT_SOURCES = {".git", ".venv", "_build", "results", "data", "dist", "node_modules"}


def pyproject() -> dict[str, Any]:
    if tomllib is None:
        pytest.skip("reading pyproject.toml needs Python 3.11 (tomllib)")
    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))


def python_files(root: Path = REPO) -> list[str]:
    """Every ``*.py`` of the checkout outside NOT_SOURCES, as posix paths relative to ``root``."""
    files = []
    for path in root.rglob("*.py"):
        parts = path.relative_to(root).parts
        if not NOT_SOURCES & set(parts) and not any(part.endswith(".egg-info") for part in parts):
            files.append(path.relative_to(root).as_posix())
    return sorted(files)


def ruff_command() -> list[str]:
    if importlib.util.find_spec("ruff") is not None:
        return [sys.executable, "-m", "ruff"]
    exe = shutil.which("ruff")
    if exe is None:
        pytest.skip("ruff is not installed (it is in the [test] and [lint] extras)")
    return [exe]


def ruff(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*ruff_command(), *args], cwd=REPO, input=stdin, capture_output=True, text=True, timeout=300)


# --------------------------------------------------------------------------- pyproject.toml


def test_ruff_and_mypy_are_configured_in_pyproject():
    tool = pyproject()["tool"]
    assert tool["ruff"]["line-length"] == LINE_LENGTH
    lowest = re.search(r">=\s*3\.(\d+)", pyproject()["project"]["requires-python"])
    assert lowest and tool["ruff"]["target-version"] == f"py3{lowest.group(1)}"
    assert {"E", "F", "W", "I", "B", "UP", "NPY"} <= set(tool["ruff"]["lint"]["select"])
    mypy = tool["mypy"]
    assert "fastmix" in mypy["files"] and all((REPO / entry).is_dir() for entry in mypy["files"])
    assert mypy["ignore_missing_imports"] is True
    assert not mypy.get("strict") and not mypy.get("disallow_untyped_defs")  # lenient on purpose


def test_the_lint_extra_and_the_test_extra_pin_the_same_ruff():
    extras = pyproject()["project"]["optional-dependencies"]

    def ruff_pin(requirements: list[str]) -> list[str]:
        return [r for r in requirements if re.match(r"ruff\b", r)]

    assert ruff_pin(extras["lint"]) == ruff_pin(extras["test"]) and len(ruff_pin(extras["lint"])) == 1
    assert any(r.startswith("pre-commit") for r in extras["lint"])
    # CI fails on any finding, so ruff and mypy stay within one minor version (rules change between)
    for tool in ("ruff", "mypy"):
        (pin,) = [r for r in extras["lint"] if re.match(rf"{tool}\b", r)]
        assert re.fullmatch(rf"{tool}>=\d+\.\d+(\.\d+)?,<\d+\.\d+", pin), pin


def unexplained_ignores(text: str) -> list[str]:
    """Ruff rules ignored in ``text`` (a pyproject.toml) without a comment just above them.

    Covers the ``ignore`` list of ``[tool.ruff.lint]`` and the entries of its
    ``per-file-ignores``: each block of ignored rules must follow a ``#`` line saying why."""
    problems: list[str] = []
    section, in_ignore_list, explained = "", False, False
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or (stripped.startswith("[") and not in_ignore_list):
            section = stripped if stripped else section
            explained = False
        elif section == "[tool.ruff.lint]" and stripped.startswith("ignore = ["):
            in_ignore_list = True
        elif in_ignore_list and stripped.startswith("]"):
            in_ignore_list = False
        elif stripped.startswith("#"):
            explained = True
        elif (in_ignore_list or section == "[tool.ruff.lint.per-file-ignores]") and re.search(r'"[A-Z]+\d*"', stripped):
            if not explained:
                problems.append(stripped)
        else:
            explained = False
    return problems


def test_every_ignored_rule_says_why():
    text = PYPROJECT.read_text(encoding="utf-8")
    assert not unexplained_ignores(text)
    assert pyproject()["tool"]["ruff"]["lint"]["ignore"], "the check below needs an ignore list to mutate"
    bare = text.replace("ignore = [\n  # Greek", 'ignore = [\n  "E741",\n  # Greek', 1)
    assert unexplained_ignores(bare) == ['"E741",']
    bare = text.replace(
        "[tool.ruff.lint.per-file-ignores]\n", '[tool.ruff.lint.per-file-ignores]\n"tools/*.py" = ["B"]\n'
    )
    assert unexplained_ignores(bare) == ['"tools/*.py" = ["B"]']


# --------------------------------------------------------------------------- ruff on the whole tree


def test_ruff_uses_the_configured_line_length():
    code = "x = 1\n"
    for length, flagged in [(LINE_LENGTH, False), (LINE_LENGTH + 1, True)]:
        line = "y = " + "1" * (length - len("y = ")) + "\n"
        proc = ruff("check", "--select", "E501", "--stdin-filename", "tools/example.py", "-", stdin=code + line)
        assert (proc.returncode != 0) == flagged and ("E501" in proc.stdout) == flagged, proc.stdout + proc.stderr


@pytest.mark.parametrize("folder", SOURCE_FOLDERS)
def test_ruff_reports_a_violation_in_every_source_folder(folder):
    """No folder is exempt: an unused import and a bare zip() are caught, and unformatted code."""
    source = "import os\n\n\ndef pairs(a, b):\n    return list(zip(a, b))\n"
    proc = ruff("check", "--no-cache", "--stdin-filename", f"{folder}/example.py", "-", stdin=source)
    assert proc.returncode == 1 and "F401" in proc.stdout and "B905" in proc.stdout, proc.stdout + proc.stderr
    proc = ruff("format", "--check", "--stdin-filename", f"{folder}/example.py", "-", stdin="x = {  'a':1 }\n")
    assert proc.returncode == 1, proc.stdout + proc.stderr


def unlinted(shown: str, files: list[str]) -> list[str]:
    """Python ``files`` missing from the output of ``ruff check --show-files`` (absolute paths)."""
    checked = {Path(line.strip()).resolve() for line in shown.splitlines() if line.strip()}
    return [path for path in files if (REPO / path).resolve() not in checked]


def test_ruff_check_takes_every_python_file_of_the_tree():
    files = python_files()
    assert "fastmix/__init__.py" in files and "notebooks/hello_fastmix.py" in files
    proc = ruff("check", "--no-cache", "--show-files", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not unlinted(proc.stdout, files)
    # and the comparison notices a folder that the settings leave out
    proc = ruff("check", "--no-cache", "--show-files", "--extend-exclude", "notebooks", ".")
    assert unlinted(proc.stdout, files) == [path for path in files if path.startswith("notebooks/")]


def unformatted_scope(patterns: list[str], files: list[str]) -> list[str]:
    """The ``files`` that the formatter's ``exclude`` ``patterns`` leave out."""
    return [path for path in files if any(Path(path).match(pattern) for pattern in patterns)]


def test_ruff_format_excludes_no_python_file():
    files = python_files()
    assert not unformatted_scope(pyproject()["tool"]["ruff"]["format"].get("exclude", []), files)
    assert unformatted_scope(["*.md", "notebooks/*"], files) == [p for p in files if p.startswith("notebooks/")]


def overlong_lines(path: Path) -> list[str]:
    """Lines of a jupytext notebook longer than LINE_LENGTH, apart from ``# %%`` cell markers
    (which must keep a cell's metadata on one line)."""
    return [
        f"{path.name}:{number}"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if len(line) > LINE_LENGTH and not line.startswith("# %%")
    ]


def test_notebook_lines_fit_the_line_length(tmp_path):
    notebooks = sorted((REPO / "notebooks").glob("*.py"))
    assert len(notebooks) >= 5
    assert not [line for path in notebooks for line in overlong_lines(path)]
    # the check notices a long line that is not a cell marker, and only that one
    copy = tmp_path / notebooks[0].name
    long_marker = '# %% tags=["remove-input"] ' + "x" * LINE_LENGTH
    long_text = "# " + "word " * (LINE_LENGTH // 5 + 1)
    copy.write_text(notebooks[0].read_text(encoding="utf-8") + f"\n{long_marker}\n{long_text}\n", encoding="utf-8")
    assert overlong_lines(copy) == [f"{copy.name}:{len(copy.read_text(encoding='utf-8').splitlines())}"]


# --------------------------------------------------------------------------- pre-commit


def pre_commit_hooks(text: str) -> dict[str, dict[str, Any]]:
    config = yaml.safe_load(text)
    return {hook["id"]: hook for repo in config["repos"] for hook in repo["hooks"]}


def skipped_files(hook: dict[str, Any], files: list[str]) -> list[str]:
    """Python files that the hook's ``files`` and ``exclude`` patterns keep it from."""
    take, leave = re.compile(hook.get("files", "")), re.compile(hook.get("exclude", "^$"))
    return [f"{hook['id']} skips {path}" for path in files if not take.search(path) or leave.search(path)]


def test_pre_commit_config_has_the_project_hooks():
    hooks = pre_commit_hooks(PRE_COMMIT.read_text(encoding="utf-8"))
    assert {"ruff-check", "ruff-format", "mypy", "workflow-schema", "citation", "paper-map"} <= set(hooks)
    for hook in hooks.values():
        # local hooks run the tools of the README's .venv, at the versions pyproject.toml pins
        program, *args = hook["entry"].split()
        assert program.startswith(".venv/bin/"), hook
        scripts = [arg for arg in args if arg.endswith(".py")]
        assert all((REPO / script).is_file() for script in scripts), hook
    assert "--check" in hooks["citation"]["entry"] and "--check" in hooks["paper-map"]["entry"]


def test_pre_commit_runs_ruff_on_the_whole_tree():
    hooks = pre_commit_hooks(PRE_COMMIT.read_text(encoding="utf-8"))
    files = python_files()
    assert "tests/test_tooling.py" in files and "fastmix/__init__.py" in files
    for name in ("ruff-check", "ruff-format"):
        assert {"python", "pyi"} <= set(hooks[name]["types_or"]) and "--force-exclude" in hooks[name]["entry"]
        assert not skipped_files(hooks[name], files)
    # and the comparison notices a hook narrowed to some folders, or one leaving a folder out
    narrowed = {**hooks["ruff-check"], "files": "^(fastmix|tests)/"}
    assert skipped_files(narrowed, files) == [
        f"ruff-check skips {path}" for path in files if not path.startswith(("fastmix/", "tests/"))
    ]
    leaving = {**hooks["ruff-format"], "exclude": "^notebooks/"}
    assert skipped_files(leaving, files) == [f"ruff-format skips {p}" for p in files if p.startswith("notebooks/")]


def test_pre_commit_runs_mypy_on_its_files():
    hook = pre_commit_hooks(PRE_COMMIT.read_text(encoding="utf-8"))["mypy"]
    assert hook.get("pass_filenames") is False  # mypy reads its file list from pyproject.toml
    folders = tuple(entry.rstrip("/") + "/" for entry in pyproject()["tool"]["mypy"]["files"])
    checked = [path for path in python_files() if path.startswith(folders)]
    assert len(checked) >= len(folders) and not skipped_files(hook, [*checked, "pyproject.toml"])
    assert skipped_files({**hook, "files": "^fastmix/"}, checked)  # a narrower pattern is noticed


# --------------------------------------------------------------------------- CI


CHECKS = [".venv/bin/ruff check .", ".venv/bin/ruff format --check .", ".venv/bin/mypy"]


def ci_check_problems(text: str) -> list[str]:
    """What keeps ``.ci/run`` (its ``text``) from running the three checks on the whole tree, with
    the [lint] extra installed, before the book build."""
    lines = [line.strip() for line in text.splitlines() if not line.lstrip().startswith("#")]
    book = next((i for i, line in enumerate(lines) if "jupyter-book build" in line), len(lines))
    installs = [i for i, line in enumerate(lines) if re.search(r"pip install -e \S*\[[\w,]*\blint\b", line)]
    problems = [] if installs and installs[0] < book else ["the [lint] extra is not installed before the book build"]
    for check in CHECKS:
        at = [i for i, line in enumerate(lines) if line == check or line.startswith(check + " ")]
        if not at or at[0] > book or (installs and at[0] < installs[0]):
            problems.append(f"{check!r} does not run after the install and before the book build")
        elif "|| " not in lines[at[0]] and "set -e" not in text:
            problems.append(f"{check!r} cannot fail the script")
    failing = [line for line in lines if line.startswith(tuple(CHECKS)) and "|| " in line]
    if failing and not re.search(r"exit 1", text):
        problems.append("a failed check does not fail the script")
    return problems


def test_ci_runs_ruff_and_mypy_before_the_book_build():
    text = CI_SCRIPT.read_text(encoding="utf-8")
    assert "set -euo pipefail" in text and not ci_check_problems(text)
    # and the comparison notices a missing check, a check after the book, a missing install, a swallowed failure
    assert ci_check_problems(text.replace(".venv/bin/mypy", "true")) == [
        "'.venv/bin/mypy' does not run after the install and before the book build"
    ]
    book_line = next(line for line in text.splitlines() if "jupyter-book build" in line)
    late = text.replace(".venv/bin/ruff check .", "true").replace(book_line, book_line + "\n.venv/bin/ruff check .")
    assert ci_check_problems(late) == [
        "'.venv/bin/ruff check .' does not run after the install and before the book build"
    ]
    assert ci_check_problems(text.replace(",lint]", "]")) == ["the [lint] extra is not installed before the book build"]
    assert ci_check_problems(text.replace("exit 1", "true")) == ["a failed check does not fail the script"]
