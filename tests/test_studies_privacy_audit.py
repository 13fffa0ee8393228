"""The sentences of the privacy audit page (fastmix_companion.studies.privacy_audit_text), on hand-made tables."""

import pandas as pd

from fastmix_companion.claims import Claim, fastmix_paper
from fastmix_companion.studies import privacy_audit_text as PT

P = {"n": 32, "d": 3, "k2": 8, "k1": 6, "gamma": 10.0, "delta": 1e-5, "n_alphas": 12, "n_starts": 2, "n_releases": 2000}


def _tables(worst=0.5):
    designs = pd.DataFrame(
        {
            "cell": ["a", "b"],
            "design": ["spike", "flat"],
            "pairs": [4, 4],
            "worst_ratio_exact": [0.2, worst],
            "worst_ratio_bar": [0.1, 0.3],
            "worst_ratio_simple": [0.05, 0.1],
            "gamma_first_min": [10.0, 11.0],
        }
    )
    optimised = pd.DataFrame(
        {
            "design": ["spike"],
            "index": [3],
            "worst_ratio_exact": [0.4],
            "worst_ratio_bar": [0.2],
            "worst_ratio_simple": [0.1],
            "gamma": [10.5],
        }
    )
    attack = pd.DataFrame(
        [
            {
                "epsilon_lower": 0.05,
                "epsilon_point": 0.2,
                "epsilon_exact": 0.25,
                "epsilon_accounted_exact": 0.5,
                "epsilon_accounted_bar": 1.0,
                "epsilon_accounted_simple": 1.5,
                "delta": 1e-5,
                "confidence": 0.95,
                "n_releases": 20000,
            }
        ]
    )
    return {"designs": designs, "optimised": optimised, "attack": attack}


def _claim(holds, name):
    return Claim(
        claim=name, paper="Lemma 1", measured="x", rule="y", holds=holds, source=fastmix_paper("Lemma 1 (Section 3)")
    )


def test_settings_in_words():
    assert PT.audit_setting(P) == (
        "$n = 32$ rows, $d = 3$, an SRHT with $k_2 = 8$ rows, $k_1 = 6$ Gaussian rows per release, target "
        "$\\gamma = 10$, $\\delta = 10^{-5}$"
    )
    assert PT.stored_setting_text(P).endswith(
        "12 Rényi orders, 2 optimiser starts, 2,000 releases per hypothesis in the attack."
    )


def test_tables_carry_the_page_labels():
    des = PT.design_table(_tables())
    assert list(des["design"]) == ["spike", "flat", "spike, row 3 optimised"]
    assert list(des["worst ratio (φ)"]) == [0.2, 0.5, 0.4] and list(des["smallest γ of the first argument"]) == [
        10.0,
        11.0,
        10.5,
    ]
    eps = PT.epsilon_summary(_tables())
    assert eps.columns == ["epsilon at delta = 1e-05"]
    assert eps.iloc[0, 0] == 0.05 and eps.index[0] == "attack lower bound (95% confidence)"
    assert "accounted: phi_bar (eq. 57, used by Theorem 1)" in eps.index


def test_findings_tally_and_the_epsilons():
    text = PT.findings_text(_tables(), [_claim(True, "a"), _claim(False, "b"), _claim(False, "c")])
    assert text.startswith(
        'Of the 3 checks, the verdict is "holds" for 1 and "does not hold" for 2.\n\n'
        'The FastMix paper, Lemma 1 (Section 3), "a": holds. The FastMix paper, Lemma 1 (Section 3), "b": does not '
        'hold. The FastMix paper, Lemma 1 (Section 3), "c": does not hold.\n\nThe largest ratio of an exact divergence'
    )
    assert "is 0.5, so the worst pair found uses 50% of what Lemma 1 allows at its worst order." in text
    assert "certified attack bound 0.05, attack point estimate 0.2, exact 0.25, accounted 0.5 ($\\phi$), 1 " in text
    assert "(4.00 times for $\\bar\\phi$)" in text and "from 20,000 releases per hypothesis." in text


