"""What the papers claim, and what holds: every page's verdicts gathered from the results store.

Each study module that checks claims defines ``stored_claims(tables, parameters)``, the
claims its page shows, decided on its stored tables with the parameters they were computed
with. :func:`collect` calls it for every study with a stored entry, in the book's order, and
the functions below turn the result into the summary page's tables: one line per claim of
either paper, grouped by paper and place in the paper, and the companion's own findings in
their own list. Nothing here decides a verdict; the pages' claims code does, so the summary
and the pages cannot disagree.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from fastmix_companion.claims import (
    DOES_NOT_HOLD,
    HOLDS,
    HOLDS_IN_DIRECTION,
    NOT_COMPARABLE,
    UNDECIDED,
    VERDICTS,
    Claim,
    verdict_counts,
)

__all__ = [
    "PageClaim",
    "PAPERS",
    "stored_claims",
    "collect",
    "paper_claims",
    "own_findings",
    "unstated",
    "summary_markdown",
    "findings_markdown",
    "counts_sentence",
    "verdicts_markdown",
    "headline_html",
    "collapse_groups",
    "page_tally",
]

#: The papers, in the book's order, as :class:`fastmix_companion.claims.Source` names them.
PAPERS = ("FastMix paper", "kernel paper")


@dataclass(frozen=True)
class PageClaim:
    """A claim with the page that checks it."""

    notebook: str
    title: str
    claim: Claim
    also: tuple[tuple[str, str], ...] = ()

    @property
    def link(self) -> str:
        """MyST links to the page, and to the other pages that answer the same finding (pages sit side by
        side in ``notebooks/``), resolved by the book."""
        return ", ".join(_doc_link(n, t) for n, t in ((self.notebook, self.title), *self.also))


def _doc_link(notebook: str, title: str) -> str:
    # a role's link text is plain: no maths delimiters, backquotes or angle brackets
    title = title.replace("$", "").replace("\\", "").replace("`", "").replace("<", "").replace(">", "")
    return f"{{doc}}`{title} <{notebook}>`"


def stored_claims(notebook: str, root: str | Path | None = None) -> list[Claim]:
    """The claims page ``notebook`` shows, decided on its stored entry (empty when nothing is stored)."""
    from fastmix_companion.store import ResultsStore
    from fastmix_companion.studies import study_module

    module = study_module(notebook)
    decide = getattr(module, "stored_claims", None)
    if decide is None:
        return []
    store = ResultsStore(notebook, root)
    tables = store.load()
    if tables is None:
        return []
    return list(decide(tables, store.parameters() or {}))


def _book_order() -> list[str]:
    """The studies' notebooks in the order of ``_toc.yml`` (those not in it last, sorted)."""
    from fastmix_companion.notebook_parameters import default_notebooks_dir
    from fastmix_companion.studies import STUDIES

    toc = default_notebooks_dir().parent / "_toc.yml"
    order: list[str] = []
    if toc.is_file():
        import yaml

        for part in (yaml.safe_load(toc.read_text(encoding="utf-8")) or {}).get("parts") or []:
            for chapter in part.get("chapters") or []:
                name = Path(chapter["file"]).name
                if name in STUDIES:
                    order.append(name)
    return order + sorted(set(STUDIES) - set(order))


def collect(notebooks: Sequence[str] | None = None, root: str | Path | None = None) -> list[PageClaim]:
    """Every page's stored claims, in the book's order, each with its page."""
    from fastmix_companion.notebook_parameters import notebook_title, resolve_notebook

    rows: list[PageClaim] = []
    for name in notebooks if notebooks is not None else _book_order():
        claims = stored_claims(name, root)
        if not claims:
            continue
        title = notebook_title(resolve_notebook(name))
        rows.extend(PageClaim(name, title, c) for c in claims)
    return rows


def paper_claims(rows: Iterable[PageClaim], paper: str) -> list[PageClaim]:
    """The rows that test a claim of ``paper`` (one of :data:`PAPERS`)."""
    return [r for r in rows if r.claim.source is not None and r.claim.source.paper == paper]


