"""Sentences that summarise a page's checks by their verdicts, shared by the studies' text modules.

Each sentence counts :attr:`fastmix_companion.claims.Claim.verdict` (never ``holds``), names whose
claim it is (the paper with its location, or the companion's own question and what prompted it)
and, for a paper's claim tested outside its setting, says "not comparable" with the reason. An
exploratory check (its rule set after seeing the data) is named as such and left out of the count,
as :func:`fastmix_companion.claims.verdict_counts` leaves it out.
"""

from __future__ import annotations

from collections.abc import Iterable

from fastmix_companion.claims import (
    DOES_NOT_HOLD,
    HOLDS,
    HOLDS_IN_DIRECTION,
    NOT_COMPARABLE,
    UNDECIDED,
    Claim,
    verdict_counts,
)

__all__ = ["tally", "claim_sentence", "checks_text", "whose_tally"]

#: Each verdict as a verb phrase, for one check and for several.
VERBS = {
    HOLDS: ("holds", "hold"),
    HOLDS_IN_DIRECTION: ("holds in direction, not in size", "hold in direction, not in size"),
    NOT_COMPARABLE: ("is not comparable", "are not comparable"),
    UNDECIDED: ("is undecided", "are undecided"),
    DOES_NOT_HOLD: ("does not hold", "do not hold"),
}


def whose_tally(checks, papers: str) -> str:
    """``"Of the 6 checks (5 of <papers>, 1 of our own), 4 hold and 2 are undecided."``, counting verdicts.

    Exploratory checks are left out of every number, and a last sentence says how many there are.
    """
    every = list(checks)
    checks = [c for c in every if not c.exploratory]
    counts = {v: k for v, k in verdict_counts(checks).items() if k}
    ours = sum(c.source is not None and c.source.is_ours for c in checks)
    parts = [f"{k} {VERBS[v][k != 1]}" for v, k in counts.items()]
    listed = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1] if parts else "none is decided"
    text = f"Of the {len(checks)} checks ({len(checks) - ours} of {papers}, {ours} of our own), {listed}."
    n_expl = len(every) - len(checks)
    if n_expl:
        text += (
            f" {n_expl} exploratory check{'s' if n_expl != 1 else ''} (rule set after seeing these data) not counted."
        )
    return text


def tally(claims: Iterable[Claim]) -> str:
    """``'Of the 4 checks, the verdict is "holds" for 3 and "does not hold" for 1.'`` ("" for none).

    Exploratory checks are not counted; a sentence says how many there are.
    """
    claims = list(claims)
    if not claims:
        return ""
    counted = [c for c in claims if not c.exploratory]
    n_expl = len(claims) - len(counted)
    expl = (
        f"{n_expl} exploratory check{'s' if n_expl != 1 else ''} (rule set after seeing these data) "
        f"{'are' if n_expl != 1 else 'is'} shown but not counted."
        if n_expl
        else ""
    )
    if not counted:
        return expl
    parts = [f'"{word}" for {k}' for word, k in verdict_counts(counted).items() if k]
    listed = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]
    what = f"{'counted ' if n_expl else ''}check{'s' if len(counted) != 1 else ''}"
    return f"Of the {len(counted)} {what}, the verdict is {listed}." + (f" {expl}" if expl else "")


def claim_sentence(c: Claim) -> str:
    """One claim: whose it is, its name and its verdict, with the reason when not comparable."""
    if c.source is None:
        whose = "A check that does not say whose claim it is"
    elif c.source.is_ours:
        whose = "Our own question" + (f" ({c.source.location})" if c.source.location else "")
    else:
        whose = f"The {c.source}"
    text = f'{whose}, "{c.claim}": {c.verdict}'
    if c.exploratory:
        text += " (exploratory: rule set after seeing these data, not counted)"
    if c.verdict == NOT_COMPARABLE:
        text += f", because the run is outside the paper's setting ({'; '.join(c.setting.differences)})"
    elif c.verdict == HOLDS_IN_DIRECTION:
        text += f" ({c.size})"
    return text + "."


def checks_text(claims: Iterable[Claim]) -> str:
    """The tally, then one sentence per claim (paragraph breaks between); "" for no claims."""
    claims = list(claims)
    if not claims:
        return ""
    return tally(claims) + "\n\n" + " ".join(claim_sentence(c) for c in claims)
