"""Sphinx extension for the fastmix book: offline maths, re-run boxes and launch links.

Loaded by ``_config.yml`` (``sphinx: local_extensions``). It does four things:

1. **MathJax without a network.** The book serves its own copy of MathJax 3 (from the
   ``django-static-mathjax`` package, import name ``mathjax``; it needs no Django) instead
   of a CDN, so every equation renders from a laptop with no connection, from the zipped
   release archive opened through ``file://``, and from GitHub Pages alike. The combined
   component named by ``mathjax_path`` is copied into ``_static/mathjax/`` together with the
   folders MathJax loads lazily from its menu (accessibility, speech, UI). The SVG output is
   used because it needs no web fonts, which browsers refuse to load from ``file://`` pages.
2. **A "Re-run this figure" box** at the top of every notebook page: the
   ``.venv/bin/python -m fastmix_companion.run`` command (and the paper-scale one when the notebook has
   a setting in ``notebooks/paper_scale.json``), then the plain ``jupytext | papermill``
   command with every parameter written out. All of them call the executables of the
   ``.venv/`` that the README's set-up command creates, so they run as printed from the
   repository root without an activated environment, one option per line.
3. **Launch links that open a notebook.** Binder and Colab open ``.ipynb`` files, while the
   notebooks here are jupytext ``.py`` files. The deploy workflow publishes converted
   notebooks (with an install cell) on the branch ``fastmix_launch_branch``; this
   extension points the theme's Binder and Colab buttons there.
4. **Figure labels as in the papers.** Sphinx's book-wide figure numbers are dropped
   (``fastmix_number_figures = False``); each caption carries its label written out.
5. **A results store that proves what it holds.** Before any page executes, every entry of the
   results store is checked against its manifest (``fastmix_companion.store.verify_entries``); an
   edited, truncated or forged entry stops the build with the store's message, whatever the
   build's warning settings (a page that raised would fail only under ``-W``).
"""

from __future__ import annotations

import re
import shutil
from importlib.util import find_spec
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: Folders of MathJax's ``es5`` tree that a combined component may load on demand.
MATHJAX_LAZY_FOLDERS = ("a11y", "sre", "ui")
_NOTEBOOK_FOLDER = "notebooks"


# --------------------------------------------------------------------------- MathJax


def mathjax_source_dir() -> Path:
    """The ``es5`` folder of the installed MathJax 3 package.

    Raises
    ------
    ExtensionError
        If the package is missing, with the command that installs it.
    """
    spec = find_spec("mathjax")
    origin = spec.origin if spec is not None else None
    if origin:
        es5 = Path(origin).parent / "static" / "mathjax" / "es5"
        if (es5 / "startup.js").is_file():
            return es5
    raise ExtensionError(
        "The book serves MathJax from a local copy, but the package that carries it is not installed. "
        'Install the book dependencies with: python -m pip install -e ".[book]" '
        "(the package is django-static-mathjax, MathJax 3 as static files)."
    )


def _check_mathjax_path(app: Sphinx, config) -> None:
    path = config.mathjax_path
    if re.match(r"^[a-z]+://", path) or path.startswith("//"):
        raise ExtensionError(
            f"mathjax_path is {path!r}, a network address; the book must render offline. "
            "Set it to a component of the local copy, e.g. mathjax/tex-svg-full.js, in _config.yml."
        )
    if not path.startswith("mathjax/"):
        raise ExtensionError(f"mathjax_path {path!r} must start with 'mathjax/' (the copy lives in _static/mathjax/).")
    component = mathjax_source_dir() / path[len("mathjax/") :]
    if not component.is_file():
        raise ExtensionError(f"mathjax_path {path!r} names no file of the installed MathJax ({component} is missing).")


def _copy_mathjax(app: Sphinx, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    source = mathjax_source_dir()
    target = Path(app.outdir) / "_static" / "mathjax"
    target.mkdir(parents=True, exist_ok=True)
    component = app.config.mathjax_path[len("mathjax/") :]
    (target / component).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source / component, target / component)
    for folder in MATHJAX_LAZY_FOLDERS:
        if (source / folder).is_dir():
            shutil.copytree(source / folder, target / folder, dirs_exist_ok=True)
    licence = source.parent / "LICENSE"
    if licence.is_file():
        shutil.copy2(licence, target / "LICENSE")


# --------------------------------------------------------------------------- re-run box


def _notebook_path(app: Sphinx, docname: str) -> Path | None:
    if not docname.startswith(_NOTEBOOK_FOLDER + "/"):
        return None
    path = Path(app.env.doc2path(docname))
    return path if path.suffix == ".py" else None


