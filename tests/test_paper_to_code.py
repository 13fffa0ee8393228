"""The "Paper to code" page (book/paper_to_code.md) against the package and the book.

The page has one section per paper, each with a table whose rows map a numbered object of that
paper (definition, proposition, lemma, theorem, corollary, claim, assumption, algorithm,
equation, figure, table) to the functions and classes that implement it (``{py:func}``,
``{py:class}``, ``{py:meth}`` references in the "Code" column) and to the book pages that
reproduce it (``{doc}`` links). These tests read the page as text (no Sphinx) and check that

* every referenced object imports under its dotted path;
* its docstring cites the row's paper object (normalisation below), and the paper is named
  in that docstring or in the docstring of the module that defines the object, so the two
  papers' objects with the same number (both have Algorithms 1-3, Theorems 1-2, Lemmas 1-2,
  Propositions 1-2, ...) cannot be confused;
* every ``{doc}`` target is a page of the book (in ``_toc.yml``, with its file present);
* a row that names no code and no page says "not implemented";
* every figure label of ``tests/figure_labels.py`` appears on the page.

Citation normalisation
----------------------
A citation is a pair (kind, number). The kind word is matched case-insensitively, singular or
plural, spelled out or abbreviated: ``Algorithm``/``Alg.``, ``Theorem``/``Thm.``,
``Lemma``/``Lem.``, ``Definition``/``Def.``, ``Proposition``/``Prop.``, ``Corollary``/``Cor.``,
``Claim``, ``Assumption``, ``Figure``/``Fig.``, ``Table``/``Tab.`` and, for equations, ``Eq.``,
``Eqs.``, ``Eqn.``, ``equation``. So "Theorem 2", "Thm. 2" and "theorem 2" are the same citation;
"eq. 7", "Eq. (7)" and "equation (7)" too. The kind is followed by one number or a list of
numbers, parenthesised or not, joined by commas, slashes, "and" or a dash; a dash between two
whole numbers is a range: "eqs. (50)-(52)" cites 50, 51 and 52, "eq. 16, 23" cites 16 and 23,
"eq. 114/185" cites 114 and 185. Numbers keep their dots ("Theorem 3.16" is not "Theorem 3").
A row is satisfied by a docstring that contains every citation of the row's paper object.

Docstrings outside the files this page's author may edit that lack a citation are listed in
``PENDING``; ``test_pending_entries_are_still_pending`` fails once one of them is cited, so the
list can only shrink.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest
from figure_labels import FASTMIX_PAPER_FIGURES, PAGES, SMOKE

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "book" / "paper_to_code.md"

#: section heading of the page -> (short name, phrases that name the paper in a docstring)
PAPERS = {
    "The FastMix paper": ("fastmix", ("FastMix paper", "2605.30600")),
    "The kernel paper": ("kernel", ("kernel paper", "2507.17544")),
}

#: (paper, paper object as written on the page, dotted path): rows whose docstring does not
#: cite the paper object yet. Each is listed in the page's note for that row as well.
PENDING: set = set()

_KINDS = {
    "algorithm": "Algorithm",
    "alg": "Algorithm",
    "theorem": "Theorem",
    "thm": "Theorem",
    "lemma": "Lemma",
    "lem": "Lemma",
    "definition": "Definition",
    "def": "Definition",
    "proposition": "Proposition",
    "prop": "Proposition",
    "corollary": "Corollary",
    "cor": "Corollary",
    "claim": "Claim",
    "assumption": "Assumption",
    "figure": "Figure",
    "fig": "Figure",
    "table": "Table",
    "tab": "Table",
    "eq": "Eq.",
    "eqs": "Eq.",
    "eqn": "Eq.",
    "eqns": "Eq.",
    "equation": "Eq.",
}
_NUM = r"\(?\d+(?:\.\d+)*\)?"
_SEP = r"\s*(?:,|/|\band\b|-|\u2013|\u2014)\s*"
_CITE = re.compile(
    r"\b(algorithms?|alg\.|theorems?|thm\.|lemmas?|lem\.|definitions?|def\.|propositions?|prop\.|"
    r"corollar(?:y|ies)|cor\.|claims?|assumptions?|figures?|fig\.|tables?|tab\.|"
    r"eqs?\.|eqns?\.|equations?)\s*(" + _NUM + r"(?:" + _SEP + _NUM + r")*)",
    re.IGNORECASE,
)


def _kind(word: str) -> str:
    w = word.lower().rstrip(".")
    if w.endswith("ies"):
        w = w[:-3] + "y"
    elif w not in _KINDS and w.endswith("s"):
        w = w[:-1]
    return _KINDS[w]


def citations(text: str) -> set[tuple[str, str]]:
    """Every (kind, number) cited in ``text``, by the normalisation of the module docstring."""
    out: set[tuple[str, str]] = set()
    for m in _CITE.finditer(text):
        kind = _kind(m.group(1))
        parts = re.split(r"(" + _SEP + r")", m.group(2))
        nums = [p.strip("()") for p in parts[0::2]]
        seps = [s.strip() for s in parts[1::2]]
        out.update((kind, n) for n in nums)
        for a, sep, b in zip(nums, seps, nums[1:], strict=False):
            if sep in ("-", "\u2013", "\u2014") and a.isdigit() and b.isdigit() and int(a) < int(b) <= int(a) + 20:
                out.update((kind, str(i)) for i in range(int(a), int(b) + 1))
    return out


_REF = re.compile(r"\{py:(func|class|meth)\}`~?([^`<>]+?)`")
_DOC = re.compile(r"\{doc\}`(?:[^`<]*<)?([^`>]+)>?`")


def _rows():
    """(paper, paper object cell, code cell, notes cell) for every table row of the page."""
    paper = None
    rows = []
    header = None
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            title = line[3:].strip()
            paper = next((v[0] for k, v in PAPERS.items() if title.startswith(k)), None)
            header = None
            continue
        if paper is None or not line.startswith("|"):
            header = None if not line.startswith("|") else header
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = [c.lower() for c in cells]
            continue
        if set(line.replace("|", "").strip()) <= set("-: "):
            continue
        row = dict(zip(header, cells, strict=False))
        rows.append((paper, row["paper object"], row["code"], row["notes"], row["book page"]))
    return rows


ROWS = _rows()


def _resolve(path: str):
    """Import the longest module prefix of ``path`` and walk the attributes after it."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(path)


