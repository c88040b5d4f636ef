"""Linear mixed-effects models for benchmark results (Geburek et al. 2024).

``fit`` a model with an lme4-style formula over the schema's role names
(``score ~ algorithm + (1|benchmark)``; :mod:`benchverdict.lmem.estimand` says
which model answers which claim), compare nested models with
:func:`glrt`, get marginal means and Tukey-adjusted pairwise contrasts from
the fitted model, and run the paper's sanity checks and metafeature analysis.

Two backends: ``"native"`` (default), an exact Gaussian LMM fitted from
cross-product sufficient statistics in one pass over the rows (lme4's
penalised least-squares formulation), and ``"lme4"``, R's lme4 and emmeans
through rpy2 (optional).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchverdict._lazy import load_on_first_use

if TYPE_CHECKING:  # the names for type checkers; at run time they load on first use
    from benchverdict.lmem.estimand import (
        ESTIMANDS,
        FIXED_BENCHMARKS_FORMULA,
        GENERALISING_FORMULA,
        default_formula,
    )
    from benchverdict.lmem.fitting import fit, refit
    from benchverdict.lmem.formula import Formula, FormulaError, parse_formula
    from benchverdict.lmem.glrt import BoundaryWarning, GLRTResult, NestingError, glrt
    from benchverdict.lmem.metafeature import (
        DifferenceClusters,
        MetafeatureAnalysis,
        difference_clusters,
        metafeature_analysis,
    )
    from benchverdict.lmem.model import DegenerateFitError, MixedModel, wald_f_test
    from benchverdict.lmem.per_benchmark import per_benchmark_contrasts, per_benchmark_verdicts
    from benchverdict.lmem.sanity import (
        SanityCheck,
        SanityReport,
        benchmark_informativeness,
        budget_relevance,
        sanity_checks,
        seed_dependency,
    )
    from benchverdict.lmem.verdicts import lmem_verdicts

# Where each public name lives: the package imports a module when one of its names is first
# used, so `benchverdict <command> --help` does not load pandas, scipy and matplotlib.
_HOMES = {
    'BoundaryWarning': 'benchverdict.lmem.glrt',
    'DegenerateFitError': 'benchverdict.lmem.model',
    'DifferenceClusters': 'benchverdict.lmem.metafeature',
    'ESTIMANDS': 'benchverdict.lmem.estimand',
    'FIXED_BENCHMARKS_FORMULA': 'benchverdict.lmem.estimand',
    'Formula': 'benchverdict.lmem.formula',
    'FormulaError': 'benchverdict.lmem.formula',
    'GENERALISING_FORMULA': 'benchverdict.lmem.estimand',
    'GLRTResult': 'benchverdict.lmem.glrt',
    'MetafeatureAnalysis': 'benchverdict.lmem.metafeature',
    'MixedModel': 'benchverdict.lmem.model',
    'NestingError': 'benchverdict.lmem.glrt',
    'SanityCheck': 'benchverdict.lmem.sanity',
    'SanityReport': 'benchverdict.lmem.sanity',
    'benchmark_informativeness': 'benchverdict.lmem.sanity',
    'budget_relevance': 'benchverdict.lmem.sanity',
    'default_formula': 'benchverdict.lmem.estimand',
    'difference_clusters': 'benchverdict.lmem.metafeature',
    'fit': 'benchverdict.lmem.fitting',
    'glrt': 'benchverdict.lmem.glrt',
    'lmem_verdicts': 'benchverdict.lmem.verdicts',
    'metafeature_analysis': 'benchverdict.lmem.metafeature',
    'parse_formula': 'benchverdict.lmem.formula',
    'per_benchmark_contrasts': 'benchverdict.lmem.per_benchmark',
    'per_benchmark_verdicts': 'benchverdict.lmem.per_benchmark',
    'refit': 'benchverdict.lmem.fitting',
    'sanity_checks': 'benchverdict.lmem.sanity',
    'seed_dependency': 'benchverdict.lmem.sanity',
    'wald_f_test': 'benchverdict.lmem.model',
}

__all__ = [
    "ESTIMANDS",
    "FIXED_BENCHMARKS_FORMULA",
    "GENERALISING_FORMULA",
    "BoundaryWarning",
    "DegenerateFitError",
    "DifferenceClusters",
    "Formula",
    "FormulaError",
    "GLRTResult",
    "MetafeatureAnalysis",
    "MixedModel",
    "NestingError",
    "SanityCheck",
    "SanityReport",
    "benchmark_informativeness",
    "budget_relevance",
    "default_formula",
    "difference_clusters",
    "fit",
    "glrt",
    "lmem_verdicts",
    "metafeature_analysis",
    "parse_formula",
    "per_benchmark_contrasts",
    "per_benchmark_verdicts",
    "refit",
    "sanity_checks",
    "seed_dependency",
    "wald_f_test",
]

load_on_first_use(__name__)
