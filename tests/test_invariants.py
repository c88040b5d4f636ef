"""Metamorphic invariants: no verdict changes when nothing that matters changes (issue 10, §2).

Every analysis module (tuning curves, DSE, rank tests, LMEM) and the report
must give the same *set of verdicts* when the input is changed in a way that
carries no information:

* the rows are permuted;
* algorithms or benchmarks are renamed, in any way (also when the new names
  sort in another order, look numeric, or hold characters that mean something
  to LaTeX, HTML, regular expressions or model formulas);
* every score is negated and ``objective`` flipped;
* two algorithms swap names (so every verdict about (a, b) is computed as a
  verdict about (b, a) and must be its mirror image);
* the scores are shifted and rescaled by any factor in 1e-150 .. 1e150;
* for rank tests: any strictly increasing transform of the scores, where each
  block holds one run (one seed per benchmark, or benchmark x seed blocks).

What is compared (``canonical``): for every verdict, the pair (mapped back
through the renaming and put in a fixed order, the verdict mirrored with it),
the method, the scope (benchmark mapped back, budget range, metafeature
levels) and the outcome, i.e. the winner and the loser. Verdicts are compared
as multisets, so a verdict that appears, disappears or changes its winner
fails the test. Numbers are compared where they must not change, with
tolerances for floating-point rounding only:

* the effect estimate (positive favours ``a``) of every method that has one,
  except Autorank's (autorank reports it only against the top-ranked
  algorithm, which is not a function of the pair);
* the effect interval where it decides the outcome: tuning-curve bands
  (deterministic), the DSE CVaR interval (a seeded bootstrap: it must not
  depend on the row order or on which algorithm is called ``a``), the LMEM's
  Tukey interval. The rank tests' bootstrap intervals of Cliff's delta resample
  blocks in benchmark-name order and decide nothing; they are not compared;
* p-values of deterministic tests (Friedman post-hoc tests, sign test, KS
  dominance; the LMEM's with a looser tolerance, as they come from an
  optimiser);
* the number of units ``n``.

Under ``scores -> c * (scores + u)`` effects measured in score units (tuning
curves, DSE CVaR, LMEM mean differences) are multiplied by ``c``; unit-free
effects (Cliff's delta, net win share) and every p-value are unchanged. The
explanation text holds numbers and names, so it is not compared. Under an
increasing transform only the rank methods are checked, on their outcomes,
p-values and Cliff's delta.

The report (:func:`benchverdict.compare`) must in addition keep every
analysis's status, every pair's consensus and every scope's ranking.

Each property runs on the built-in example (subsampled to keep each test to a
few seconds) and on generated designs with planted gaps, exact ties,
near-ties (relative 1e-9), scores constant per algorithm, identical
algorithms and one or several benchmarks.
"""

from __future__ import annotations

import hashlib
import inspect
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

import benchverdict as bv
from benchverdict import dse, lmem, ranks, tuning
from benchverdict.examples import load_example_frame
from benchverdict.results import Results
from benchverdict.verdict import Verdict

# Glyphs outside matplotlib's default font, tie warnings of the bands, autorank's chatter:
# warnings are the modules' business here, verdicts are ours.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::RuntimeWarning")

#: Column names of every table built here.
ROLES = {"algorithm": "alg", "benchmark": "bench", "seed": "seed", "budget": "trial",
         "score": "score"}
#: Bootstrap replicates for DSE CVaR intervals (as the report uses).
DSE_REPS = 1000

SETTINGS = {
    "deadline": None,
    "derandomize": True,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large,
                              HealthCheck.differing_executors],
    "print_blob": True,
    # No shrinking: a failing example is reported as found. Shrinking a failure of a
    # whole-module property can take many minutes, and the example already names the
    # transform and the verdicts that changed.
    "phases": (Phase.explicit, Phase.reuse, Phase.generate),
}


# ============================================================================ data
@dataclass(frozen=True)
class Table:
    """A raw results table (user columns, see ROLES) and its objective."""

    frame: pd.DataFrame
    objective: str

    def results(self) -> Results:
        return Results.from_frame(
            self.frame, algorithm="alg", benchmark="bench", seed="seed", budget="trial",
            score="score", objective=self.objective, kind="trials",
        )

    def digest(self) -> str:
        h = hashlib.sha1(self.objective.encode())
        h.update(pd.util.hash_pandas_object(self.frame, index=True).to_numpy().tobytes())
        h.update(",".join(self.frame.columns).encode())
        return h.hexdigest()

    @property
    def algorithms(self) -> list[str]:
        return sorted(self.frame["alg"].astype(str).unique())

    @property
    def benchmarks(self) -> list[str]:
        return sorted(self.frame["bench"].astype(str).unique())


#: Scores are multiples of this (see ``dyadic``).
QUANTUM = 2.0**-16


def dyadic(scores: np.ndarray) -> np.ndarray:
    """Round scores to multiples of 2**-16.

    Then sums, means over 1, 2, 4 or 8 seeds, differences, shifts by the
    dyadic numbers used here and rescaling by powers of two are exact in
    floating point, so a tie in the data (equal means, equal differences)
    stays a tie, in any row order. Without this, ``0.95 - 0.9`` and
    ``0.85 - 0.8`` may or may not be equal depending on the last bit, and a
    Wilcoxon test's tie handling would change with it: a property of the
    data's representation, not of the method under test. Arbitrary factors
    are tested separately (``rescale_any``) on methods that only see raw
    scores (whose ties any monotone rounding keeps).
    """
    return np.round(np.asarray(scores, dtype=float) / QUANTUM) * QUANTUM


