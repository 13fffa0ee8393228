"""Sphinx extension for the fastmix book: offline maths, re-run boxes and launch links.

Loaded by ``_config.yml`` (``sphinx: local_extensions``). It does these things:

1. **MathJax without a network.** The book serves its own copy of MathJax 3 (from the
   ``django-static-mathjax`` package, import name ``mathjax``; it needs no Django) instead
   of a CDN, so every equation renders from a laptop with no connection, from the zipped
   release archive opened through ``file://``, and from GitHub Pages alike. The combined
   component named by ``mathjax_path`` is copied into ``_static/mathjax/`` together with the
   folders MathJax loads lazily from its menu (accessibility, speech, UI). The SVG output is
   used because it needs no web fonts, which browsers refuse to load from ``file://`` pages.
2. **A "Re-run this figure" box** at the top of every notebook page. With a paper-scale setting
   in ``notebooks/paper_scale.json``, the paper-scale command comes first, with the run time its
   note states; then the smoke-scale check, the page's own run at its defaults (the sizes it uses
   named); then the plain ``jupytext | papermill`` command with every parameter written out. The
   launcher commands carry no override, so they reproduce the page as shown. All of them call the
   executables of the ``.venv/`` that the README's set-up command creates, so they run as printed
   from the repository root without an activated environment, one option per line.
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
6. **Tables that fit.** Claims tables (a ``claim`` column, and the verdicts or how each claim
   was checked) get the classes that ``book/_static/fastmix.css`` lays out: wrapped within the
   column on wide screens, one labelled card per claim on narrow ones.
7. **Author-year citations** in the text and the bibliography alike, "2026a"/"2026b" for two
   works of the same authors and year (the ``fastmix_author_year`` styles registered here).
8. **No noise**: page titles in plain text for tabs, links and search (no raw TeX delimiters), alt
   text for figure images from their captions, and no console errors from sphinx-thebe's
   scripts (not added while Thebe is off) or the theme's colour mode.
9. **Downloads that work offline.** Every notebook page gets a box, right after its re-run box, that
   links the executed notebook (copied from myst-nb's ``jupyter_execute/`` into ``_sources/``, where
   the theme's download button offers it as ``.ipynb`` too) and, on a result page, the files of its
   stored entry (tables, ``parameters.json``, ``provenance.json``, ``manifest.json``), copied from
   ``results/<notebook>/`` into ``results/<notebook>/`` of the HTML output.
10. **A gallery on the landing page**, one card per result page (``fastmix_gallery``, loaded here).
"""

from __future__ import annotations

import json
import posixpath
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


def _paper_runtime(note: str) -> str | None:
    """The run time a paper-scale note states (``tools/paper_map.py``'s :func:`runtime`), or None."""
    import importlib.util
    import sys

    tools = Path(__file__).resolve().parents[2] / "tools"
    spec = importlib.util.spec_from_file_location("_fastmix_paper_map", tools / "paper_map.py")
    if spec is None or spec.loader is None:  # pragma: no cover - the tools folder ships with the book
        return None
    module = sys.modules.get("_fastmix_paper_map")
    if module is None:
        sys.path.insert(0, str(tools))  # paper_map imports its sibling tools/citation.py
        module = importlib.util.module_from_spec(spec)
        sys.modules["_fastmix_paper_map"] = module  # dataclasses look their module up while it runs
        try:
            spec.loader.exec_module(module)
        except Exception:
            del sys.modules["_fastmix_paper_map"]
            raise
        finally:
            sys.path.remove(str(tools))
    return module.runtime(note)


def smoke_sizes(path: Path, entry: dict | None) -> list[tuple[str, str]]:
    """``(name, default as written)`` of the parameters the page's own (smoke-scale) run uses.

    With a paper-scale setting, the parameters whose default differs from the paper's value
    (the sizes the check scales down); without one, every parameter. Read from the notebook's
    parameters cell (:func:`fastmix_companion.notebook_parameters.inspect_parameters`).
    """
    from fastmix_companion.notebook_parameters import inspect_parameters

    paper = (entry or {}).get("parameters", {})
    rows = []
    for name, param in inspect_parameters(path).items():
        if entry is not None and (name not in paper or paper[name] == param.default_value):
            continue
        rows.append((name, param.default))
    return rows


def _sizes(para: nodes.paragraph, rows: list[tuple[str, str]]) -> None:
    """Append ``name = default`` for each row, as code, separated by semicolons."""
    if not rows:
        para += nodes.Text("no parameters")
    for i, (name, value) in enumerate(rows):
        if i:
            para += nodes.Text("; ")
        para += nodes.literal(text=f"{name} = {value}")


