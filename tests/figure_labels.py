"""The papers' figure numbering, and the label every figure of the book carries.

Sphinx would number the book's figures in one sequence across all pages ("Fig. 4" on the
Figure 2 page), so the book's extension drops those numbers and every caption starts with its
label written out in bold. This table is the one place that says which labels each page shows,
in order; ``tests/test_figure_labels.py`` checks the notebooks' captions against it and
``tests/test_book_render.py`` checks the built HTML.

Labels:

* ``Figure 1`` to ``Figure 4``: the FastMix paper's own numbers (arXiv:2605.30600: Figures 1-3
  in Sections 3 and 4.1, Figure 4 in Appendix I, "Accuracy-runtime trade-off for the Airline
  dataset"), on the page that reproduces that figure at paper scale from the results store.
* ``<letter>.<k>``: a figure the companion adds, numbered within its page: ``S3`` (Section 3),
  ``F``, ``I`` and ``J`` (FastMix Appendices F, I and J; the paper has no figure in F or J),
  ``P`` (privacy audit), ``C`` (choosing a solver), ``K`` (kernel comparison), ``R`` (kernel
  rates), ``H`` (hello page), ``T`` (private regression on one's own table).
  The kernel paper's experiments are not in the text available to us, so its figures are not
  matched by number; its pages use companion labels.
* A live smoke-scale run of a figure carries that figure's label followed by ``(smoke scale)``,
  so a smoke-scale run never claims a paper figure's number by itself.
"""

from __future__ import annotations

from typing import NamedTuple

SMOKE = " (smoke scale)"

#: The FastMix paper's figures (label -> what it shows), from the paper's captions.
FASTMIX_PAPER_FIGURES = {
    "Figure 1": "additive noise scale sigma needed for a target epsilon (Section 3)",
    "Figure 2": "FastIHM against IHM: excess empirical risk against epsilon (Section 4.1)",
    "Figure 3": "runtime of IHM relative to FastIHS and FastIHM (Section 4.1)",
    "Figure 4": "accuracy-runtime trade-off on the airline data (Appendix I)",
}


class Label(NamedTuple):
    text: str
    #: "store": drawn from the results store (absent while the page says its entry is missing or
    #: unfinished); "live": computed when the page is built.
    source: str


def _store(text: str) -> Label:
    return Label(text, "store")


def _live(text: str) -> Label:
    return Label(text, "live")


#: page (document name) -> the labels of its figures, in page order.
PAGES: dict[str, list[Label]] = {
    "notebooks/figure1_noise_scale": [_store("Figure 1"), _live("Figure 1" + SMOKE)],
    "notebooks/own_table": [_store("Figure T.1"), _live("Figure T.1" + SMOKE)],
    "notebooks/section3_fastmix": [
        _store("Figure S3.1"),
        _store("Figure S3.2"),
        _live("Figure S3.1" + SMOKE),
        _live("Figure S3.2" + SMOKE),
    ],
    "notebooks/figure2_dp_ols": [_store("Figure 2"), _live("Figure 2" + SMOKE)],
    "notebooks/figure3_runtime": [_store("Figure 3"), _live("Figure 3" + SMOKE)],
    "notebooks/appendix_f_coherence": [_store("Figure F.1"), _live("Figure F.1" + SMOKE)],
    "notebooks/appendix_i_airline": [_store("Figure 4"), _store("Figure I.1"), _live("Figure 4" + SMOKE)],
    "notebooks/appendix_j_statistics": [_store("Figure J.1"), _store("Figure J.2"), _live("Figure J.1" + SMOKE)],
    "notebooks/privacy_audit": [
        _store("Figure P.1"),
        _store("Figure P.2"),
        _store("Figure P.3"),
        _live("Figure P.1" + SMOKE),
    ],
    "notebooks/kernel_rp_vs_rff": [
        _store("Figure K.1"),
        _store("Figure K.2"),
        _store("Figure K.3"),
        _live("Figure K.1" + SMOKE),
        _live("Figure K.2" + SMOKE),
        _live("Figure K.3" + SMOKE),
    ],
    "notebooks/kernel_rates": [_store("Figure R.1"), _live("Figure R.1" + SMOKE)],
    "notebooks/solver_choice": [_store("Figure C.1"), _store("Figure C.2"), _live("Figure C.1" + SMOKE)],
    "notebooks/regime_map": [_store("Figure M.1"), _store("Figure M.2"), _live("Figure M.1" + SMOKE)],
    "notebooks/beyond_one_machine": [_store("Figure B.1"), _live("Figure B.1" + SMOKE)],
    "notebooks/hello_fastmix": [_live("Figure H.1")],
}

#: Phrases of the store note (fastmix_companion.store.entry_markdown) that excuse a missing stored figure.
UNFINISHED_NOTES = (
    "No paper-scale results are stored for this page yet",
    "has not recorded its provenance yet",
    "The run is not finished",
)
