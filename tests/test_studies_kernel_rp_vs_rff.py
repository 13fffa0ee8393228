"""The sentences and claims of the kernel comparison page (kernel_rp_vs_rff_text, _claims), on hand-made tables."""

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from fastmix_companion.claims import (
    DOES_NOT_HOLD,
    HOLDS,
    HOLDS_IN_DIRECTION,
    NOT_COMPARABLE,
    UNDECIDED,
    holm,
    verdict_counts,
)
from fastmix_companion.studies import kernel_rp_vs_rff_claims as KC
from fastmix_companion.studies import kernel_rp_vs_rff_text as KT

ROOT = Path(__file__).resolve().parent.parent


def committed(name):
    """The committed tables of ``results/<name>/`` and the parameters they were computed with, read as stored."""
    folder = ROOT / "results" / name
    tables = {p.stem: pd.read_csv(p) for p in sorted(folder.glob("*.csv"))}
    return tables, json.loads((folder / "parameters.json").read_text(encoding="utf-8"))["parameters"]


P = {
    "n_train": 200,
    "n_val": 100,
    "n_test": 300,
    "n_reps": 3,
    "delta": 1e-5,
    "response_bound": 1.0,
    "noise_sd": 0.1,
    "epsilons": "1,10",
    "lam_grid": "0.01,0.1",
    "m_grid": "8,32",
    "sel_m_grid": "8,32",
    "sel_fraction": 0.25,
}


def _runs(reps=(3, 3), capped=False, top_share=(1.0, 0.0)):
    """Tuned and theory fits on two panels; RP's tuned M is at the top of the grid (8, 32) in top_share of fits."""
    rows = []
    for panel, n_reps in zip(("rkhs d=1", "rkhs d=3"), reps, strict=True):
        for rep in range(n_reps):
            for eps in (1.0, 10.0):
                for method, share in zip(("RP", "RFF"), top_share, strict=True):
                    M = 32 if rep < share * n_reps else 8
                    for protocol in ("tuned", "theory"):
                        rows.append(
                            {
                                "panel": panel,
                                "rep": rep,
                                "epsilon": eps,
                                "protocol": protocol,
                                "method": method,
                                "M": M,
                                "lam": 0.1,
                                "M_at_edge": True,
                                "lam_at_edge": False,
                                "M_capped": capped and protocol == "theory" and eps == 10.0,
                                "floored_share": 0.0,
                            }
                        )
    return pd.DataFrame(rows)


def _sweep(ratio, epsilons=(math.inf,)):
    rows = []
    for panel in ("plane_wave d=1", "rkhs d=1", "diabetes d=10"):
        for eps in epsilons:
            for M in (8, 32):
                for method, mean in (("RFF", 0.1), ("RP", 0.1 * ratio)):
                    rows.append(
                        {
                            "panel": panel,
                            "method": method,
                            "epsilon": eps,
                            "M": M,
                            "lam": 0.01,
                            "count": 30,
                            "mean": mean,
                            "sd": 0.01,
                            "floored_share": 0.5 if method == "RP" else 0.0,
                        }
                    )
    return pd.DataFrame(rows)


def test_settings_in_words():
    assert KT.math_set("M", "8, 32") == "$M \\in \\{$8, 32$\\}$"
    assert KT.runs_setting(_runs()) == "2 panels, $\\varepsilon \\in \\{1, 10\\}$, 3 repetitions per panel"
    assert KT.runs_setting(_runs(reps=(2, 3))).endswith(", 2-3 repetitions per panel")
    assert KT.sweep_text(_sweep(1.0, (math.inf, 1.0)), 0.01) == (
        "Equal-$M$ sweep: mean test error against the projection dimension $M$ at $\\lambda = 0.01$, for both "
        "methods without privacy and at $\\varepsilon \\in \\{1\\}$, $M$ from 8 to 32"
    )