def test_findings_say_the_worst_case_steps_do_not_bind_only_when_no_pair_exceeds_the_bound():
    within = PT.findings_text(_tables(worst=0.5), [])
    beyond = PT.findings_text(_tables(worst=1.2), [])
    assert "$\\|u_1\\| \\le 1$), which bind only for worse pairs than any found here; the gap" in within
    assert "which bind only for worse pairs" not in beyond and "$\\|u_1\\| \\le 1$); the gap" in beyond


def test_tradeoff_caption():
    assert PT.tradeoff_caption(_tables()) == (
        "Error rates of the likelihood-ratio attack on the worst pair (false-negative against false-positive rate) "
        "from 20,000 releases per hypothesis: empirical, Clopper-Pearson upper limits at 95% confidence, and exact; "
        "the shaded area is excluded by the accounted guarantee $\\varepsilon = 1$ (from $\\bar\\phi$) at "
        "$\\delta = 10^{-5}$."
    )


def test_findings_count_verdicts_not_outcomes():
    """A paper's check run outside its setting is "not comparable" in the tally, whatever its outcome."""
    from fastmix_companion.claims import Setting

    outside = Claim(
        claim="d",
        paper="Lemma 1",
        measured="x",
        rule="y",
        holds=True,
        source=fastmix_paper("Lemma 1 (Section 3)"),
        setting=Setting(("rows of norm 2",), comparable=False),
    )
    text = PT.findings_text(_tables(), [_claim(True, "a"), outside])
    assert text.startswith('Of the 2 checks, the verdict is "holds" for 1 and "not comparable" for 1.')
    assert '"d": not comparable, because the run is outside the paper\'s setting (rows of norm 2).' in text


# --------------------------------------------------------------------------- the study's verdicts


def test_a_bound_exceeded_on_one_pair_does_not_hold_and_every_claim_is_the_papers():
    from fastmix_companion.studies import privacy_audit as A

    t = _tables()
    t["attack"] = t["attack"].assign(
        delta_at_accounted_exact=1e-9, delta_at_accounted_bar=1e-9, delta_at_accounted_simple=0.0
    )
    claims = A.claims(t, P)
    assert [c.verdict for c in claims] == ["holds"] * 5
    assert all(c.source.paper == "FastMix paper" and c.setting.comparable for c in claims)
    assert claims[2].source.location == "Lemma 1 (Section 3), eq. (8)"
    assert "one SRHT of k2 = 8 rows on n = 32, d = 3" in str(claims[0].setting)
    t["optimised"] = t["optimised"].assign(worst_ratio_bar=1.2)
    assert [c.verdict for c in A.claims(t, P)][:3] == ["holds", "does not hold", "holds"]
    t["attack"] = t["attack"].assign(epsilon_lower=0.7)  # above the smallest accounted epsilon, 0.5
    assert A.claims(t, P)[3].verdict == "does not hold"


def test_stored_claims_state_their_sources_and_verdicts():
    import pytest

    from fastmix_companion.claims import verdict_counts
    from fastmix_companion.store import ResultsStore
    from fastmix_companion.studies import privacy_audit as A

    store = ResultsStore(A.NOTEBOOK)
    tables = store.load()
    if tables is None:
        pytest.skip("no stored entry")
    claims = A.stored_claims(tables, store.parameters())
    assert all(c.source is not None and c.source.paper == "FastMix paper" for c in claims)
    assert verdict_counts(claims) == {
        "holds": 5,
        "holds in direction, not in size": 0,
        "not comparable": 0,
        "undecided": 0,
        "does not hold": 0,
    }


def test_smoke_sizes_names_the_quick_run_sizes():
    out = PT.smoke_sizes({"n": 64, "d": 4, "k2": 16, "n_releases": 400_000})
    assert out == "$n = 64$, $d = 4$, $k_2 = 16$, 400,000 releases per hypothesis"