def own_findings(rows: Iterable[PageClaim]) -> list[PageClaim]:
    """The rows that answer the companion's own questions."""
    return [r for r in rows if r.claim.source is not None and r.claim.source.is_ours]


def unstated(rows: Iterable[PageClaim]) -> list[PageClaim]:
    """Rows whose claim does not say whose it is (a page that has not stated its sources)."""
    return [r for r in rows if r.claim.source is None]


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _verdict(c: Claim) -> str:
    return c.verdict if c.verdict in (UNDECIDED, NOT_COMPARABLE) else f"**{c.verdict}**"


def summary_markdown(rows: Iterable[PageClaim]) -> str:
    """One paper's claims as a Markdown table: where in the paper, the claim, verdict, size, setting, page.

    A group of cells, and a finding answered on several pages, is one row (:func:`collapse_groups`)."""
    lines = [
        "| where in the paper | claim | verdict | measured / paper | setting | page |",
        "|---|---|---|---|---|---|",
    ]
    for r in collapse_groups(list(rows)):
        c = r.claim
        lines.append(
            f"| {_cell(c.source.location if c.source else '')} | {_cell(c.claim)} | {_verdict(c)} | "
            f"{_cell(c.size or '-')} | {_cell(c.setting)} | {r.link} |"
        )
    return "\n".join(lines)


def findings_markdown(rows: Iterable[PageClaim]) -> str:
    """The companion's own findings as a Markdown list: the question, what was measured, the verdict, the page.

    A group of cells is listed once (:func:`collapse_groups`)."""
    rows = collapse_groups(list(rows))
    return "\n".join(
        f"* **{_cell(r.claim.claim)}** ({_verdict(r.claim)}): {_cell(r.claim.measured)}. {r.link}" for r in rows
    )


def collapse_groups(rows: Sequence[PageClaim]) -> list[PageClaim]:
    """``rows`` with each group of cells (a :class:`Claim`'s ``group``) replaced by one row.

    The row stands for the question the cells share: its claim is the group's name, its verdict
    :func:`~fastmix_companion.claims.group_verdict` of the cells (a holds/undecided/does-not-hold
    outcome), and it says how many cells carry each verdict.
    """
    import dataclasses

    from fastmix_companion.claims import group_verdict

    out: list[PageClaim] = []
    seen: dict[tuple[str, str], int] = {}
    for r in rows:
        g = r.claim.group
        if not g:
            out.append(r)
            continue
        key = (r.notebook, g)
        if key in seen:
            continue
        cells = [x.claim for x in rows if x.notebook == r.notebook and x.claim.group == g]
        counts = verdict_counts(cells)
        verdict = group_verdict(cells)
        holds = {HOLDS: True, HOLDS_IN_DIRECTION: True, DOES_NOT_HOLD: False}.get(verdict)
        summary = "; ".join(f"{word} {k}" for word, k in counts.items() if k)
        claim = dataclasses.replace(
            r.claim, claim=g, measured=f"{len(cells)} cells: {summary}", holds=holds, magnitudes=(), group=""
        )
        seen[key] = len(out)
        out.append(PageClaim(r.notebook, r.title, claim))
    return _collapse_findings(out)


def _collapse_findings(rows: list[PageClaim]) -> list[PageClaim]:
    """``rows`` with the checks of one cross-page finding (a :class:`Claim`'s ``finding``) as one row.

    The row keeps the first comparable page's wording and links every page; its verdict is
    :func:`~fastmix_companion.claims.group_verdict` of the comparable checks (of all of them when none
    is comparable), so a stand-in run on one page does not unsettle the paper-setting run of another.
    """
    import dataclasses

    from fastmix_companion.claims import group_verdict

    out: list[PageClaim] = []
    done: set[str] = set()
    for r in rows:
        f = r.claim.finding
        if not f:
            out.append(r)
            continue
        if f in done:
            continue
        done.add(f)
        members = [x for x in rows if x.claim.finding == f]
        comparable = [x for x in members if x.claim.verdict != NOT_COMPARABLE] or members
        lead = comparable[0]
        verdict = group_verdict([x.claim for x in comparable])
        holds = {HOLDS: True, HOLDS_IN_DIRECTION: True, DOES_NOT_HOLD: False}.get(verdict)
        if len(members) == 1:
            out.append(lead)
            continue
        claim = dataclasses.replace(
            lead.claim,
            holds=holds if verdict != NOT_COMPARABLE else lead.claim.holds,
            measured=lead.claim.measured
            + f" (answered on {len(members)} pages, counted once"
            + (
                f" from the {n_comparable} comparable: "
                if (n_comparable := sum(x.claim.verdict != NOT_COMPARABLE for x in members))
                else ", none comparable: "
            )
            + "; ".join(f"{x.title}: {x.claim.verdict}" for x in members)
            + ")",
            finding="",
        )
        others = tuple((x.notebook, x.title) for x in members if x is not lead)
        out.append(PageClaim(lead.notebook, lead.title, claim, also=others))
    return out


