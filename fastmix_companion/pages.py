"""Small display helpers the book's pages share (not maths: captions, figure style, numbers in text).

* :func:`caption` hands a figure's caption (MyST Markdown, maths included) to the book. The
  figure cell's metadata holds the label ("Figure 2.") and pastes this text after it
  (``{glue:md}``); Jupyter does not show the output. It writes myst-nb's glue format directly,
  so a notebook runs without myst-nb installed (Colab, papermill re-runs).
* :func:`use_book_style` sets matplotlib's text sizes for figures that fill the book's content
  column, which shows them at about half their drawn size.
* :func:`tex_num` writes a number for MyST maths (``1e-05`` as ``10^{-5}``).
* :func:`stored_entry` is the template every result page shares: it opens the page's entry in the
  results store (:class:`StoredEntry`), shows the store note, the claims table or what is missing,
  the page's citations (:func:`page_citations`), and gives the provenance cell its data sources
  and start time.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "caption",
    "use_book_style",
    "tex_num",
    "BOOK_STYLE",
    "StoredEntry",
    "stored_entry",
    "NO_FIGURE",
    "NO_CLAIMS",
    "PAPER_KEYS",
    "page_citations",
]

NO_FIGURE = "No stored results to draw; the store note on this page says how to compute them."
"""What a page prints in place of its stored figure when the store holds nothing."""

NO_CLAIMS = "The claims table needs the stored paper-scale results; the store note on this page says how to get them."
"""What a page shows in place of its claims table when the store holds nothing."""

BOOK_STYLE = {
    "font.size": 12,
    "axes.titlesize": 12,
    "axes.labelsize": 12,
    "xtick.labelsize": 11,
    "ytick.labelsize": 11,
    "legend.fontsize": 10,
}
"""matplotlib settings of every page's figures."""


def caption(name: str, text: str) -> None:
    """Glue ``text`` as the caption of figure ``name`` (key ``<name>-caption``, Markdown)."""
    from IPython.display import display

    display(
        {"application/papermill.record/text/markdown": text},
        raw=True,
        metadata={"scrapbook": {"name": f"{name}-caption", "mime_prefix": "application/papermill.record/"}},
    )


def use_book_style() -> None:
    """Apply :data:`BOOK_STYLE` to matplotlib."""
    import matplotlib.pyplot as plt

    plt.style.use(BOOK_STYLE)


def tex_num(x) -> str:
    """A number for MyST maths: 1e-05 as 10^{-5}, 2.5e-06 as 2.5 \\cdot 10^{-6}, others as with :g."""
    text = f"{float(x):g}"
    if "e" not in text:
        return text
    mantissa, exponent = text.split("e")
    power = f"10^{{{int(exponent)}}}"
    return power if mantissa == "1" else f"{mantissa} \\cdot {power}"


PAPER_KEYS = {
    "The FastMix paper": "lev2026fastmix",
    "The kernel paper": "lee2025optimal",
    "Your own data": "lev2026fastmix",
}
"""The bibliography key of the paper behind each part of the book (``_toc.yml`` captions): the paper a
page reproduces, or, in the part on one's own data, the paper whose solvers the page uses."""

_USES_PAPER = {"Your own data"}

_CITE_START = "% cite-this:start"
_CITE_END = "% cite-this:end"


def _book_root():
    from fastmix_companion.notebook_parameters import default_notebooks_dir

    return default_notebooks_dir().parent


def _part_caption(name: str, root) -> str | None:
    """The caption of the part of ``_toc.yml`` that holds notebook ``name``."""
    import yaml

    toc = root / "_toc.yml"
    if not toc.is_file():
        return None
    for part in (yaml.safe_load(toc.read_text(encoding="utf-8")) or {}).get("parts") or []:
        files = [str(c.get("file", "")) for c in part.get("chapters") or []]
        if f"notebooks/{name}" in files:
            return part.get("caption")
    return None


