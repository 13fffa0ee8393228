"""The contributors' tooling: ruff and mypy settings in ``pyproject.toml`` and the pre-commit hooks.

The code base is being brought in line with ruff gradually. ``LINT_CLEAN`` lists what already
passes ``ruff check`` and ``FORMAT_CLEAN`` what is already ``ruff format``-ted; the tests keep
them so (when ruff is installed: it is in the [test] and [lint] extras) and keep the pre-commit
hooks' ``files`` patterns equal to them. Widen the lists, and the patterns, as more is cleaned.
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
#: The line length chosen for the code base (its 99th percentile of line lengths was 117).
LINE_LENGTH = 120
#: Paths (folders or files) that pass `ruff check` and, second list, `ruff format --check`.
LINT_CLEAN = ["benchmarks", "tools", "tests/test_workflows.py", "tests/test_tooling.py"]
FORMAT_CLEAN = [
    "benchmarks",
    "tools/check_links.py",
    "tools/launch_notebooks.py",
    "tools/paper_scale_all.py",
    "tests/test_workflows.py",
    "tests/test_tooling.py",
]
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


def under(path: str, entries: list[str]) -> bool:
    return any(path == entry or path.startswith(entry.rstrip("/") + "/") for entry in entries)


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
    assert mypy["files"] == ["fastmix"] and mypy["ignore_missing_imports"] is True
    assert not mypy.get("strict") and not mypy.get("disallow_untyped_defs")  # lenient on purpose


def test_the_lint_extra_and_the_test_extra_pin_the_same_ruff():
    extras = pyproject()["project"]["optional-dependencies"]

    def ruff_pin(requirements: list[str]) -> list[str]:
        return [r for r in requirements if re.match(r"ruff\b", r)]

    assert ruff_pin(extras["lint"]) == ruff_pin(extras["test"]) and len(ruff_pin(extras["lint"])) == 1
    assert any(r.startswith("mypy") for r in extras["lint"]) and any(r.startswith("pre-commit") for r in extras["lint"])


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


# --------------------------------------------------------------------------- ruff on the clean files


def test_ruff_uses_the_configured_line_length():
    code = "x = 1\n"
    for length, flagged in [(LINE_LENGTH, False), (LINE_LENGTH + 1, True)]:
        line = "y = " + "1" * (length - len("y = ")) + "\n"
        proc = ruff("check", "--select", "E501", "--stdin-filename", "tools/example.py", "-", stdin=code + line)
        assert (proc.returncode != 0) == flagged and ("E501" in proc.stdout) == flagged, proc.stdout + proc.stderr


def test_ruff_reports_a_violation_in_a_clean_folder():
    """The clean-file check below can fail: an unused import and a bare zip() are caught."""
    source = "import os\n\n\ndef pairs(a, b):\n    return list(zip(a, b))\n"
    proc = ruff("check", "--stdin-filename", "benchmarks/example.py", "-", stdin=source)
    assert proc.returncode == 1 and "F401" in proc.stdout and "B905" in proc.stdout, proc.stdout + proc.stderr
    proc = ruff("format", "--check", "--stdin-filename", "benchmarks/example.py", "-", stdin="x = {  'a':1 }\n")
    assert proc.returncode == 1, proc.stdout + proc.stderr


def test_ruff_check_passes_on_the_files_already_clean():
    proc = ruff("check", "--no-cache", *LINT_CLEAN)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format_leaves_the_formatted_files_unchanged():
    proc = ruff("format", "--check", "--no-cache", *FORMAT_CLEAN)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# --------------------------------------------------------------------------- pre-commit


def pre_commit_hooks(text: str) -> dict[str, dict[str, Any]]:
    config = yaml.safe_load(text)
    return {hook["id"]: hook for repo in config["repos"] for hook in repo["hooks"]}


def scope_problems(hook: dict[str, Any], clean: list[str], files: list[str]) -> list[str]:
    """Python files the hook's ``files`` pattern takes but ``clean`` does not, and the reverse."""
    pattern = re.compile(hook.get("files", ""))
    problems = []
    for path in files:
        if bool(pattern.search(path)) != under(path, clean):
            which = "checks" if pattern.search(path) else "skips"
            problems.append(f"{hook['id']} {which} {path}")
    return problems


def test_pre_commit_config_has_the_project_hooks():
    hooks = pre_commit_hooks(PRE_COMMIT.read_text(encoding="utf-8"))
    assert {"ruff-check", "ruff-format", "workflow-schema", "citation", "paper-map"} <= set(hooks)
    for hook in hooks.values():
        # local hooks run the tools of the README's .venv, at the versions pyproject.toml pins
        program, *args = hook["entry"].split()
        assert program.startswith(".venv/bin/"), hook
        scripts = [arg for arg in args if arg.endswith(".py")]
        assert all((REPO / script).is_file() for script in scripts), hook
    assert "--check" in hooks["citation"]["entry"] and "--check" in hooks["paper-map"]["entry"]


def test_pre_commit_runs_ruff_on_exactly_the_clean_files():
    hooks = pre_commit_hooks(PRE_COMMIT.read_text(encoding="utf-8"))
    files = python_files()
    assert "tests/test_tooling.py" in files and "fastmix/__init__.py" in files
    assert not scope_problems(hooks["ruff-check"], LINT_CLEAN, files)
    assert not scope_problems(hooks["ruff-format"], FORMAT_CLEAN, files)
    # and the comparison notices a pattern that has drifted
    drifted = {**hooks["ruff-check"], "files": hooks["ruff-check"]["files"].replace("benchmarks/|", "")}
    assert scope_problems(drifted, LINT_CLEAN, files) == [
        f"ruff-check skips {path}" for path in files if path.startswith("benchmarks/")
    ]
    assert scope_problems({"id": "ruff-format", "files": "^"}, FORMAT_CLEAN, files)