def _example_table(algorithms, benchmarks, seeds: int, trials: int) -> Table:
    f = load_example_frame()
    keep = (f["algorithm"].isin(algorithms) & f["benchmark"].isin(benchmarks)
            & (f["seed"] < seeds) & (f["trial"] <= trials))
    sub = f.loc[keep, ["algorithm", "benchmark", "seed", "trial", "accuracy"]]
    sub.columns = ["alg", "bench", "seed", "trial", "score"]
    sub = sub.astype({"alg": object, "bench": object})
    # Accuracies are multiples of 1/n_test (n_test <= 1000): distinct ones stay distinct.
    sub["score"] = dyadic(sub["score"].to_numpy())
    return Table(sub.reset_index(drop=True), "maximize")


_EXAMPLES: dict[str, Table] = {}


def example_table() -> Table:
    """The example, subsampled: 4 algorithms x 10 benchmarks x 8 seeds x 6 trials.

    Every other one of the example's 20 benchmarks (sorted by name): half the size keeps
    each check's report small enough for CI, and the rank tests still decide pairs on it
    (test_canonical_form_detects_a_flipped_winner needs that).
    """
    if "main" not in _EXAMPLES:
        benches = sorted(load_example_frame()["benchmark"].unique())[::2]
        _EXAMPLES["main"] = _example_table(["LR", "MLP", "SVM", "kNN"], benches, seeds=8,
                                           trials=6)
    return _EXAMPLES["main"]


def example_one_seed_table() -> Table:
    """The example with one seed per benchmark: rank blocks hold one run each."""
    if "one_seed" not in _EXAMPLES:
        benches = sorted(load_example_frame()["benchmark"].unique())[::2]
        _EXAMPLES["one_seed"] = _example_table(["LR", "MLP", "RF", "SVM"], benches, seeds=1,
                                               trials=20)
    return _EXAMPLES["one_seed"]


@st.composite
def designs(draw, *, min_algorithms: int = 2, min_benchmarks: int = 1,
            one_seed: bool = False) -> Table:
    """Small random-search designs with planted gaps, exact ties and near-ties.

    Every score is dyadic (see :func:`dyadic`; here multiples of 2**-30), so
    the exact transforms keep every tie and near-tie.
    """
    n_alg = draw(st.integers(min_algorithms, 4))
    # Up to 7 benchmarks: a sign test across benchmarks can only reject with 6 or more.
    n_bench = draw(st.integers(min_benchmarks, 7))
    n_seed = 1 if one_seed else draw(st.sampled_from([2, 4]))  # means over seeds stay exact
    n_trial = draw(st.integers(2, 5) if one_seed else st.integers(1, 4))
    # Per-algorithm effects: equal ones plant ties in distribution, 2**-30 a near-tie.
    effects = draw(st.lists(st.sampled_from([0.0, 0.0, 2.0**-30, 2.0**-4, 0.25, 2.0]),
                            min_size=n_alg, max_size=n_alg))
    # noise 0: scores constant per algorithm and benchmark (a clear winner, or all tied).
    noise = draw(st.sampled_from([0.0, 2.0**-6, 2.0**-3, 2.0**-3, 1.0]))
    grid = draw(st.sampled_from([None, None, 2.0**-4, 0.5]))  # rounding plants exact ties
    twin = draw(st.sampled_from([None, "clone", "near"]))  # last algorithm copies the first
    seed = draw(st.integers(0, 2**32 - 1))
    objective = draw(st.sampled_from(["maximize", "minimize"]))
    rng = np.random.default_rng(seed)
    algs = [f"A{i}" for i in range(n_alg)]
    benches = [f"B{j}" for j in range(n_bench)]
    bench_level = np.round(rng.normal(0.0, 1.0, n_bench) * 2**8) / 2**8
    rows = []
    for j, bench in enumerate(benches):
        for s in range(n_seed):
            for t in range(1, n_trial + 1):
                jitter = np.round(rng.standard_normal(n_alg) * 2**20) / 2**20
                draws = bench_level[j] + np.asarray(effects) + noise * jitter
                if grid is not None:
                    draws = np.round(draws / grid) * grid
                if twin == "clone" and n_alg > 2:
                    draws[-1] = draws[0]
                elif twin == "near" and n_alg > 2:
                    draws[-1] = draws[0] + 2.0**-30
                for i, alg in enumerate(algs):
                    rows.append((alg, bench, s, t, float(draws[i])))
    frame = pd.DataFrame(rows, columns=["alg", "bench", "seed", "trial", "score"])
    return Table(frame.astype({"alg": object, "bench": object}), objective)


# ============================================================================ transforms
@dataclass
class Transformed:
    """A transformed table and how to map its verdicts back onto the original's."""

    table: Table
    alg_back: dict[str, str]
    bench_back: dict[str, str]
    #: Score-unit effects are multiplied by this (None: not comparable, e.g. monotone maps).
    scale: float | None = 1.0
    #: The shift added before rescaling (it sets the absolute tolerance of score effects).
    shift: float = 0.0
    #: Which modules must be invariant: "all", "rank_only" (increasing transforms) or
    #: "any_scale" (arbitrary factors, methods that only see raw scores).
    modules: str = "all"
    label: str = ""


def _identity_maps(table: Table) -> tuple[dict[str, str], dict[str, str]]:
    return ({a: a for a in table.algorithms}, {b: b for b in table.benchmarks})


def permute_rows(table: Table, seed: int) -> Transformed:
    order = np.random.default_rng(seed).permutation(len(table.frame))
    frame = table.frame.iloc[order].reset_index(drop=True)
    return Transformed(Table(frame, table.objective), *_identity_maps(table),
                       label=f"rows permuted (seed {seed})")


def rename(table: Table, algs: dict[str, str], benches: dict[str, str]) -> Transformed:
    frame = table.frame.copy()
    frame["alg"] = frame["alg"].map(algs).astype(object)
    frame["bench"] = frame["bench"].map(benches).astype(object)
    return Transformed(Table(frame, table.objective), {v: k for k, v in algs.items()},
                       {v: k for k, v in benches.items()},
                       label=f"renamed {algs} {benches}")