def rerun_box(path: Path) -> nodes.Element:
    """The admonition node shown at the top of a notebook page.

    With a paper-scale setting (``notebooks/paper_scale.json``) the paper-scale command comes
    first, with the run time its note states; then the smoke-scale check, the page's own run
    at its defaults, naming the sizes it uses; then the plain ``jupytext | papermill`` form.
    The launcher commands carry no override: they reproduce what the page shows.
    """
    from fastmix_companion import run

    name = path.stem
    box = nodes.admonition(classes=["fastmix-rerun", "dropdown", "tip"])
    box += nodes.title(text="Re-run this figure")
    intro = nodes.paragraph()
    intro += nodes.Text("Run these commands from the repository root, after the README's set-up command (")
    intro += nodes.literal(text='python3 -m venv .venv && .venv/bin/python -m pip install -e ".[book]"')
    intro += nodes.Text("). They call the programs inside ")
    intro += nodes.literal(text=".venv/")
    intro += nodes.Text(" directly, so no environment needs activating. Outputs go under ")
    intro += nodes.literal(text=f"results/{name}/")
    intro += nodes.Text("; add ")
    intro += nodes.literal(text="-p NAME VALUE")
    intro += nodes.Text(" (one per line) to change a parameter.")
    box += intro
    try:
        entry = run.load_paper_scale(path.parent).get(name)
    except FileNotFoundError:
        entry = None
    from fastmix_companion.studies import has_study

    stored = has_study(name)
    if entry is not None:
        para = nodes.paragraph(classes=["fastmix-rerun-label"])
        time_text = _paper_runtime(entry.get("note", "")) if entry.get("note") else None
        para += nodes.strong(text="At the paper's scale" + (f" ({time_text})" if time_text else ""))
        if stored:
            para += nodes.Text(
                ": computes the results store entry this page reads, cell by cell; the same command "
                "resumes a stopped run. "
            )
        else:
            para += nodes.Text(": re-executes the notebook at the paper's setting. ")
        if entry.get("note"):
            para += nodes.Text(entry["note"])
        box += para
        paper = launcher_command(path, paper_scale=True)
        box += nodes.literal_block(paper, paper, language="bash", classes=["fastmix-rerun-paper"])
    quick = nodes.paragraph(classes=["fastmix-rerun-label"])
    if entry is not None:
        quick += nodes.strong(text="Smoke-scale check")
        quick += nodes.Text(": the page's own live run, at its defaults (small sizes; not evidence): ")
    else:
        quick += nodes.strong(text="The page's run")
        quick += nodes.Text(" at its defaults: ")
    _sizes(quick, smoke_sizes(path, entry))
    quick += nodes.Text(
        ". It re-executes the notebook and saves the executed notebook, its parameters, its provenance "
        "record and every figure as a file named after the figure:"
    )
    box += quick
    command = launcher_command(path)
    box += nodes.literal_block(command, command, language="bash", classes=["fastmix-rerun-command"])
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


# --------------------------------------------------------------------------- claims tables


#: A claims table (``fastmix_companion.claims``, ``fastmix_companion.claims_summary``) has a ``claim``
#: column and at least one of these: its verdicts, or the details of how each claim was checked.
CLAIMS_COLUMN, CLAIMS_DETAILS = "claim", frozenset({"verdict", "says", "decision rule"})


def _slug(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "-", text.lower()).strip("-")


def _header_texts(table: nodes.table) -> list[str]:
    thead = next(iter(table.findall(nodes.thead)), None)
    if thead is None:
        return []
    row = next(iter(thead.findall(nodes.row)), None)
    return [entry.astext().strip() for entry in row.children] if row is not None else []


def mark_claims_tables(doctree: nodes.Node) -> int:
    """Give every claims table the classes its layout needs; return how many were found.

    A claims table is one whose header has a ``claim`` column and a ``verdict``, ``says`` or
    ``decision rule`` one (the verdicts table, the table of how each claim was checked, the
    summary of every claim). It gets the class ``fastmix-claims``; each body cell gets
    ``fastmix-col-<header>`` and starts with its column's name in a ``fastmix-cell-label`` span,
    which ``book/_static/fastmix.css`` shows only in the stacked layout of narrow screens (where
    each row becomes a card), and empty cells get ``fastmix-empty``.
    """
    found = 0
    for table in list(doctree.findall(nodes.table)):
        heads = _header_texts(table)
        if CLAIMS_COLUMN not in heads or not CLAIMS_DETAILS & set(heads):
            continue
        if "fastmix-claims" in table["classes"]:
            continue
        found += 1
        table["classes"].append("fastmix-claims")
        for thead in table.findall(nodes.thead):
            for row in thead.findall(nodes.row):
                for head, entry in zip(heads, row.children, strict=False):
                    entry["classes"].append(f"fastmix-col-{_slug(head)}")
        for tbody in table.findall(nodes.tbody):
            for row in tbody.findall(nodes.row):
                for head, entry in zip(heads, row.children, strict=False):
                    entry["classes"].append(f"fastmix-col-{_slug(head)}")
                    if not entry.astext().strip():
                        entry["classes"].append("fastmix-empty")
                        continue
                    label = nodes.inline(text=head, classes=["fastmix-cell-label"])
                    first = entry.children[0] if entry.children else None
                    if isinstance(first, nodes.paragraph):
                        first.insert(0, label)
                    else:
                        entry.insert(0, nodes.paragraph("", "", label))
    return found


