"""fastmix_companion.pages: the display helpers every page shares."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

from fastmix_companion.pages import BOOK_STYLE, NO_CLAIMS, NO_FIGURE, caption, stored_entry, tex_num, use_book_style


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


def _displayed(monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda *objs, **kw: shown.extend(objs))
    return shown


def test_stored_entry_of_a_missing_entry_says_so(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("FASTMIX_RESULTS_DIR", str(tmp_path))
    shown = _displayed(monkeypatch)
    page = stored_entry("nothing_here", "runs", started_at=12.0)
    assert page.tables is None and page.status.state == "missing"
    assert page.data_sources == [] and page.started_at == 12.0
    page.show_note()
    page.show_claims([])
    page.show_claims([], missing="The checks need the stored results.")
    assert "No paper-scale results are stored" in shown[0].data
    assert shown[1].data == NO_CLAIMS and shown[2].data == "The checks need the stored results."
    page.no_figure()
    assert capsys.readouterr().out.strip() == NO_FIGURE


def test_stored_entry_loads_the_tables_and_shows_the_claims(monkeypatch, tmp_path):
    import pandas as pd

    from fastmix_companion.claims import Claim, claims_markdown
    from fastmix_companion.store import ResultsStore

    monkeypatch.setenv("FASTMIX_RESULTS_DIR", str(tmp_path))
    store = ResultsStore("toy")
    store.start({"n": 3, "seed": 0})
    store.put_table("runs", pd.DataFrame({"cell": ["a"], "x": [1.0]}))
    assert stored_entry("toy", "runs", "other").tables is None  # all or nothing
    page = stored_entry("toy", "runs")
    assert list(page.tables["runs"]["x"]) == [1.0]
    assert page.parameters() == {"n": 3, "seed": 0}
    assert page.data_sources == [store.path / "provenance.json"]
    shown = _displayed(monkeypatch)
    claims = [Claim("c", "the paper", "1.0", "rule", True)]
    page.show_claims(claims)
    assert shown[0].data == claims_markdown(claims)


def test_every_result_page_cites_the_paper_of_its_part_and_the_companion():
    from pathlib import Path

    from fastmix_companion.pages import page_citations

    root = Path(__file__).resolve().parents[1]
    pages = sorted(p for p in (root / "notebooks").glob("*.py") if "stored_entry(" in p.read_text(encoding="utf-8"))
    assert len(pages) >= 10
    for page in pages:
        assert "page.show_citation()" in page.read_text(encoding="utf-8"), page.name
        text = page_citations(page.stem)
        assert "@software{fastmix_companion," in text, page.name
        kernel = page.stem.startswith("kernel_")
        assert ("@misc{lee2025optimal," in text) is kernel and ("@misc{lev2026fastmix," in text) is not kernel
    assert page_citations("hello_fastmix") == ""  # a page of no paper's part cites nothing here


def test_page_citations_is_empty_without_the_generated_entries(tmp_path):
    from fastmix_companion.pages import page_citations

    (tmp_path / "book").mkdir()
    (tmp_path / "_toc.yml").write_text(
        "parts:\n  - caption: The FastMix paper\n    chapters:\n      - file: notebooks/figure2_dp_ols\n",
        encoding="utf-8",
    )
    (tmp_path / "book" / "intro.md").write_text("# no citation block\n", encoding="utf-8")
    assert page_citations("figure2_dp_ols", root=tmp_path) == ""
    block = "% cite-this:start\n```bibtex\n@misc{lev2026fastmix,\n  title = {T}\n}\n\n@software{fastmix_companion,\n"
    (tmp_path / "book" / "intro.md").write_text(block + "  title = {C}\n}\n```\n% cite-this:end\n", encoding="utf-8")
    text = page_citations("figure2_dp_ols", root=tmp_path)
    assert "@misc{lev2026fastmix,\n  title = {T}\n}" in text and "@software{fastmix_companion," in text