def test_stored_setting_says_when_the_run_is_partial():
    done = KT.stored_setting_text(_runs(), P)
    partial = KT.stored_setting_text(_runs(reps=(2, 3)), P)
    assert done.startswith("Setting: $n = 200$ training, 100 validation and 300 test points per repetition")
    assert "$\\delta = 10^{-5}$" in done
    assert done.endswith("Stored: 3-3 of the 3 planned repetitions per panel.")
    assert partial.endswith(
        "Stored: 2-3 of the 3 planned repetitions per panel - **the run is partial, so intervals are wider than "
        "they will be**."
    )


def test_equal_m_sentences_flip_with_the_ratio():
    better = KT.nonprivate_sweep_text(_sweep(0.7), (8, 32))
    worse = KT.nonprivate_sweep_text(_sweep(1.4), (8, 32))
    assert better == (
        "Without privacy, each method at its best $\\lambda$ for the given $M$: M = 8: RP lower in 3, higher in 0 "
        "of 3 panels (median ratio 0.70); M = 32: RP lower in 3, higher in 0 of 3 panels (median ratio 0.70)."
    )
    assert "M = 8: RP lower in 0, higher in 3 of 3 panels (median ratio 1.40)" in worse


def test_private_equal_m_sentence_only_with_private_sweeps():
    assert KT.private_sweep_text(_sweep(0.7), (8, 32), 0.01) == ""
    text = KT.private_sweep_text(_sweep(1.4, (math.inf, 1.0)), (8, 32), 0.01)
    assert text.startswith("With privacy, at $\\lambda = 0.01$: at $\\varepsilon = 1$ and M = 8, RP's error is 1.40")
    assert "(median over 3 panels; below 1 with 95% confidence in 0, above in 3)" in text


def test_noise_table_and_factor():
    noise = pd.DataFrame(
        [
            {"epsilon": 1.0, "method": m, "M": M, "D2": d2, "sigma_C": sc, "sigma_u": 0.5 * sc}
            for m, M, d2, sc in (("RP", 8, 8.0, 0.8), ("RFF", 8, 2.0, 0.2), ("RP", 32, 4.0, 0.3), ("RFF", 32, 2.0, 0.2))
        ]
    )
    sweep = _sweep(1.0, (1.0,))
    assert KT.noise_factor_text(noise, sweep, 1.0, 0.01) == (
        "At the smallest $M = 8$ RP's norm bound is 4.0 times RFF's, so its covariance noise is 4.0 times larger; "
        "at $M = 32$ the factor is 1.50."
    )
    table = KT.noise_markdown(noise, sweep, 1.0, 0.01).splitlines()
    assert len(table) == 4 and table[2] == "| 8 | 8.00 | 2.00 | 8.00e-01 | 2.00e-01 | 4.00e-01 | 1.00e-01 | 50% | 0% |"


def test_hyperparameters_and_grid_edges():
    runs = _runs(top_share=(1.0, 0.0))
    assert KT.grid_edge_text(runs, (8, 32)).startswith(
        "The tuned $M$ sat at the top of its grid ($M = 32$) in 100% of RP's and 0% of RFF's private fits, and at "
        "the bottom ($M = 8$) in 0% and 100%."
    )
    assert "in 0% of RP's and 100% of RFF's" in KT.grid_edge_text(_runs(top_share=(0.0, 1.0)), (8, 32))
    table = KT.hyper_markdown(runs).splitlines()
    assert table[2] == "| tuned | RP | 1 | 32 | 0.1 | 100% | 0% | 0% | 0% |"


def test_differences_name_the_capped_epsilons_and_it_flips():
    capped = KT.differences_text(_runs(capped=True), P)
    none = KT.differences_text(_runs(capped=False), P)
    assert "exceeds the largest drawn dimension $M = 32$ at $\\varepsilon \\in \\{10\\}$ and is capped there" in capped
    assert "exceeds the largest drawn dimension $M = 32$ at no epsilon and is capped there" in none
    assert "it fits on 75% of the records and shares the budget among the releases of 2 projection dimensions" in none


