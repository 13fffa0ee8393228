"""The built book offers its notebooks, its data and its source code for download, offline.

Each notebook page links its executed notebook (``.ipynb``, also in the theme's download button);
each result page links the files of its stored entry (``results/<notebook>/``: the tables, the
parameters, the provenance record and the manifest), copied into the HTML output byte for byte;
and the API reference has a ``[source]`` link (``sphinx.ext.viewcode``) beside every documented
function and class, pointing at a highlighted copy of the code inside the book. All of this is
what ``book/_ext/fastmix_book.py`` and ``_config.yml`` set up.

These tests read the HTML that the book command writes (``_build/html``; another folder via
``FASTMIX_BOOK_HTML``) and skip without it, unless ``FASTMIX_REQUIRE_BROWSER=1``. Each check is a
function returning its problems, run once on the build and once on a copy with a file or a link
removed, which it must report.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from conftest import ROOT


class _Links(HTMLParser):
    """Every ``<a href>`` of a page: (href, classes, text, inside the downloads box), and every ``id``."""

    def __init__(self, box_class: str = "fastmix-downloads"):
        super().__init__()
        self.links: list[tuple[str, list[str], str, bool]] = []
        self.ids: set[str] = set()
        self.box_class = box_class
        self._stack: list[tuple[str, bool]] = []  # (tag, opened the downloads box)
        self._box = 0
        self._anchor: list | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag in ("br", "img", "hr", "meta", "link", "input", "source", "wbr"):
            return
        opens = self.box_class in classes
        self._box += opens
        self._stack.append((tag, opens))
        if tag == "a" and attrs.get("href") is not None:
            self._anchor = [attrs["href"], classes, "", self._box > 0]

    def handle_endtag(self, tag):
        if tag not in [name for name, _ in self._stack]:
            return
        while self._stack:
            name, opened = self._stack.pop()
            self._box -= opened
            if name == "a" and self._anchor is not None:
                self.links.append((self._anchor[0], self._anchor[1], self._anchor[2].strip(), self._anchor[3]))
                self._anchor = None
            if name == tag:
                break

    def handle_data(self, data):
        if self._anchor is not None:
            self._anchor[2] += data


def _links(page: Path) -> _Links:
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def _target(page: Path, href: str) -> Path | None:
    """The file a relative link of ``page`` points at (``None`` for an external or in-page link)."""
    parts = urlsplit(href)
    if parts.scheme or href.startswith("//") or not parts.path:
        return None
    return (page.parent / unquote(parts.path)).resolve()


def _notebook_pages(book: Path) -> list[Path]:
    """The built pages of the notebooks (``notebooks/<name>.html`` for each ``notebooks/<name>.py``)."""
    return sorted(
        book / "notebooks" / f"{p.stem}.html"
        for p in (ROOT / "notebooks").glob("*.py")
        if (book / "notebooks" / f"{p.stem}.html").is_file()
    )


def _executed(path: Path) -> bool:
    """``path`` is a notebook with at least one code cell that has an output."""
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    cells = notebook.get("cells", []) if isinstance(notebook, dict) else []
    return any(c.get("cell_type") == "code" and c.get("outputs") for c in cells)


# --------------------------------------------------------------------------- the checks


def notebook_download_problems(book: Path, pages: list[Path]) -> list[str]:
    """Each page links its executed notebook from the downloads box and the theme's download button."""
    problems = []
    for page in pages:
        name = page.relative_to(book).as_posix()
        links = _links(page).links
        box = [href for href, _, text, inside in links if inside and href.endswith(".ipynb") and ".ipynb" in text]
        button = [href for href, classes, _, _ in links if "btn-download-notebook-button" in classes]
        if not box:
            problems.append(f"{name}: no link to the executed notebook in the downloads box")
        if not button:
            problems.append(f"{name}: the theme's download button offers no .ipynb")
        for href in box + button:
            target = _target(page, href)
            if target is None or target.name != f"{page.stem}.ipynb":
                problems.append(f"{name}: {href} is not this page's notebook in the book")
            elif not target.is_file():
                problems.append(f"{name}: {href} links a missing file")
            elif not _executed(target):
                problems.append(f"{name}: {href} is not an executed notebook (no code cell with an output)")
    return problems