def swap_algorithms(table: Table, first: str, second: str) -> Transformed:
    algs = {a: a for a in table.algorithms}
    algs[first], algs[second] = second, first
    out = rename(table, algs, {b: b for b in table.benchmarks})
    out.label = f"{first} and {second} swapped"
    return out


def negate(table: Table) -> Transformed:
    frame = table.frame.copy()
    frame["score"] = -frame["score"]
    flipped = "minimize" if table.objective == "maximize" else "maximize"
    return Transformed(Table(frame, flipped), *_identity_maps(table),
                       label="scores negated, objective flipped")


def rescale(table: Table, factor: float, shift: float) -> Transformed:
    """``scores -> factor * (scores + shift)``.

    With a power-of-two factor and a dyadic shift this is exact on dyadic
    data (every module must be invariant); with any other factor only the
    methods that see raw scores are checked (``modules="any_scale"``).
    """
    frame = table.frame.copy()
    frame["score"] = (frame["score"] + shift) * factor
    exact = math.frexp(factor)[0] == 0.5 and float(shift * 2**8).is_integer()
    return Transformed(Table(frame, table.objective), *_identity_maps(table), scale=factor,
                       shift=shift, modules="all" if exact else "any_scale",
                       label=f"scores -> {factor!r} * (scores + {shift!r})")


#: Strictly increasing maps (on any finite input) that keep distinct floats distinct.
INCREASING: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "cube": lambda x: x ** 3,
    "exp": lambda x: np.exp(x / (1.0 + np.max(np.abs(x)))),
    "arctan": lambda x: np.arctan(x),
    "signed sqrt": lambda x: np.sign(x) * np.sqrt(np.abs(x)),
    # slope 1 below the median, 10 above, continuous at it (the earlier form,
    # where(x > m, 10 x, x - 9 m), jumps down at m when m < 0: not increasing)
    "piecewise": lambda x: np.where(x > np.median(x), np.median(x) + 10.0 * (x - np.median(x)),
                                    x),
}


def increasing(table: Table, name: str) -> Transformed:
    frame = table.frame.copy()
    frame["score"] = INCREASING[name](frame["score"].to_numpy(dtype=float))
    return Transformed(Table(frame, table.objective), *_identity_maps(table), scale=None,
                       modules="rank_only", label=f"increasing transform {name}")


# ============================================================================ modules
def _cvar_kwargs(level: float) -> dict[str, float]:
    """The CVaR level's keyword: ``cvar_level`` once it is renamed, ``alpha`` before."""
    params = inspect.signature(dse.distribution).parameters
    return {"cvar_level": level} if "cvar_level" in params else {"alpha": level}


def run_tuning(res: Results) -> list[Verdict]:
    return tuning.from_results(res, kind="median", band="ld_highest_density",
                               confidence=0.8).verdicts()


def run_dse(res: Results) -> list[Verdict]:
    out = dse.distribution(res, n_resamples=DSE_REPS, **_cvar_kwargs(0.5)).verdicts()
    if len(res.benchmarks) > 1:
        pooled = dse.distribution(res, pooled=True, normalize="minmax", n_resamples=DSE_REPS,
                                  **_cvar_kwargs(0.5))
        out += [_renamed_method(v, v.method + "@pooled") for v in pooled.verdicts()]
    return out


def _renamed_method(v: Verdict, method: str) -> Verdict:
    import dataclasses

    return dataclasses.replace(v, method=method)


def _rank_units(res: Results) -> list[str]:
    """Benchmarks as blocks (Demsar's unit) when there are two, and benchmark x seed runs."""
    return (["benchmark"] if len(res.benchmarks) >= 2 else []) + ["benchmark_seed"]


def run_friedman(res: Results) -> list[Verdict]:
    out = []
    for unit in _rank_units(res):
        for posthoc in ("nemenyi", "wilcoxon", "conover"):
            # No bootstrap: its intervals are not compared (see the module docstring).
            r = ranks.friedman(res, unit=unit, posthoc=posthoc, n_resamples=0)
            out += [_renamed_method(v, f"{v.method}@{unit}/{posthoc}") for v in r.verdicts()]
    return out


def run_win_tie_loss(res: Results) -> list[Verdict]:
    return ranks.win_tie_loss(res).verdicts()


def run_autorank(res: Results) -> list[Verdict]:
    out = []
    for unit in _rank_units(res):
        blocks = len(res.benchmarks) * (len(res.seeds) if unit == "benchmark_seed" else 1)
        if blocks >= 5:  # autorank's own minimum
            r = ranks.autorank(res, unit=unit)
            out += [_renamed_method(v, f"{v.method}@{unit}") for v in r.verdicts()]
    return out


def incumbents(res: Results) -> Results:
    """Each seed's search as one run: its best trial (the view the report's LMEM uses)."""
    final = res.final().table.drop(columns="budget")
    for role in ("algorithm", "benchmark"):
        final[role] = final[role].astype(str).astype(object)
    return Results.from_frame(final, algorithm="algorithm", benchmark="benchmark", seed="seed",
                              score="score", objective=res.objective, kind="runs")


def run_lmem(res: Results) -> list[Verdict]:
    data = incumbents(res)
    if len(data.benchmarks) < 2:
        return lmem.fit(data, "score ~ algorithm").verdicts()
    out = lmem.fit(data, "score ~ algorithm + (1|benchmark)").verdicts()
    within = lmem.fit(data, "score ~ algorithm * benchmark")
    return out + within.verdicts(by="benchmark")