#: Where the README's set-up command puts the virtual environment, relative to the repository root.
VENV_BIN = ".venv/bin"


def _continued(parts: list[str], indent: str = "    ") -> str:
    """``parts`` as one shell command, one part per line joined by backslash continuations."""
    return (" \\\n" + indent).join(parts)


def launcher_command(
    path: Path, parameters: dict | None = None, *, paper_scale: bool = False, output_dir: str | None = None
) -> str:
    """The ``fastmix_companion.run`` command of the re-run box, through the virtual environment's own Python.

    It runs as printed from the repository root right after the README's set-up command, which
    creates ``.venv/`` and never activates it; one option per line, so it never needs a
    sideways scroll. ``parameters`` and ``output_dir`` are written out as ``-p NAME VALUE`` and
    ``--output-dir DIR``.
    """
    import shlex

    from fastmix_companion import run

    base = run.fastmix_run_command(path, paper_scale=paper_scale)
    parts = [f"{VENV_BIN}/{base}"]
    for name, value in (parameters or {}).items():
        one = run.fastmix_run_command(path, {name: value}, paper_scale=paper_scale)
        parts.append(one[len(base) :].strip())  # "-p NAME VALUE", quoted by fastmix_companion.run
    if output_dir is not None:
        parts.append(f"--output-dir {shlex.quote(str(output_dir))}")
    return _continued(parts)


def papermill_box_command(path: Path) -> str:
    """The plain ``jupytext | papermill`` command of the box, with the virtual environment's programs.

    :func:`fastmix_companion.run.papermill_command` writes the programs' bare names (for an activated
    environment); here they are the executables in ``.venv/bin/``, so the command runs from the
    repository root without activating anything.
    """
    from fastmix_companion import run

    lines = run.papermill_command(path).splitlines()
    out = []
    for line in lines:
        line = re.sub(r"^jupytext ", f"{VENV_BIN}/jupytext ", line)
        head = re.match(r"^(\s*)\| papermill (- \S+) (--cwd .*)$", line)
        if head:  # the papermill call, its output, then its options on the next line
            indent, target, options = head.groups()
            out.append(f"{indent}| {VENV_BIN}/papermill {target} \\")
            out.append(f"{indent}    {options}")
            continue
        out.append(line)
    return "\n".join(out)


def rerun_box(path: Path) -> nodes.Element:
    """The admonition node shown at the top of a notebook page."""
    from fastmix_companion import run

    name = path.stem
    box = nodes.admonition(classes=["fastmix-rerun", "dropdown", "tip"])
    box += nodes.title(text="Re-run this figure")
    intro = nodes.paragraph()
    intro += nodes.Text("Run these commands from the repository root, after the README's set-up command (")
    intro += nodes.literal(text='python3 -m venv .venv && .venv/bin/python -m pip install -e ".[book]"')
    intro += nodes.Text("). They call the programs inside ")
    intro += nodes.literal(text=".venv/")
    intro += nodes.Text(
        " directly, so no environment needs activating. The companion's launcher re-executes the notebook "
        "and saves the executed notebook, its parameters, its provenance record and every figure as a file under "
    )
    intro += nodes.literal(text=f"results/{name}/")
    intro += nodes.Text("; name only the parameters you change (one ")
    intro += nodes.literal(text="-p NAME VALUE")
    intro += nodes.Text(" per line):")
    box += intro
    from fastmix_companion.notebook_parameters import inspect_parameters

    # the example changes the seed where the page has one; otherwise it re-runs the defaults
    command = launcher_command(path, {"seed": 1} if "seed" in inspect_parameters(path) else {})
    box += nodes.literal_block(command, command, language="bash", classes=["fastmix-rerun-command"])
    try:
        entry = run.load_paper_scale(path.parent).get(name)
    except FileNotFoundError:
        entry = None
    if entry is not None:
        para = nodes.paragraph()
        changes = "; ".join(f"{k} = {str(v).replace(',', ', ')}" for k, v in entry.get("parameters", {}).items())
        changes = changes or "the defaults"
        para += nodes.Text(f"The paper's setting ({changes}):")
        if entry.get("note"):
            para += nodes.Text(f" {entry['note']}")
        box += para
        paper = launcher_command(path, paper_scale=True)
        box += nodes.literal_block(paper, paper, language="bash", classes=["fastmix-rerun-paper"])
    plain = nodes.paragraph()
    plain += nodes.Text(
        "The same re-execution without the launcher, through jupytext and papermill, with every "
        "parameter written out at its default (edit any of them); the executed notebook goes to "
    )
    plain += nodes.literal(text=f"results/{name}.ipynb")
    plain += nodes.Text(":")
    box += plain
    text = papermill_box_command(path)
    box += nodes.literal_block(text, text, language="bash", classes=["fastmix-rerun-papermill"])
    return box


