# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # What the papers claim, and what holds
#
# Every result page of this book ends with a table of checks: a claim, what was measured, a
# decision rule fixed in advance and a verdict. This page gathers those verdicts, read from the
# results store by the same code that draws each page's table, so the two cannot disagree.
#
# The claims of each paper come first, grouped by where the paper makes them. The companion's
# own questions (extensions, comparisons the papers do not make, checks of illustrative
# assumptions) follow in their own list: a verdict there says something about this code and these
# runs, not about either paper.

# %% tags=["parameters", "hide-cell"]
notebooks: str = ""  # comma-separated page names to gather (empty: every page with stored results)

# %% tags=["remove-input"]
import time

from IPython.display import HTML, Markdown, display

try:  # the book pastes the headline on its landing page; outside the book, nothing needs gluing
    from myst_nb import glue
except ImportError:  # pragma: no cover - without the book extra

    def glue(name, variable, display=True):
        """Stand-in for myst_nb.glue where the book is not installed: the value is not stored."""


from fastmix_companion.claims_summary import (
    PAPERS,
    collect,
    counts_sentence,
    findings_markdown,
    headline_html,
    own_findings,
    paper_claims,
    summary_markdown,
    unstated,
    verdicts_markdown,
)
from fastmix_companion.provenance import provenance_report

started_at = time.time()
chosen = [n.strip() for n in notebooks.split(",") if n.strip()] or None
ROWS = collect(chosen)
glue("what-holds-headline", HTML(headline_html(ROWS)), display=False)

# %% [markdown]
# ## The verdicts
#
# A verdict is one of five words. Each page states, for every check, whose claim it tests (a
# paper's, with the place it is made, or ours), whether the run is in the paper's setting, and
# where the paper gives a number, how close the measurement comes to it.

# %% tags=["remove-input"]
display(Markdown(verdicts_markdown()))

# %% [markdown]
# ## The FastMix paper

# %% tags=["remove-input"]
fastmix_rows = paper_claims(ROWS, PAPERS[0])
display(Markdown(counts_sentence(fastmix_rows, "the FastMix paper's claims")))
if fastmix_rows:
    display(Markdown(summary_markdown(fastmix_rows)))

# %% [markdown]
# ## The kernel paper

# %% tags=["remove-input"]
kernel_rows = paper_claims(ROWS, PAPERS[1])
display(Markdown(counts_sentence(kernel_rows, "the kernel paper's claims")))
if kernel_rows:
    display(Markdown(summary_markdown(kernel_rows)))

# %% [markdown]
# ## The companion's own findings
#
# Questions this companion asks of the code and the runs. They extend the papers' experiments or
# check assumptions the papers make for illustration; a "does not hold" here is a finding about
# those questions, not a failure of either paper.

# %% tags=["remove-input"]
ours = own_findings(ROWS)
display(Markdown(counts_sentence(ours, "the companion's own questions")))

# %% tags=["remove-input", "hide-output"]
if ours:
    display(Markdown(findings_markdown(ours)))
rest = unstated(ROWS)
if rest:
    display(Markdown(f"{len(rest)} check(s) do not yet say whose claim they test:\n\n" + findings_markdown(rest)))

# %% [markdown]
# ## Provenance

# %% tags=["hide-input", "hide-output"]
provenance_report(
    parameters={"notebooks": notebooks},
    data_sources=sorted({f"results/{r.notebook}/provenance.json" for r in ROWS}),
    started_at=started_at,
)