# --------------------------------------------------------------------------- plain-text titles and alt text

#: TeX commands written as the character they stand for in a plain-text title or alt text.
_TEX_SYMBOLS = {
    "varepsilon": "ε",
    "epsilon": "ε",
    "delta": "δ",
    "lambda": "λ",
    "Lambda": "Λ",
    "gamma": "γ",
    "rho": "ρ",
    "sigma": "σ",
    "theta": "θ",
    "eta": "η",
    "omega": "ω",
    "mu": "μ",
    "alpha": "α",
    "beta": "β",
    "tau": "τ",
    "Delta": "Δ",
    "infty": "∞",
    "le": "≤",
    "leq": "≤",
    "ge": "≥",
    "geq": "≥",
    "times": "×",
    "cdot": "·",
    "approx": "≈",
    "sqrt": "√",
    "log": "log",
    "ln": "ln",
    "min": "min",
    "max": "max",
    "top": "⊤",
    "to": "→",
    "in": "∈",
    "pm": "±",
    "ll": "≪",
    "gg": "≫",
    "varrho": "ρ",
    "vartheta": "θ",
    "phi": "φ",
    "varphi": "φ",
    "pi": "π",
    "Sigma": "Σ",
    "kappa": "κ",
    "nu": "ν",
    "xi": "ξ",
    "ell": "ℓ",
    "sim": "~",
    "propto": "∝",
    "ldots": "...",
    "cdots": "...",
    "mid": "|",
}

#: Commands that only shape a formula (sizes, fonts, accents): dropped from the plain text.
_TEX_SHAPING = (
    r"mathrm|mathbf|mathcal|mathbb|boldsymbol|text|operatorname|widehat|hat|bar|tilde|left|right|[bB]igg?[lr]?"
)

#: Function names written as words: they keep a space before them ("r max", not "rmax").
_TEX_WORDS = {"log", "ln", "min", "max", "exp", "sup", "inf", "det", "tr", "lim"}