# Rank-only versions for increasing transforms: methods that see nothing but orders.
def run_friedman_rank_only(res: Results) -> list[Verdict]:
    out = []
    for unit in ("benchmark", "benchmark_seed"):
        blocks = res.blocks(unit=unit)
        if blocks.matrix.shape[0] < 2 or (unit == "benchmark" and len(res.seeds) > 1):
            continue  # a mean over seeds is not rank-invariant; one seed per block is
        for posthoc in ("nemenyi", "conover"):
            r = ranks.friedman(res, unit=unit, posthoc=posthoc, n_resamples=0)
            out += [_renamed_method(v, f"{v.method}@{unit}") for v in r.verdicts()]
    return out


def run_autorank_rank_only(res: Results) -> list[Verdict]:
    unit = "benchmark" if len(res.seeds) == 1 else "benchmark_seed"
    return ranks.autorank(res, unit=unit, force_mode="nonparametric").verdicts()


def run_dse_per_benchmark(res: Results) -> list[Verdict]:
    return dse.distribution(res, n_resamples=DSE_REPS, **_cvar_kwargs(0.5)).verdicts()


MODULES: dict[str, Callable[[Results], list[Verdict]]] = {
    "tuning": run_tuning,
    "dse": run_dse,
    "ranks.friedman": run_friedman,
    "ranks.win_tie_loss": run_win_tie_loss,
    "ranks.autorank": run_autorank,
    "lmem": run_lmem,
}
RANK_ONLY_MODULES: dict[str, Callable[[Results], list[Verdict]]] = {
    "ranks.friedman": run_friedman_rank_only,
    "ranks.win_tie_loss": run_win_tie_loss,  # Mann-Whitney over seeds and a sign test
    "ranks.autorank": run_autorank_rank_only,
}
#: Methods that see only raw scores (order statistics, CDFs, incumbents, a model fit), so
#: any factor must leave them unchanged. Pooled DSE (min-max normalised across benchmarks)
#: and rank tests on seed means or on differences are left to the exact transforms.
ANY_SCALE_MODULES: dict[str, Callable[[Results], list[Verdict]]] = {
    "tuning": run_tuning,
    "dse": run_dse_per_benchmark,
    "lmem": run_lmem,
    **RANK_ONLY_MODULES,
}
MODULE_SETS = {"all": MODULES, "rank_only": RANK_ONLY_MODULES, "any_scale": ANY_SCALE_MODULES}


# ============================================================================ canonical form
@dataclass
class Canonical:
    """What must not change: verdict outcomes (a multiset) and the numbers behind them."""

    outcomes: Counter = field(default_factory=Counter)
    numbers: dict = field(default_factory=dict)
    refused: str | None = None
    report: dict = field(default_factory=dict)


def _map(name: str | None, back: dict[str, str]) -> str | None:
    if name is None:
        return None
    # A name the module made up (not a renamed input) stays tagged, so it cannot pass as one.
    return back.get(name, f"<not an input name: {name!r}>")


def _effect_kind(v: Verdict) -> str | None:
    method = v.method
    if method.startswith("dse.cvar") and v.details.get("normalize"):
        return "unitless"  # pooled over benchmarks after per-benchmark normalisation
    if method.startswith(("tuning.", "dse.cvar", "lmem.")):
        return "score"
    if method.startswith(("ranks.nemenyi", "ranks.wilcoxon", "ranks.conover",
                          "ranks.sign_test")):
        return "unitless"
    return None  # autorank (see module docstring); dominance has no effect


def _interval_compared(method: str) -> bool:
    return method.startswith(("tuning.", "dse.cvar", "lmem.", "ranks.sign_test"))


def _pvalue_tolerance(method: str) -> float | None:
    if method.startswith(("ranks.nemenyi", "ranks.wilcoxon", "ranks.conover",
                          "ranks.sign_test", "dse.dominance")):
        return 1e-7
    if method.startswith("lmem."):
        return 1e-3
    return None


def canonical(verdicts: list[Verdict], alg_back: dict[str, str],
              bench_back: dict[str, str]) -> Canonical:
    out = Canonical()
    for v in verdicts:
        a, b = _map(v.a, alg_back), _map(v.b, alg_back)
        if a > b:
            v, (a, b) = v.swapped(), (b, a)
        s = v.scope
        key = (a, b, v.method, _map(s.benchmark, bench_back), s.budget_low, s.budget_high,
               getattr(s, "trials_low", None), getattr(s, "trials_high", None), s.metafeature)
        winner = {"a": a, "b": b}.get(v.outcome)
        loser = {"a": b, "b": a}.get(v.outcome)
        out.outcomes[(*key, v.outcome, winner, loser)] += 1
        e = v.effect
        out.numbers.setdefault(key, []).append({
            "effect": None if e is None else (e.estimate, e.lower, e.upper),
            "p": v.evidence.value if v.evidence.kind == "p_value" else None,
            "n": v.n,
            "kind": _effect_kind(v),
        })
    return out


def _close(x: float | None, y: float | None, *, rtol: float, atol: float) -> bool:
    if x is None or y is None:
        return x is None and y is None
    if not (math.isfinite(x) and math.isfinite(y)):
        return x == y or (math.isnan(x) and math.isnan(y))
    return abs(x - y) <= atol + rtol * max(abs(x), abs(y))


