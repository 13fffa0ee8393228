"""The built book renders offline and reads like the papers.

Maths is typeset by the local MathJax and every image loads; every figure carries the label of
the papers' numbering (``tests/figure_labels.py``) and a caption, without Sphinx's book-wide
"Fig. N"; no output, code cell or re-run box is wider than the content column; and each notebook
page's re-run box holds the commands that ``book/_ext/fastmix_book.py`` generates.

These tests read the HTML that the book command writes (``_build/html``; another folder via
``FASTMIX_BOOK_HTML``). The browser tests open every page through ``file://`` in headless
Chromium (Debian's ``chromium`` + ``chromium-driver``; other paths via ``FASTMIX_CHROMIUM`` and
``FASTMIX_CHROMEDRIVER``) with name resolution switched off, so a page that still needed the
network would fail. Without a built book or a browser they skip, unless
``FASTMIX_REQUIRE_BROWSER=1`` (set by ``.ci/run``), in which case they fail.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import ROOT, skip_or_fail

from check_links import content_pages

sys.path.insert(0, str(ROOT / "book" / "_ext"))
try:  # the extension needs Sphinx, which comes with the book dependencies, not the test ones
    import fastmix_book
except ImportError as exc:  # pragma: no cover - depends on the environment
    fastmix_book = None  # type: ignore[assignment]  # the tests that need it skip
    _EXTENSION_ERROR = exc

_missing = skip_or_fail


@pytest.fixture
def extension():
    if fastmix_book is None:
        skip_or_fail(f"the book extension cannot be imported ({_EXTENSION_ERROR}); install the book extra")
    return fastmix_book


_REDIRECT = re.compile(r'<meta http-equiv="refresh" content="\d+;\s*url=([^"]+)"', re.I)


def _pages(book: Path) -> list[Path]:
    """The book's content pages: no index/search pages, no theme fragments, no redirects.

    A redirect page (the root index.html) would navigate the browser away in the middle of
    checking the next page, so it is checked on its own by the redirect test.
    """
    skip = {"genindex.html", "search.html", "py-modindex.html"}
    return [
        p for p in content_pages(book) if p.name not in skip and not _REDIRECT.search(p.read_text(encoding="utf-8"))
    ]


def test_the_root_page_redirects_to_a_page_of_the_book(book):
    match = _REDIRECT.search((book / "index.html").read_text(encoding="utf-8"))
    assert match, "index.html is expected to redirect to the book's first page"
    assert (book / match.group(1)).is_file(), match.group(1)


class _Collector(HTMLParser):
    """Resource references (tag, attribute, value) and the text of chosen elements."""

    def __init__(self, text_class: str | None = None):
        super().__init__()
        self.refs: list[tuple[str, str, str]] = []
        self.loads: list[tuple[str, str]] = []  # (tag, address) of resources the page fetches
        self.math = 0  # elements of class "math" (Sphinx's inline and display maths)
        self.images = 0
        self.text_class = text_class
        self.texts: list[str] = []
        self._depth = 0
        self._buffer: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("src", "href"):
            if attrs.get(key):
                self.refs.append((tag, key, attrs[key]))
        if tag in ("script", "img", "iframe", "source", "embed", "video", "audio") and attrs.get("src"):
            self.loads.append((tag, attrs["src"]))
        if "math" in (attrs.get("class") or "").split():
            self.math += 1
        if tag == "img":
            self.images += 1
        rel = (attrs.get("rel") or "").split()
        if tag == "link" and attrs.get("href") and {"stylesheet", "preload", "modulepreload", "icon"} & set(rel):
            self.loads.append((tag, attrs["href"]))
        if self._depth:
            self._depth += 1
        elif self.text_class and self.text_class in (attrs.get("class") or "").split():
            self._depth = 1
            self._buffer = []

    def handle_endtag(self, tag):
        if self._depth:
            self._depth -= 1
            if not self._depth:
                self.texts.append("".join(self._buffer))

    def handle_data(self, data):
        if self._depth:
            self._buffer.append(data)


def _parse(page: Path, text_class: str | None = None) -> _Collector:
    collector = _Collector(text_class)
    collector.feed(page.read_text(encoding="utf-8"))
    return collector


# --------------------------------------------------------------------------- static checks


def test_no_page_loads_anything_from_the_network(book):
    """Scripts, styles, images and frames all come from the book itself (links may point out)."""
    offenders = []
    for page in _pages(book):
        for tag, value in _parse(page).loads:
            if re.match(r"^(https?:)?//", value):
                offenders.append(f"{page.relative_to(book)}: <{tag}> {value}")
    assert not offenders, "pages load remote resources:\n" + "\n".join(offenders)


def test_mathjax_is_served_locally(book):
    component = book / "_static" / "mathjax" / "tex-svg-full.js"
    assert component.is_file() and component.stat().st_size > 500_000
    assert (book / "_static" / "mathjax" / "LICENSE").is_file()
    math_pages = [p for p in _pages(book) if 'class="math' in p.read_text(encoding="utf-8")]
    assert len(math_pages) >= 5
    for page in math_pages:
        scripts = [v for t, k, v in _parse(page).refs if t == "script" and "mathjax" in v.lower()]
        # Sphinx may add a cache-busting query (?v=<checksum>) once the file exists in the output
        assert scripts and all(v.split("?")[0].endswith("_static/mathjax/tex-svg-full.js") for v in scripts), (
            page,
            scripts,
        )


def test_every_notebook_page_has_a_rerun_box_with_the_exact_command(book, extension):
    from fastmix_companion import run

    for name, _ in run.list_notebooks():
        page = book / "notebooks" / f"{name}.html"
        if not page.is_file():  # not in the table of contents
            continue
        path = run.resolve_notebook(name)
        expected_blocks = [
            ("fastmix-rerun-command", fastmix_book.launcher_command(path)),  # no override: the page's run
            ("fastmix-rerun-papermill", fastmix_book.papermill_box_command(path)),
        ]
        if name in run.load_paper_scale():
            expected_blocks.append(("fastmix-rerun-paper", fastmix_book.launcher_command(path, paper_scale=True)))
        for css_class, expected in expected_blocks:
            texts = _parse(page, css_class).texts
            assert len(texts) == 1, f"{page.name}: expected one {css_class} block, found {len(texts)}"
            assert texts[0].strip() == expected.strip(), page.name
            assert "from the repository root" in page.read_text(encoding="utf-8"), page.name


def test_rerun_box_commands_call_the_virtual_environment_and_fit_the_column(extension):
    """The box's commands name .venv/bin executables (the README never activates the venv), one option a line."""
    from fastmix_companion import run

    for name, _ in run.list_notebooks():
        box = fastmix_book.rerun_box(run.resolve_notebook(name))
        blocks = [node.astext() for node in box.findall(lambda n: n.tagname == "literal_block")]
        assert blocks, name
        for text in blocks:
            for line in text.splitlines():
                assert len(line) <= 90, f"{name}: box line of {len(line)} characters: {line!r}"
            commands = [
                ln.strip().lstrip("| ").split()[0]
                for ln in text.splitlines()
                if re.match(r"^\s*(\|\s*)?[./a-z]*(python|jupytext|papermill)\b", ln.strip().lstrip("| "))
            ]
            assert commands and all(c.startswith(".venv/bin/") for c in commands), (name, commands)


