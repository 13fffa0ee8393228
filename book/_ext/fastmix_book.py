"""Sphinx extension for the fastmix book: offline maths, re-run boxes and launch links.

Loaded by ``_config.yml`` (``sphinx: local_extensions``). It does three things:

1. **MathJax without a network.** The book serves its own copy of MathJax 3 (from the
   ``django-static-mathjax`` package, import name ``mathjax``; it needs no Django) instead
   of a CDN, so every equation renders from a laptop with no connection, from the zipped
   release archive opened through ``file://``, and from GitHub Pages alike. The combined
   component named by ``mathjax_path`` is copied into ``_static/mathjax/`` together with the
   folders MathJax loads lazily from its menu (accessibility, speech, UI). The SVG output is
   used because it needs no web fonts, which browsers refuse to load from ``file://`` pages.
2. **A "Re-run this figure" box** at the top of every notebook page, with the exact
   ``jupytext | papermill`` command (every parameter explicit, at its default) and the
   ``python -m fastmix.run`` equivalents, including the paper-scale setting when the
   notebook has one (see :func:`fastmix.run.papermill_command`).
3. **Launch links that open a notebook.** Binder and Colab open ``.ipynb`` files, while the
   notebooks here are jupytext ``.py`` files. The deploy workflow publishes converted
   notebooks (with an install cell) on the branch ``fastmix_launch_branch``; this
   extension points the theme's Binder and Colab buttons there.
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
    component = mathjax_source_dir() / path[len("mathjax/"):]
    if not component.is_file():
        raise ExtensionError(f"mathjax_path {path!r} names no file of the installed MathJax ({component} is missing).")


def _copy_mathjax(app: Sphinx, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    source = mathjax_source_dir()
    target = Path(app.outdir) / "_static" / "mathjax"
    target.mkdir(parents=True, exist_ok=True)
    component = app.config.mathjax_path[len("mathjax/"):]
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


def rerun_box(path: Path) -> nodes.Element:
    """The admonition node shown at the top of a notebook page."""
    from fastmix import run

    name = path.stem
    box = nodes.admonition(classes=["fastmix-rerun", "dropdown", "tip"])
    box += nodes.title(text="Re-run this figure")
    intro = nodes.paragraph()
    intro += nodes.Text("From the repository root, with the book dependencies installed (")
    intro += nodes.literal(text='python -m pip install -e ".[book]"')
    intro += nodes.Text(
        "), this re-executes the notebook through papermill. Every parameter is written out at its "
        "default value: edit any of them. The executed notebook, with its figures, goes to "
    )
    intro += nodes.literal(text=f"results/{name}.ipynb")
    intro += nodes.Text(".")
    box += intro
    command = run.papermill_command(path)
    box += nodes.literal_block(command, command, language="bash", classes=["fastmix-rerun-command"])
    short = nodes.paragraph()
    short += nodes.Text("The same run through the companion's launcher, which also saves the parameters, "
                        "the provenance record and every figure as a file (under ")
    short += nodes.literal(text=f"results/{name}/")
    short += nodes.Text("); name only the parameters you change:")
    box += short
    lines = [run.fastmix_run_command(path, {"seed": 1})]
    try:
        entry = run.load_paper_scale(path.parent).get(name)
    except FileNotFoundError:
        entry = None
    if entry is not None:
        lines.append(run.fastmix_run_command(path, paper_scale=True))
    text = "\n".join(lines)
    box += nodes.literal_block(text, text, language="bash")
    if entry is not None and entry.get("note"):
        changes = ", ".join(f"{k}={v}" for k, v in entry.get("parameters", {}).items()) or "the defaults"
        box += nodes.paragraph(text=f"The second line runs the paper's setting ({changes}): {entry['note']}")
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


def setup(app: Sphinx) -> dict:
    app.add_config_value("fastmix_launch_branch", "launch", "html")
    app.add_config_value("fastmix_rerun_box", True, "env")
    # Sphinx loads MathJax only on pages where it saw a math node, and it misses the maths that
    # autodoc pulls in from docstrings (the API page showed raw \\( ... \\)); load it everywhere.
    app.set_html_assets_policy("always")
    app.connect("config-inited", _check_mathjax_path)
    app.connect("build-finished", _copy_mathjax)
    app.connect("doctree-read", _insert_rerun_box)
    # after sphinx-book-theme adds its launch buttons (priority 501)
    app.connect("html-page-context", _rewrite_launch_buttons, priority=900)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}


__all__ = ["mathjax_source_dir", "rerun_box", "launch_url", "setup"]