def test_noise_table_is_read_at_epsilon_one_when_the_sweep_has_it():
    assert KT.noise_epsilon(pd.DataFrame({"epsilon": [10.0, 1.0, 0.5]})) == 1.0
    assert KT.noise_epsilon(pd.DataFrame({"epsilon": [10.0, 2.0, 4.0]})) == 2.0
    assert KT.noise_lead(2.0, 0.001) == "At $\\varepsilon = 2$ and $\\lambda = 0.001$:"


# ------------------------------------------------------------------- the page's claims (kernel_rp_vs_rff_claims)


def _runs_with_ratio(log_ratio_by_d, reps=30, noise=0.1, seed=0, epsilons=(0.3, 3.0), bump=None):
    """Runs of two panels per target where log(RP/RFF) has the given mean for each d (paired per rep).

    ``bump = (epsilon, shift)`` adds ``shift`` to the log ratio at one epsilon (RFF better there when positive).
    """
    rng = np.random.default_rng(seed)
    rows = []
    for target in ("plane_wave", "rkhs"):
        for d, mean in log_ratio_by_d.items():
            for protocol in ("tuned", "theory", "private"):
                for eps in (*epsilons, math.inf):
                    for rep in range(reps):
                        base = 0.05 * math.exp(rng.normal())
                        lr = mean + noise * rng.standard_normal() + (bump[1] if bump and eps == bump[0] else 0.0)
                        for method, err in (("RFF", base), ("RP", base * math.exp(lr))):
                            rows.append(
                                {
                                    "panel": f"{target} d={d}",
                                    "target": target,
                                    "d": d,
                                    "rep": rep,
                                    "protocol": protocol,
                                    "method": method,
                                    "epsilon": eps,
                                    "M": 16,
                                    "test_error": err,
                                }
                            )
    return pd.DataFrame(rows)


def _sweep_with_ratio(ratio, count=30):
    rows = []
    for panel in ("plane_wave d=1", "rkhs d=1", "diabetes d=10"):
        for M in (16, 64):
            for method, mean in (("RFF", 0.1), ("RP", 0.1 * ratio)):
                rows.append(
                    {
                        "panel": panel,
                        "method": method,
                        "epsilon": math.inf,
                        "M": M,
                        "lam": 1e-3,
                        "count": count,
                        "mean": mean,
                        "sd": 0.01,
                        "floored_share": 0.0,
                    }
                )
    return pd.DataFrame(rows)


def _verdicts(tables):
    return {c.claim: c.verdict for c in KC.claims(tables)}


def test_paper_claims_are_not_comparable_and_name_the_figure():
    claims = KC.claims({"runs": _runs_with_ratio({1: -0.2, 20: -0.6}), "sweep": _sweep_with_ratio(0.7)})
    paper = [c for c in claims if c.source == KC.FIGURE]
    assert [c.claim for c in paper] == ["RP consistently better than RFF across epsilon", "the gap widens with d"]
    assert all(c.verdict == NOT_COMPARABLE and not c.setting.comparable for c in paper)
    assert all(c.source is not None for c in claims)
    assert all(c.source.is_ours for c in claims if c not in paper)


def test_cells_hold_when_rp_is_better_everywhere_and_more_so_with_d():
    v = _verdicts({"runs": _runs_with_ratio({1: -0.2, 20: -0.6}), "sweep": _sweep_with_ratio(0.7)})
    ours = {
        k: w
        for k, w in v.items()
        if k not in ("RP consistently better than RFF across epsilon", "the gap widens with d")
    }
    assert ours and all(w == HOLDS for w in ours.values()), ours
    assert (
        "rkhs d=20 (private): in our protocol, RP better and RFF better at no epsilon" in v
        and "gap widens with d: rkhs (theory)" in v
    )


def test_cells_fail_when_rff_is_better_and_more_so_with_d():
    v = _verdicts({"runs": _runs_with_ratio({1: 0.2, 20: 0.6}), "sweep": _sweep_with_ratio(1.4)})
    ours = {k: w for k, w in v.items() if "(" in k or k.startswith("equal M")}
    assert ours and all(w == DOES_NOT_HOLD for w in ours.values()), ours