def _doc(obj) -> str:
    """The docstring of ``obj`` with its whitespace (line breaks) collapsed to single spaces."""
    return " ".join((inspect.getdoc(obj.fget if isinstance(obj, property) else obj) or "").split())


def _defining_module_doc(obj) -> str:
    target = obj.fget if isinstance(obj, property) else obj
    return _doc(importlib.import_module(target.__module__))


def _cited(paper: str, paper_object: str, path: str) -> tuple[bool, str]:
    obj = _resolve(path)
    doc = _doc(obj)
    wanted = citations(paper_object)
    missing = wanted - citations(doc)
    names = next(v[1] for v in PAPERS.values() if v[0] == paper)
    named = any(n in doc or n in _defining_module_doc(obj) for n in names)
    why = []
    if missing:
        why.append(f"docstring lacks {sorted(missing)}")
    if not named:
        why.append(f"neither the docstring nor its module names the {paper} paper")
    return not why, "; ".join(why)


CODE_CELLS = [(paper, obj, path) for paper, obj, code, _, _ in ROWS for _, path in _REF.findall(code)]


def test_page_has_both_papers_and_rows():
    papers = {r[0] for r in ROWS}
    assert papers == {"fastmix", "kernel"}, papers
    assert len(ROWS) > 40
    # both papers' Algorithm 2 are rows, each in its own paper's table
    for paper in ("fastmix", "kernel"):
        assert any(("Algorithm", "2") in citations(obj) for p, obj, *_ in ROWS if p == paper)