def _bibtex_entries(root) -> dict[str, str]:
    """The BibTeX entries of the book's "How to cite it" block (generated from ``CITATION.cff``), by key."""
    import re

    intro = root / "book" / "intro.md"
    text = intro.read_text(encoding="utf-8") if intro.is_file() else ""
    if _CITE_START not in text or _CITE_END not in text:
        return {}
    block = text.split(_CITE_START, 1)[1].split(_CITE_END, 1)[0]
    entries = re.findall(r"(?ms)^@\w+\{([^,\s]+),.*?^\}$", block)
    bodies = re.findall(r"(?ms)^@\w+\{[^,\s]+,.*?^\}$", block)
    return dict(zip(entries, bodies, strict=True))


def page_citations(name: str, root=None) -> str:
    """How to cite result page ``name``: the paper it reproduces and the companion, as BibTeX (MyST Markdown).

    The entries are the ones the book's "How to cite it" section carries, which ``tools/citation.py``
    generates from ``CITATION.cff``; the paper is the one whose part of ``_toc.yml`` holds the page.
    The entry that pins this page's exact code (version and commit) follows the provenance table.
    Returns an empty string when the page belongs to neither paper or the entries are missing.
    """
    from fastmix_companion.provenance import COMPANION_CITATION

    root = _book_root() if root is None else root
    caption = _part_caption(name, root)
    key = PAPER_KEYS.get(caption) if caption else None
    entries = _bibtex_entries(root)
    companion = entries.get(COMPANION_CITATION["key"])
    if key is None or key not in entries or companion is None:
        return ""
    role = "whose solvers this page uses" if caption in _USES_PAPER else "this page reproduces"
    return (
        f"Cite the paper {role}, {{cite:t}}`{key}`, and, if the code or the figure helped, the "
        "companion. The companion's entry below names its release; the entry under the provenance table pins "
        "the exact commit that built this page.\n\n"
        ":::{dropdown} BibTeX: the paper and the companion\n"
        f"```bibtex\n{entries[key]}\n\n{companion}\n```\n:::\n"
    )


@dataclass
class StoredEntry:
    """One page's entry in the results store, as the page uses it.

    Attributes
    ----------
    name : str
        The notebook's name (``results/<name>/``).
    store : fastmix_companion.store.ResultsStore
        The entry's store.
    status : fastmix_companion.store.EntryStatus
        Missing, partial or complete, with the version and commit that computed it.
    tables : dict or None
        The tables the page asked for, ``None`` when any of them is not stored.
    started_at : float
        When the page started (seconds since the epoch), for the provenance cell.
    """

    name: str
    store: Any
    status: Any
    tables: dict | None
    started_at: float = field(default_factory=time.time)

    def parameters(self) -> dict:
        """The parameters the stored entry was computed with."""
        return self.store.parameters()

    @property
    def data_sources(self) -> list:
        """The entry's provenance file for :func:`~fastmix_companion.provenance.provenance_report`, if stored."""
        return [self.store.path / "provenance.json"] if self.status.state != "missing" else []

    def show_note(self) -> None:
        """Display the store note: what computed the entry, or the command that computes it."""
        from IPython.display import Markdown, display

        from fastmix_companion.store import entry_markdown

        display(Markdown(entry_markdown(self.name)))

    def show_claims(self, claims, missing: str = NO_CLAIMS) -> None:
        """Display the claims table of ``claims``, or ``missing`` when there are none (nothing stored)."""
        from IPython.display import Markdown, display

        from fastmix_companion.claims import claims_markdown

        display(Markdown(claims_markdown(claims) if claims else missing))

    def show_citation(self) -> None:
        """Display how to cite this page: the paper it reproduces and the companion (:func:`page_citations`)."""
        from IPython.display import Markdown, display

        display(Markdown(page_citations(self.name)))

    @staticmethod
    def no_figure() -> None:
        """Print :data:`NO_FIGURE` where the stored figure would be."""
        print(NO_FIGURE)


def stored_entry(name: str, *tables: str, started_at: float | None = None) -> StoredEntry:
    """Open ``results/<name>/`` and load ``tables`` (all or nothing, see ``ResultsStore.load``).

    Call it in a page's first code cell, before the page computes anything: ``started_at``
    defaults to now, the start the provenance cell reports.
    """
    from fastmix_companion.store import ResultsStore, entry_status

    store = ResultsStore(name)
    return StoredEntry(
        name=name,
        store=store,
        status=entry_status(name),
        tables=store.load(*tables),
        started_at=time.time() if started_at is None else started_at,
    )
