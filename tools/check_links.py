"""Check the links of the built book without a network.

Two checks, both offline:

* **Internal links of the built HTML** (always): every relative ``href``/``src`` of every page
  must name a file of the build, and every ``#fragment`` an ``id`` on the target page. This
  covers the table of contents, cross-references, citations, figures, the API page and
  the notebook outputs exactly as a reader's browser sees them.
* **Sphinx's linkcheck builder** (``--sphinx``): reads the sources again, without executing
  the notebooks, and reports local links in the sources; every external link is configured
  as ignored, so Sphinx lists it without fetching it (this machine and CI have no internet).

External addresses found by either check are listed in ``<out>/external-links.txt`` with the
pages that use them, to be checked by hand (or online) before a release.

Usage::

    python tools/check_links.py                  # the internal check of _build/html
    python tools/check_links.py --sphinx         # and Sphinx linkcheck (about 10 s)

Exit status 1 when a link is broken.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[1]
_SKIP_SCHEMES = ("mailto:", "javascript:", "data:", "tel:")


class _PageParser(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id", "name") if tag != "meta" else ():
            if attrs.get(key):
                self.ids.add(attrs[key])
        if tag == "link" and not {"stylesheet", "icon", "preload", "index", "search", "next", "prev"} & set(
            (attrs.get("rel") or "").split()
        ):
            return  # canonical/alternate links describe the page, they are not followed
        for key in ("href", "src"):
            value = attrs.get(key)
            if value:
                self.links.append(value.strip())


@dataclass
class LinkReport:
    """What :func:`check_html` found."""

    pages: int = 0
    internal: int = 0
    broken: list[str] = field(default_factory=list)
    external: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))


def _parse(path: Path) -> _PageParser:
    parser = _PageParser()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    return parser


def jupyter_book_executable() -> str:
    """``jupyter-book`` beside the running interpreter (a venv's), else the one on PATH."""
    beside = Path(sys.executable).parent / "jupyter-book"
    return str(beside) if beside.exists() else "jupyter-book"


def content_pages(html_dir: Path) -> list[Path]:
    """The built HTML pages, sorted; not ``_static/`` (the theme's Jinja fragments) or ``_sources/``."""
    html_dir = Path(html_dir)
    return sorted(
        p for p in html_dir.rglob("*.html") if not {"_sources", "_static"} & set(p.relative_to(html_dir).parts)
    )


def check_html(html_dir: Path) -> LinkReport:
    """Check every relative link and anchor of the pages under ``html_dir``."""
    html_dir = html_dir.resolve()
    pages = content_pages(html_dir)
    parsed = {p: _parse(p) for p in pages}
    report = LinkReport(pages=len(pages))
    for page, parser in parsed.items():
        name = page.relative_to(html_dir).as_posix()
        for link in parser.links:
            if link.startswith(_SKIP_SCHEMES):
                continue
            parts = urlsplit(link)
            if parts.scheme or link.startswith("//"):
                if parts.scheme in ("http", "https") or link.startswith("//"):
                    report.external[link].add(name)
                continue
            report.internal += 1
            target = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
            if parts.path.endswith("/") or target.is_dir():
                target = target / "index.html"
            if not target.exists():
                shown = target.relative_to(html_dir) if target.is_relative_to(html_dir) else target
                report.broken.append(f"{name}: {link} -> missing {shown}")
                continue
            fragment = unquote(parts.fragment)
            if fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else _parse(target).ids
                if fragment not in ids:
                    report.broken.append(f"{name}: {link} -> no id {fragment!r} in {target.relative_to(html_dir)}")
    return report


def sphinx_linkcheck(root: Path, out: Path) -> list[dict]:
    """Run Sphinx's linkcheck builder on the sources (no execution, external links ignored).

    Returns its ``output.json`` records. jupyter-book reads a configuration file, so a copy of
    ``_config.yml`` with notebook execution off, every ``http(s)`` address ignored, the
    missing-glue warnings that follow from no execution silenced, and the local extension's
    folder made absolute is written into ``out`` first.
    """
    import yaml

    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    config.setdefault("execute", {})["execute_notebooks"] = "off"
    sphinx = config.setdefault("sphinx", {})
    sphinx_config = sphinx.setdefault("config", {})
    # The per-page notebook downloads point into ``_sources``, which only the HTML build writes;
    # ``check_html`` follows them in the built site.
    sphinx_config["linkcheck_ignore"] = [r"^https?://", r"^(\.\./)*_sources/"]
    # Without execution no notebook has outputs, so no glued value exists to look up; the real
    # build (which executes) is where a missing glue key is an error.
    suppressed = list(sphinx_config.get("suppress_warnings") or [])
    sphinx_config["suppress_warnings"] = suppressed + ["mystnb.glue", "mystnb.glue_ref"]
    sphinx["local_extensions"] = {
        name: str((root / path).resolve()) for name, path in (sphinx.get("local_extensions") or {}).items()
    }
    out.mkdir(parents=True, exist_ok=True)
    config_path = out / "linkcheck_config.yml"
    config_path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    command = [
        jupyter_book_executable(),
        "build",
        str(root),
        "--builder",
        "linkcheck",
        "--config",
        str(config_path),
        "--path-output",
        str(out),
    ]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True)
    output = out / "_build" / "html" / "output.json"
    if done.returncode != 0 or not output.is_file():
        raise RuntimeError(
            f"Sphinx linkcheck failed ({' '.join(command)}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    return [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines() if line.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html", type=Path, default=ROOT / "_build" / "html", help="built book (default _build/html)")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "_build" / "links", help="report folder (default _build/links)"
    )
    parser.add_argument("--sphinx", action="store_true", help="also run Sphinx's linkcheck builder on the sources")
    args = parser.parse_args(argv)
    if not (args.html / "index.html").is_file():
        print(f"error: no built book at {args.html}; build it first (README, 'Build the book')", file=sys.stderr)
        return 2
    report = check_html(args.html)
    broken = list(report.broken)
    external = {k: set(v) for k, v in report.external.items()}
    sphinx_counts: dict[str, int] = {}
    if args.sphinx:
        for record in sphinx_linkcheck(ROOT, args.out / "sphinx"):
            sphinx_counts[record["status"]] = sphinx_counts.get(record["status"], 0) + 1
            if record["status"] == "broken":
                broken.append(f"{record['filename']}:{record['lineno']}: {record['uri']} ({record['info']})")
            elif record["status"] == "ignored":
                external.setdefault(record["uri"], set()).add(record["filename"])
    args.out.mkdir(parents=True, exist_ok=True)
    listing = args.out / "external-links.txt"
    listing.write_text(
        "# External links of the built book, listed and not fetched (offline check).\n"
        + "".join(f"{uri}\t{', '.join(sorted(pages))}\n" for uri, pages in sorted(external.items())),
        encoding="utf-8",
    )
    summary = {
        "pages": report.pages,
        "internal_links": report.internal,
        "broken": broken,
        "external_links": len(external),
        "sphinx_linkcheck": sphinx_counts,
    }
    (args.out / "report.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    print(
        f"{report.pages} pages, {report.internal} internal links checked, {len(broken)} broken; "
        f"{len(external)} external links listed in {os.path.relpath(listing)} (not fetched)"
    )
    if sphinx_counts:
        print("Sphinx linkcheck: " + ", ".join(f"{n} {status}" for status, n in sorted(sphinx_counts.items())))
    for line in broken:
        print(f"BROKEN {line}")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
