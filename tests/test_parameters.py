"""Tests for fastmix_companion.parameters (what each notebook parameter admits) and the studies' rules."""

import math

import pytest

from fastmix_companion import run
from fastmix_companion.parameters import (
    Choice,
    ChoiceList,
    Flag,
    Integer,
    IntegerList,
    ParameterError,
    Real,
    RealList,
    ShapeList,
    Text,
    check_parameters,
)
from fastmix_companion.studies import NOTEBOOK_PARAMETERS, STUDIES, rules_for, run_study, study_module

NOTEBOOKS = [name for name, _ in run.list_notebooks()]


# --------------------------------------------------------------------------- the rule types


@pytest.mark.parametrize(
    ("rule", "good", "bad", "message"),
    [
        (Real(0, low_open=True), 0.5, -1, "parameter x = -1: must be a number > 0"),
        (Real(0, low_open=True), 1e-300, 0, "parameter x = 0: must be a number > 0"),
        (Real(0), 0, -0.5, "parameter x = -0.5: must be a number >= 0"),
        (Real(0, 1, low_open=True, high_open=True), 0.25, 1.0, "parameter x = 1.0: must be a number in (0, 1)"),
        (Real(1), 1, math.inf, "parameter x = inf: must be a finite number >= 1"),
        (Real(1), 2.0, math.nan, "parameter x = nan: must be a number >= 1"),
        (Real(0), 3, "3", "parameter x = '3': must be a number >= 0"),
        (Integer(1), 1, 0, "parameter x = 0: must be an integer >= 1"),
        (Integer(1, 24), 24, 25, "parameter x = 25: must be an integer in [1, 24]"),
        (Integer(0), 2.0, 2.5, "parameter x = 2.5: must be an integer >= 0"),
        (Integer(0), 0, True, "parameter x = True: must be an integer >= 0"),
        (Integer(2, power_of_two=True), 1024, 1000, "parameter x = 1000: must be a power of two >= 2"),
        (Choice("gram", "dense"), "dense", "sparse", "parameter x = 'sparse': must be one of 'gram', 'dense'"),
        (Choice("section3_fastmix", ""), "", "figure2", "must be one of 'section3_fastmix', ''"),
        (Flag(), False, 1, "parameter x = 1: must be True or False"),
        (Text(), "anything", 3, "parameter x = 3: must be any text"),
        (RealList(0, low_open=True), "0.316,1.259", "0.3,-1", "parameter x = '0.3,-1': item -1 is not a number > 0"),
        (RealList(0, low_open=True), [0.5, 2], "", "must be a comma-separated list of numbers > 0"),
        (RealList(0, low_open=True, min_items=0), "", "a,b", "item a is not a number > 0"),
        (RealList(0, low_open=True, special=("auto",)), "auto", "automatic", "item automatic is not a number > 0"),
        (IntegerList(5, 24), "12,17,20", "4,12", "parameter x = '4,12': item 4 is not an integer in [5, 24]"),
        (IntegerList(1), "1,5", "1.5", "item 1.5 is not an integer >= 1"),
        (ChoiceList(("a", "b")), "b,a", "a,c", "parameter x = 'a,c': item c is not one of a, b"),
        (ChoiceList(("a", "b"), min_items=0), "", "c", "item c is not one of a, b"),
        (
            ShapeList(Integer(1, 24), Integer(1)),
            "19x32,17x90",
            "19x32,25x4",
            "item 25x4 is not a shape <log2 n>x<d> with log2 n in [1, 24] and d >= 1",
        ),
        (ShapeList(Integer(1, 24), Integer(1)), "10X4", "19-32", "item 19-32 is not a shape"),
    ],
)
def test_rule_accepts_and_rejects(rule, good, bad, message):
    assert rule.check("x", good) is None
    problem = rule.check("x", bad)
    assert problem is not None and message in problem
    assert "\n" not in problem
    assert rule.describe()  # every rule says what it allows


def test_bounds_naming_other_parameters():
    rule = Integer("log2_k2_min", "log2_n")
    values = {"log2_n": 10, "log2_k2_min": 5}
    assert rule.check("log2_k2_max", 10, values) is None
    assert rule.check("log2_k2_max", 12, values) == (
        "parameter log2_k2_max = 12: must be an integer in [log2_k2_min (= 5), log2_n (= 10)]"
    )
    assert rule.describe() == "an integer in [log2_k2_min, log2_n]"
    power = Integer(1, "2**tiny_log2_n")
    assert power.check("tiny_k2", 64, {"tiny_log2_n": 6}) is None
    assert (
        power.check("tiny_k2", 65, {"tiny_log2_n": 6})
        == "parameter tiny_k2 = 65: must be an integer in [1, 2**tiny_log2_n (= 64)]"
    )
    open_above = Real("eps_min", low_open=True)
    assert (
        open_above.check("eps_max", 0.01, {"eps_min": 0.01})
        == "parameter eps_max = 0.01: must be a number > eps_min (= 0.01)"
    )


