"""The tuning, DSE and stats modules speak the library's one vocabulary (issue 14).

Every public callable's parameters, every public result type's fields and
properties, and the columns of the tables they produce use the agreed names:
``low``/``high`` for support bounds, ``lower``/``upper`` for interval ends,
``budgets`` for a grid of budgets, ``n_resamples`` for resample counts,
``seed`` for randomness, ``p_value``/``p_value_adjusted`` for p-values,
``confidence`` for interval levels and ``alpha`` for significance only.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
import pkgutil

import numpy as np
import pandas as pd
import pytest

import benchverdict.dse
import benchverdict.stats
import benchverdict.tuning

#: Spellings the vocabulary replaced, with the name to use instead.
FORBIDDEN = {
    "ks": "budgets",
    "reps": "n_resamples",
    "n_bootstrap": "n_resamples",
    "nsamples": "n_resamples",
    "permutations": "n_permutations",
    "random_state": "seed",
    "rng": "seed",
    "pvalue": "p_value",
    "pvalue_adjusted": "p_value_adjusted",
    "p_adjusted": "p_value_adjusted",
    "level": "confidence (interval level), cvar_level or quantile_level",
    "effect_level": "confidence",
    "rows": "budget",
}
#: Column spellings of interval ends the vocabulary replaced.
FORBIDDEN_COLUMNS = {"low", "high", "pvalue", "p_adjusted", "pvalue_adjusted", "reps"}


def _modules():
    for package in (benchverdict.tuning, benchverdict.dse, benchverdict.stats):
        yield package
        for info in pkgutil.iter_modules(package.__path__):
            if not info.name.startswith("_"):
                yield importlib.import_module(f"{package.__name__}.{info.name}")


def _public_callables():
    """``(qualified name, callable)`` for every public function, class and method."""
    seen = set()
    for module in _modules():
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            key = f"{obj.__module__}.{obj.__qualname__}"
            if key in seen:
                continue
            seen.add(key)
            yield key, obj
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if attr.startswith("_"):
                        continue
                    func = getattr(member, "__func__", member)
                    if inspect.isfunction(func):
                        yield f"{key}.{attr}", func


CALLABLES = dict(_public_callables())


def _is_bound_default(param: inspect.Parameter) -> bool:
    default = param.default
    return (isinstance(default, float) and not isinstance(default, bool)) or (
        param.annotation in (float, "float") and default is not inspect.Parameter.empty)


def test_the_walk_finds_the_modules_public_api():
    # guards the test itself: an import change must not leave it checking nothing
    for name in ("benchverdict.tuning.curves.tuning_curve", "benchverdict.dse.distribution."
                 "distribution", "benchverdict.stats.cdf_bands.cdf_band",
                 "benchverdict.dse.distribution.DistributionResult.verdicts"):
        assert name in CALLABLES
    assert len(CALLABLES) > 80


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_public_signatures_use_the_vocabulary(name):
    try:
        signature = inspect.signature(CALLABLES[name])
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        pytest.skip("no signature")
    for param in signature.parameters.values():
        assert param.name not in FORBIDDEN, (
            f"{name}({param.name}=...): use {FORBIDDEN[param.name]}")
        if param.name in ("a", "b"):
            # a and b name the two things compared (samples, curves) or Beta shapes;
            # support bounds are keyword-only low and high
            assert not _is_bound_default(param), f"{name}({param.name}=...): use low/high"
        if param.name in ("low", "high"):
            assert param.kind is inspect.Parameter.KEYWORD_ONLY or inspect.isclass(
                CALLABLES[name]), f"{name}: support bounds {param.name} must be keyword-only"


def _result_types():
    for key, obj in CALLABLES.items():
        if inspect.isclass(obj) and dataclasses.is_dataclass(obj):
            yield key, obj


@pytest.mark.parametrize("name", sorted(dict(_result_types())))
def test_result_fields_and_properties_use_the_vocabulary(name):
    cls = CALLABLES[name]
    names = [f.name for f in dataclasses.fields(cls)]
    names += [attr for attr, member in vars(cls).items() if isinstance(member, property)]
    for attr in names:
        assert attr not in FORBIDDEN, f"{name}.{attr}: use {FORBIDDEN[attr]}"


def _trials(seed: int = 0):
    from benchverdict.results import Results

    rng = np.random.default_rng(seed)
    rows = [(alg, task, s, float(np.clip(rng.normal(0.5 + shift, 0.15), 0.0, 1.0)))
            for task in ("p", "q") for alg, shift in (("A", 0.1), ("B", 0.0), ("C", -0.1))
            for s in range(40)]
    frame = pd.DataFrame(rows, columns=["alg", "task", "seed", "acc"])
    return Results.from_frame(frame, algorithm="alg", benchmark="task", seed="seed",
                              score="acc", objective="maximize", kind="trials")


def _table(name: str) -> pd.DataFrame:
    from benchverdict import dse, tuning

    results = _trials()
    if name.startswith("Tuning"):
        curves = tuning.from_results(results, low=0, high=1, budgets=[1, 2, 4, 8])
        # (TuningComparison.table is the verdict frame: its columns are verdict.py's)
        return {"TuningCurves.table": lambda: curves.table,
                "TuningCurves.tests()": curves.tests}[name]()
    if name.startswith("Distribution"):
        d = dse.distribution(results, low=0, high=1, threshold=0.5, n_resamples=200,
                             n_permutations=99)
        return {"DistributionResult.table": lambda: d.table,
                "DistributionResult.dominance()": d.dominance,
                "DistributionResult.cvar_differences()": d.cvar_differences}[name]()
    if name.startswith("Aggregate"):
        agg = dse.aggregate(results, n_resamples=200, metrics=["iqm", "mean"])
        return agg.table if name == "AggregateResult.table" else agg.differences
    return dse.interval(np.linspace(0, 1, 30), "mean", low=0, high=1).table


@pytest.mark.parametrize("name", [
    "TuningCurves.table", "TuningCurves.tests()", "DistributionResult.table",
    "DistributionResult.dominance()", "DistributionResult.cvar_differences()",
    "AggregateResult.table", "AggregateResult.differences", "Interval.table"])
def test_table_columns_use_the_vocabulary(name):
    columns = set(map(str, _table(name).columns))
    assert not columns & FORBIDDEN_COLUMNS, (name, sorted(columns & FORBIDDEN_COLUMNS))
    assert not [c for c in columns if c.endswith(("_low", "_high"))], (name, sorted(columns))
    assert not [c for c in columns if "pvalue" in c], (name, sorted(columns))


def test_interval_columns_are_the_statistic_with_lower_and_upper():
    from benchverdict import dse

    d = dse.distribution(_trials(), low=0, high=1, threshold=0.5, n_resamples=200,
                         n_permutations=99)
    row = d.table.iloc[0]
    for stat in ("cvar", "median", "threshold_area", "exceedance"):
        assert row[f"{stat}_lower"] <= row[stat] <= row[f"{stat}_upper"], stat
    # the lower-tail CVaR is its own statistic, named after its level argument
    assert row["lower_tail_cvar"] <= row["cvar"]


def test_cli_options_use_the_vocabulary():
    import argparse

    from benchverdict.dse import _cli as dse_cli
    from benchverdict.tuning import _cli as tuning_cli

    for module, wanted in ((tuning_cli, {"--budgets", "--low", "--high", "--confidence",
                                         "--alpha"}),
                           (dse_cli, {"--n-resamples", "--random-seed", "--low", "--high",
                                      "--confidence", "--alpha", "--n-permutations"})):
        parser = argparse.ArgumentParser()
        module.register(parser.add_subparsers(), [])
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        options = {o for action in next(iter(sub.choices.values()))._actions
                   for o in action.option_strings}
        assert wanted <= options, (module.__name__, sorted(wanted - options))
        assert not options & {"--ks", "--reps", "--seed", "--level", "--n-bootstrap"}, (
            module.__name__, sorted(options))


def test_support_bounds_are_keyword_only_and_checked_by_name():
    from benchverdict.stats import cdf_band
    from benchverdict.tuning import tuning_curve

    with pytest.raises(TypeError):
        cdf_band([0.2, 0.5], 0.8, "dkw", 0.0, 1.0)  # bounds no longer positional
    with pytest.raises(ValueError, match=r"\[low, high\]"):
        tuning_curve([0.2, 1.5], low=0, high=1)
    band = cdf_band([0.2, 0.5], 0.8, low=0.0, high=1.0)
    assert (band.low, band.high) == (0.0, 1.0)
    assert math.isinf(cdf_band([0.2, 0.5], 0.8).high)