def compare_canonical(base: Canonical, other: Canonical, t: Transformed, *,
                      data_scale: float, what: str) -> None:
    """Assert that ``other`` (from the transformed table) says what ``base`` says."""
    assert base.refused == other.refused, (
        f"{what}: {t.label}: the base run {'raised ' + base.refused if base.refused else 'ran'}"
        f" but the transformed run {'raised ' + other.refused if other.refused else 'ran'}")
    lost = base.outcomes - other.outcomes
    gained = other.outcomes - base.outcomes
    assert not lost and not gained, (
        f"{what}: the verdicts changed under {t.label}.\n"
        f"  only before: {sorted(lost.elements(), key=repr)[:12]}\n"
        f"  only after:  {sorted(gained.elements(), key=repr)[:12]}")
    problems = []
    for key, rows in base.numbers.items():
        method = key[2]
        for r0, r1 in zip(rows, other.numbers.get(key, [])):
            if r0["n"] != r1["n"]:
                problems.append(f"{key}: n {r0['n']} -> {r1['n']}")
            kind = r0["kind"]
            if kind is not None and r0["effect"] is not None and (
                    kind == "unitless" or t.scale is not None):
                factor = t.scale if kind == "score" else 1.0
                rtol = 1e-4 if method.startswith("lmem.") else 1e-7
                atol = 1e-9 * (data_scale if kind == "score" else 1.0)
                parts = ("estimate", "low", "high") if _interval_compared(method) else (
                    "estimate",)
                for name, x0, x1 in zip(("estimate", "low", "high"), r0["effect"],
                                        r1["effect"]):
                    if name not in parts:
                        continue
                    if x1 is not None and factor not in (None, 1.0):
                        x1 = x1 / factor
                    if not _close(x0, x1, rtol=rtol, atol=atol):
                        problems.append(f"{key}: effect {name} {x0!r} -> {x1!r}")
            ptol = _pvalue_tolerance(method)
            if ptol is not None and not _close(r0["p"], r1["p"], rtol=ptol, atol=1e-12):
                problems.append(f"{key}: p-value {r0['p']!r} -> {r1['p']!r}")
    assert not problems, (f"{what}: numbers that must not change did, under {t.label}:\n  "
                          + "\n  ".join(problems[:12]))
    assert base.report == other.report or _report_diff(base.report, other.report, what, t)


def _report_diff(r0: dict, r1: dict, what: str, t: Transformed) -> bool:
    lines = []
    for part in sorted(set(r0) | set(r1)):
        if r0.get(part) != r1.get(part):
            x, y = r0.get(part), r1.get(part)
            if isinstance(x, (set, frozenset)) and isinstance(y, (set, frozenset)):
                lines.append(f"{part}: only before {sorted(x - y, key=repr)[:6]}; "
                             f"only after {sorted(y - x, key=repr)[:6]}")
            else:
                lines.append(f"{part}: {x!r} -> {y!r}")
    raise AssertionError(f"{what}: the report changed under {t.label}:\n  " + "\n  ".join(lines))


# ============================================================================ running
_CACHE: dict[tuple[str, str], Canonical] = {}


def _run(module: str, fn: Callable[[Results], list[Verdict]], table: Table,
         alg_back: dict[str, str], bench_back: dict[str, str]) -> Canonical:
    res = table.results()
    try:
        verdicts = fn(res)
    except ValueError as err:
        # A refusal (too few blocks, too few seeds, ...) must itself be invariant. Any other
        # exception is a crash and fails the test where it happens.
        return Canonical(refused=type(err).__name__)
    return canonical(verdicts, alg_back, bench_back)


def module_canonical(module: str, fn, table: Table, t: Transformed | None = None) -> Canonical:
    if t is None:
        key = (module, table.digest())
        if key not in _CACHE:
            _CACHE[key] = _run(module, fn, table, *_identity_maps(table))
        return _CACHE[key]
    return _run(module, fn, t.table, t.alg_back, t.bench_back)


def report_canonical(table: Table, t: Transformed | None = None,
                     options: dict | None = None) -> Canonical:
    """The report's verdicts, statuses, pair consensus and rankings, in original names.

    ``options``: keyword arguments of :func:`benchverdict.compare` (default: none).
    """
    options = dict(options or {})
    if t is None:
        key = ("report", table.digest(), tuple(sorted(options.items())))
        if key in _CACHE:
            return _CACHE[key]
        alg_back, bench_back = _identity_maps(table)
        source = table
    else:
        alg_back, bench_back, source = t.alg_back, t.bench_back, t.table
    comparison = bv.compare(source.results(), progress=False, **options)
    out = comparison_canonical(comparison, comparison.verdicts(), alg_back, bench_back)
    if t is None:
        _CACHE[key] = out
    return out


def comparison_canonical(comparison, verdicts: list[Verdict], alg_back: dict[str, str],
                         bench_back: dict[str, str]) -> Canonical:
    """A report's verdicts (given, so that a caller can map their scopes back), statuses,
    pair consensus and rankings, in original names."""
    out = canonical(verdicts, alg_back, bench_back)

    def pair(a: str, b: str) -> tuple[str, str]:
        return tuple(sorted((_map(a, alg_back), _map(b, alg_back))))

    out.report["status"] = tuple((r.name, r.status) for r in comparison.runs)
    consensus = set()
    for row in comparison.agreement.itertuples(index=False):
        bench = None if row.benchmark is None or row.benchmark != row.benchmark else row.benchmark
        winner = None if row.consensus_winner is None or row.consensus_winner != (
            row.consensus_winner) else _map(row.consensus_winner, alg_back)
        consensus.add((pair(row.a, row.b), _map(bench, bench_back), row.metafeature or None,
                       row.consensus if winner is None else "decided", winner))
    out.report["consensus"] = frozenset(consensus)
    rankings = set()
    for r in comparison.rankings:
        tiers = tuple(frozenset(_map(a, alg_back) for a in tier) for tier in r.tiers)
        settled = frozenset((_map(w, alg_back), _map(lo, alg_back)) for w, lo in r.settled)
        rankings.add((_map(r.benchmark, bench_back), r.metafeature, r.status, tiers, settled))
    out.report["rankings"] = frozenset(rankings)
    # Each pair's relation (settled, implied, equivalent, power gap, ...) and its winner.
    relations = set()
    for row in comparison.relations.itertuples(index=False):
        bench = None if row.benchmark is None or row.benchmark != row.benchmark else row.benchmark
        winner = None if not isinstance(row.winner, str) else _map(row.winner, alg_back)
        relations.add((pair(row.a, row.b), _map(bench, bench_back), row.metafeature or None,
                       str(row.status), winner))
    out.report["relations"] = frozenset(relations)
    return out