def test_check_parameters_lists_every_problem_in_one_line():
    rules = {"a": Integer(1), "b": Real(0, 1, low_open=True, high_open=True), "c": Flag()}
    check_parameters({"a": 1, "b": 0.5, "c": True, "unruled": object()}, rules)
    with pytest.raises(ParameterError) as info:
        check_parameters({"a": 0, "b": 2.0, "c": True}, rules, notebook="toy")
    text = str(info.value)
    assert "\n" not in text and info.value.summary == text
    assert "parameter a = 0: must be an integer >= 1" in text and "parameter b = 2.0" in text
    assert text.endswith("(notebook toy)")
    assert isinstance(info.value, ValueError)
    check_parameters({"a": 0}, None)  # no rules: nothing to check
    check_parameters({"a": 0, "b": 0.5}, rules, only=("b",))


# --------------------------------------------------------------------------- every notebook's rules


def _bad_value(rule):
    """A value the rule must refuse, built from its own bounds or options."""
    if isinstance(rule, Real):
        low = rule.low if not isinstance(rule.low, str) else None
        return (low if rule.low_open else low - 1) if low is not None else "not a number"
    if isinstance(rule, Integer):
        low = rule.low if not isinstance(rule.low, str) else None
        return low - 1 if low is not None else 0.5
    if isinstance(rule, Choice):
        return "no-such-choice"
    if isinstance(rule, Flag):
        return "yes"
    if isinstance(rule, Text):
        return 7
    return "no-such-item,@"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_parameter_of_every_notebook_has_a_rule_its_default_passes(name):
    spec = run.inspect_parameters(name)
    rules = rules_for(name)
    assert rules is not None, f"{name}: declare PARAMETERS in its study or an entry in NOTEBOOK_PARAMETERS"
    assert set(rules) == set(spec), f"{name}: rules and parameters cell differ: {set(rules) ^ set(spec)}"
    defaults = {p.name: p.default_value for p in spec.values()}
    check_parameters(defaults, rules, notebook=name)  # every default passes its own rule
    assert run.check_notebook_parameters(name) == defaults


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_rule_refuses_a_bad_value_naming_parameter_and_value(name):
    spec = run.inspect_parameters(name)
    rules = rules_for(name)
    defaults = {p.name: p.default_value for p in spec.values()}
    for param, rule in rules.items():
        bad = _bad_value(rule)
        message = rule.check(param, bad, {**defaults, param: bad})
        assert message is not None, f"{name}.{param}: {rule!r} accepted {bad!r}"
        assert message.startswith(f"parameter {param} = {bad!r}: ") and "\n" not in message, message
        assert ("must be" in message) or ("is not" in message)


def test_paper_scale_settings_pass_the_rules():
    for name, entry in run.load_paper_scale().items():
        run.check_notebook_parameters(name, entry["parameters"])


def test_study_parameters_match_defaults():
    for notebook in STUDIES:
        module = study_module(notebook)
        assert set(module.PARAMETERS) == set(module.DEFAULTS), notebook


def test_notebooks_without_a_study_have_their_rules_in_the_registry():
    assert set(NOTEBOOK_PARAMETERS).isdisjoint(STUDIES)
    assert {name for name in NOTEBOOKS if name not in STUDIES} == set(NOTEBOOK_PARAMETERS)


def test_run_study_refuses_before_computing():
    with pytest.raises(ParameterError, match=r"parameter eps_min = -1: must be a number > 0"):
        run_study("figure1_noise_scale", {"eps_min": -1}, log=None)
    with pytest.raises(ParameterError, match=r"parameter target = 'sinc': must be one of 'rkhs', 'plane_wave'"):
        run_study("kernel_rates", {"target": "sinc"}, log=None)


def test_section3_refuses_log2_k2_max_above_log2_n():
    from fastmix_companion.studies.section3 import DEFAULTS, k2_values

    params = {**DEFAULTS, "log2_n": 10}  # the default log2_k2_max is 12: no silent cap at 10
    with pytest.raises(
        ParameterError,
        match=r"log2_k2_max = 12: must be an integer in \[log2_k2_min \(= 5\), "
        r"log2_n \(= 10\)\]",
    ):
        k2_values(params)
    with pytest.raises(ParameterError, match="log2_k2_max = 12"):
        run_study("section3_fastmix", {"log2_n": 10}, log=None)
    grid = [k2 for k2, ratio, _, _ in k2_values({**params, "log2_k2_max": 10}) if ratio is None]
    assert grid == [2**j for j in range(5, 11)]
