"""Small display helpers the book's pages share (not maths: captions, figure style, numbers in text).

* :func:`caption` hands a figure's caption (MyST Markdown, maths included) to the book. The
  figure cell's metadata holds the label ("Figure 2.") and pastes this text after it
  (``{glue:md}``); Jupyter does not show the output. It writes myst-nb's glue format directly,
  so a notebook runs without myst-nb installed (Colab, papermill re-runs).
* :func:`use_book_style` sets matplotlib's text sizes for figures that fill the book's content
  column, which shows them at about half their drawn size.
* :func:`tex_num` writes a number for MyST maths (``1e-05`` as ``10^{-5}``).
"""

from __future__ import annotations

__all__ = ["caption", "use_book_style", "tex_num", "BOOK_STYLE"]

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