def test_normalisation():
    assert citations("Thm. 2") == citations("Theorem 2") == {("Theorem", "2")}
    assert citations("eq. 7") == citations("Eq. (7)") == citations("equation (7)") == {("Eq.", "7")}
    assert citations("eqs. (50)-(52)") == {("Eq.", "50"), ("Eq.", "51"), ("Eq.", "52")}
    assert citations("eq. 16, 23") == {("Eq.", "16"), ("Eq.", "23")}
    assert citations("eq. 114/185") == {("Eq.", "114"), ("Eq.", "185")}
    assert citations("Lemmas 4-5") == {("Lemma", "4"), ("Lemma", "5")}
    assert citations("Theorem 3.16") == {("Theorem", "3.16")}
    assert ("Theorem", "3") not in citations("Theorem 3.16")
    assert citations("Algorithm 2 (Fast IHM)") == {("Algorithm", "2")}
    assert citations("Proposition 12") != citations("Proposition 1")


@pytest.mark.parametrize("paper,paper_object,path", CODE_CELLS, ids=[f"{p}:{o}:{c}" for p, o, c in CODE_CELLS])
def test_code_cites_its_paper_object(paper, paper_object, path):
    assert citations(paper_object), f"row {paper_object!r} names no numbered paper object"
    ok, why = _cited(paper, paper_object, path)
    if (paper, paper_object, path) in PENDING:
        pytest.skip(f"pending citation: {why}")
    assert ok, f"{path} is mapped to {paper_object} of the {paper} paper, but {why}"


def test_pending_entries_are_still_pending():
    on_page = set(CODE_CELLS)
    for entry in sorted(PENDING):
        assert entry in on_page, f"PENDING entry {entry} is not a row of the page"
        ok, _ = _cited(*entry)
        assert not ok, f"{entry[2]} cites {entry[1]} now: remove it from PENDING"


def test_notes_references_import():
    for _, _, _, notes, _ in ROWS:
        for _, path in _REF.findall(notes):
            _resolve(path)


def _toc_files() -> set[str]:
    return set(re.findall(r"^\s*(?:-\s*)?(?:file|root):\s*(\S+)", (ROOT / "_toc.yml").read_text(), re.M))


def test_doc_targets_are_book_pages():
    toc = _toc_files()
    assert "book/paper_to_code" in toc
    targets = {t for *_, page in ROWS for t in _DOC.findall(page)}
    targets |= set(_DOC.findall(PAGE.read_text(encoding="utf-8")))
    assert targets
    for t in sorted(targets):
        doc = t[1:] if t.startswith("/") else str((Path("book") / t).as_posix())
        doc = str(Path(doc).as_posix()).replace("book/../", "")
        assert doc.split("/")[0] in ("notebooks", "book"), t
        assert any((ROOT / (doc + ext)).is_file() for ext in (".md", ".py", ".ipynb")), f"{t}: no such file"
        assert doc in toc, f"{t} is not in _toc.yml"


def test_rows_without_code_or_page_say_not_implemented():
    for paper, obj, code, notes, page in ROWS:
        if not _REF.search(code) and not _DOC.search(page):
            assert "not implemented" in notes.lower(), f"{paper}: {obj} names nothing and does not say so"


def test_every_figure_label_is_on_the_page():
    text = PAGE.read_text(encoding="utf-8")
    fastmix_objects = {c for p, obj, *_ in ROWS if p == "fastmix" for c in citations(obj)}
    for label in FASTMIX_PAPER_FIGURES:
        assert citations(label) <= fastmix_objects, f"{label} of the FastMix paper has no row"
    for page, labels in PAGES.items():
        for label in labels:
            name = label.text.removesuffix(SMOKE)
            assert re.search(rf"\b{re.escape(name)}\b", text), f"{name} ({page}) is not on the page"