def _entry_files(entry: Path) -> dict[str, str]:
    """The files of a stored entry, as its manifest names them, with their sha256 (the manifest's own: None)."""
    manifest = json.loads((entry / "manifest.json").read_text(encoding="utf-8"))
    files = {record["file"]: record["sha256"] for record in manifest["tables"].values()}
    for key in ("parameters", "provenance"):
        files[manifest[key]["file"]] = manifest[key]["sha256"]
    files["manifest.json"] = hashlib.sha256((entry / "manifest.json").read_bytes()).hexdigest()
    return files


def stored_data_problems(book: Path, results: Path) -> list[str]:
    """Each result page links every file of its stored entry, and the linked copy in the book is that file."""
    problems = []
    entries = sorted(p.parent for p in results.glob("*/manifest.json"))
    for entry in entries:
        page = book / "notebooks" / f"{entry.name}.html"
        if not page.is_file():  # not in the table of contents
            continue
        name = page.relative_to(book).as_posix()
        linked = {}
        for href, _, _, inside in _links(page).links:
            target = _target(page, href)
            if inside and target is not None and target.suffix in (".csv", ".json"):
                linked[target.name] = (href, target)
        for file, digest in _entry_files(entry).items():
            if not file.endswith((".csv", ".json")):
                continue
            if file not in linked:
                problems.append(f"{name}: no link to results/{entry.name}/{file}")
                continue
            href, target = linked[file]
            if target != (book / "results" / entry.name / file).resolve():
                problems.append(f"{name}: {href} does not point at results/{entry.name}/{file} of the book")
            elif not target.is_file():
                problems.append(f"{name}: {href} links a missing file")
            elif hashlib.sha256(target.read_bytes()).hexdigest() != digest:
                problems.append(f"{name}: {href} differs from the stored results/{entry.name}/{file}")
    return problems


#: The signature line of a documented function, class or method, up to its end: where viewcode puts [source].
_SIGNATURE = re.compile(
    r'<dl class="py (?:function|class|method)">\s*<dt class="sig sig-object py" id="([^"]+)">(.*?)</dt>', re.S
)
_SOURCE_LINK = re.compile(r'<a class="reference internal" href="([^"]+)"><span class="viewcode-link">')


def source_link_problems(api: Path) -> tuple[list[str], int]:
    """Every documented function, class and method of the API page has a [source] link that resolves.

    Returns the problems and the number of [source] links checked.
    """
    html = api.read_text(encoding="utf-8")
    problems = []
    signatures = _SIGNATURE.findall(html)
    if not signatures:
        problems.append(f"{api.name}: no documented function or class found")
    ids: dict[Path, set[str]] = {}
    checked = 0
    for ident, signature in signatures:
        link = _SOURCE_LINK.search(signature)
        if link is None or "[source]" not in signature[link.end() :]:
            problems.append(f"{api.name}: {ident} has no [source] link")
            continue
        checked += 1
        href = link.group(1)
        target = _target(api, href)
        if target is None or not target.is_file():
            problems.append(f"{api.name}: [source] of {ident} ({href}) links a missing file")
            continue
        if target not in ids:
            ids[target] = _links(target).ids
        fragment = unquote(urlsplit(href).fragment)
        if fragment and fragment not in ids[target]:
            problems.append(f"{api.name}: [source] of {ident} ({href}) links an anchor its page lacks")
    return problems, checked


# --------------------------------------------------------------------------- on the build


def test_every_notebook_page_links_its_executed_notebook(book):
    pages = _notebook_pages(book)
    assert len(pages) >= 10, pages
    assert not (problems := notebook_download_problems(book, pages)), "\n".join(problems)


def test_every_result_page_links_the_stored_data_behind_it(book):
    results = ROOT / "results"
    pages = [p for p in _notebook_pages(book) if (results / p.stem / "manifest.json").is_file()]
    assert len(pages) >= 5, pages
    assert not (problems := stored_data_problems(book, results)), "\n".join(problems)