def data_scale(table: Table) -> float:
    return float(np.max(np.abs(table.frame["score"].to_numpy(dtype=float)))) + 1.0


def check_module(module: str, table: Table, t: Transformed) -> None:
    fn = MODULE_SETS[t.modules][module]
    base = module_canonical(f"{module}/{t.modules}", fn, table)
    other = module_canonical(module, fn, table, t)
    compare_canonical(base, other, t, data_scale=data_scale(table) + abs(t.shift), what=module)


def check_report(table: Table, t: Transformed, options: dict | None = None) -> None:
    assert t.modules == "all", f"the report is checked under exact transforms only, not {t}"
    base = report_canonical(table, options=options)
    other = report_canonical(table, t, options)
    errors = [s for s in base.report["status"] if s[1] == "error"]
    assert not errors, f"report: analyses failed on the untransformed data: {errors}"
    compare_canonical(base, other, t, data_scale=data_scale(table) + abs(t.shift),
                      what="report")


# ============================================================================ strategies
#: Names that break careless code: sort order, numbers, markup, formulas, scope labels.
TRICKY_NAMES = [
    "all", "pooled", "1.1", "1.10", "10", "2", "-1", "1e3", "nan", "None", "True", "$x$",
    "a b", "a_b", "a/b", "a<b", "a&b", "a\\b", "50%", "#1", "{x}", "x - y", "a:b", "a|b",
    "a+b", "a*b", "a~b", "(Intercept)", "algorithm", "benchmark", "score", "seed", "'q'",
    '"dq"', "Ünïcødé", "算法", "ω", "Z", "aa", "AA", "_", "~", "x" * 120,
]
#: Printable text: no control, format (bidi), surrogate or unassigned characters, which
#: validation may reject or neutralise (issue 10, §3), and no surrounding whitespace.
PRINTABLE = st.characters(blacklist_categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"))
NAME = st.one_of(
    st.sampled_from(TRICKY_NAMES),
    st.text(PRINTABLE, min_size=1, max_size=16).map(str.strip).filter(bool),
)


@st.composite
def renamings(draw, table: Table) -> Transformed:
    algs = table.algorithms
    benches = table.benchmarks
    new_algs = draw(st.lists(NAME, min_size=len(algs), max_size=len(algs), unique=True))
    new_benches = draw(st.lists(NAME, min_size=len(benches), max_size=len(benches),
                                unique=True))
    if draw(st.booleans()):
        # Reverse the sort order outright: the first algorithm becomes the last.
        new_algs = sorted(new_algs, reverse=True)
    return rename(table, dict(zip(algs, new_algs)), dict(zip(benches, new_benches)))


@st.composite
def transforms(draw, table: Table, kind: str) -> Transformed:
    if kind == "permute":
        return permute_rows(table, draw(st.integers(0, 2**32 - 1)))
    if kind == "rename":
        return draw(renamings(table))
    if kind == "negate":
        return negate(table)
    if kind == "swap":
        first, second = draw(st.lists(st.sampled_from(table.algorithms), min_size=2,
                                      max_size=2, unique=True))
        return swap_algorithms(table, first, second)
    if kind == "rescale":  # exact: 2**-498 ~ 1e-150 .. 2**498 ~ 1e150
        exponent = draw(st.integers(-498, 498))
        shift = draw(st.sampled_from([0.0, 1.0, -3.5, 10.0]))
        return rescale(table, 2.0**exponent, shift)
    if kind == "rescale_any":
        factor = 10.0 ** draw(st.floats(-150.0, 150.0))
        shift = draw(st.sampled_from([0.0, 0.1, -3.0]))
        t = rescale(table, factor, shift)
        t.modules = "any_scale"
        return t
    if kind == "increasing":
        return increasing(table, draw(st.sampled_from(sorted(INCREASING))))
    raise ValueError(kind)


KINDS = ["permute", "rename", "negate", "swap", "rescale"]
#: (module, transform kind) pairs: every module under the exact transforms, the raw-score
#: methods under arbitrary factors.
MODULE_KINDS = [(m, k) for k in KINDS for m in sorted(MODULES)] + [
    (m, "rescale_any") for m in sorted(ANY_SCALE_MODULES)]


# ============================================================================ tests: modules
@pytest.mark.parametrize(("module", "kind"), MODULE_KINDS)
@settings(max_examples=3, **SETTINGS)
@given(data=st.data())
def test_example_data_module_verdicts_are_invariant(module, kind, data):
    table = example_table()
    t = data.draw(transforms(table, kind), label="transform")
    check_module(module, table, t)


@pytest.mark.parametrize(("module", "kind"), MODULE_KINDS)
@settings(max_examples=10, **SETTINGS)
@given(data=st.data())
def test_generated_module_verdicts_are_invariant(module, kind, data):
    table = data.draw(designs(), label="design")
    t = data.draw(transforms(table, kind), label="transform")
    check_module(module, table, t)


EXTREMES = [(m, f) for f in (2.0**-498, 2.0**498) for m in sorted(MODULES)] + [
    (m, f) for f in (1e-150, 1e150) for m in sorted(ANY_SCALE_MODULES)]


@pytest.mark.parametrize(("module", "factor"), EXTREMES)
def test_example_data_extreme_rescaling(module, factor):
    """The ends of the range the issue names (x1e-155 lost LMEM wins; x1e160 raised)."""
    table = example_table()
    check_module(module, table, rescale(table, factor, 0.0))


@pytest.mark.parametrize("module", sorted(MODULES))
def test_example_data_every_pair_swapped(module):
    """Verdicts about (a, b) mirror those about (b, a), for every pair of the example."""
    table = example_table()
    algs = table.algorithms
    for i, first in enumerate(algs):
        for second in algs[i + 1:]:
            check_module(module, table, swap_algorithms(table, first, second))


@pytest.mark.parametrize("module", sorted(MODULES))
def test_example_data_special_benchmark_names(module):
    """Benchmarks named like the modules' own scope labels ('all', 'pooled') stay benchmarks."""
    table = example_table()
    benches = table.benchmarks
    # The first six benchmarks get the special names; the rest keep theirs.
    new = {b: b for b in benches} | dict(zip(benches, ["pooled", "all", "1.10", "1.1", "$x$",
                                                       "a b"]))
    check_module(module, table, rename(table, {a: a for a in table.algorithms}, new))


# ============================================================================ tests: ranks
@pytest.mark.parametrize("module", sorted(RANK_ONLY_MODULES))
@pytest.mark.parametrize("name", sorted(INCREASING))
def test_example_data_rank_verdicts_survive_increasing_transforms(module, name):
    for table in (example_one_seed_table(), example_table()):
        if module == "ranks.win_tie_loss" and len(table.frame["seed"].unique()) < 2:
            continue  # win/tie/loss tests over seeds
        check_module(module, table, increasing(table, name))


@pytest.mark.parametrize("module", sorted(RANK_ONLY_MODULES))
@settings(max_examples=15, **SETTINGS)
@given(data=st.data())
def test_generated_rank_verdicts_survive_increasing_transforms(module, data):
    one_seed = module != "ranks.win_tie_loss"
    table = data.draw(designs(min_algorithms=3, min_benchmarks=2, one_seed=one_seed),
                      label="design")
    t = data.draw(transforms(table, "increasing"), label="transform")
    check_module(module, table, t)


@pytest.mark.parametrize("name", sorted(INCREASING))
def test_increasing_transforms_are_increasing(name):
    """Guard for the test itself: every 'increasing' transform preserves order, also on
    negative data (the piecewise one did not when the median was negative, and the
    autorank case failed on its example, not on a defect of the library)."""
    rng = np.random.default_rng(0)
    for shift in (-5.0, -0.3, 0.0, 0.3, 5.0):
        x = np.sort(rng.normal(shift, 1.0, 200))
        y = INCREASING[name](x)
        assert np.all(np.diff(y) > 0), (name, shift)


def test_rank_only_runner_ranks_one_run_per_block():
    """Guard for the test itself: the increasing-transform checks must compare something."""
    res = example_one_seed_table().results()
    methods = {v.method for v in run_friedman_rank_only(res)}
    assert methods == {"ranks.nemenyi@benchmark", "ranks.nemenyi@benchmark_seed",
                       "ranks.conover@benchmark", "ranks.conover@benchmark_seed"}
    res = example_table().results()
    assert {v.method for v in run_friedman_rank_only(res)} == {
        "ranks.nemenyi@benchmark_seed", "ranks.conover@benchmark_seed"}


# ============================================================================ tests: report
@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=2, **SETTINGS)
@given(data=st.data())
def test_example_data_report_is_invariant(kind, data):
    table = example_table()
    check_report(table, data.draw(transforms(table, kind), label="transform"))