def tex_to_text(tex: str) -> str:
    r"""A TeX formula as plain text for a tab title, a search result or alt text.

    >>> tex_to_text(r"n/d")
    'n/d'
    >>> tex_to_text(r"\varepsilon \le 2^{-k}")
    'ε ≤ 2^-k'
    >>> tex_to_text(r"\tfrac{1}{n}\|y - X\hat\theta\|^2, \; k_2 = r\max\{d, \log(4T/\varrho)\}")
    '1/n‖y - Xθ‖^2, k_2 = r max{d, log(4T/ρ)}'
    """
    text = re.sub(r"\\[td]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"\1/\2", tex)
    text = re.sub(r"\\[td]?frac\s*([A-Za-z0-9])\s*([A-Za-z0-9])", r"\1/\2", text)  # \tfrac1n
    text = text.replace("\\{", "\x00").replace("\\}", "\x01").replace("\\|", "‖")
    text = re.sub(rf"\\(?:{_TEX_SHAPING})(?![A-Za-z])\s*", "", text)

    def command(match: re.Match) -> str:
        name = match.group(1)
        return f" {name}" if name in _TEX_WORDS else _TEX_SYMBOLS.get(name, name)

    text = re.sub(r"\\([A-Za-z]+)", command, text)
    text = re.sub(r"\\[,;:! ]", " ", text)
    text = text.replace("{", "").replace("}", "").replace("\\", "")
    text = text.replace("\x00", "{").replace("\x01", "}")
    text = re.sub(r"\s+", " ", text).replace("( ", "(")
    return re.sub(r"([_^]) ", r"\1", text).strip()


def plain_text(node: nodes.Node) -> str:
    """The text of ``node`` with its formulas as plain text (:func:`tex_to_text`)."""
    if isinstance(node, nodes.math):
        return tex_to_text(node.astext())
    if isinstance(node, nodes.Text):
        return str(node)
    return "".join(plain_text(child) for child in node.children)


def _plain_title(title: nodes.Node) -> nodes.title:
    plain = nodes.title()
    plain += nodes.Text(plain_text(title))
    return plain


def _plain_titles(app: Sphinx, doctree: nodes.document) -> None:
    r"""At ``doctree-read``: the page's title, as the tab, the search results and the links to
    it show it, in plain text, without the raw ``\(...\)`` of its formulas (the heading on the
    page keeps its maths)."""
    env = app.env
    for store in (env.titles, env.longtitles):
        title = store.get(env.docname)
        if title is not None and any(True for _ in title.findall(nodes.math)):
            store[env.docname] = _plain_title(title)


_HASHED_ALT = re.compile(r"(^|/)[0-9a-f]{16,}\.(png|jpe?g|svg|gif)$|\.(png|jpe?g|svg|gif)$", re.I)


def figure_alt_text(caption: str, limit: int = 240) -> str:
    """Alt text for a figure from its caption: the written-out label and the first sentence after it.

    >>> figure_alt_text("Figure 2. Excess risk against epsilon. Bars are 95% intervals.")
    'Figure 2: Excess risk against epsilon.'
    """
    caption = " ".join(caption.split())
    label = re.match(r"^(Figure\s+[A-Z]*\d*(?:\.\d+)*(?:\s*\([^)]*\))?)\.?\s*", caption)
    rest = caption[label.end() :] if label else caption
    sentence = re.match(r"^(.+?[.!?])(?:\s|$)", rest)
    first = sentence.group(1) if sentence else rest
    text = f"{label.group(1)}: {first}" if label and first else (label.group(1) if label else first)
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def _figure_alt_texts(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """At ``doctree-resolved`` (glued captions are filled in by then): alt text from the caption.

    A notebook's figure image has no alt text of its own, so the HTML would show its hashed file
    path; each image of a captioned figure gets the caption's label and first sentence instead.
    """
    for figure in doctree.findall(nodes.figure):
        caption = next(iter(figure.findall(nodes.caption)), None)
        if caption is None:
            continue
        alt = figure_alt_text(plain_text(caption))
        if not alt:
            continue
        for image in figure.findall(nodes.image):
            current = image.get("alt", "")
            if not current or _HASHED_ALT.search(current) or current == image.get("uri"):
                image["alt"] = alt


def _mark_tables(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    mark_claims_tables(doctree)


# --------------------------------------------------------------------------- theme noise


def _quiet_theme(app: Sphinx, config) -> None:
    """At ``config-inited``: no console errors from the theme on any page.

    * sphinx-thebe (loaded by Jupyter Book whatever the launch buttons say) adds an inline
      ``const THEBE_JS_URL = ...`` script each time ``env-before-read-docs`` fires, and a build
      that reads the environment twice writes it twice: the browser then stops with "Identifier
      'THEBE_JS_URL' has already been declared". The book has no Thebe button
      (``launch_buttons: thebe: false``), so sphinx-thebe's scripts and page configuration are
      not added at all; with Thebe on, the inline script is added once.
    * The theme's colour mode: with no ``default_mode`` in the page context the theme reads an
      empty mode on a first visit and logs "Got invalid theme mode"; the default is ``auto``
      (follow the system).
    """
    # the theme's templates read the mode from the page context (html_context), not a theme option
    context = dict(config.html_context or {})
    context.setdefault("default_mode", "auto")
    config.html_context = context
    options = config.html_theme_options
    launch = options.get("launch_buttons", {}) if isinstance(options, dict) else {}
    thebe_on = bool(launch.get("thebe")) if isinstance(launch, dict) else False
    try:
        import sphinx_thebe
    except ImportError:  # pragma: no cover - Jupyter Book always installs it
        return
    listeners = app.events.listeners
    for event in ("env-before-read-docs", "doctree-resolved"):
        for listener in list(listeners.get(event, [])):
            handler = listener.handler
            if getattr(handler, "__module__", "") != sphinx_thebe.__name__:
                continue
            if not thebe_on and handler.__name__ in ("init_thebe_core", "update_thebe_context"):
                app.disconnect(listener.id)
            elif thebe_on and handler.__name__ == "init_thebe_core":
                app.disconnect(listener.id)
                app.connect(event, _once(handler), priority=listener.priority)


def _once(handler):
    """``handler`` for an event that may fire more than once per build: it runs the first time only."""
    done = []

    def wrapper(app, *args):
        if not done:
            done.append(True)
            return handler(app, *args)
        return None

    wrapper.__name__ = f"{handler.__name__}_once"
    return wrapper


# --------------------------------------------------------------------------- citations


#: Name of the pybtex formatting and label styles and of the sphinxcontrib-bibtex reference style.
CITATION_STYLE = "fastmix_author_year"

_LABEL_YEAR = re.compile(r"(\d{4}[a-z]?|n\.d\.[a-z]?)$")


def _latex_text(text: str) -> str:
    from pybtex.markup import LaTeXParser

    return LaTeXParser(text).parse().render_as("text")


def author_year_label(entry) -> str:
    """``"Lev et al., 2026"``: the surnames of the first author ("Lev"), of both authors
    ("Pilanci and Wainwright") or of the first with "et al." (three or more), then the year,
    as sphinxcontrib-bibtex's author-year citations write them."""
    persons = entry.persons.get("author") or entry.persons.get("editor") or []
    surnames = [_latex_text(" ".join(p.prelast_names + p.last_names)) for p in persons]
    if not surnames:
        who = _latex_text(entry.fields.get("title", entry.key))
    elif len(surnames) == 1:
        who = surnames[0]
    elif len(surnames) == 2:
        who = f"{surnames[0]} and {surnames[1]}"
    else:
        who = f"{surnames[0]} et al."
    return f"{who}, {entry.fields.get('year', 'n.d.')}"


def author_year_labels(entries) -> list[str]:
    """:func:`author_year_label` of each entry, in order, with "a", "b", ... appended to the year
    of labels that would otherwise be equal (in the order of ``entries``, the bibliography's)."""
    labels = [author_year_label(e) for e in entries]
    counts: dict[str, int] = {}
    for label in labels:
        counts[label] = counts.get(label, 0) + 1
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        if counts[label] > 1:
            out.append(label + "abcdefghijklmnopqrstuvwxyz"[seen.get(label, 0)])
            seen[label] = seen.get(label, 0) + 1
        else:
            out.append(label)
    return out


def register_citation_styles() -> None:
    """Register the ``fastmix_author_year`` styles of pybtex and sphinxcontrib-bibtex.

    The text cites author-year ("Lev et al., 2026"); two works with the same authors and year
    become "2026a" and "2026b". The bibliography's labels (``bibtex_default_style``) are the
    same author-year strings with the same suffixes (:func:`author_year_labels`, over the
    bibliography's sorted entries), and the year of an in-text citation
    (``bibtex_reference_style``) is read from its entry's label, so the text and the
    bibliography always agree.
    """
    import pybtex.plugin
    from pybtex.richtext import Text
    from pybtex.style.formatting.plain import Style as PlainStyle
    from pybtex.style.labels import BaseLabelStyle
    from sphinxcontrib.bibtex.plugin import register_plugin
    from sphinxcontrib.bibtex.style.referencing import BracketStyle
    from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle
    from sphinxcontrib.bibtex.style.referencing.basic_author_year import (
        BasicAuthorYearParentheticalReferenceStyle,
        BasicAuthorYearTextualReferenceStyle,
    )
    from sphinxcontrib.bibtex.style.referencing.extra_year import ExtraYearReferenceStyle
    from sphinxcontrib.bibtex.style.template import join, join2, node, post_text, pre_text, reference, year

    class AuthorYearLabelStyle(BaseLabelStyle):
        def format_labels(self, sorted_entries):
            return iter(author_year_labels(list(sorted_entries)))

    class AuthorYearStyle(PlainStyle):
        default_label_style = AuthorYearLabelStyle
        default_sorting_style = "author_year_title"

    @node
    def labelled_year(children, data):
        """The year as the bibliography's label has it ("2026a"), else the entry's year field."""
        assert not children
        formatted = data.get("formatted_entry")
        match = _LABEL_YEAR.search(getattr(formatted, "label", "") or "")
        return Text(match.group(1)) if match else year.format_data(data)

    class Parenthetical(BasicAuthorYearParentheticalReferenceStyle):
        def inner(self, role_name):
            return join2(sep1=self.pre_text_sep, sep2=self.post_text_sep)[
                pre_text,
                reference[
                    join(sep=self.author_year_sep)[
                        self.person.author_or_editor_or_title(full="s" in role_name), labelled_year
                    ]
                ],
                post_text,
            ]

    class Textual(BasicAuthorYearTextualReferenceStyle):
        def inner(self, role_name):
            return join(sep=self.text_reference_sep)[
                self.person.author_or_editor_or_title(full="s" in role_name),
                join[
                    self.bracket.left,
                    join2(sep1=self.pre_text_sep, sep2=self.post_text_sep)[
                        pre_text, reference[labelled_year], post_text
                    ],
                    self.bracket.right,
                ],
            ]

    class YearOnly(ExtraYearReferenceStyle):
        def inner(self, role_name):
            return reference[labelled_year]

    replacements = {
        BasicAuthorYearParentheticalReferenceStyle: Parenthetical,
        BasicAuthorYearTextualReferenceStyle: Textual,
        ExtraYearReferenceStyle: YearOnly,
    }

    class FastmixAuthorYearReferenceStyle(AuthorYearReferenceStyle):
        """sphinxcontrib-bibtex's author-year citations in round brackets, with the year (and its a/b)
        of the entry's label."""

        def __post_init__(self):
            for name in ("bracket_textual", "bracket_parenthetical", "bracket_author", "bracket_year"):
                setattr(self, name, BracketStyle(left="(", right=")", sep="; "))  # (Lev et al., 2026a; ...)
            super().__post_init__()
            styles = []
            for style in self.styles:
                new = replacements.get(type(style))
                if new is not None:
                    kwargs = {f: getattr(style, f) for f in style.__dataclass_fields__ if f in new.__dataclass_fields__}
                    style = new(**kwargs)
                styles.append(style)
            self.styles[:] = styles
            self.role_style.clear()
            self.role_style.update((name, style) for style in self.styles for name in style.role_names())

    pybtex.plugin.register_plugin("pybtex.style.labels", CITATION_STYLE, AuthorYearLabelStyle, force=True)
    pybtex.plugin.register_plugin("pybtex.style.formatting", CITATION_STYLE, AuthorYearStyle, force=True)
    register_plugin(
        "sphinxcontrib.bibtex.style.referencing", CITATION_STYLE, FastmixAuthorYearReferenceStyle, force=True
    )


# --------------------------------------------------------------------------- downloads

#: Where the executed notebooks go in the HTML output: the theme's download button ("Download this
#: page", ``.ipynb``) looks for ``_sources/<page>.ipynb``.
NOTEBOOK_DOWNLOADS = "_sources"
#: Where the stored results of ``results/<notebook>/`` go in the HTML output.
RESULTS_DOWNLOADS = "results"
#: The class of the box that offers a notebook page's downloads.
DOWNLOADS_CLASS = "fastmix-downloads"


def executed_notebook(app: Sphinx, docname: str) -> Path:
    """The executed notebook that myst-nb wrote for ``docname`` (``<build>/jupyter_execute/<docname>.ipynb``)."""
    folder = getattr(getattr(app.env, "mystnb_config", None), "output_folder", None)
    base = Path(folder) if folder else Path(app.outdir).parent / "jupyter_execute"
    return base / f"{docname}.ipynb"


def _results_root(app: Sphinx) -> Path | None:
    if app.config.fastmix_results_dir:
        return Path(app.config.fastmix_results_dir)
    try:
        from fastmix_companion.store import default_results_dir
    except ImportError:  # the companion is not installed: no page reads the store either
        return None
    return Path(default_results_dir())


def stored_entry_files(folder: Path) -> list[str]:
    """The files of the results-store entry ``folder``, as its manifest names them.

    The tables (``*.csv``, sorted), then ``parameters.json``, ``provenance.json`` and the
    ``manifest.json`` itself; only files that exist. An empty list when ``folder`` holds no
    manifest (no stored entry).
    """
    manifest = folder / "manifest.json"
    if not manifest.is_file():
        return []
    data = json.loads(manifest.read_text(encoding="utf-8"))
    tables = sorted(str(record["file"]) for record in (data.get("tables") or {}).values() if record.get("file"))
    records = [data.get(key) for key in ("parameters", "provenance")]
    extra = [str(record["file"]) for record in records if isinstance(record, dict) and record.get("file")]
    return [name for name in [*tables, *extra, "manifest.json"] if (folder / name).is_file()]


def _relative_uri(docname: str, target: str) -> str:
    """``target`` (a path in the HTML output) relative to the page of ``docname``."""
    return posixpath.relpath(target, posixpath.dirname(docname) or ".")


def _link(text: str, uri: str) -> nodes.reference:
    return nodes.reference(text, text, refuri=uri, classes=["fastmix-download"])


def downloads_box(docname: str, entry: str | None, files: list[str]) -> nodes.admonition:
    """A collapsed box with the page's executed notebook and, for a result page, its stored tables.

    ``docname`` is the page (``notebooks/<name>``), ``entry`` the name of its results-store
    entry (``None`` when it has none) and ``files`` that entry's files
    (:func:`stored_entry_files`). The links are relative to the page and point into the HTML
    output, where :func:`_copy_executed_notebook` and :func:`_copy_stored_results` put the
    files, so they work offline from the built site.
    """
    box = nodes.admonition(classes=[DOWNLOADS_CLASS, "dropdown", "note"])
    box += nodes.title(text="Download the notebook and its data")
    para = nodes.paragraph()
    ipynb = f"{NOTEBOOK_DOWNLOADS}/{docname}.ipynb"
    para += _link("Download the executed notebook (.ipynb)", _relative_uri(docname, ipynb))
    para += nodes.Text(": this page as the build ran it, with every output.")
    box += para
    if entry is not None and files:
        intro = nodes.paragraph()
        intro += nodes.Text("The data behind this page's figures and claims, the stored entry ")
        intro += nodes.literal(text=f"results/{entry}/")
        intro += nodes.Text(" (its tables, the parameters of the run, its provenance record and the manifest):")
        box += intro
        items = nodes.bullet_list(classes=["fastmix-download-list"])
        for name in files:
            item = nodes.list_item()
            item += nodes.paragraph("", "", _link(name, _relative_uri(docname, f"{RESULTS_DOWNLOADS}/{entry}/{name}")))
            items += item
        box += items
    return box


def _insert_downloads(app: Sphinx, doctree: nodes.document) -> None:
    """At ``doctree-read``: on a notebook page, a downloads box right after the re-run box (else the title)."""
    docname = app.env.docname
    path = _notebook_path(app, docname)
    if path is None:
        return
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None:
        return
    root = _results_root(app)
    files = stored_entry_files(root / path.stem) if root is not None else []
    box = downloads_box(docname, path.stem if files else None, files)
    anchor = next(
        (i for i, child in enumerate(section.children) if "fastmix-rerun" in child.get("classes", [])),
        next((i for i, child in enumerate(section.children) if isinstance(child, nodes.title)), -1),
    )
    section.insert(anchor + 1, box)


def _copy_executed_notebook(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    """At ``html-page-context``: put a notebook page's executed notebook in ``_sources/`` and offer it.

    sphinx-book-theme copies the executed notebook only for Markdown notebooks; for the ``.py``
    notebooks here its download button offers the ``.py`` alone. Setting ``ipynb_source``
    before the theme builds its buttons (priority 501) adds the ``.ipynb`` to that button too.
    """
    if app.builder.format != "html" or _notebook_path(app, pagename) is None:
        return
    source = executed_notebook(app, pagename)
    if not source.is_file():
        logger.warning(f"{pagename}: no executed notebook at {source}, nothing to download", location=pagename)
        return
    target = Path(app.outdir) / NOTEBOOK_DOWNLOADS / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, target)
    context["ipynb_source"] = f"{pagename}.ipynb"


def _copy_stored_results(app: Sphinx, exception) -> None:
    """At ``build-finished``: copy each notebook page's stored entry into ``results/<notebook>/`` of the output."""
    if exception is not None or app.builder.format != "html":
        return
    root = _results_root(app)
    if root is None:
        return
    for docname in sorted(app.env.found_docs):
        path = _notebook_path(app, docname)
        if path is None:
            continue
        folder = root / path.stem
        files = stored_entry_files(folder)
        target = Path(app.outdir) / RESULTS_DOWNLOADS / path.stem
        if files:
            target.mkdir(parents=True, exist_ok=True)
        for name in files:
            shutil.copy2(folder / name, target / name)


# --------------------------------------------------------------------------- source links


def defining_submodule(app: Sphinx | None, modname: str, attribute: str) -> str | None:
    """At ``viewcode-follow-imported``: the submodule of package ``modname`` whose source defines ``attribute``.

    A package such as ``fastmix.hadamard`` re-exports the functions of its submodules and sets their
    ``__module__`` to the package, so viewcode would look for them in the package's
    ``__init__.py``, find no definition and give them no ``[source]`` link. This returns the
    submodule that defines ``attribute`` (``"PowerOfTwoRecord.describe"`` is found by its tags),
    or ``None`` (viewcode's own lookup) when the package defines it itself or no submodule does.
    """
    import importlib
    import pkgutil

    from sphinx.pycode import ModuleAnalyzer

    def defines(name: str) -> bool:
        try:
            return attribute in ModuleAnalyzer.for_module(name).find_tags()
        except Exception:  # no source to analyse (a compiled or missing module)
            return False

    try:
        paths = getattr(importlib.import_module(modname), "__path__", None)
    except Exception:
        return None
    if not paths or defines(modname):
        return None
    return next((info.name for info in pkgutil.iter_modules(paths, modname + ".") if defines(info.name)), None)


def _follow_reexports(app: Sphinx) -> None:
    """At ``builder-inited`` (every extension loaded): use :func:`defining_submodule` when viewcode is on."""
    if "sphinx.ext.viewcode" in app.extensions:
        app.connect("viewcode-follow-imported", defining_submodule)


# --------------------------------------------------------------------------- setup


def _defining_module(app: Sphinx, modname: str, fullname: str) -> str | None:
    """The module whose source sphinx.ext.viewcode highlights for ``modname.fullname`` (a re-export followed)."""
    from sphinx.ext import viewcode

    return app.emit_firstresult("viewcode-follow-imported", modname, fullname) or viewcode._get_full_modname(
        modname, fullname
    )


def _viewcode_backlinks(app: Sphinx) -> list:
    """Before sphinx.ext.viewcode writes its pages: each [docs] link of a module points at a page documenting it.

    sphinx.ext.viewcode keeps, per highlighted module, one page per object name and one module name
    for the anchors (the first module that documented any of them). With one API page per module, an
    object documented in its own module's page and again where a package re-exports it gets a back
    link that mixes the two. Here the anchors are named after the highlighted (defining) module, each
    name goes to a page that documents it (its own module's page when there is one), and
    :func:`_defining_module_ids` gives every signature the id such a link uses.
    """
    env = app.env
    modules = getattr(env, "_viewcode_modules", None)
    if not modules:
        return []
    objects = env.get_domain("py").objects  # type: ignore[attr-defined]  # the Python domain's registry
    for modname, entry in list(modules.items()):
        if not entry:
            continue
        code, tags, used, _first_module = entry
        parts = modname.split(".")
        prefixes = [".".join(parts[:i]) for i in range(len(parts), 0, -1)]
        docs = {}
        for name, doc in used.items():
            owner = next((objects[f"{p}.{name}"].docname for p in prefixes if f"{p}.{name}" in objects), doc)
            docs[name] = owner
        modules[modname] = (code, tags, docs, modname)
    return []


def _defining_module_ids(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """At ``doctree-resolved``: a signature of a re-exported object also answers to ``<defining module>.<name>``."""
    from sphinx import addnodes

    if "sphinx.ext.viewcode" not in app.extensions:
        return
    taken = {i for node in doctree.findall(nodes.Element) for i in node.get("ids", ())}
    for sig in doctree.findall(addnodes.desc_signature):
        mod, full = sig.get("module"), sig.get("fullname")
        if not mod or not full:
            continue
        real = _defining_module(app, mod, full)
        anchor = f"{real}.{full}" if real else None
        if anchor and real != mod and anchor not in taken:
            sig["ids"].append(anchor)
            taken.add(anchor)


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
    register_citation_styles()
    # the landing page's gallery of result pages (book/_ext/fastmix_gallery.py)
    app.setup_extension("fastmix_gallery")
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
    app.connect("doctree-read", _plain_titles)
    app.connect("doctree-resolved", _figure_alt_texts)
    app.connect("doctree-resolved", _mark_tables)
    app.connect("config-inited", _quiet_theme)
    # after Sphinx's toctree collector has assigned the figure numbers (priority 500)
    app.connect("env-get-updated", _drop_figure_numbers, priority=900)
    # after sphinx-book-theme adds its launch buttons (priority 501)
    app.connect("html-page-context", _rewrite_launch_buttons, priority=900)
    # downloads: the executed notebook (before the theme builds its download button, priority 501)
    # and the stored results behind each result page
    app.connect("doctree-read", _insert_downloads)
    app.connect("html-page-context", _copy_executed_notebook, priority=450)
    app.connect("build-finished", _copy_stored_results)
    # [source] links (sphinx.ext.viewcode) for what a package re-exports under its own name
    app.connect("builder-inited", _follow_reexports)
    # before viewcode's own html-collect-pages handler (priority 500) writes the module pages
    app.connect("html-collect-pages", _viewcode_backlinks, priority=100)
    app.connect("doctree-resolved", _defining_module_ids)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}


__all__ = [
    "author_year_labels",
    "figure_alt_text",
    "mark_claims_tables",
    "plain_text",
    "register_citation_styles",
    "smoke_sizes",
    "tex_to_text",
    "verify_results_store",
    "mathjax_source_dir",
    "launcher_command",
    "papermill_box_command",
    "rerun_box",
    "launch_url",
    "downloads_box",
    "executed_notebook",
    "stored_entry_files",
    "defining_submodule",
    "setup",
]
