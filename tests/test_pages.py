"""fastmix_companion.pages: the display helpers every page shares."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

from fastmix_companion.pages import BOOK_STYLE, caption, tex_num, use_book_style


@pytest.mark.parametrize("x, text", [(1e-5, "10^{-5}"), (2.5e-6, "2.5 \\cdot 10^{-6}"), (0.3, "0.3"), (100, "100")])
def test_tex_num(x, text):
    assert tex_num(x) == text


def test_use_book_style_sets_the_text_sizes():
    with plt.rc_context():
        use_book_style()
        assert all(plt.rcParams[k] == v for k, v in BOOK_STYLE.items())


def test_caption_writes_myst_nb_glue(monkeypatch):
    seen = {}
    monkeypatch.setattr("IPython.display.display", lambda data, raw, metadata: seen.update(data=data, meta=metadata))
    caption("fig-x", "a $k_2$ caption")
    assert seen["data"] == {"application/papermill.record/text/markdown": "a $k_2$ caption"}
    assert seen["meta"]["scrapbook"]["name"] == "fig-x-caption"