class _Figures(HTMLParser):
    """Each <figure>'s caption label (the first bold text of its caption) and whether Sphinx numbered it;
    and the output images that sit outside any figure."""

    def __init__(self):
        super().__init__()
        self.figures: list[dict] = []
        self.loose_images = 0
        self._figure_depth = 0
        self._in_output = 0
        self._in_caption = False
        self._in_strong = False
        self._tags: list[tuple[str, bool, bool]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if tag in ("br", "img", "hr", "meta", "link", "input", "source", "wbr"):
            if tag == "img" and self._in_output and not self._figure_depth:
                self.loose_images += 1
            if tag == "img" and self._figure_depth:
                self.figures[-1]["images"] += 1
            return
        opens_figure = tag == "figure"
        opens_output = "cell_output" in classes
        self._tags.append((tag, opens_figure, opens_output))
        if opens_figure:
            self._figure_depth += 1
            self.figures.append(
                {"id": attrs.get("id", ""), "label": None, "numbered": False, "caption": "", "images": 0}
            )
        if opens_output:
            self._in_output += 1
        if self._figure_depth and tag == "figcaption":
            self._in_caption = True
        if self._in_caption and "caption-number" in classes:
            self.figures[-1]["numbered"] = True
        if self._in_caption and tag == "strong" and self.figures[-1]["label"] is None:
            self._in_strong = True
            self.figures[-1]["label"] = ""

    def handle_endtag(self, tag):
        if tag not in [name for name, _, _ in self._tags]:  # a void element (<img />) or stray end tag
            return
        while self._tags:
            name, opened_figure, opened_output = self._tags.pop()
            if opened_figure:
                self._figure_depth -= 1
            if opened_output:
                self._in_output -= 1
            if name == "figcaption":
                self._in_caption = False
            if name == "strong":
                self._in_strong = False
            if name == tag:
                break

    def handle_data(self, data):
        if self._in_strong:
            self.figures[-1]["label"] += data
        if self._in_caption:
            self.figures[-1]["caption"] += data


def test_figure_labels_follow_the_papers_numbering(book):
    """Each page's figures carry, in order, the labels of tests/figure_labels.py, with captions."""
    from figure_labels import PAGES, UNFINISHED_NOTES

    problems = []
    seen = set()
    for page in _pages(book):
        doc = page.relative_to(book).with_suffix("").as_posix()
        parser = _Figures()
        html = page.read_text(encoding="utf-8")
        parser.feed(html)
        labels = [(f["label"] or "").strip().rstrip(".") for f in parser.figures]
        if parser.loose_images:
            problems.append(f"{doc}: {parser.loose_images} output image(s) outside a captioned figure")
        for f in parser.figures:
            if f["numbered"]:
                problems.append(f"{doc}: figure {f['id']} carries Sphinx's book-wide number")
            words = f["caption"].split()
            if len(words) < 12:
                problems.append(f"{doc}: figure {f['label']!r} has no real caption: {f['caption']!r}")
        if doc not in PAGES:
            if labels:
                problems.append(f"{doc}: figures {labels} are not in the numbering table tests/figure_labels.py")
            continue
        seen.add(doc)
        expected = PAGES[doc]
        unfinished = any(note in html for note in UNFINISHED_NOTES)
        allowed = [lab.text for lab in expected if lab.text in labels or lab.source == "live" or not unfinished]
        if labels != allowed:
            problems.append(
                f"{doc}: figure labels {labels}, expected {[lab.text for lab in expected]}"
                + (" (stored ones may be missing: the store entry is unfinished)" if unfinished else "")
            )
    missing = set(PAGES) - seen
    if missing:
        problems.append(f"pages of the numbering table not in the built book: {sorted(missing)}")
    assert not problems, "\n".join(problems)


def test_the_figure_label_check_catches_sphinx_numbers_and_a_wrong_label(book, tmp_path):
    """Negative control: a page whose first figure says "Fig. 4" and "Figure 5." is reported."""
    page = book / "notebooks" / "figure2_dp_ols.html"
    html = page.read_text(encoding="utf-8")
    tampered = re.sub(
        r"(<figcaption>\s*<p>)(<span class=\"caption-text\"><strong>)Figure 2\.",
        r'\1<span class="caption-number">Fig. 4 </span>\2Figure 5.',
        html,
        count=1,
    )
    assert tampered != html
    parser = _Figures()
    parser.feed(tampered)
    first = parser.figures[0]
    assert first["numbered"] and first["label"].strip().rstrip(".") == "Figure 5"


def test_launch_buttons_open_converted_notebooks_on_the_launch_branch(book):
    page = book / "notebooks" / "hello_fastmix.html"
    hrefs = [v for t, k, v in _parse(page).refs if t == "a" and k == "href"]
    binder = [h for h in hrefs if "/v2/gh/" in h]
    colab = [h for h in hrefs if "/github/" in h and "colab" in h]
    assert binder and colab, "no Binder or Colab button on a notebook page"
    for href in binder + colab:
        assert href.endswith("notebooks/hello_fastmix.ipynb"), href
        assert "/launch" in href and "/main" not in href, href


def test_launch_url_rewrite(extension):
    colab = "https://colab.example/github/o/r/blob/main/notebooks/a.py"
    assert (
        fastmix_book.launch_url(colab, "launch", "main")
        == "https://colab.example/github/o/r/blob/launch/notebooks/a.ipynb"
    )
    binder = "https://binder.example/v2/gh/o/r/main?urlpath=lab/tree/notebooks/a.py"
    assert fastmix_book.launch_url(binder, "launch", "main") == (
        "https://binder.example/v2/gh/o/r/launch?urlpath=lab/tree/notebooks/a.ipynb"
    )


# --------------------------------------------------------------------------- titles, alt text, citations


_TITLE = re.compile(r"<title>(.*?)</title>", re.S)
_RAW_TEX = re.compile(r"\\\(|\\\)|\\\[|\$[^$\s][^$]*\$|\\[a-zA-Z]{2,}")


def test_page_titles_and_search_titles_are_plain_text(book):
    r"""Tab titles and the search index's page titles carry no raw TeX (``\(n/d\)``) and no HTML."""
    problems = []
    for page in _pages(book):
        match = _TITLE.search(page.read_text(encoding="utf-8"))
        if match and _RAW_TEX.search(match.group(1)):
            problems.append(f"{page.relative_to(book).as_posix()}: <title>{match.group(1)}</title>")
    index = (book / "searchindex.js").read_text(encoding="utf-8")
    titles = re.search(r'"titles":\s*(\[.*?\])', index)
    assert titles, "no titles in searchindex.js"
    import json

    for title in json.loads(titles.group(1)):
        if _RAW_TEX.search(title) or "<span" in title:
            problems.append(f"searchindex.js title {title!r}")
    assert not problems, "\n".join(problems)


def test_the_title_check_catches_tex_in_a_title():
    """Negative control: the pattern the title test uses finds MathJax's inline delimiters."""
    assert _RAW_TEX.search(r"Appendix I / Figure 4: the extreme \(n/d\) regime")
    assert _RAW_TEX.search(r"the $n/d$ regime")
    assert not _RAW_TEX.search("Appendix I / Figure 4: the extreme n/d regime")


class _Images(HTMLParser):
    """``(alt, src, in a figure)`` of every image."""

    def __init__(self):
        super().__init__()
        self.images: list[tuple[str | None, str, bool]] = []
        self._figures = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "figure":
            self._figures += 1
        if tag == "img":
            self.images.append((attrs.get("alt"), attrs.get("src", ""), self._figures > 0))

    def handle_endtag(self, tag):
        if tag == "figure":
            self._figures -= 1


def _bad_alt(alt: str | None, src: str) -> bool:
    """Alt text that says nothing: missing, a file path or hash, or the image's own address."""
    if not alt or not alt.strip():
        return True
    alt = alt.strip()
    return alt == src or bool(re.search(r"\.(png|jpe?g|svg|gif)$|[0-9a-f]{16,}", alt, re.I))


def test_figures_have_meaningful_alt_text(book):
    """Every image of a figure has alt text from its caption ("Figure 2: ..."), never its hashed path."""
    problems, checked = [], 0
    for page in _pages(book):
        parser = _Images()
        parser.feed(page.read_text(encoding="utf-8"))
        for alt, src, in_figure in parser.images:
            if not in_figure:
                continue
            checked += 1
            if _bad_alt(alt, src):
                problems.append(f"{page.relative_to(book).as_posix()}: <img src={src!r} alt={alt!r}>")
    assert not problems, "\n".join(problems[:20])
    assert checked, "no figure images found"


def test_the_alt_check_catches_a_hashed_path():
    assert _bad_alt(
        "../_images/0a1b2c3d4e5f60718293a4b5c6d7e8f9.png", "../_images/0a1b2c3d4e5f60718293a4b5c6d7e8f9.png"
    )
    assert _bad_alt(None, "x.png") and _bad_alt("", "x.png")
    assert not _bad_alt("Figure 2: Excess risk of FastIHM against epsilon.", "x.png")


def test_formulas_become_plain_text_without_tex(extension):
    """Titles and alt text write formulas as text: symbols as characters, no backslash commands or grouping braces."""
    assert extension.tex_to_text("n/d") == "n/d"
    for tex, expected in (
        (r"\varepsilon \le 2^{-k}", "ε ≤ 2^-k"),
        (r"\tfrac{1}{n}\|y - X\hat\theta\|^2", "1/n‖y - Xθ‖^2"),
        (r"\tfrac1n\|y\|^2", "1/n‖y‖^2"),
        (r"k_2 = r\max\{d, \log(4T/\varrho)\}", "k_2 = r max{d, log(4T/ρ)}"),
        (r"\lambda_{\min}(X^\top X)", "λ_min(X^⊤ X)"),
    ):
        assert extension.tex_to_text(tex) == expected, tex
    assert "\\" not in extension.tex_to_text(r"\mathbb{E}\left[\mathrm{err}\right] \unknowncommand")


def test_figure_alt_text_comes_from_the_caption(extension):
    assert extension.figure_alt_text("Figure 2. Excess risk. More.") == "Figure 2: Excess risk."
    assert extension.figure_alt_text("Figure F.1 (smoke scale). The coherence. x") == (
        "Figure F.1 (smoke scale): The coherence."
    )


class _Citations(HTMLParser):
    """Texts of in-text citation links (``<a ... href="...bibliography.html#id...">``) and bibliography labels."""

    def __init__(self):
        super().__init__()
        self.refs: list[str] = []
        self.labels: list[str] = []
        self._ref = self._label = 0
        self._buffer: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if tag in ("br", "img", "wbr"):
            return
        if self._ref:
            self._ref += 1
            return
        if self._label:
            self._label += 1
            return
        if tag == "a" and "bibliography.html#id" in (attrs.get("href") or "") and "reference" in classes:
            self._ref, self._buffer = 1, []
        elif tag == "span" and "label" in classes:
            self._label, self._buffer = 1, []

    def handle_endtag(self, tag):
        if self._ref:
            self._ref -= 1
            if not self._ref:
                self.refs.append("".join(self._buffer).strip())
        elif self._label:
            self._label -= 1
            if not self._label:
                self.labels.append("".join(self._buffer).strip().strip("[]"))

    def handle_data(self, data):
        if self._ref or self._label:
            self._buffer.append(data)


_AUTHOR_YEAR = re.compile(r"^[^\d\[\]]+, (\d{4}[a-z]?|n\.d\.)$")


def test_citations_are_author_year_in_the_text_and_the_bibliography(book):
    """The bibliography's labels are "Lev et al., 2026a" (not numbers), unique, with a/b for the two
    Lev et al. 2026 papers; every citation in the text points at a label and writes its year the same way."""
    parser = _Citations()
    parser.feed((book / "book" / "bibliography.html").read_text(encoding="utf-8"))
    labels = [label for label in parser.labels if label]
    assert labels, "no bibliography labels"
    assert all(_AUTHOR_YEAR.match(label) for label in labels), [x for x in labels if not _AUTHOR_YEAR.match(x)]
    assert len(set(labels)) == len(labels), labels
    assert {"Lev et al., 2026a", "Lev et al., 2026b"} <= set(labels), labels
    years = {label.rsplit(", ", 1)[1] for label in labels}
    cited = 0
    for page in _pages(book):
        refs = _Citations()
        refs.feed(page.read_text(encoding="utf-8"))
        for text in refs.refs:
            cited += 1
            year = re.search(r"(\d{4}[a-z]?|n\.d\.)$", text)
            assert year and year.group(1) in years, (page.name, text)
            assert not re.fullmatch(r"\d{1,3}", text), (page.name, text)  # a numbered citation ("[3]")
    assert cited, "no citations found in the text"


def test_citation_labels_disambiguate_same_authors_and_year(extension):
    """Control on hand-made entries: two works of the same authors and year get a and b; others nothing."""
    from pybtex.database import Entry, Person

    def entry(key, year, *authors):
        e = Entry("article", fields={"year": year, "title": key})
        e.key = key
        for a in authors:
            e.add_person(Person(a), "author")
        return e

    entries = [
        entry("a", "2026", "Lev, Omri", "Shenfeld, Moshe", "Wilson, Ashia"),
        entry("b", "2026", "Lev, Omri", "Srinivasan, Vishwak", "Ligett, Katrina"),
        entry("c", "2016", "Pilanci, Mert", "Wainwright, Martin"),
        entry("d", "2011", "Tropp, Joel"),
    ]
    assert extension.author_year_labels(entries) == [
        "Lev et al., 2026a",
        "Lev et al., 2026b",
        "Pilanci and Wainwright, 2016",
        "Tropp, 2011",
    ]


# --------------------------------------------------------------------------- headless browser


def _find(env: str, names: tuple[str, ...]) -> str | None:
    if os.environ.get(env):
        return os.environ[env]
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def browser(book):
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _missing("selenium is not installed (it is in the test extra)")
    chromium = _find("FASTMIX_CHROMIUM", ("chromium", "chromium-browser", "google-chrome"))
    driver_path = _find("FASTMIX_CHROMEDRIVER", ("chromedriver",))
    if not chromium or not driver_path:
        _missing("no headless Chromium; on Debian: apt-get install chromium chromium-driver")
    os.environ.setdefault("SE_OFFLINE", "true")  # never let Selenium fetch a driver
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--allow-file-access-from-files",
        # offline: every host name fails to resolve, so any network fetch fails loudly
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--window-size=1280,1024",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    driver.set_script_timeout(60)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


_RENDER_REPORT = r"""
const done = arguments[arguments.length - 1];
const report = {mathjax: false, math: 0, typeset: 0, raw: [], errors: 0, images: 0, broken: []};
const images = Array.from(document.images);
report.images = images.length;
const decoded = Promise.all(images.map(img => {
  img.loading = 'eager';
  return img.decode().then(() => img.naturalWidth > 0 ? null : img.src, () => img.src);
}));
const typeset = (window.MathJax && MathJax.startup && MathJax.startup.promise)
  ? MathJax.startup.promise.then(() => true) : Promise.resolve(false);
Promise.all([decoded, typeset]).then(([broken, ok]) => {
  report.broken = broken.filter(x => x);
  report.mathjax = ok;
  const math = Array.from(document.querySelectorAll('.math'));
  report.math = math.length;
  for (const el of math) {
    const svg = el.querySelector('mjx-container svg');
    if (svg && svg.querySelector('use, path, rect, g')) { report.typeset += 1; }
    else if (report.raw.length < 5) { report.raw.push(el.textContent.slice(0, 80)); }
  }
  report.errors = document.querySelectorAll('mjx-merror, [data-mjx-error]').length;
  // LaTeX that was never turned into maths: text outside code and formulas that still reads like TeX
  report.rawtex = [];
  const walker = document.createTreeWalker(document.querySelector('main') || document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode() && report.rawtex.length < 5) {
    const node = walker.currentNode;
    if (node.parentElement.closest('pre, code, kbd, samp, script, style, mjx-container, .math, .highlight')) continue;
    const m = node.textContent.match(/\$[^$\s][^$]*\$|\\\(|\\\[|\\[a-zA-Z]{3,}\{/);
    if (m) report.rawtex.push(node.textContent.slice(Math.max(0, m.index - 30), m.index + 60));
  }
  done(report);
}, err => { report.failure = String(err); done(report); });
"""


def _open_and_report(browser, page: Path) -> dict:
    """Load ``page`` and wait until that document (not the previous one) is complete, then report."""
    from selenium.webdriver.support.ui import WebDriverWait

    uri = page.as_uri()
    browser.get(uri)
    WebDriverWait(browser, 30).until(
        lambda d: d.execute_script("return document.readyState === 'complete' && document.URL") == uri
    )
    return browser.execute_async_script(_RENDER_REPORT)


def test_pages_render_offline_in_headless_chromium(book, browser):
    pages = _pages(book)
    checked_math = checked_images = 0
    problems = []
    for page in pages:
        report = _open_and_report(browser, page)
        name = page.relative_to(book).as_posix()
        source = _parse(page)
        # the browser must have seen the page the file holds (guards against reading a blank or stale document)
        if report["math"] != source.math or report["images"] < source.images:
            problems.append(
                f"{name}: the browser saw {report['math']} formulas and {report['images']} images, "
                f"the file has {source.math} and {source.images}"
            )
        if report.get("failure"):
            problems.append(f"{name}: {report['failure']}")
        if report["math"]:
            if not report["mathjax"]:
                problems.append(f"{name}: {report['math']} formulas but MathJax did not start")
            elif report["typeset"] != report["math"]:
                problems.append(
                    f"{name}: {report['math'] - report['typeset']} of {report['math']} formulas not "
                    f"typeset, e.g. {report['raw']}"
                )
            if report["errors"]:
                problems.append(f"{name}: {report['errors']} MathJax errors")
            checked_math += report["typeset"]
        if report["broken"]:
            problems.append(f"{name}: images did not load: {report['broken'][:5]}")
        if report["rawtex"]:
            problems.append(f"{name}: LaTeX left as text: {report['rawtex']}")
        checked_images += report["images"] - len(report["broken"])
        for entry in browser.get_log("browser"):
            if entry["level"] == "SEVERE" and ("Failed to load" in entry["message"] or "ERR_" in entry["message"]):
                problems.append(f"{name}: {entry['message'][:200]}")
    assert not problems, "\n".join(problems)
    # the book has hundreds of formulas and a figure per notebook; a render test that saw none proves nothing
    assert checked_math > 200, checked_math
    assert checked_images > 20, checked_images
    print(f"{len(pages)} pages, {checked_math} formulas typeset, {checked_images} images loaded")


_OVERFLOW_REPORT = r"""
// Open every collapsed part (dropdown admonitions, hidden code cells), then report each element of an
// output, a code cell or the re-run box that reaches past the right edge of the content column, or that
// holds content wider than itself (cut off, or reachable only by scrolling sideways).
document.querySelectorAll('details').forEach(d => { d.open = true; });
document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
document.querySelectorAll('.dropdown').forEach(e => e.classList.add('toggle-shown'));
const column = document.querySelector('article.bd-article') || document.querySelector('main');
const right = column.getBoundingClientRect().right;
const report = {column: column.getBoundingClientRect().width, checked: 0, wide: []};
const roots = column.querySelectorAll('.cell_output, .cell_input, .fastmix-rerun');
for (const root of roots) {
  for (const el of [root, ...root.querySelectorAll('*')]) {
    if (el.closest('mjx-container, svg')) continue;
    const rect = el.getBoundingClientRect();
    if (rect.width === 0 || rect.height === 0) continue;
    report.checked += 1;
    const style = getComputedStyle(el);
    const clips = ['auto', 'scroll', 'hidden'].includes(style.overflowX);
    const past = rect.right - right;
    // a few pixels of clipping are glyph overhang, and inline formulas (span.math, inline-flex) report
    // their glyphs' overhang as scroll width without clipping anything: both are not hidden content
    const hidden = clips && !el.matches('span.math') ? el.scrollWidth - el.clientWidth : 0;
    if ((past > 1 || hidden > 4) && report.wide.length < 8) {
      const what = el.tagName.toLowerCase() + (el.className && typeof el.className === 'string'
        ? '.' + el.className.trim().split(/\s+/).join('.') : '');
      report.wide.push(`${what} ${past > 1 ? Math.round(past) + 'px past the column' : ''}`
        + `${hidden > 4 ? ' ' + hidden + 'px of content cut off or scrolled' : ''}: `
        + (el.textContent || '').trim().slice(0, 60));
    }
  }
}
return report;
"""


def test_no_output_is_wider_than_the_content_column(book, browser):
    """Figures, tables, printed text, code and the re-run box all fit the column (nothing cut off on the right)."""
    problems, checked = [], 0
    for page in _pages(book):
        _open_and_report(browser, page)
        report = browser.execute_script(_OVERFLOW_REPORT)
        checked += report["checked"]
        for item in report["wide"]:
            problems.append(f"{page.relative_to(book).as_posix()} (column {report['column']:.0f}px): {item}")
        browser.get_log("browser")
    assert not problems, "\n".join(problems)
    assert checked > 500, checked  # outputs were found and measured


def test_the_width_check_catches_a_wide_output(book, browser, tmp_path):
    """Negative control: a page with a 3000-pixel-wide printed line in an output is reported."""
    page = book / "notebooks" / "hello_fastmix.html"
    shutil.copytree(book, tmp_path, dirs_exist_ok=True)
    copy = tmp_path / page.relative_to(book)
    html = copy.read_text(encoding="utf-8")
    cut = html.index('<div class="cell_output')
    wide = (
        '<div class="cell_output docutils container"><pre style="white-space: pre; width: 3000px">'
        + "x" * 400
        + "</pre></div>"
    )
    copy.write_text(html[:cut] + wide + html[cut:], encoding="utf-8")
    _open_and_report(browser, copy)
    report = browser.execute_script(_OVERFLOW_REPORT)
    assert any("past the column" in item for item in report["wide"]), report
    browser.get_log("browser")


def test_the_render_check_catches_a_page_without_mathjax(book, browser, tmp_path):
    """Negative control: the same check on a copy whose MathJax is missing must report it."""
    page = next(p for p in _pages(book) if 'class="math' in p.read_text(encoding="utf-8"))
    copy = tmp_path / page.relative_to(book)
    shutil.copytree(book, tmp_path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("tex-svg-full.js"))
    report = _open_and_report(browser, copy)
    assert report["math"] > 0 and report["typeset"] == 0
    browser.get_log("browser")  # drain


def test_the_render_check_catches_latex_left_as_text(book, browser, tmp_path):
    """Negative control: a paragraph whose dollars were never parsed is reported."""
    page = next(p for p in _pages(book) if 'class="math' in p.read_text(encoding="utf-8"))
    shutil.copytree(book, tmp_path, dirs_exist_ok=True)
    copy = tmp_path / page.relative_to(book)
    html = copy.read_text(encoding="utf-8")
    start = html.index("<main")
    cut = html.index(">", start) + 1
    copy.write_text(html[:cut] + "<p>an unparsed formula $x^2 + \\lambda$ here</p>" + html[cut:], encoding="utf-8")
    report = _open_and_report(browser, copy)
    assert any("x^2" in hit for hit in report["rawtex"]), report["rawtex"]
    browser.get_log("browser")


_CLAIMS_REPORT = r"""
// Every claims table (found by its header, not by the extension's class): how far it reaches past the content
// column, whether its scroll box hides content, and which cells hold content wider than themselves.
const column = document.querySelector('article.bd-article') || document.querySelector('main');
const right = column.getBoundingClientRect().right;
const report = {column: column.getBoundingClientRect().width, tables: 0, cells: 0, wide: []};
for (const table of column.querySelectorAll('table')) {
  const heads = Array.from(table.querySelectorAll('thead th')).map(th => th.textContent.trim());
  // a claims table: a "claim" column, and its verdicts or how each claim was checked
  if (!heads.includes('claim') || !['verdict', 'says', 'decision rule'].some(h => heads.includes(h))) continue;
  report.tables += 1;
  const rect = table.getBoundingClientRect();
  if (rect.right - right > 1) report.wide.push(`table ${Math.round(rect.right - right)}px past the column`);
  const box = table.parentElement;
  const hidden = box.scrollWidth - box.clientWidth;
  if (hidden > 2) report.wide.push(`scroll box hides ${hidden}px`);
  for (const cell of table.querySelectorAll('td')) {
    const r = cell.getBoundingClientRect();
    if (r.width === 0) continue;
    report.cells += 1;
    if (r.right - right > 1 || cell.scrollWidth - cell.clientWidth > 2) {
      if (report.wide.length < 8) report.wide.push(`cell ${Math.round(r.right - right)}px past, `
        + `${cell.scrollWidth - cell.clientWidth}px cut: ${cell.textContent.trim().slice(0, 60)}`);
    }
  }
}
return report;
"""


_CLAIM_HEADER = re.compile(r'<th class="head[^"]*"><p>claim</p></th>')


def _claims_pages(book: Path) -> list[Path]:
    return [p for p in _pages(book) if _CLAIM_HEADER.search(p.read_text(encoding="utf-8"))]


def _at_width(browser, width: int):
    browser.set_window_size(width, 1024)


@pytest.mark.parametrize("width", [1280, 400])
def test_claims_tables_fit_their_column(book, browser, width):
    """At a desktop (1280 px) and a phone (400 px) width no claims table, and no cell of one, reaches past
    the content column or hides content in a sideways scroll."""
    problems, tables, cells = [], 0, 0
    try:
        _at_width(browser, width)
        for page in _claims_pages(book):
            _open_and_report(browser, page)
            report = browser.execute_script(_CLAIMS_REPORT)
            tables += report["tables"]
            cells += report["cells"]
            problems += [f"{page.name} at {width}px (column {report['column']:.0f}px): {w}" for w in report["wide"]]
            browser.get_log("browser")
    finally:
        _at_width(browser, 1280)
    assert not problems, "\n".join(problems)
    assert tables and cells, "no claims table was measured"


def test_the_claims_check_catches_a_table_wider_than_its_column(book, browser, tmp_path):
    """Negative control: a claims cell that cannot wrap (3000 px of unbreakable text) is reported."""
    pages = _claims_pages(book)
    if not pages:
        pytest.skip("no page with a claims table in this build")
    shutil.copytree(book, tmp_path, dirs_exist_ok=True)
    copy = tmp_path / pages[0].relative_to(book)
    html = copy.read_text(encoding="utf-8")
    cut = html.index("<td", _CLAIM_HEADER.search(html).end())
    copy.write_text(html[:cut] + '<td style="white-space:nowrap">' + "x" * 600 + "</td>" + html[cut:], encoding="utf-8")
    _open_and_report(browser, copy)
    report = browser.execute_script(_CLAIMS_REPORT)
    browser.get_log("browser")
    assert report["wide"], report


def _console_errors(browser) -> list[str]:
    return [e["message"][:240] for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def test_no_page_logs_a_console_error(book, browser):
    """No page logs an error in the browser console (the Thebe script declared twice, an invalid theme mode, ...)."""
    problems = []
    browser.get_log("browser")  # drain what earlier tests left
    if browser.current_url.startswith("file:"):
        browser.execute_script("window.localStorage.clear()")  # a first visit: no stored colour mode
    for page in _pages(book):
        _open_and_report(browser, page)
        problems += [f"{page.relative_to(book).as_posix()}: {m}" for m in _console_errors(browser)]
    assert not problems, "\n".join(problems[:20])


def test_the_console_check_catches_a_script_error(book, browser, tmp_path):
    """Negative control: a page whose inline script declares a constant twice (the old Thebe error) is reported."""
    page = _pages(book)[0]
    shutil.copytree(book, tmp_path, dirs_exist_ok=True)
    copy = tmp_path / page.relative_to(book)
    html = copy.read_text(encoding="utf-8")
    cut = html.index("</head>")
    twice = "<script>const FASTMIX_TWICE = 1;</script><script>const FASTMIX_TWICE = 2;</script>"
    copy.write_text(html[:cut] + twice + html[cut:], encoding="utf-8")
    browser.get_log("browser")
    _open_and_report(browser, copy)
    assert any("FASTMIX_TWICE" in m for m in _console_errors(browser))


def test_tab_titles_show_no_tex(book, browser):
    r"""The title the browser shows in its tab is plain text on every page (no ``\(n/d\)``)."""
    problems = []
    for page in _pages(book):
        _open_and_report(browser, page)
        if _RAW_TEX.search(browser.title):
            problems.append(f"{page.relative_to(book).as_posix()}: {browser.title!r}")
        browser.get_log("browser")
    assert not problems, "\n".join(problems)


def test_paper_to_code_shows_every_column_at_desktop_width(book, browser):
    """At 1280 px every column of the "Paper to code" tables lies inside the content column, nothing scrolled away."""
    page = book / "book" / "paper_to_code.html"
    if not page.is_file():
        pytest.skip("the Paper to code page is not in this build")
    _at_width(browser, 1280)
    _open_and_report(browser, page)
    report = browser.execute_script(
        r"""
const column = document.querySelector('article.bd-article') || document.querySelector('main');
const right = column.getBoundingClientRect().right;
const out = {tables: 0, problems: []};
for (const table of column.querySelectorAll('table')) {
  out.tables += 1;
  const box = table.parentElement;
  const hidden = box.scrollWidth - box.clientWidth;
  if (hidden > 2) out.problems.push(`scroll box hides ${hidden}px`);
  for (const th of table.querySelectorAll('thead th')) {
    const r = th.getBoundingClientRect();
    const past = Math.round(r.right - right);
    if (past > 1) out.problems.push(`column "${th.textContent.trim()}" ends ${past}px past the column`);
  }
}
return out;
"""
    )
    browser.get_log("browser")
    assert report["tables"] >= 2 and not report["problems"], report


# --------------------------------------------------------------------------- result pages on a desktop and a phone

#: The parts of ``_toc.yml`` whose notebooks are result pages (a stored figure, a table or a verdict).
_RESULT_PARTS = ("Your own data", "The FastMix paper", "The kernel paper")
#: Notebook pages that are not result pages: the book's overview and the introductory example.
_NOT_RESULT_PAGES = {"hello_fastmix", "what_holds"}
#: The viewport (width: height, CSS pixels) of a desktop and a phone: a laptop window and a tall phone.
_VIEWPORTS = {1280: 800, 400: 850}
#: The first figure starts within this many screens of the top of the page.
_FIRST_FIGURE_SCREENS = 1.5
#: A result page is at most about 8 screens long at 1280 px, its folded sections closed (see the length test).
_MAX_SCREENS_AT_1280 = 9


def _result_pages(book: Path) -> list[Path]:
    """The notebook pages of the two papers' parts of ``_toc.yml``, in the book's order.

    The table of contents is the authority; the built notebook pages other than the overview and the
    introductory example must be exactly these, so a new page cannot slip past the checks below.
    """
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    docs = [
        chapter["file"]
        for part in toc["parts"]
        if part.get("caption") in _RESULT_PARTS
        for chapter in part["chapters"]
        if chapter["file"].startswith("notebooks/")
    ]
    built = {p.stem for p in (book / "notebooks").glob("*.html")} - _NOT_RESULT_PAGES
    assert {Path(doc).name for doc in docs} == built, (docs, sorted(built))
    return [book / f"{doc}.html" for doc in docs]


@contextmanager
def _viewport(browser, width: int) -> Iterator[int]:
    """Emulate a viewport of exactly ``width`` x ``_VIEWPORTS[width]`` pixels (a window's size includes its
    frame, and a window is never narrower than 500 px); the window's own size comes back afterwards."""
    height = _VIEWPORTS[width]
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )
    try:
        yield height
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


_GEOMETRY_REPORT = r"""
// As a reader first sees the page (collapsed boxes closed, scrolled to the top): the viewport, the
// article's height, where its first visible figure or image starts, and the tallest blocks above it.
window.scrollTo(0, 0);
const article = document.querySelector('article.bd-article') || document.querySelector('main');
const pageY = r => Math.round(r.top + window.scrollY);
const describe = el => el.tagName.toLowerCase() + (typeof el.className === 'string' && el.className.trim()
  ? '.' + el.className.trim().split(/\s+/).slice(0, 3).join('.') : '');
const box = article.getBoundingClientRect();
const root = document.documentElement;
const out = {width: window.innerWidth, height: window.innerHeight, articleTop: pageY(box),
             article: Math.round(box.height), figure: null, above: [],
             sideways: Math.max(0, root.scrollWidth - root.clientWidth)};
for (const el of article.querySelectorAll('figure, img')) {
  const r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) continue;  // inside a closed box: not what the reader sees
  const figure = el.closest('figure');
  const strong = figure && figure.querySelector('figcaption strong');
  out.figure = {tag: el.tagName.toLowerCase(), top: pageY(r),
                label: strong ? strong.textContent.trim().replace(/\.$/, '') : (figure ? figure.id : el.alt || '')};
  // what pushes it down: the blocks before it, at every level between it and the article
  const above = [];
  for (let node = el; node && node !== article; node = node.parentElement) {
    for (let prev = node.previousElementSibling; prev; prev = prev.previousElementSibling) {
      const h = prev.getBoundingClientRect().height;
      if (h > 0) above.push([Math.round(h), describe(prev) + ' ' + (prev.textContent || '').trim().slice(0, 40)]);
    }
  }
  out.above = above.sort((a, b) => b[0] - a[0]).slice(0, 3).map(([h, what]) => `${h}px ${what}`);
  break;
}
return out;
"""

_PAPER_COMMAND_REPORT = r"""
// Open the re-run box as a reader does (its toggle button), then report its paper-scale command
// blocks and the paragraph just before the first one, which must be its label.
const article = document.querySelector('article.bd-article') || document.querySelector('main');
const box = article.querySelector('.fastmix-rerun');
const out = {box: !!box, blocks: 0, command: null, visible: false, label: null, labelAbove: false};
if (!box) return out;
const button = box.querySelector('button.toggle-button');
if (box.classList.contains('toggle-hidden') && button) button.click();
const blocks = box.querySelectorAll('.fastmix-rerun-paper');
out.blocks = blocks.length;
if (!blocks.length) return out;
const block = blocks[0];
const r = block.getBoundingClientRect();
out.command = block.innerText.trim();
out.visible = r.width > 0 && r.height > 0;
const label = block.previousElementSibling;
if (label && label.matches('p.fastmix-rerun-label')) {
  const l = label.getBoundingClientRect();
  out.label = label.innerText.trim();
  out.labelAbove = l.height > 0 && l.bottom <= r.top + 1;
}
return out;
"""


def _measure(browser, page: Path, paper_command: bool = True) -> dict:
    """The geometry report of ``page`` in the current viewport, and (opening the re-run box) its paper command."""
    _open_and_report(browser, page)  # waits for every image to decode and MathJax to typeset: the final layout
    report = browser.execute_script(_GEOMETRY_REPORT)
    if paper_command:
        report["paper"] = browser.execute_script(_PAPER_COMMAND_REPORT)
    browser.get_log("browser")
    return report


def _viewport_problem(name: str, width: int, report: dict) -> str | None:
    if (report["width"], report["height"]) != (width, _VIEWPORTS[width]):
        return f"{name}: the viewport is {report['width']}x{report['height']}, not {width}x{_VIEWPORTS[width]}"
    return None


def _first_figure_problem(name: str, width: int, report: dict) -> str | None:
    """A page whose first figure (or image) starts below ``_FIRST_FIGURE_SCREENS`` screens, or that shows none."""
    figure = report["figure"]
    if figure is None:
        return f"{name} at {width}px: no visible figure or image in the article"
    limit = _FIRST_FIGURE_SCREENS * report["height"]
    if figure["top"] >= limit:
        return (
            f"{name} at {width}px: the first figure ({figure['label'] or figure['tag']}) starts at "
            f"y = {figure['top']}px, {figure['top'] / report['height']:.2f} screens, past {limit:.0f}px; "
            f"tallest blocks above it: {'; '.join(report['above'])}"
        )
    return None


def _paper_command_problems(name: str, width: int, report: dict, expected: str | None) -> list[str]:
    """The re-run box shows the paper-scale command, under its "At the paper's scale" label, exactly
    when the page has a paper-scale setting."""
    paper = report["paper"]
    where = f"{name} at {width}px"
    if not paper["box"]:
        return [f"{where}: no re-run box"]
    if expected is None:
        return [f"{where}: a paper-scale command but no paper-scale setting"] if paper["blocks"] else []
    problems = []
    if paper["blocks"] != 1:
        return [f"{where}: {paper['blocks']} paper-scale command blocks in the re-run box, expected one"]
    if not paper["visible"]:
        problems.append(f"{where}: the paper-scale command is not visible once the box is opened")
    if " ".join((paper["command"] or "").split()) != " ".join(expected.split()):
        problems.append(f"{where}: the paper-scale command reads {paper['command']!r}, expected {expected!r}")
    if not (paper["label"] or "").startswith("At the paper's scale"):
        problems.append(f'{where}: the paper-scale command has no "At the paper\'s scale" label before it')
    elif not paper["labelAbove"]:
        problems.append(f"{where}: the paper-scale label is not shown above its command")
    return problems


def _length_problem(name: str, width: int, report: dict) -> str | None:
    screens = report["article"] / report["height"]
    if width == 1280 and screens > _MAX_SCREENS_AT_1280:
        return f"{name} at {width}px: {report['article']}px long, {screens:.1f} screens (bound {_MAX_SCREENS_AT_1280})"
    return None


@pytest.fixture(scope="module")
def result_page_geometry(book, browser, request, tmp_path_factory) -> dict[tuple[str, int], dict]:
    """Every result page measured at both widths, keyed by (page name, width); the table of first-figure
    positions and page lengths goes to the end of the pytest run's output and to a JSON file."""
    import json

    from conftest import report_table

    reports: dict[tuple[str, int], dict] = {}
    pages = _result_pages(book)
    for width in _VIEWPORTS:
        with _viewport(browser, width):
            for page in pages:
                reports[page.stem, width] = _measure(browser, page)
    head = "".join(f" | {f'{w}x{h}: first figure':>22} {'page length':>17}" for w, h in _VIEWPORTS.items())
    rows = [f"{'page':<22}{head}"]
    for page in pages:
        cells = ""
        for width in _VIEWPORTS:
            r = reports[page.stem, width]
            top = f"{r['figure']['top']}px {r['figure']['top'] / r['height']:.2f} sc" if r["figure"] else "none"
            cells += f" | {top:>22} {r['article']:>6}px {r['article'] / r['height']:5.1f} sc"
        rows.append(f"{page.stem:<22}{cells}")
    path = tmp_path_factory.mktemp("page_geometry") / "result_pages.json"
    path.write_text(json.dumps({f"{n}@{w}": r for (n, w), r in reports.items()}, indent=1), encoding="utf-8")
    rows.append(f"(sc: screens, in units of the viewport's height; every measurement in {path})")
    report_table(request.config, "result pages: first figure and page length", rows)
    return reports


@pytest.mark.parametrize("width", list(_VIEWPORTS))
def test_first_figure_starts_within_one_and_a_half_screens(book, result_page_geometry, width):
    """On every result page the first figure (or image) of the article starts within 1.5 screens of the top,
    on a desktop and on a phone: a reader who opens a figure's page sees the figure without a long scroll."""
    problems = []
    for page in _result_pages(book):
        report = result_page_geometry[page.stem, width]
        problems += [p for p in (_viewport_problem(page.stem, width, report),) if p]
        problems += [p for p in (_first_figure_problem(page.stem, width, report),) if p]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("width", list(_VIEWPORTS))
def test_rerun_box_shows_the_labelled_paper_scale_command(book, extension, result_page_geometry, width):
    """Opened, the re-run box of each result page with a paper-scale setting (``notebooks/paper_scale.json``)
    shows the paper-scale command, under its "At the paper's scale" label; pages without one show none."""
    from fastmix_companion import run

    settings = run.load_paper_scale()
    problems = []
    for page in _result_pages(book):
        expected = None
        if page.stem in settings:
            expected = extension.launcher_command(run.resolve_notebook(page.stem), paper_scale=True)
        problems += _paper_command_problems(page.stem, width, result_page_geometry[page.stem, width], expected)
    assert not problems, "\n".join(problems)
    assert any(page.stem in settings for page in _result_pages(book)), "no result page has a paper-scale setting"


def test_result_page_lengths_are_reported_and_bounded(book, result_page_geometry):
    """Each result page's length (article height, in pixels and in screens) at both widths is printed at the
    end of the run (``tests/conftest.py``'s terminal summary). At 1280 px, with its folded sections closed, no
    result page is longer than about 8 screens (the bound is 9): the figure, what to see and the verdicts come
    first, and the long material (methods, tables of every cell, citations, the smoke run) sits in folded
    sections. On a phone every page is longer, and only reported."""
    problems = []
    for (name, width), report in result_page_geometry.items():
        problems += [p for p in (_length_problem(name, width, report),) if p]
    assert not problems, "\n".join(problems)
    assert len(result_page_geometry) == 2 * len(_result_pages(book))


@pytest.mark.parametrize("width", list(_VIEWPORTS))
def test_no_result_page_scrolls_sideways(book, result_page_geometry, width):
    """The page itself never scrolls sideways, on a desktop or a phone: long code, formulas and tables wrap or
    scroll inside their own box."""
    wide = [
        f"{page.stem} at {width}px: {result_page_geometry[page.stem, width]['sideways']}px sideways"
        for page in _result_pages(book)
        if result_page_geometry[page.stem, width]["sideways"] > 1
    ]
    assert not wide, "\n".join(wide)


def _copy_with(book: Path, tmp_path: Path, page: Path, edit) -> Path:
    """A copy of the book in ``tmp_path`` whose ``page`` went through ``edit`` (which must change it)."""
    shutil.copytree(book, tmp_path, dirs_exist_ok=True)
    copy = tmp_path / page.relative_to(book)
    html = copy.read_text(encoding="utf-8")
    edited = edit(html)
    assert edited != html, "the control's edit did not apply"
    copy.write_text(edited, encoding="utf-8")
    return copy


def test_the_first_figure_check_catches_a_tall_block_before_the_figure(book, browser, tmp_path):
    """Negative control: 1.5 screens of printed output before the first figure is reported, at both widths."""
    page = book / "notebooks" / "figure2_dp_ols.html"

    def tall(html: str) -> str:
        cut = html.index("<figure")
        return html[:cut] + '<pre style="height: 1300px">a long printed output</pre>' + html[cut:]

    copy = _copy_with(book, tmp_path, page, tall)
    for width in _VIEWPORTS:
        with _viewport(browser, width):
            original = _measure(browser, page, paper_command=False)
            report = _measure(browser, copy, paper_command=False)
        assert _first_figure_problem(page.stem, width, original) is None, original
        problem = _first_figure_problem(page.stem, width, report)
        assert problem and "pre" in problem, report


def test_the_paper_command_check_catches_a_missing_label_or_command(book, browser, extension, tmp_path):
    """Negative control: a re-run box without the paper-scale label, and one without the command, are reported."""
    from fastmix_companion import run

    page = book / "notebooks" / "figure2_dp_ols.html"
    expected = extension.launcher_command(run.resolve_notebook(page.stem), paper_scale=True)
    label = re.compile(r"<p class=\"fastmix-rerun-label\"><strong>At the paper's scale.*?</p>\s*", re.S)
    block = re.compile(r'<div class="fastmix-rerun-paper[^"]*">.*?</pre></div>\s*</div>\s*', re.S)
    without_label = _copy_with(book, tmp_path / "label", page, lambda html: label.sub("", html, count=1))
    without_block = _copy_with(book, tmp_path / "block", page, lambda html: block.sub("", html, count=1))
    with _viewport(browser, 1280):
        assert not _paper_command_problems(page.stem, 1280, _measure(browser, page), expected)
        missing_label = _paper_command_problems(page.stem, 1280, _measure(browser, without_label), expected)
        missing_block = _paper_command_problems(page.stem, 1280, _measure(browser, without_block), expected)
    assert any("label" in p for p in missing_label), missing_label
    assert any("0 paper-scale command blocks" in p for p in missing_block), missing_block


def test_the_length_bound_catches_a_very_long_page(book, browser, tmp_path):
    """Negative control: a page made 25 screens long (a huge output) breaks the 20-screen bound at 1280 px."""
    page = book / "notebooks" / "figure2_dp_ols.html"

    def long(html: str) -> str:
        cut = html.index("</article>")
        return html[:cut] + f'<pre style="height: {25 * _VIEWPORTS[1280]}px">a huge output</pre>' + html[cut:]

    copy = _copy_with(book, tmp_path, page, long)
    with _viewport(browser, 1280):
        assert _length_problem(page.stem, 1280, _measure(browser, page, paper_command=False)) is None
        assert _length_problem(page.stem, 1280, _measure(browser, copy, paper_command=False))


# --------------------------------------------------------------------------- the extension's guards


class _Config:
    def __init__(self, mathjax_path):
        self.mathjax_path = mathjax_path


def test_extension_refuses_a_network_mathjax(extension):
    from sphinx.errors import ExtensionError

    for path in ("https://cdn.example/mathjax@3/es5/tex-mml-chtml.js", "//cdn.example/tex.js"):
        with pytest.raises(ExtensionError, match="render offline"):
            fastmix_book._check_mathjax_path(None, _Config(path))
    from importlib.util import find_spec

    if find_spec("mathjax") is None:
        skip_or_fail("MathJax (the book extra) is not installed")
    with pytest.raises(ExtensionError, match="names no file"):
        fastmix_book._check_mathjax_path(None, _Config("mathjax/no-such-component.js"))
    fastmix_book._check_mathjax_path(None, _Config("mathjax/tex-svg-full.js"))  # the configured one


def test_extension_says_how_to_install_a_missing_mathjax(extension, monkeypatch):
    from sphinx.errors import ExtensionError

    monkeypatch.setattr(fastmix_book, "find_spec", lambda name: None)
    with pytest.raises(ExtensionError, match=r'pip install -e "\.\[book\]"'):
        fastmix_book.mathjax_source_dir()


def test_the_landing_page_gallery_has_a_card_per_result_page_with_its_figure_and_verdicts(book):
    """One card per result page, in the book's order: the page's first figure, its label and title, its tally."""
    from fastmix_companion.claims_summary import _book_order, collect, page_tally

    html = (book / "book" / "intro.html").read_text(encoding="utf-8")
    cards = re.findall(r'<div class="fastmix-gallery-card[^"]*">(.*?)</div>', html, re.S)
    pages = [n for n in _book_order() if (book / "notebooks" / f"{n}.html").is_file()]
    assert len(cards) == len(pages) >= 10
    rows = collect()
    for name, card in zip(pages, cards, strict=True):
        assert f'href="../notebooks/{name}.html"' in card, name
        thumb = re.search(r'<img alt="([^"]+)" class="[^"]*fastmix-gallery-thumb[^"]*" src="([^"]+)"', card)
        if thumb:  # the thumbnail is an image the page itself shows
            assert (book / "book" / thumb.group(2)).resolve().is_file(), (name, thumb.group(2))
            page = (book / "notebooks" / f"{name}.html").read_text(encoding="utf-8")
            assert thumb.group(2).rsplit("/", 1)[1] in page, name
            assert not _bad_alt(thumb.group(1), thumb.group(2)), name
        else:  # only a page with nothing stored has no figure to show
            assert not (ROOT / "results" / name / "manifest.json").is_file(), name
        tally = page_tally(rows, name) or "no stored verdicts"
        assert f'<p class="fastmix-gallery-tally">{tally}</p>' in card.replace("&#x27;", "'"), name


def test_the_gallery_takes_the_first_figure_and_its_label(extension):
    import fastmix_gallery
    from docutils import nodes

    doc = nodes.document(None, None)
    first = nodes.figure("", nodes.image(uri="a.png"), nodes.caption("", "Figure 2. Excess risk."))
    second = nodes.figure("", nodes.image(uri="b.png"), nodes.caption("", "Figure 3. Runtime."))
    doc += nodes.figure("", nodes.caption("", "Figure 1. No image here."))
    doc += first
    doc += second
    image, label = fastmix_gallery.first_figure(doc)
    assert image["uri"] == "a.png" and label == "Figure 2"
    assert fastmix_gallery.first_figure(nodes.document(None, None)) == (None, "")
