"""The verdict sentences the studies' text modules share (fastmix_companion.studies._verdict_sentences)."""

from fastmix_companion.claims import PAPER_SETTING, Claim, Interval, Magnitude, Setting, Source, fastmix_paper
from fastmix_companion.studies import _verdict_sentences as V

FIGURE3 = fastmix_paper("Figure 3")


def _claim(holds=True, source=FIGURE3, setting=PAPER_SETTING, ratio=None):
    sizes = () if ratio is None else (Magnitude("speedup", 2.0, Interval(ratio, ratio * 0.9, ratio * 1.1)),)
    return Claim("c", "says", "measured", "rule", holds, source=source, setting=setting, magnitudes=sizes)


def test_tally_counts_verdicts_in_their_order():
    assert V.tally([]) == ""
    assert V.tally([_claim()]) == 'Of the 1 check, the verdict is "holds" for 1.'
    claims = [_claim(), _claim(False), _claim(None), _claim(ratio=5.0)]
    assert V.tally(claims) == (
        'Of the 4 checks, the verdict is "holds" for 1, "holds in direction, not in size" for 1, "undecided" for 1 '
        'and "does not hold" for 1.'
    )


def test_exploratory_checks_are_named_and_not_counted():
    from dataclasses import replace

    explored = replace(_claim(False), exploratory=True)
    assert V.tally([_claim(), explored]) == (
        'Of the 1 counted check, the verdict is "holds" for 1. 1 exploratory check (rule set after seeing these data) '
        "is shown but not counted."
    )
    only = V.tally([explored, explored])
    assert only == "2 exploratory checks (rule set after seeing these data) are shown but not counted."
    assert V.claim_sentence(explored) == (
        'The FastMix paper, Figure 3, "c": does not hold (exploratory: rule set after seeing these data, not counted).'
    )
    # counted, the same check changes the tally
    counted = V.tally([_claim(), _claim(False)])
    assert counted == 'Of the 2 checks, the verdict is "holds" for 1 and "does not hold" for 1.'


def test_each_sentence_says_whose_claim_and_flips_with_the_verdict():
    assert V.claim_sentence(_claim()) == 'The FastMix paper, Figure 3, "c": holds.'
    assert V.claim_sentence(_claim(False)) == 'The FastMix paper, Figure 3, "c": does not hold.'
    assert V.claim_sentence(_claim(ratio=5.0)) == (
        'The FastMix paper, Figure 3, "c": holds in direction, not in size '
        "(speedup: measured/paper 5 [4.5, 5.5] (outside a factor 2))."
    )
    outside = _claim(setting=Setting(("k2 = 0.78 n",), comparable=False))
    assert V.claim_sentence(outside) == (
        'The FastMix paper, Figure 3, "c": not comparable, because the run is outside the paper\'s setting '
        "(k2 = 0.78 n)."
    )
    ours = _claim(source=Source(None, "a practitioner's question"), setting=Setting(("k2 = 0.78 n",), comparable=False))
    assert V.claim_sentence(ours) == 'Our own question (a practitioner\'s question), "c": holds.'
    assert V.claim_sentence(_claim(source=None)).startswith("A check that does not say whose claim it is")
    assert V.checks_text([]) == ""
    assert V.checks_text([_claim(), ours]) == (
        'Of the 2 checks, the verdict is "holds" for 2.\n\nThe FastMix paper, Figure 3, "c": holds. '
        'Our own question (a practitioner\'s question), "c": holds.'
    )


def test_whose_tally_leaves_exploratory_checks_out_of_every_number():
    from fastmix_companion.claims import OURS, Claim, fastmix_paper
    from fastmix_companion.studies._verdict_sentences import whose_tally

    checks = [
        Claim("a", "p", "m", "r", True, fastmix_paper("Figure 3")),
        Claim("b", "p", "m", "r", None, OURS),
        Claim("c", "p", "m", "r", False, OURS, exploratory=True),
    ]
    assert whose_tally(checks, "the paper's claims") == (
        "Of the 2 checks (1 of the paper's claims, 1 of our own), 1 holds and 1 is undecided. "
        "1 exploratory check (rule set after seeing these data) not counted."
    )
