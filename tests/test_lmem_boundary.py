"""Singular and near-singular fits reach the boundary optimum (issue 10, section 1).

The native engine must never stop inside the parameter space at a point
worse than the boundary (a variance component at zero) or than another local
optimum, must never report a nested model as fitting better than the model
containing it, and degenerate data (constant scores, scores constant per
algorithm or per benchmark) must give a clear result or a clear error.

References: each face of the boundary is optimised independently (a bounded
scalar search on the profiled deviance), the whole space by multi-start
BFGS with numerical gradients (not the engine's optimiser), and lme4 where R
is available.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import optimize

from benchverdict.lmem import fit, glrt, sanity_checks
from benchverdict.lmem.glrt import BoundaryWarning
from benchverdict.lmem.model import DegenerateFitError
from benchverdict.lmem.rbackend import available
from benchverdict.lmem.simulate import simulate_results
from benchverdict.results import Results

#: Log-likelihood slack for "not worse than": far below any difference that matters,
#: far above the optimisers' rounding.
TOL = 1e-7


def _loglik_at(model):
    """The model's log-likelihood as a function of theta (offset from its own optimum).

    The profiled deviance may be computed on an internally rescaled response;
    differences of deviances are scale-free, so anchor them at the model.
    """
    dev = model._deviance
    d0 = dev(model.theta)
    return lambda theta: model.loglik - 0.5 * (dev(np.asarray(theta, dtype=float)) - d0)


@pytest.fixture(autouse=True)
def _one_blas_thread():
    # Thousands of tiny deviance evaluations: threaded BLAS only adds overhead.
    from benchverdict.lmem.native import small_problem_threads

    with small_problem_threads(0):
        yield


def _scalar_case(rng: np.random.Generator) -> pd.DataFrame:
    """One algorithm, 3 benchmarks x 6 seeds, benchmark and seed spreads at or near zero."""
    bench_sd = rng.choice([0.0, 0.02, 0.1, 0.5])
    seed_sd = rng.choice([0.0, 0.02, 0.1])
    res = simulate_results(algorithms=("A", "B"), n_benchmarks=3, n_seeds=6,
                           benchmark_sd=bench_sd, seed_sd={"A": seed_sd}, seed=rng)
    return res.table[res.table["algorithm"] == "A"]


def _best_face(ll, n_theta: int, i: int) -> float:
    """max loglik with theta_i = 0, the other (scalar) factor searched on a bounded interval."""
    if n_theta == 1:
        return ll(np.zeros(1))
    j = 1 - i

    def neg(t: float) -> float:
        theta = np.zeros(2)
        theta[j] = t
        return -ll(theta)

    best = -neg(0.0)
    for hi in (1.0, 5.0, 50.0):
        r = optimize.minimize_scalar(neg, bounds=(0.0, hi), method="bounded",
                                     options={"xatol": 1e-10})
        best = max(best, -r.fun)
    return best


def _multistart_bfgs(ll, start: np.ndarray, rng: np.random.Generator, n: int = 4) -> float:
    """The best loglik BFGS (numerical gradients, no bounds) finds from several starts."""
    best = -np.inf
    starts = [start] + [rng.uniform(-1.5, 1.5, len(start)) for _ in range(n)]
    for x0 in starts:
        r = optimize.minimize(lambda t: -ll(t), x0, method="BFGS",
                              options={"gtol": 1e-7, "maxiter": 500})
        best = max(best, -r.fun)
    return best


def test_scalar_terms_are_never_worse_than_any_face_or_nested_model():
    rng = np.random.default_rng(10)
    singular = 0
    for _ in range(100):
        df = _scalar_case(rng)
        full = fit(df, "score ~ 1 + (1|benchmark) + (1|seed)")
        ll = _loglik_at(full)
        singular += full.singular
        faces = [_best_face(ll, 2, i) for i in range(2)] + [ll(np.zeros(2))]
        assert full.loglik >= max(faces) - TOL, (full.loglik, faces, full.theta)
        # The whole space, searched independently of the engine's optimiser.
        assert full.loglik >= _multistart_bfgs(ll, np.ones(2), rng, n=2) - TOL
        # Nesting: dropping a term can never fit better.
        for nested in ("score ~ 1 + (1|benchmark)", "score ~ 1 + (1|seed)", "score ~ 1"):
            assert full.loglik >= fit(df, nested).loglik - TOL, nested
        assert full.converged, full.message
    assert singular >= 30  # the sample really exercises the boundary


def _vector_case(seed: int) -> pd.DataFrame:
    res = simulate_results(n_benchmarks=3, n_seeds=6, budgets=(1, 2, 3), seed=seed)
    return res.at_budget(3.0)


VECTOR = "score ~ algorithm + (1|benchmark) + (0 + algorithm|seed)"


@pytest.mark.parametrize("seeds", [range(0, 30), range(30, 60)])
def test_random_slopes_reach_the_optimum_and_nest(seeds):
    # Seed 25 is the issue's case: L-BFGS-B with a bound stopped on the face where one
    # seed variance is zero (logLik -77.7508) while the optimum (-77.7480, lme4's) is inside.
    rng = np.random.default_rng(1)
    singular = 0
    for seed in seeds:
        df = _vector_case(seed)
        full = fit(df, VECTOR)
        singular += full.singular
        ll = _loglik_at(full)
        reference = _multistart_bfgs(ll, np.where(full._deviance.layout.lower == 0, 1.0, 0.0),
                                     rng, n=1)
        assert full.loglik >= reference - TOL, (seed, full.loglik, reference)
        for nested in ("score ~ algorithm + (1|benchmark)",
                       "score ~ algorithm + (0 + algorithm|seed)"):
            assert full.loglik >= fit(df, nested).loglik - TOL, (seed, nested)
    assert singular >= 5


@pytest.mark.skipif(not available(), reason="R, rpy2 or lme4 not installed")
def test_native_is_never_below_lme4_on_singular_fits():
    for seed in range(0, 60, 2):
        df = _vector_case(seed)
        ours, theirs = fit(df, VECTOR), fit(df, VECTOR, backend="lme4")
        assert ours.loglik >= theirs.loglik - 1e-6, (seed, ours.loglik, theirs.loglik)


def test_issue_case_reaches_lme4s_optimum():
    m = fit(_vector_case(25), VECTOR)
    assert m.loglik == pytest.approx(-77.74798835494836, abs=1e-7)  # lme4 (bobyqa, rhoend 1e-12)
    assert m.converged, m.message


def test_analytic_gradient_matches_finite_differences():
    res = simulate_results(n_benchmarks=4, n_seeds=5, budgets=(1.0, 2.0, 3.0), seed_sd={"A": 0.5},
                           seed=1)
    df = res.table
    rng = np.random.default_rng(0)
    for formula in ["score ~ algorithm + (1|benchmark) + (1|seed)",
                    "score ~ algorithm + (1|benchmark) + (0 + algorithm|seed)",
                    "score ~ algorithm * budget + (1 + budget|benchmark)",
                    "score ~ benchmark + (0 + benchmark||algorithm)",
                    "score ~ algorithm + (1|benchmark/seed)"]:
        for reml in (False, True):
            dev = fit(df, formula, reml=reml)._deviance
            x = rng.normal(size=dev.layout.n_theta)
            f, grad = dev.value_and_gradient(x)
            h = 1e-6
            numeric = np.array([(dev(x + h * e) - dev(x - h * e)) / (2 * h)
                                for e in np.eye(len(x))])
            assert f == pytest.approx(dev(x), rel=1e-12)
            np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-5 * max(1, abs(f)))


def test_glrt_refits_a_larger_model_that_stopped_short(monkeypatch):
    from benchverdict.lmem import native

    df = _vector_case(25)
    m0 = fit(df, "score ~ algorithm + (1|benchmark)")
    # A larger model whose optimiser gave up at lme4's start: worse than m0.
    real = native.ProfiledDeviance.minimize

    def give_up(self, starts=()):
        x = self.layout.start()
        return x, optimize.OptimizeResult(success=True, message="stopped at the start", nit=0)

    monkeypatch.setattr(native.ProfiledDeviance, "minimize", give_up)
    m1 = fit(df, VECTOR)
    monkeypatch.setattr(native.ProfiledDeviance, "minimize", real)
    assert m1.loglik < m0.loglik
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BoundaryWarning)
        t = glrt(m0, m1)
    assert "refitted" in t.note
    assert t.loglik1 == pytest.approx(-77.74798835494836, abs=1e-7)
    assert t.chi2 == pytest.approx(2 * (t.loglik1 - m0.loglik))


# ---------------------------------------------------------------- degenerate data
def _grid(scores) -> Results:
    a, b, s = np.meshgrid(np.arange(21), np.arange(7), np.arange(3), indexing="ij")
    a, b, s = a.ravel(), b.ravel(), s.ravel()
    df = pd.DataFrame({"algorithm": [f"alg{i:02d}" for i in a], "benchmark": [f"b{i}" for i in b],
                       "seed": s, "score": scores(a, b, s)})
    return Results.from_frame(df, algorithm="algorithm", benchmark="benchmark", seed="seed",
                              score="score", objective="maximize", kind="trials")


def test_constant_scores_give_no_differences():
    res = _grid(lambda a, b, s: np.full(len(a), 0.5))
    m = fit(res, "score ~ algorithm + (1|benchmark)")
    assert m.exact and m.sigma == 0 and np.isinf(m.loglik)
    assert {v.outcome for v in m.verdicts()} == {"inconclusive"}
    report = sanity_checks(res)
    assert report["seed_dependency"].verdict == "no seed dependency found"
    assert report["benchmark_informativeness"].verdict == "7 of 7 benchmarks uninformative"


def test_scores_constant_per_algorithm_give_a_clear_winner():
    res = _grid(lambda a, b, s: a / 20.0)  # alg20 best, alg00 worst, no noise at all
    m = fit(res, "score ~ algorithm + (1|benchmark)")
    assert m.exact
    verdicts = m.verdicts()
    assert len(verdicts) == 21 * 20 // 2
    assert all(v.winner == max(v.a, v.b) for v in verdicts)  # the later name scores higher
    assert all(v.evidence.value == 0.0 for v in verdicts)
    report = sanity_checks(res)
    assert report["seed_dependency"].verdict == "no seed dependency found"
    info = report["benchmark_informativeness"]
    assert info.verdict.startswith("every benchmark separates the algorithms")
    assert "no variance ranking" in info.verdict  # the ranking model is degenerate here


def test_scores_constant_per_benchmark_raise_a_clear_error_and_checks_survive():
    res = _grid(lambda a, b, s: b * 1.0)
    with pytest.raises(DegenerateFitError, match="reproduce the scores exactly"):
        fit(res, "score ~ algorithm + (1|benchmark)")
    report = sanity_checks(res)
    assert report["seed_dependency"].verdict == "no seed dependency found"
    assert report["benchmark_informativeness"].flagged == tuple(f"b{i}" for i in range(7))


@pytest.mark.parametrize("seed", range(8))
def test_null_data_with_many_algorithms_never_crash(seed):
    rng = np.random.default_rng(seed)
    res = _grid(lambda a, b, s: rng.normal(size=len(a)))
    report = sanity_checks(res)
    assert not any(c.failed for c in report.checks), report.table
    models = [fit(res, "score ~ algorithm"), fit(res, "score ~ algorithm + (1|benchmark)"),
              fit(res, "score ~ algorithm + (1|benchmark) + (1|seed)")]
    assert models[0].loglik <= models[1].loglik + TOL <= models[2].loglik + 2 * TOL


def test_a_failing_check_is_recorded_and_the_others_are_kept(monkeypatch):
    from benchverdict.lmem import sanity

    def broken(*args, **kwargs):
        raise RuntimeError("simulated failure")

    monkeypatch.setattr(sanity, "budget_relevance", broken)
    report = sanity_checks(simulate_results(n_seeds=6, budgets=(1, 2), seed=3))
    assert list(report.table["check"]) == ["seed_dependency", "benchmark_informativeness",
                                           "budget_relevance"]
    failed = report["budget_relevance"]
    assert failed.failed and failed.verdict == "failed: RuntimeError: simulated failure"
    assert not report["seed_dependency"].failed
    assert "failed" in str(report) and len(report.plot().figure.axes) == 3
