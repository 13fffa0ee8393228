"""The landing page's gallery: one card per result page, with its figure, label and verdicts.

``fastmix_book`` loads this extension. A page writes the directive

.. code-block:: rst

   .. fastmix-gallery::

(```` ```{fastmix-gallery} ```` in MyST) where the gallery goes. When that page is written, every
result page of the book has been read and executed, so each card is taken from what the reader
will see there:

* the thumbnail is the page's first figure, the paper-scale one (its image node is copied, so
  the same file is served), with the label and title as alt text;
* the label is the figure's written-out label ("Figure 2") and the title the page's title;
* the line under it counts the page's verdicts per paper and for the companion's own questions
  (:func:`fastmix_companion.claims_summary.page_tally`), computed from the stored results the
  page itself reads.

The cards follow the book's order; a page without a stored figure gets a card without one. The
gallery's page is rewritten whenever a result page changes.
"""

from __future__ import annotations

import copy
import re

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

_LABEL = re.compile(r"^\s*(Figure\s+[A-Z]*\d*(?:\.\d+)*)")


class gallery_placeholder(nodes.General, nodes.Element):
    """Where the gallery goes; replaced by the cards once every page has been read."""


class GalleryDirective(Directive):
    has_content = False

    def run(self):
        env = self.state.document.settings.env
        if not hasattr(env, "fastmix_gallery_docs"):
            env.fastmix_gallery_docs = set()
        env.fastmix_gallery_docs.add(env.docname)
        return [gallery_placeholder()]


def result_pages(app: Sphinx) -> list[str]:
    """The docnames of the result pages (``notebooks/<study>``), in the book's order."""
    from fastmix_companion.claims_summary import _book_order

    return [f"notebooks/{name}" for name in _book_order() if f"notebooks/{name}" in app.env.found_docs]


def first_figure(doctree: nodes.document) -> tuple[nodes.image | None, str]:
    """The first figure's image and written-out label ("Figure 2"), or ``(None, "")``."""
    for figure in doctree.findall(nodes.figure):
        image = next(iter(figure.findall(nodes.image)), None)
        if image is None:
            continue
        caption = next(iter(figure.findall(nodes.caption)), None)
        match = _LABEL.match(caption.astext()) if caption is not None else None
        return image, match.group(1) if match else ""
    return None, ""


def gallery_card(app: Sphinx, fromdoc: str, docname: str, tally: str) -> nodes.container:
    """One card: the thumbnail (a link), the label and title (a link) and the verdict line."""
    uri = app.builder.get_relative_uri(fromdoc, docname)
    title = app.env.titles[docname].astext() if docname in app.env.titles else docname
    image, label = first_figure(app.env.get_doctree(docname))
    card = nodes.container(classes=["fastmix-gallery-card"])
    if image is not None:
        thumb = copy.deepcopy(image)
        thumb["classes"] = [*thumb.get("classes", []), "fastmix-gallery-thumb"]
        thumb["alt"] = title if not label or title.startswith(label) else f"{label}: {title}"
        card += nodes.reference("", "", thumb, refuri=uri, internal=True)
    heading = nodes.paragraph(classes=["fastmix-gallery-title"])
    link = nodes.reference("", "", refuri=uri, internal=True)
    if label and title.startswith(label):  # "Figure 2: ..." titles carry their label already
        label, title = title.split(":", 1)[0], title.split(":", 1)[1].strip() if ":" in title else ""
    if label:
        link += nodes.strong(text=label)
        link += nodes.Text(f": {title}" if title else "")
    else:
        link += nodes.Text(title)
    heading += link
    card += heading
    card += nodes.paragraph(text=tally or "no stored verdicts", classes=["fastmix-gallery-tally"])
    return card


def _fill_gallery(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    placeholders = list(doctree.findall(gallery_placeholder))
    if not placeholders:
        return
    from fastmix_companion.claims_summary import collect, page_tally

    pages = result_pages(app)
    rows = collect()
    grid = nodes.container(classes=["fastmix-gallery"])
    for page in pages:
        grid += gallery_card(app, docname, page, page_tally(rows, page.split("/", 1)[1]))
    if not pages:
        logger.warning("fastmix-gallery: no result page found", location=docname)
    for placeholder in placeholders:
        placeholder.replace_self(copy.deepcopy(grid))


def _outdated_gallery(app: Sphinx, env, added, changed, removed) -> list[str]:
    """Rewrite the gallery's page whenever a result page was read again."""
    docs: set[str] = getattr(env, "fastmix_gallery_docs", set())
    touched = set(added) | set(changed) | set(removed)
    if docs and any(d.startswith("notebooks/") for d in touched):
        return sorted(docs - touched)
    return []


def _purge(app: Sphinx, env, docname: str) -> None:
    getattr(env, "fastmix_gallery_docs", set()).discard(docname)


def _merge(app: Sphinx, env, docnames, other) -> None:
    if not hasattr(env, "fastmix_gallery_docs"):
        env.fastmix_gallery_docs = set()
    env.fastmix_gallery_docs |= getattr(other, "fastmix_gallery_docs", set())


def setup(app: Sphinx) -> dict:
    app.add_node(gallery_placeholder)
    app.add_directive("fastmix-gallery", GalleryDirective)
    app.connect("doctree-resolved", _fill_gallery)
    app.connect("env-get-outdated", _outdated_gallery)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}


__all__ = ["first_figure", "gallery_card", "result_pages", "setup"]