def counts_sentence(rows: Sequence[PageClaim], what: str) -> str:
    """``"30 checks of the FastMix paper's claims, on 8 pages: holds 12; ...; does not hold 2."``

    Every verdict that occurs is listed with its count, in the order of
    :data:`~fastmix_companion.claims.VERDICTS`.
    """
    if not rows:
        return f"No stored result checks {what} yet."
    rows = collapse_groups(rows)
    counts = verdict_counts(r.claim for r in rows)
    listed = "; ".join(f"{word} {k}" for word, k in counts.items() if k)
    counted = sum(counts.values())
    pages = len({r.notebook for r in rows})
    checks = "check" if counted == 1 else "checks"
    text = f"{counted} {checks} of {what}, on {pages} page{'s' if pages != 1 else ''}: {listed}."
    skipped = len(rows) - counted
    if skipped:
        text += (
            f" {skipped} exploratory check{'s' if skipped != 1 else ''} (rule set after seeing the data) not counted."
        )
    return text


def verdicts_markdown() -> str:
    """The five verdict words and what each means, as a Markdown definition list."""
    order = (HOLDS, HOLDS_IN_DIRECTION, NOT_COMPARABLE, UNDECIDED, DOES_NOT_HOLD)
    return "\n\n".join(f"{word}\n: {VERDICTS[word]}" for word in order)


def headline_html(rows: Sequence[PageClaim]) -> str:
    """The landing page's headline findings as an HTML list, generated from ``rows``.

    One item per paper and one for the companion's own questions with their verdict counts
    (:func:`counts_sentence`), then one item per check marked ``headline``: the claim, whose it
    is, its verdict and what was measured.
    """
    from html import escape

    rows = list(rows)
    items = [escape(counts_sentence(paper_claims(rows, p), f"the {p}'s claims")) for p in PAPERS]
    items.append(escape(counts_sentence(own_findings(rows), "the companion's own questions")))
    for r in rows:
        c = r.claim
        if c.headline:
            whose = "not stated" if c.source is None else str(c.source)
            size = f" ({escape(c.size)})" if c.size else ""
            items.append(
                f"<b>{escape(c.claim)}</b> ({escape(whose)}): <i>{escape(c.verdict)}</i>. {escape(c.measured)}{size}"
            )
    return "<ul>\n" + "\n".join(f"<li>{item}</li>" for item in items) + "\n</ul>"


def page_tally(rows: Sequence[PageClaim], notebook: str) -> str:
    """One page's verdict counts in a line, per paper and for the companion's own questions.

    ``"FastMix paper: holds (4), not comparable (2); ours: holds (3)"``; groups of cells count once
    (:func:`collapse_groups`) and exploratory checks not at all, as in :func:`counts_sentence`.
    Empty when the page checks nothing.
    """
    mine = [r for r in rows if r.notebook == notebook]
    parts = []
    for label, picked in [(p, paper_claims(mine, p)) for p in PAPERS] + [("ours", own_findings(mine))]:
        counts = verdict_counts(r.claim for r in collapse_groups(picked))
        listed = ", ".join(f"{word} ({k})" for word, k in counts.items() if k)
        if listed:
            parts.append(f"{label}: {listed}")
    return "; ".join(parts)