def _insert_rerun_box(app: Sphinx, doctree: nodes.document) -> None:
    path = _notebook_path(app, app.env.docname)
    if path is None or not app.config.fastmix_rerun_box:
        return
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None:
        logger.warning(f"{app.env.docname}: no title, so no re-run box", location=app.env.docname)
        return
    title_index = next((i for i, child in enumerate(section.children) if isinstance(child, nodes.title)), -1)
    section.insert(title_index + 1, rerun_box(path))


# --------------------------------------------------------------------------- figure labels


def _drop_figure_numbers(app: Sphinx, env) -> list[str]:
    """Remove Sphinx's book-wide figure numbers ("Fig. 4").

    Sphinx counts figures across the whole book, so its numbers cannot match the papers'. Every
    figure caption of the book starts with its label written out instead ("Figure 2.", "Figure
    F.1", see the reproducibility page), and ``tests/figure_labels.py`` checks those labels
    against the papers' numbering. Tables and code blocks keep their numbers.
    """
    if app.config.fastmix_number_figures:
        return []
    for numbers in env.toc_fignumbers.values():
        numbers.pop("figure", None)
    return []


# --------------------------------------------------------------------------- launch links


def launch_url(url: str, branch: str, source_branch: str) -> str:
    """Point a Binder or Colab link for ``notebooks/<name>.py`` at ``<name>.ipynb`` on ``branch``.

    >>> launch_url("https://colab.research.google.com/github/o/r/blob/main/notebooks/a.py", "launch", "main")
    'https://colab.research.google.com/github/o/r/blob/launch/notebooks/a.ipynb'
    >>> launch_url("https://mybinder.org/v2/gh/o/r/main?urlpath=tree/notebooks/a.py", "launch", "main")
    'https://mybinder.org/v2/gh/o/r/launch?urlpath=tree/notebooks/a.ipynb'
    """
    url = re.sub(r"(\.py)$", ".ipynb", url)
    url = url.replace(f"/blob/{source_branch}/", f"/blob/{branch}/")
    url = re.sub(rf"/{re.escape(source_branch)}\?urlpath=", f"/{branch}?urlpath=", url)
    return url


def _rewrite_launch_buttons(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if _notebook_path(app, pagename) is None:
        return
    branch = app.config.fastmix_launch_branch
    source_branch = app.config.html_theme_options.get("repository_branch") or "main"
    for group in context.get("header_buttons", []):
        if group.get("label") != "launch-buttons":
            continue
        for button in group.get("buttons", []):
            if button.get("type") == "link" and button.get("text") in ("Binder", "Colab"):
                button["url"] = launch_url(button["url"], branch, source_branch)


# --------------------------------------------------------------------------- setup


def verify_results_store(app: Sphinx) -> None:
    """At ``builder-inited``: stop the build if an entry of the results store does not match its manifest."""
    try:
        from fastmix_companion.store import default_results_dir, verify_entries
    except ImportError:  # the companion is not installed: no page can read the store either
        return
    problems = verify_entries(root=app.config.fastmix_results_dir or default_results_dir())
    if problems:
        raise ExtensionError("the results store fails its integrity check:\n" + "\n".join(m for _, m in problems))


def setup(app: Sphinx) -> dict:
    app.add_config_value("fastmix_launch_branch", "launch", "html")
    app.add_config_value("fastmix_rerun_box", True, "env")
    app.add_config_value("fastmix_number_figures", False, "env")
    app.add_config_value("fastmix_results_dir", None, "env")  # None: the store the pages read
    app.connect("builder-inited", verify_results_store)
    # Sphinx loads MathJax only on pages where it saw a math node, and it misses the maths that
    # autodoc pulls in from docstrings (the API page showed raw \\( ... \\)); load it everywhere.
    app.set_html_assets_policy("always")
    app.connect("config-inited", _check_mathjax_path)
    app.connect("build-finished", _copy_mathjax)
    app.connect("doctree-read", _insert_rerun_box)
    # after Sphinx's toctree collector has assigned the figure numbers (priority 500)
    app.connect("env-get-updated", _drop_figure_numbers, priority=900)
    # after sphinx-book-theme adds its launch buttons (priority 501)
    app.connect("html-page-context", _rewrite_launch_buttons, priority=900)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}


__all__ = [
    "verify_results_store",
    "mathjax_source_dir",
    "launcher_command",
    "papermill_box_command",
    "rerun_box",
    "launch_url",
    "setup",
]