#: Report options whose answers must be invariant too: a margin in run SDs (unit-free, so
#: rescaling keeps it) and claims about exactly these benchmarks (Welch over the runs). At
#: 1 SD the example's table has pairs declared equivalent (a guard test checks it).
MARGIN_ABOUT_THESE = {"margin": "1sd", "estimand": "these"}


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=1, **SETTINGS)
@given(data=st.data())
def test_example_data_report_with_a_margin_about_these_benchmarks_is_invariant(kind, data):
    table = example_table()
    check_report(table, data.draw(transforms(table, kind), label="transform"),
                 MARGIN_ABOUT_THESE)


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=3, **SETTINGS)
@given(data=st.data())
def test_generated_report_is_invariant(kind, data):
    table = data.draw(designs(), label="design")
    check_report(table, data.draw(transforms(table, kind), label="transform"))


# ============================================================================ self-checks
@pytest.mark.parametrize("module", sorted(MODULES))
def test_generated_designs_make_every_module_decide(module):
    """The generated designs are not vacuous: every module decides some pairs on some."""
    def decides(table: Table) -> bool:
        try:
            verdicts = MODULES[module](table.results())
        except ValueError:
            return False
        return any(v.outcome in ("a", "b") for v in verdicts)

    find(designs(), decides, settings=settings(max_examples=300, **SETTINGS))



def test_the_margin_options_make_the_example_declare_equivalence_and_settle_pairs():
    """Guard for the test itself: the options' invariance check must compare something."""
    relations = bv.compare(example_table().results(), progress=False, figures=False,
                           **MARGIN_ABOUT_THESE).relations
    statuses = set(relations["status"].astype(str))
    assert {"equivalent", "settled"} <= statuses


def test_canonical_form_detects_a_flipped_winner():
    """The comparison is not vacuous: a changed outcome, a moved effect, a lost verdict fail."""
    table = example_table()
    res = table.results()
    verdicts = run_friedman(res)
    assert any(v.outcome in ("a", "b") for v in verdicts)
    base = canonical(verdicts, *_identity_maps(table))
    t = Transformed(table, *_identity_maps(table), label="test")
    import dataclasses

    flipped = [dataclasses.replace(v, outcome={"a": "b", "b": "a"}.get(v.outcome, v.outcome))
               for v in verdicts]
    with pytest.raises(AssertionError, match="verdicts changed"):
        compare_canonical(base, canonical(flipped, *_identity_maps(table)), t, data_scale=1.0,
                          what="self-check")
    with pytest.raises(AssertionError, match="verdicts changed"):
        compare_canonical(base, canonical(verdicts[1:], *_identity_maps(table)), t,
                          data_scale=1.0, what="self-check")
    moved = [dataclasses.replace(v, effect=dataclasses.replace(v.effect,
                                                               estimate=v.effect.estimate + 0.1))
             for v in verdicts]
    with pytest.raises(AssertionError, match="effect estimate"):
        compare_canonical(base, canonical(moved, *_identity_maps(table)), t, data_scale=1.0,
                          what="self-check")


