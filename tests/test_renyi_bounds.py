"""The curve forms of the per-row Renyi bounds (fastmix.accounting.renyi_bounds).

``renyi_bound`` and ``mixing_rdp`` must equal the checked bound functions inside each domain and
be ``inf`` outside it, where the checked functions raise.
"""

import math

import numpy as np
import pytest

from fastmix import accounting as acc

CHECKED = {
    "gaussian": acc.gaussian_mix_rdp,
    "bar": acc.fastmix_rdp_bar,
    "simple": acc.fastmix_rdp_simple,
    "unbounded": acc.fastmix_rdp_unbounded,
    "unbounded_simple": acc.fastmix_rdp_unbounded_simple,
}


@pytest.mark.parametrize("bound", [*CHECKED, "exact"])
@pytest.mark.parametrize("gamma", [1.1, 2.0, 4.0, 30.0, 900.0])
def test_renyi_bound_equals_the_checked_bound_inside_its_domain_and_is_inf_outside(bound, gamma):
    c2 = 3.0 if bound == "exact" else None
    # orders below 1, and log-spaced above 1 so that even the narrow domains (alpha_max near 1) hold some
    alphas = np.concatenate([[0.5, 1.0], 1.0 + np.geomspace(1e-4, 1.2 * gamma + 1.0, 160)])
    curve = acc.renyi_bound(alphas, gamma, bound, c2=c2)
    assert curve.shape == alphas.shape
    if not gamma > acc.fastmix_gamma_min(bound, c2=c2):
        assert np.all(np.isinf(curve))
        return
    amax = acc.fastmix_alpha_max(gamma, bound, c2=c2)
    inside = (alphas > 1.0) & (alphas < amax)
    assert inside.any() and (~inside).any()
    checked = (lambda a, g: acc.fastmix_rdp_exact(a, g, c2)) if bound == "exact" else CHECKED[bound]
    np.testing.assert_array_equal(curve[inside], checked(alphas[inside], gamma))
    assert np.all(np.isposinf(curve[~inside]))
    with pytest.raises(ValueError):
        checked(alphas[~inside][-1], gamma)


def test_renyi_bound_scalar_and_arguments():
    assert isinstance(acc.renyi_bound(2.0, 10.0, "bar"), float)
    assert acc.renyi_bound(2.0, 10.0, "bar") == acc.fastmix_rdp_bar(2.0, 10.0)
    assert acc.renyi_bound(50.0, 10.0, "bar") == math.inf
    with pytest.raises(ValueError, match="needs c2"):
        acc.renyi_bound(2.0, 10.0, "exact")
    with pytest.raises(ValueError, match="bound must be one of"):
        acc.renyi_bound(2.0, 10.0, "tight")
    with pytest.raises(ValueError, match="c2"):
        acc.renyi_bound(2.0, 10.0, "exact", c2=0.5)
    with pytest.raises(ValueError, match="gamma"):
        acc.renyi_bound(2.0, -1.0, "bar")


def test_q_from_c2_and_mixing_rdp_reproduce_the_exact_bound():
    assert acc.q_from_c2(1.0) == 0.0
    assert acc.q_from_c2(2.0) == pytest.approx(0.25)
    assert acc.q_from_c2(math.inf) == 1.0
    with pytest.raises(ValueError):
        acc.q_from_c2(0.9)
    alphas = np.linspace(1.05, 3.0, 20)
    for c2 in (1.0, 1.7, 5.0):
        np.testing.assert_array_equal(
            acc.mixing_rdp(alphas, 8.0, acc.q_from_c2(c2)), acc.fastmix_rdp_exact(alphas, 8.0, c2)
        )
    np.testing.assert_array_equal(acc.mixing_rdp(alphas, 8.0), acc.gaussian_mix_rdp(alphas, 8.0))
    np.testing.assert_array_equal(acc.mixing_rdp(alphas, 8.0, 1.0), acc.fastmix_rdp_bar(alphas, 8.0))
    # outside the domain of the logarithms: inf, not an error
    assert acc.mixing_rdp(9.0, 8.0) == math.inf
    assert acc.mixing_rdp(1.0, 8.0) == math.inf
    for bad_q in (-0.1, 1.5, [0.1, 0.2]):
        with pytest.raises(ValueError, match="q"):
            acc.mixing_rdp(2.0, 8.0, bad_q)


def test_every_registered_bound_is_reachable_by_name_from_every_lookup():
    from fastmix.accounting import renyi_bounds as rb

    registry = rb._REGISTRY
    assert set(registry) == {*CHECKED, "exact"}
    for name, entry in registry.items():
        assert entry.name == name
        c2 = 2.0 if entry.needs_c2 else None
        gamma = 2.0 * entry.gamma_min(c2) + 30.0
        alpha = 0.5 * (1.0 + rb.fastmix_alpha_max(gamma, name, c2=c2))
        assert rb.fastmix_gamma_min(name, c2=c2) == entry.gamma_min(c2)
        assert rb.fastmix_alpha_max(gamma, name, c2=c2) == rb._alpha_max(gamma, name, c2) == entry.alpha_max(gamma, c2)
        value = rb.renyi_bound(alpha, gamma, name, c2=c2)
        assert math.isfinite(value) and value == rb._checked_bound(name, alpha, gamma, c2)
        public = acc.fastmix_rdp_exact(alpha, gamma, c2) if name == "exact" else CHECKED[name](alpha, gamma)
        assert public == value
        assert rb._BOUND_LABEL[name] == entry.label and rb._GAMMA_MIN_TEXT[name] == entry.gamma_min_text
        if entry.needs_c2:
            assert name not in rb._UNCHECKED_BOUND
            with pytest.raises(ValueError, match="needs c2"):
                rb.fastmix_gamma_min(name)
        else:
            assert rb._UNCHECKED_BOUND[name](alpha, gamma) == value
        with pytest.raises(ValueError, match="bound must be one of") as refused:
            rb.renyi_bound(alpha, gamma, "no such bound")
        assert repr(name) in str(refused.value)


def test_a_bound_missing_a_field_cannot_be_registered():
    import dataclasses

    from fastmix.accounting import renyi_bounds as rb

    entry = rb._REGISTRY["bar"]
    every = {f.name: getattr(entry, f.name) for f in dataclasses.fields(entry)}
    for missing in every:
        with pytest.raises(TypeError):
            rb._RenyiBound(**{k: v for k, v in every.items() if k != missing})
        with pytest.raises(ValueError, match=missing):
            rb._RenyiBound(**{**every, missing: None})
    with pytest.raises(ValueError, match="label"):
        dataclasses.replace(entry, name="other", label=" ")
    with pytest.raises(ValueError, match="already registered"):
        rb._register(dataclasses.replace(entry))
    with pytest.raises(TypeError):
        rb._register(every)
    assert set(rb._REGISTRY) == {*CHECKED, "exact"}


def test_the_documented_tables_list_every_registered_bound():
    from fastmix.accounting import renyi_bounds as rb

    for name, entry in rb._REGISTRY.items():
        gamma_rows = [line for line in rb.fastmix_gamma_min.__doc__.splitlines() if f'``"{name}"``' in line]
        assert len(gamma_rows) == 1 and entry.gamma_min_text in gamma_rows[0], name
        assert sum(line.split()[:1] == [f'"{name}"'] for line in rb.fastmix_alpha_max.__doc__.splitlines()) == 1
        assert f'"{name}"' in rb.renyi_bound.__doc__
