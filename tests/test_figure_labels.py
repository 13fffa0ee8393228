"""Every figure cell of the notebooks carries the label of the numbering table, and a caption.

``tests/figure_labels.py`` holds the papers' numbering (page -> figure labels). Here the
notebooks' sources are read without executing them: each cell that draws a figure must have
``mystnb.figure`` metadata whose caption starts with its bold label ("**Figure 2.**") and pastes
the caption text the cell computes (``{glue:md}`<name>-caption:myst```, handed over by
``caption("<name>", ...)`` in the same cell). The built pages are checked in
``tests/test_book_render.py``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from conftest import ROOT
from figure_labels import FASTMIX_PAPER_FIGURES, PAGES, SMOKE

NOTEBOOKS = sorted(p for p in (ROOT / "notebooks").glob("*.py") if not p.name.startswith(("_", ".")))
_LABEL = re.compile(r"^\*\*(?P<label>[^*]+?)\.\*\* \{glue:md\}`(?P<key>[^`:]+)(:myst)?`$")


def _cells(path: Path):
    import jupytext

    return [c for c in jupytext.read(str(path)).cells if c.cell_type == "code"]


def _draws_a_figure(source: str) -> bool:
    """A cell draws a figure when it calls plt.show() or a draw_* helper outside a function definition."""
    source = re.sub(r"^\s*[%!].*$", "", source, flags=re.M)
    tree = ast.parse(source)
    inside = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.Lambda)) for n in ast.walk(f)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or id(node) in inside:
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else (func.attr if isinstance(func, ast.Attribute) else "")
        if name.startswith("draw_") or (
            name == "show" and isinstance(func, ast.Attribute) and getattr(func.value, "id", "") == "plt"
        ):
            return True
    return False


def _figure_cells(path: Path):
    """(label, name, glue key, cell source) of every figure cell, in order; fails on unlabelled ones."""
    found = []
    for cell in _cells(path):
        figure = cell.metadata.get("mystnb", {}).get("figure")
        if figure is None:
            assert not _draws_a_figure(cell.source), (
                f"{path.name}: a cell draws a figure without mystnb.figure metadata (label and caption):\n"
                f"{cell.source[:300]}"
            )
            continue
        match = _LABEL.match(figure.get("caption", ""))
        assert match, f"{path.name}: caption {figure.get('caption')!r} does not start with a bold label and a glue role"
        found.append((match["label"], figure.get("name"), match["key"], cell.source))
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_figure_cells_carry_the_labels_of_the_numbering_table(path):
    page = f"notebooks/{path.stem}"
    cells = _figure_cells(path)
    expected = [label.text for label in PAGES.get(page, [])]
    assert [c[0] for c in cells] == expected, f"{path.name}: labels {[c[0] for c in cells]}, table says {expected}"
    names = [c[1] for c in cells]
    assert len(set(names)) == len(names) and all(names), f"{path.name}: figure names must be unique: {names}"
    for label, name, key, source in cells:
        assert key == f"{name}-caption", f"{path.name}: {label} pastes {key!r}, expected {name}-caption"
        assert re.search(rf"caption\(\s*[\"']{re.escape(name)}[\"']", source), (
            f"{path.name}: the cell of {label} does not hand over its caption with caption({name!r}, ...)"
        )


def test_the_numbering_table_follows_the_papers():
    pages_of = {}
    for page, labels in PAGES.items():
        assert (ROOT / f"{page}.py").is_file(), f"the table names a page that does not exist: {page}"
        for label in labels:
            pages_of.setdefault(label.text, []).append(page)
            number = re.fullmatch(r"Figure (\d+)", label.text)
            if number:  # a paper's number: only at paper scale, from the store, and a figure the paper has
                assert label.source == "store" and label.text in FASTMIX_PAPER_FIGURES, (page, label)
            if label.source == "live" and re.match(r"Figure \d+\b", label.text):
                assert label.text.endswith(SMOKE), f"{page}: a live figure claims a paper number: {label.text}"
    duplicates = {label: pages for label, pages in pages_of.items() if len(pages) > 1}
    assert not duplicates, f"labels used on more than one page: {duplicates}"
    assert {"Figure 1", "Figure 2", "Figure 3", "Figure 4"} <= set(pages_of)
    assert pages_of["Figure 2"] == ["notebooks/figure2_dp_ols"]
    assert pages_of["Figure 4"] == ["notebooks/appendix_i_airline"]


def test_the_check_catches_an_unlabelled_figure_cell(tmp_path):
    """Negative control: a notebook whose figure cell lost its metadata is reported."""
    source = (ROOT / "notebooks" / "hello_fastmix.py").read_text(encoding="utf-8")
    broken = re.sub(r"^# %% mystnb=.*$", "# %%", source, flags=re.M)
    assert broken != source
    copy = tmp_path / "hello_fastmix.py"
    copy.write_text(broken, encoding="utf-8")
    with pytest.raises(AssertionError, match=r"without mystnb\.figure metadata"):
        _figure_cells(copy)