def test_canonical_form_maps_renamed_and_swapped_verdicts_back():
    table = example_table()
    res = table.results()
    verdicts = run_friedman(res)
    swapped = [v.swapped() for v in verdicts]
    assert canonical(swapped, *_identity_maps(table)).outcomes == canonical(
        verdicts, *_identity_maps(table)).outcomes
    t = rename(table, {"LR": "zz", "MLP": "aa", "SVM": "0", "kNN": "mm"},
               {b: b for b in table.benchmarks})
    renamed = run_friedman(t.table.results())
    assert {v.a for v in renamed} <= {"zz", "aa", "0", "mm"}
    assert canonical(renamed, t.alg_back, t.bench_back).outcomes == canonical(
        verdicts, *_identity_maps(table)).outcomes


# ============================================================================ tests: budget units
#: ``budget -> factor * budget + shift``: the budget column in milliseconds instead of a trial
#: index, in thousands, or counted from another origin (issue 21, item 5).
BUDGET_UNITS = [(1000.0, 0.0), (1e-3, 0.0), (1.0, 7.0), (2.0**-10, -3.5)]


def rebudget(table: Table, factor: float, shift: float) -> Table:
    frame = table.frame.copy()
    frame["trial"] = frame["trial"] * factor + shift
    return Table(frame, table.objective)


def _budgets_back(verdicts: list[Verdict], factor: float, shift: float) -> list[Verdict]:
    """Each scope's budget range in the original unit (12 significant digits)."""
    import dataclasses

    def back(x: float | None) -> float | None:
        return None if x is None else float(f"{(x - shift) / factor:.12g}")

    return [dataclasses.replace(v, scope=dataclasses.replace(
        v.scope, budget_low=back(v.scope.budget_low), budget_high=back(v.scope.budget_high)))
        for v in verdicts]


def budget_unit_canonical(table: Table, factor: float = 1.0, shift: float = 0.0,
                          budget: float | None = None) -> Canonical:
    key = ("budget units", table.digest(), factor, shift, budget)
    if key not in _CACHE:
        _CACHE[key] = _budget_unit_canonical(table, factor, shift, budget)
    return _CACHE[key]


def _budget_unit_canonical(table: Table, factor: float, shift: float,
                           budget: float | None) -> Canonical:
    """The report on ``table`` with its budget column (and ``budget=``) in another unit.

    Beside the verdicts, statuses, consensus and rankings of
    :func:`report_canonical`, every method's representative verdict per pair
    and scope (what the agreement table compares), whether it votes, and
    every matched comparison of two methods with the rules explaining it:
    the budget axis decides all of them.
    """
    source = rebudget(table, factor, shift) if (factor, shift) != (1.0, 0.0) else table
    comparison = bv.compare(source.results(), progress=False,
                            budget=None if budget is None else budget * factor + shift)
    ids = _identity_maps(table)
    out = comparison_canonical(
        comparison, _budgets_back(comparison.verdicts(), factor, shift), *ids)
    rec = comparison.reconciliation
    out.report["representatives"] = frozenset(
        rec.representatives[["a", "b", "benchmark", "metafeature", "method", "outcome",
                             "winner", "votes"]].itertuples(index=False, name=None))
    out.report["agreement"] = frozenset(
        comparison.agreement[["a", "b", "benchmark", "metafeature", "methods", "outcomes",
                              "agreement", "consensus", "consensus_winner", "not_voting",
                              "n_conflicts", "status"]].astype(str).itertuples(
                                  index=False, name=None))
    out.report["comparisons"] = frozenset(
        rec.comparisons[["a", "b", "benchmark", "metafeature", "method_1", "outcome_1",
                         "method_2", "outcome_2", "kind", "rules"]].astype(str).itertuples(
                             index=False, name=None))
    out.report["scope keys"] = frozenset((v.scope.benchmark, v.scope.metafeature)
                                         for v in comparison.verdicts())
    return out


@pytest.mark.parametrize(("factor", "shift"), BUDGET_UNITS)
def test_example_data_report_ignores_the_budget_unit(factor, shift):
    """Rescaling or shifting the budget column changes no verdict, relation or scope key.

    Budget labels move with the transform (they are mapped back before the
    comparison); trial counts ``k`` of the tuning curves and DSE do not.
    On main before issue 21's fix, x1000 or +7 changed 19 of the 126
    agreement rows of this example: tuning-curve verdicts about ``k`` draws
    were compared with the final budget as if ``k`` were a budget value.
    """
    table = example_table()
    base = budget_unit_canonical(table)
    other = budget_unit_canonical(table, factor, shift)
    t = Transformed(table, *_identity_maps(table),
                    label=f"budget -> {factor!r} * budget + {shift!r}")
    compare_canonical(base, other, t, data_scale=data_scale(table), what="report")


def test_example_data_report_at_a_budget_ignores_the_budget_unit():
    """With ``budget=`` (given in the same unit as the column), the rank tests and the LMEM
    sit at that budget and the tuning curves at the trials a search has there."""
    table = example_table()
    base = budget_unit_canonical(table, budget=4.0)
    assert any(v[4] == 4.0 for v in base.outcomes), "no verdict at budget 4: vacuous"
    for factor, shift in BUDGET_UNITS[:2]:
        other = budget_unit_canonical(table, factor, shift, budget=4.0)
        t = Transformed(table, *_identity_maps(table),
                        label=f"budget -> {factor!r} * budget + {shift!r}, budget=4")
        compare_canonical(base, other, t, data_scale=data_scale(table), what="report")