def test_cells_stay_undecided_when_the_methods_are_level_or_the_trials_few():
    v = _verdicts({"runs": _runs_with_ratio({1: 0.0, 20: 0.0}, reps=4, noise=0.01), "sweep": _sweep_with_ratio(1.0)})
    cells = {k: w for k, w in v.items() if k.endswith("in our protocol, RP better and RFF better at no epsilon")}
    assert cells and all(w == UNDECIDED for w in cells.values()), cells
    assert all(v[k] == UNDECIDED for k in v if k.startswith("equal M"))


def test_one_epsilon_where_rff_wins_breaks_consistently_better():
    runs = _runs_with_ratio({1: -0.3, 20: -0.3}, bump=(3.0, 0.45))
    tests = KC.page_tests({"runs": runs})
    m = KC.verdict_matrix(tests)
    assert (m["ratio"] < 1).all() and (m["rff_better"] == 1).all() and (m["rff_epsilons"].map(tuple) == (3.0,)).all()
    assert all(c.verdict == DOES_NOT_HOLD for c in KC.cell_claims(m).values())
    # the same runs without the bump: RP better overall and never worse
    m = KC.verdict_matrix(KC.page_tests({"runs": _runs_with_ratio({1: -0.3, 20: -0.3})}))
    assert all(c.verdict == HOLDS for c in KC.cell_claims(m).values())


def test_holm_runs_over_the_whole_page():
    runs = _runs_with_ratio({1: 0.0, 20: 0.0}, reps=30, noise=0.3)
    tests = KC.page_tests({"runs": runs, "sweep": _sweep_with_ratio(1.0)})
    # 4 panels x 3 protocols x (2 epsilons + pooled) + 2 targets x 3 protocols + 2 M x 3 panels
    assert tests["size"] == 36 + 6 + 6
    frames = [tests[k] for k in ("matrix", "gap", "equal_m")]
    p = pd.concat([f["p"] for f in frames]).tolist()
    assert pd.concat([f["significant"] for f in frames]).tolist() == holm(p)
    m = tests["matrix"]
    alone = m[(m["p"] < 0.05) & (m["p"] > 0.05 / tests["size"])]
    assert len(alone) and not alone["significant"].any()  # significant alone, not within the page's family


def _edge_runs(top_rp, top_rff, rff_wins_inside):
    """Tuned runs at epsilons 0.1, 0.3, 1: at 0.3 the first ``top_*`` repetitions of each method sit at M = 64."""
    rng = np.random.default_rng(1)
    rows = []
    for panel in ("rkhs d=5", "rkhs d=10"):
        for rep in range(40):
            for eps in (0.1, 0.3, 1.0):
                base = 0.05 * math.exp(rng.normal())
                edge = eps == 0.3
                m_rp = 64 if edge and rep < top_rp else 16
                m_rff = 64 if edge and rep < top_rff else 16
                inside = m_rp < 64 and m_rff < 64
                lr = 0.05 * rng.standard_normal() + (0.4 if edge and (inside == rff_wins_inside) else 0.0)
                for method, err, M in (("RFF", base, m_rff), ("RP", base * math.exp(lr), m_rp)):
                    rows.append(
                        {
                            "panel": panel,
                            "target": "rkhs",
                            "d": int(panel[-1]) if panel.endswith("5") else 10,
                            "rep": rep,
                            "protocol": "tuned",
                            "method": method,
                            "epsilon": eps,
                            "M": M,
                            "test_error": err,
                        }
                    )
    return pd.DataFrame(rows)


