"""The "Re-run this figure" box's commands run as printed, after nothing but the README's set-up.

The README's set-up command creates ``.venv/`` in the checkout and never activates it, so the
box's commands must call ``.venv/bin/...`` from the repository root. These tests take the box's
text exactly as :mod:`fastmix_book` generates it for the small ``hello_fastmix`` notebook and
run it with ``bash`` in a clean environment: no activated virtual environment, a ``PATH`` of
system folders only, and a stand-in repository root in ``tmp_path`` that holds a ``.venv`` (the
environment running the tests) and the repository's ``notebooks/``.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, skip_or_fail

sys.path.insert(0, str(ROOT / "book" / "_ext"))
try:  # the extension needs Sphinx (book extra)
    import fastmix_book
except ImportError as exc:  # pragma: no cover - depends on the environment
    fastmix_book = None  # type: ignore[assignment]  # the tests that need it skip
    _REASON = f"the book extension cannot be imported ({exc}); install the book extra"

pytestmark = pytest.mark.notebook

NOTEBOOK = "hello_fastmix"


def _box_block(css_class: str, notebook: str = NOTEBOOK) -> str:
    if fastmix_book is None:
        skip_or_fail(_REASON)
    from docutils import nodes  # installed with Sphinx, which the extension needs

    from fastmix_companion import run

    box = fastmix_book.rerun_box(run.resolve_notebook(notebook))
    blocks = [n.astext() for n in box.findall(nodes.literal_block) if css_class in n["classes"]]
    assert len(blocks) == 1, f"the box should hold one {css_class} block, found {len(blocks)}"
    return blocks[0]


@pytest.fixture
def fresh_root(tmp_path: Path) -> Path:
    """A repository root as the README leaves it: ``.venv/`` not activated, ``notebooks/`` beside it."""
    root = tmp_path / "checkout"
    root.mkdir()
    if sys.prefix != sys.base_prefix:  # the tests run in a virtual environment: use it as .venv
        (root / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    else:
        (root / ".venv" / "bin").mkdir(parents=True)
        (root / ".venv" / "bin" / "python").symlink_to(sys.executable)
        for tool in ("jupytext", "papermill"):
            found = Path(sys.executable).with_name(tool)
            if found.is_file():
                (root / ".venv" / "bin" / tool).symlink_to(found)
    (root / "notebooks").symlink_to(ROOT / "notebooks", target_is_directory=True)
    return root


def _clean_env(home: Path) -> dict[str, str]:
    """No activated environment: system PATH only, no VIRTUAL_ENV, PYTHONPATH or CONDA_PREFIX."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
    for keep in ("TMPDIR", "FASTMIX_HADAMARD_BACKEND"):
        if keep in os.environ:
            env[keep] = os.environ[keep]
    return env


def _bash(command: str, cwd: Path, home: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=_clean_env(home), capture_output=True, text=True)


def test_the_launcher_command_runs_as_printed(fresh_root, tmp_path):
    text = _box_block("fastmix-rerun-command")
    assert text.startswith(".venv/bin/python -m fastmix_companion.run hello_fastmix"), text
    out = tmp_path / "out"
    # the box's text as printed, then a tiny parameter set and an output folder, in the same style
    command = text + f" \\\n    -p n 64 \\\n    --output-dir {shlex.quote(str(out))}"
    done = _bash(command, fresh_root, tmp_path)
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    written = sorted((out / NOTEBOOK).glob("*.parameters.json"))
    assert len(written) == 1, (sorted(p.name for p in (out / NOTEBOOK).iterdir()), done.stdout)
    effective = json.loads(written[0].read_text(encoding="utf-8"))["effective"]
    assert effective["n"] == 64 and effective["seed"] == 1, effective
    assert sorted((out / NOTEBOOK).glob("*.ipynb")), "no executed notebook was written"


def test_the_papermill_command_runs_as_printed(fresh_root, tmp_path):
    text = _box_block("fastmix-rerun-papermill")
    for tool in ("jupytext", "papermill"):
        if not (fresh_root / ".venv" / "bin" / tool).exists():
            skip_or_fail(f"{tool} is not installed in this environment")
    done = _bash(text, fresh_root, tmp_path)
    assert done.returncode == 0, f"{text}\n{done.stdout}\n{done.stderr}"
    executed = fresh_root / "results" / f"{NOTEBOOK}.ipynb"
    assert executed.is_file(), done.stderr
    cells = json.loads(executed.read_text(encoding="utf-8"))["cells"]
    injected = [c for c in cells if "injected-parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(injected) == 1
    source = "".join(injected[0]["source"])
    from fastmix_companion import run

    for param in run.inspect_parameters(NOTEBOOK).values():  # every parameter, at its default
        assert f"{param.name} = {param.default_value!r}" in source, (param.name, source)


def test_the_commands_without_the_venv_prefix_fail_in_the_same_shell(fresh_root, tmp_path):
    """Control: the box's papermill command with bare program names (an activated environment assumed)
    fails in the clean shell, so the runs above really depend on the ``.venv/bin/`` prefix."""
    import shutil

    bare = _box_block("fastmix-rerun-papermill").replace(".venv/bin/", "")
    path = _clean_env(tmp_path)["PATH"]
    if shutil.which("jupytext", path=path) or shutil.which("papermill", path=path):
        pytest.skip("jupytext or papermill is installed system-wide, so the bare command would run")
    done = _bash(bare, fresh_root, tmp_path)
    assert done.returncode != 0 and "command not found" in done.stderr, done.stderr


def test_a_page_without_a_seed_gets_a_command_with_its_defaults():
    text = _box_block("fastmix-rerun-command", "what_holds")
    assert text.strip() == ".venv/bin/python -m fastmix_companion.run what_holds", text
    assert "-p seed 1" in _box_block("fastmix-rerun-command")  # hello_fastmix has a seed: the example changes it