def test_the_api_reference_has_a_page_per_module_each_linking_every_function_to_its_source(book):
    pages = sorted((book / "book" / "api").glob("*.html"))
    toc_lines = (ROOT / "_toc.yml").read_text(encoding="utf-8").splitlines()
    toc = [line.split("book/api/")[1].strip() for line in toc_lines if "book/api/" in line]
    assert [p.stem for p in pages] == sorted(toc) and len(pages) >= 10, [p.stem for p in pages]
    problems, checked = [], 0
    for page in pages:
        found, n = source_link_problems(page)
        problems += found
        checked += n
    assert not problems, "\n".join(problems[:20])
    assert checked >= 50, checked


# --------------------------------------------------------------------------- the checks can fail


def _small_copy(book: Path, tmp_path: Path, *parts: str) -> Path:
    """A copy of the named files and folders of the book (enough for one page's links)."""
    for part in parts:
        source = book / part
        if source.is_dir():
            shutil.copytree(source, tmp_path / part)
        elif source.is_file():
            (tmp_path / part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, tmp_path / part)
    return tmp_path


def test_the_notebook_check_catches_a_missing_notebook_and_a_missing_link(book, tmp_path):
    page = _notebook_pages(book)[0]
    name = page.stem
    copy = _small_copy(book, tmp_path, f"notebooks/{name}.html", f"_sources/notebooks/{name}.ipynb")
    copied = copy / "notebooks" / f"{name}.html"
    assert not notebook_download_problems(copy, [copied])
    (copy / "_sources" / "notebooks" / f"{name}.ipynb").unlink()
    assert any("missing file" in p for p in notebook_download_problems(copy, [copied]))
    html = copied.read_text(encoding="utf-8")
    start = html.index("fastmix-downloads")
    stripped = html[:start] + re.sub(r'href="[^"]*\.ipynb"', 'href="#"', html[start:], count=1)
    copied.write_text(stripped, encoding="utf-8")
    assert any("no link to the executed notebook" in p for p in notebook_download_problems(copy, [copied]))


def test_the_data_check_catches_a_missing_file_an_edited_copy_and_a_missing_link(book, tmp_path):
    results = ROOT / "results"
    entry = next(
        p.parent
        for p in sorted(results.glob("*/manifest.json"))
        if (book / "notebooks" / f"{p.parent.name}.html").is_file()
    )
    name = entry.name
    copy = _small_copy(book, tmp_path / "html", f"notebooks/{name}.html", f"results/{name}")
    store = tmp_path / "results"
    shutil.copytree(entry, store / name)
    assert not stored_data_problems(copy, store)
    table = sorted((copy / "results" / name).glob("*.csv"))[0]
    table.write_text(table.read_text(encoding="utf-8") + "0\n", encoding="utf-8")
    assert any("differs from the stored" in p for p in stored_data_problems(copy, store))
    table.unlink()
    assert any("links a missing file" in p for p in stored_data_problems(copy, store))
    page = copy / "notebooks" / f"{name}.html"
    html = page.read_text(encoding="utf-8")
    page.write_text(html.replace(f"results/{name}/parameters.json", "#"), encoding="utf-8")
    assert any(f"no link to results/{name}/parameters.json" in p for p in stored_data_problems(copy, store))


def test_the_source_check_catches_a_missing_module_page_and_a_missing_link(book, tmp_path):
    copy = _small_copy(book, tmp_path, "book/api/fastmix_srht.html", "_modules")
    api = copy / "book" / "api" / "fastmix_srht.html"
    assert not source_link_problems(api)[0]
    link = _SOURCE_LINK.search(api.read_text(encoding="utf-8"))
    assert link is not None
    module = _target(api, link.group(1))
    assert module is not None
    module.unlink()
    assert any("links a missing file" in p for p in source_link_problems(api)[0])
    html = api.read_text(encoding="utf-8")
    api.write_text(html.replace('<span class="viewcode-link">', "<span>", 1), encoding="utf-8")
    assert any("has no [source] link" in p for p in source_link_problems(api)[0])