def test_cluster_text_says_whether_the_grid_edge_explains_rff_wins():
    grid = (4, 16, 64)
    inside = _edge_runs(20, 20, rff_wins_inside=True)
    tests = KC.page_tests({"runs": inside})
    text = KT.cluster_text(tests, inside, grid)
    assert text.startswith("In the tuned protocol RFF beats RP most often at $\\varepsilon = 0.3$: in 2 panels")
    assert (
        "in 50% of RFF's and 50% of RP's fits, against 0% and 0% at the neighbouring $\\varepsilon$ = $0.1$ and $1$"
        in text
    )
    assert text.endswith(
        "The grid edge does not explain these wins, so the cells stay in the verdict; the tuned cells "
        "whose $M$ sat at the top of the grid say so in their setting."
    )
    edge = _edge_runs(20, 20, rff_wins_inside=False)
    text = KT.cluster_text(KC.page_tests({"runs": edge}), edge, grid)
    assert "above 1 with 95% confidence in 0 of 2 panels" in text
    assert "they may be an artefact of oracle selection at the edge" in text
    level = _edge_runs(0, 0, rff_wins_inside=False)
    assert KT.cluster_text(KC.page_tests({"runs": level}), level, grid) == (
        "In the tuned protocol RFF is better than RP (unadjusted two-sided p < 0.05) at no epsilon."
    )
    # the flagged epsilons reach the setting of the tuned cells
    assert KC.edge_epsilons(inside, grid) == {"rkhs d=10": [0.3], "rkhs d=5": [0.3]}
    cells = KC.cell_claims(KC.verdict_matrix(tests), KC.edge_epsilons(inside, grid))
    assert "tuned M at the top of its grid in at least a third of fits at epsilon 0.3" in str(
        cells[("tuned", "rkhs d=5")].setting
    )


def test_headline_and_matrix_follow_the_verdicts():
    good = KC.claims({"runs": _runs_with_ratio({1: -0.3, 20: -0.3})})
    text = KT.headline_text(good)
    assert text.startswith(
        "The kernel paper's headline experiment (comparison figure of the experiments section, known from a summary "
        "of its caption) reports random projection consistently better than RFF, the gap widening with $d$. That "
        "claim is **not comparable** with our runs, because the paper states no n, M, lambda, delta, data or tuning"
    )
    assert text.endswith("In our protocols RP is consistently better in all 12 panel-protocol cells.")
    bad = KC.claims({"runs": _runs_with_ratio({1: -0.3, 20: -0.3}, bump=(3.0, 0.45))})
    assert KT.headline_text(bad).endswith(
        "In our protocols RP is not consistently better: the check holds in 0 of the 12 panel-protocol cells, does not "
        "hold in 12 (RFF significantly better at some $\\varepsilon$ or overall) and is undecided in 0."
    )
    assert KT.headline_text([]) == ""
    m = KC.verdict_matrix(KC.page_tests({"runs": _runs_with_ratio({1: -0.3, 20: -0.3}, bump=(3.0, 0.45))}))
    lines = KT.matrix_markdown(m, bad).splitlines()
    assert lines[0] == "| panel | tuned | theory | private |"
    assert lines[2].startswith("| plane wave d=1 | **does not hold**: 0.") and "RP 1 / RFF 1 |" in lines[2]
    assert len(lines) == 2 + 4 + 2 and lines[-1].endswith(f"Rule: {KC.CELL_RULE}.")


def test_stored_claims_on_the_committed_results():
    from fastmix_companion.studies import kernel_rp_vs_rff as study

    claims = study.stored_claims(*committed("kernel_rp_vs_rff"))
    assert claims and all(c.source is not None for c in claims)
    assert verdict_counts(claims) == {
        HOLDS: 5,
        HOLDS_IN_DIRECTION: 0,
        NOT_COMPARABLE: 2,
        UNDECIDED: 15,
        DOES_NOT_HOLD: 15,
    }
    assert sum(KC.is_cell(c) for c in claims) == 27


def test_smoke_sizes_names_the_quick_run_sizes():
    out = KT.smoke_sizes({"n_train": 200, "dims": "1,5", "epsilons": "0.3,3,30", "n_reps": 2})
    assert out == (
        "$n = 200$ training records, $d \\in \\{1, 5\\}$, $\\varepsilon \\in \\{0.3, 3, 30\\}$, 2 repetitions per panel"
    )
