r"""What an LMEM's algorithm contrast is a claim about: the estimand and its default model.

A benchmark study runs ``a`` algorithms on ``b`` benchmarks with ``n`` seeds
per algorithm x benchmark cell. Write the score of algorithm ``i`` on
benchmark ``j`` with seed ``k`` as::

    y_ijk = mu + alpha_i + u_j + (alpha u)_ij + e_ijk
    u_j ~ N(0, sigma_b^2),  (alpha u)_ij ~ N(0, sigma_ab^2),  e_ijk ~ N(0, sigma^2)

``(alpha u)_ij`` is how much algorithm ``i`` is better or worse on benchmark
``j`` than on average: algorithms rarely rank the same on every benchmark.

**Two estimands** (:data:`ESTIMANDS`):

* ``"benchmarks"`` (the default): ``alpha_i - alpha_h``, the difference of
  the algorithms' means over the *population of benchmarks* the observed
  ones are a sample of ("on benchmarks like these, A beats B"). The unit of
  replication is the **benchmark**: a new study would draw new benchmarks,
  and with them new ``(alpha u)_ij``. Model: :data:`GENERALISING_FORMULA`,
  ``score ~ algorithm + (1|benchmark) + (1|benchmark:algorithm)``.
* ``"these"``: the difference of the algorithms' means over *exactly the
  observed benchmarks* (``alpha_i + mean_j (alpha u)_ij`` is then a fixed
  quantity). The unit of replication is the **run** (seed): a new study
  would rerun the same benchmarks with new seeds. Model:
  :data:`FIXED_BENCHMARKS_FORMULA`, ``score ~ algorithm + (1|benchmark)``
  (Geburek et al.'s model). It is valid only for that narrower claim: when
  algorithms differ per benchmark but not on average (``sigma_ab = 0.5``,
  ``sigma = 1``, 4 algorithms, 8 benchmarks, 10 seeds), its Tukey decisions
  declare a difference in 48% of simulated data sets at alpha = 0.05 (200
  data sets; ``tests/test_lmem_estimand.py``), because it counts every seed
  as an independent replicate of the algorithm effect; the generalising
  model's rate is 4.6% (500 data sets).

**Why the interaction model.** In a balanced design the estimated contrast
is the difference of the two algorithms' cell means averaged over benchmarks,
whose variance is::

    Var(ybar_i.. - ybar_h..) = 2 (sigma_ab^2 + sigma^2 / n) / b

It shrinks with the number of benchmarks ``b``, not with the number of rows
``a b n``: more seeds cannot make up for few benchmarks. The model estimates
``sigma_ab^2 + sigma^2 / n`` from the algorithm x benchmark interaction, so
the contrast's test has about ``(a - 1)(b - 1)`` degrees of freedom whatever
the number of seeds. In a balanced design it is equivalent to the additive
model ``score ~ algorithm + (1|benchmark)`` fitted to the ``a b`` cell means
(by REML, away from the boundary ``sigma_ab = 0``: the same estimates,
standard errors and a t test on ``(a - 1)(b - 1)`` df, i.e. the classical
two-way mixed ANOVA); unlike the cell means, the mixed model also weighs
unbalanced cells (different seed counts, missing cells) correctly.

**One row per cell.** With no replicate seeds (``n = 1``) ``sigma_ab^2`` and
``sigma^2`` are not separately identifiable: the residual of ``score ~
algorithm + (1|benchmark)`` on those rows *is* the interaction (plus the
seed noise), so that model already makes the generalising claim and
:func:`default_formula` returns it for both estimands. With one benchmark
there is nothing to generalise over: ``score ~ algorithm``, a claim about
that benchmark.

**Small-sample degrees of freedom.** A z test (asymptotic df) treats the
estimated ``sigma_ab^2 + sigma^2 / n`` as known. It is estimated from about
``(a - 1)(b - 1)`` interaction contrasts, typically a few dozen, so its
uncertainty matters: the contrast's t statistic has a t distribution with
about that many df, not a normal one, however many rows there are. The
Satterthwaite approximation (lmerTest's, as emmeans uses) recovers these df
from the model; :meth:`benchverdict.lmem.MixedModel.pairwise` with
``df="auto"`` chooses it whenever a random term's grouping factor contains
the contrasted factor (see ``MixedModel.auto_df``).

**ML or REML.** ML estimates of variance components ignore the degrees of
freedom spent on the fixed effects, so ML underestimates ``sigma_ab^2`` by
about the factor ``(a - 1)(b - 1) / (b (a - 1))`` in a balanced design and
its Satterthwaite df are ``b (a - 1)`` instead of ``(a - 1)(b - 1)``: a
mildly anti-conservative test. REML gives the exact ANOVA answer. The
verdicts therefore fit the generalising model by REML
(:data:`ESTIMAND_REML`); the fixed-benchmarks model keeps the report's ML
fit (its df are large, where the two agree).

Examples
--------
>>> default_formula("benchmarks", n_benchmarks=8, n_seeds_per_cell=10)
'score ~ algorithm + (1|benchmark) + (1|benchmark:algorithm)'
>>> default_formula("these", n_benchmarks=8, n_seeds_per_cell=10)
'score ~ algorithm + (1|benchmark)'
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

#: The claims an algorithm contrast can make: about the population of benchmarks the
#: observed ones are a sample of (``"benchmarks"``, the default) or about exactly the
#: observed benchmarks (``"these"``).
ESTIMANDS = ("benchmarks", "these")

#: The model whose algorithm contrasts generalise to benchmarks like the observed ones.
GENERALISING_FORMULA = "score ~ algorithm + (1|benchmark) + (1|benchmark:algorithm)"

#: The model whose algorithm contrasts are claims about exactly the observed benchmarks.
FIXED_BENCHMARKS_FORMULA = "score ~ algorithm + (1|benchmark)"

#: The model with one benchmark (nothing to generalise over).
ONE_BENCHMARK_FORMULA = "score ~ algorithm"

#: Whether each estimand's default model is fitted by REML (see "ML or REML" above).
ESTIMAND_REML = {"benchmarks": True, "these": False}


def check_estimand(estimand: str) -> str:
    """``estimand`` if it is one of :data:`ESTIMANDS`, else a clear error.

    Examples
    --------
    >>> check_estimand("these")
    'these'
    """
    if estimand not in ESTIMANDS:
        raise ValueError(
            f"estimand must be one of {ESTIMANDS}, got {estimand!r}: \"benchmarks\" for a claim "
            "about benchmarks like the observed ones (the default), \"these\" for a claim "
            "about exactly the observed benchmarks.")
    return estimand


def default_formula(estimand: str, *, n_benchmarks: int, n_seeds_per_cell: float) -> str:
    """The default LMEM of an estimand for a design of this size.

    Parameters
    ----------
    estimand : {"benchmarks", "these"}
        See :data:`ESTIMANDS` and the module docstring.
    n_benchmarks : int
        Number of benchmarks with results.
    n_seeds_per_cell : float
        Rows per algorithm x benchmark cell (the mean over cells that have
        rows, e.g. the number of seeds). At most 1: no replicates, and the
        interaction is not identifiable from the residual.

    Returns
    -------
    str
        ``score ~ algorithm`` with one benchmark; for ``"these"``
        :data:`FIXED_BENCHMARKS_FORMULA`; for ``"benchmarks"``
        :data:`GENERALISING_FORMULA` when cells have replicate rows, else
        :data:`FIXED_BENCHMARKS_FORMULA`, whose residual then is the
        algorithm x benchmark interaction, so it makes the generalising claim.

    Examples
    --------
    >>> default_formula("benchmarks", n_benchmarks=12, n_seeds_per_cell=1)
    'score ~ algorithm + (1|benchmark)'
    >>> default_formula("benchmarks", n_benchmarks=1, n_seeds_per_cell=50)
    'score ~ algorithm'
    """
    check_estimand(estimand)
    if isinstance(n_benchmarks, bool) or int(n_benchmarks) != n_benchmarks or n_benchmarks < 1:
        raise ValueError(f"n_benchmarks must be a positive integer (the number of benchmarks "
                         f"with results), got {n_benchmarks!r}.")
    seeds = float(n_seeds_per_cell)
    if not math.isfinite(seeds) or seeds < 1:
        raise ValueError(f"n_seeds_per_cell must be a finite number of rows per algorithm x "
                         f"benchmark cell, at least 1, got {n_seeds_per_cell!r}.")
    if n_benchmarks == 1:
        return ONE_BENCHMARK_FORMULA
    if estimand == "these" or seeds <= 1:
        return FIXED_BENCHMARKS_FORMULA
    return GENERALISING_FORMULA


def design_size(frame: pd.DataFrame) -> tuple[int, float]:
    """``(n_benchmarks, n_seeds_per_cell)`` of a table with ``algorithm`` and ``benchmark``.

    ``n_seeds_per_cell`` is the mean number of rows over the algorithm x
    benchmark cells that have rows.

    Examples
    --------
    >>> import pandas as pd
    >>> design_size(pd.DataFrame({"algorithm": list("AABB"), "benchmark": list("xxxy")}))
    (2, 1.3333333333333333)
    """
    missing = [c for c in ("algorithm", "benchmark") if c not in frame.columns]
    if missing:
        raise ValueError(f"the table has no column(s) {missing}; it needs the role columns "
                         "'algorithm' and 'benchmark' (e.g. Results.table).")
    cells = frame.groupby([frame["algorithm"].astype(str), frame["benchmark"].astype(str)],
                          observed=True).size()
    n_benchmarks = int(frame["benchmark"].astype(str).nunique())
    return n_benchmarks, float(cells.mean()) if len(cells) else 0.0


def formula_for(frame: pd.DataFrame, estimand: str = "benchmarks") -> str:
    """:func:`default_formula` for the design of ``frame`` (e.g. ``results.final().table``).

    Examples
    --------
    >>> from benchverdict.lmem.simulate import simulate_results
    >>> formula_for(simulate_results(n_benchmarks=3, n_seeds=4, seed=0).table)
    'score ~ algorithm + (1|benchmark) + (1|benchmark:algorithm)'
    """
    check_estimand(estimand)
    n_benchmarks, seeds = design_size(frame)
    if n_benchmarks == 0:
        raise ValueError("the table has no rows: there is no design to choose a model for.")
    return default_formula(estimand, n_benchmarks=n_benchmarks, n_seeds_per_cell=seeds)
