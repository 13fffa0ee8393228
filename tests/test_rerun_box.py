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
    from fastmix_companion import run

    seed = run.inspect_parameters(NOTEBOOK)["seed"].default_value
    assert effective["n"] == 64 and effective["seed"] == seed, effective  # the page's seed: no override
    assert sorted((out / NOTEBOOK).glob("*.ipynb")), "no executed notebook was written"
    # the figure is a file named after the figure it holds, and the kernel's transport warning is gone
    figures = sorted(p.name for p in (out / NOTEBOOK).glob("*.figures/*"))
    assert figures and not any(name.startswith("cell") for name in figures), figures
    assert "without encryption" not in done.stderr and "IPKernelApp" not in done.stderr, done.stderr


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


def test_the_box_commands_reproduce_the_page_without_overrides():
    """The quick command re-runs what the page shows: no ``-p`` (a ``-p seed 1`` would not be the page)."""
    for notebook in ("what_holds", NOTEBOOK, "figure2_dp_ols"):
        text = _box_block("fastmix-rerun-command", notebook)
        assert text.strip() == f".venv/bin/python -m fastmix_companion.run {notebook}", text
    paper = _box_block("fastmix-rerun-paper", "figure2_dp_ols")
    assert paper.strip() == ".venv/bin/python -m fastmix_companion.run --paper-scale figure2_dp_ols", paper


def _box(notebook: str):
    if fastmix_book is None:
        skip_or_fail(_REASON)
    from fastmix_companion import run

    return fastmix_book.rerun_box(run.resolve_notebook(notebook))


def _block_order(box) -> list[str]:
    from docutils import nodes

    order = []
    for block in box.findall(nodes.literal_block):
        order += [c for c in block["classes"] if c.startswith("fastmix-rerun-")]
    return order


def test_the_paper_scale_command_comes_first_with_its_time():
    """Every page with a paper-scale setting: the paper-scale command first, with the time its note states."""
    if fastmix_book is None:
        skip_or_fail(_REASON)
    from docutils import nodes

    from fastmix_companion import run

    sys.path.insert(0, str(ROOT / "tools"))
    import paper_map

    registry = run.load_paper_scale()
    assert registry, "no paper-scale settings"
    for notebook, entry in registry.items():
        if notebook.startswith("_"):
            continue
        box = _box(notebook)
        assert _block_order(box) == ["fastmix-rerun-paper", "fastmix-rerun-command", "fastmix-rerun-papermill"]
        paragraphs = [p.astext() for p in box.findall(nodes.paragraph)]
        lead = next(p for p in paragraphs if p.startswith("At the paper's scale"))
        time = paper_map.runtime(entry.get("note", ""))
        if time:
            assert lead.startswith(f"At the paper's scale ({time})"), (notebook, lead)
        # the paper-scale paragraph comes before the smoke-scale one
        smoke = next(i for i, p in enumerate(paragraphs) if p.startswith("Smoke-scale check"))
        assert paragraphs.index(lead) < smoke, notebook


def test_the_smoke_scale_check_names_the_sizes_it_uses():
    """The quick command is labelled a smoke-scale check and names the defaults that differ from the paper's."""
    if fastmix_book is None:
        skip_or_fail(_REASON)
    from docutils import nodes

    from fastmix_companion import run

    registry = run.load_paper_scale()
    for notebook in ("figure2_dp_ols", "section3_fastmix"):
        box = _box(notebook)
        smoke = next(p for p in box.findall(nodes.paragraph) if p.astext().startswith("Smoke-scale check"))
        named = {lit.astext() for lit in smoke.findall(nodes.literal)}
        spec = run.inspect_parameters(notebook)
        paper = registry[notebook]["parameters"]
        expected = {f"{n} = {p.default}" for n, p in spec.items() if n in paper and paper[n] != p.default_value}
        assert expected and named == expected, (notebook, named, expected)
    # a page without a paper-scale setting names every default of its run
    box = _box(NOTEBOOK)
    page = next(p for p in box.findall(nodes.paragraph) if p.astext().startswith("The page's run"))
    named = {lit.astext() for lit in page.findall(nodes.literal)}
    assert named == {f"{n} = {p.default}" for n, p in run.inspect_parameters(NOTEBOOK).items()}, named
    assert not any(p.astext().startswith("At the paper's scale") for p in box.findall(nodes.paragraph))


def test_the_order_check_catches_a_box_with_the_quick_command_first():
    """Negative control: moving the smoke-scale command above the paper-scale one is caught."""
    box = _box("figure2_dp_ols")
    from docutils import nodes

    blocks = list(box.findall(nodes.literal_block))
    paper, quick = blocks[0], blocks[1]
    parent = paper.parent
    parent.remove(quick)
    parent.insert(parent.index(paper), quick)
    assert _block_order(box) != ["fastmix-rerun-paper", "fastmix-rerun-command", "fastmix-rerun-papermill"]
