"""The native LMM on a ``DaskResults``: cross-products summed per partition.

The profiled (RE)ML deviance depends on the rows only through ``X'X, X'Z,
Z'Z, X'y, Z'y, y'y`` and ``n`` (:mod:`benchverdict.lmem.design`). Each
partition builds its own slice of ``X`` and ``Z`` with the *global* levels
of every factor and adds up its cross-products with the in-memory
:func:`~benchverdict.lmem.design.cross_products`; the client sums the
partial sums and runs the same optimisation, checks and inference as
:func:`benchverdict.lmem.fit` (`benchverdict.lmem.fitting._fit_design`, through
:mod:`benchverdict.lmem._shared`).

Two passes over the rows: the first collects ``n``, ``sum y``, ``max |y|``,
the levels present of every factor (and of interaction groups) and the means
of numeric covariates; the second the cross-products of ``y / m - c``
(``m = max |y|``, ``c`` the mean of ``y / m``). The response's spread ``s``
then follows from ``y'y`` itself, and dividing ``X'y, Z'y`` by ``s`` and
``y'y`` by ``s^2`` gives the cross-products of the standardised response
the in-memory fit uses (:mod:`benchverdict.lmem.scaling`), equal up to the
order of floating-point additions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from benchverdict._dask.codes import codes_in
from benchverdict.lmem import exclusions as _exclusions
from benchverdict.lmem._shared import embed_theta, exact_model, native_model, random_signature
from benchverdict.lmem.design import (
    CrossProducts,
    Design,
    ReBlock,
    Variable,
    cross_products,
    is_factor_column,
    term_columns,
)
from benchverdict.lmem.exactness import fixed_effects_reproduce, random_effects_reproduce
from benchverdict.lmem.formula import FormulaError, parse_formula
from benchverdict.lmem.model import DegenerateFitError, GridSpec, MixedModel, check_full_rank
from benchverdict.lmem.native import ProfiledDeviance, small_problem_threads
from benchverdict.lmem.scaling import ResponseScale, constant_coefficients


# ---------------------------------------------------------------------- pass 1
def _first_pass(canon: pd.DataFrame, response: str, factors: tuple[str, ...],
                numerics: tuple[str, ...], groups: tuple[tuple[str, ...], ...]) -> dict:
    y = canon[response].to_numpy(dtype=np.float64)
    out: dict[str, Any] = {"n": len(y), "sum": float(y.sum()),
                           "max": float(np.abs(y).max()) if len(y) else 0.0,
                           "finite": bool(np.isfinite(y).all()), "levels": {}, "sums": {},
                           "missing": {}, "combos": {}}
    for name in (*factors, *numerics):
        col = canon[name]
        out["missing"][name] = int(col.isna().sum())
    for name in factors:
        col = canon[name]
        if isinstance(col.dtype, pd.CategoricalDtype):
            used = np.bincount(col.cat.codes.to_numpy()[col.cat.codes.to_numpy() >= 0],
                               minlength=len(col.cat.categories)) > 0
            out["levels"][name] = list(col.cat.categories[used])
        else:
            try:
                out["levels"][name] = list(pd.unique(col.dropna()))
            except TypeError:  # unhashable values: an error only if a model uses the column
                out["levels"][name] = None
    for name in numerics:
        out["sums"][name] = float(canon[name].to_numpy(dtype=np.float64).sum())
    for group in groups:
        out["combos"][group] = canon[list(group)].drop_duplicates()
    return out


def _first_pass_parts(results: Any, response: str, groups: tuple[tuple[str, ...], ...],
                      progress: bool | None) -> list[dict]:
    """Pass 1 over every column at once, cached.

    Models with the same response and grouping factors (a null model and its
    alternative) share it.
    """
    key = ("lmem_pass1", response, groups)
    if key not in results._cache:
        frame = results._frame
        names = [c for c in frame.columns if c != response]
        factors = tuple(c for c in names if is_factor_column(frame[c]))
        numerics = tuple(c for c in names if c not in factors)
        results._cache[key] = results._map(_first_pass, response, factors, numerics, groups,
                                           desc="LMEM pass 1", progress=progress)
    return results._cache[key]


def _sorted_levels(name: str, parts: list[dict], dtype: Any) -> list:
    if any(p["levels"][name] is None for p in parts):
        raise FormulaError(f"column {name!r} holds unhashable values (lists, dicts, ...): it "
                           f"cannot be a factor of a mixed model. Fix: turn them into labels.")
    values = [v for p in parts for v in p["levels"][name]]
    if isinstance(dtype, pd.CategoricalDtype):
        present = set(values)
        return [c for c in dtype.categories if c in present]
    # Categories of col.astype("category"): the sorted distinct values.
    return list(pd.Index(pd.unique(pd.Series(values, dtype=object))).sort_values())


@dataclass
class _Header:
    """What every partition needs to build its slice of X and Z, and what the fit needs."""

    design: Design  # variables (levels, numeric means), fixed columns, blocks (levels only)
    factor_levels: dict[str, list]
    numeric_groups: dict[str, np.ndarray]
    combos: dict[tuple[str, ...], np.ndarray]  # sorted combined codes of interaction groups
    n: int
    total: float
    largest: float


def _header(results: Any, parsed, progress: bool | None) -> _Header:
    frame = results._frame  # the canonical columns and dtypes, no rows
    # build_design's checks that need no rows (the levels come from the partitions).
    parsed.validate(frame.columns)
    if is_factor_column(frame[parsed.response]):
        raise FormulaError(f"the response {parsed.response!r} must be numeric.")
    if parsed.response in parsed.variables[1:]:
        raise FormulaError(f"the response {parsed.response!r} also appears as a predictor.")
    names = [v for v in parsed.variables if v != parsed.response]
    factors = tuple(v for v in names if is_factor_column(frame[v]))
    numerics = tuple(v for v in names if v not in factors)
    groups = tuple(t.group for t in parsed.random)
    parts = _first_pass_parts(results, parsed.response, groups, progress)
    n = sum(p["n"] for p in parts)
    if not all(p["finite"] for p in parts):
        raise ValueError(f"the response {parsed.response!r} has non-finite values.")
    for name in (*factors, *numerics):
        missing = sum(p["missing"][name] for p in parts)
        if missing:
            raise ValueError(
                f"column {name!r} has {missing} missing value(s); a mixed model needs every "
                "variable it uses. Fill or drop them before building the Results.")
    variables: dict[str, Variable] = {}
    levels: dict[str, list] = {}
    for name in factors:
        levels[name] = _sorted_levels(name, parts, frame[name].dtype)
        variables[name] = Variable(name, "factor", tuple(str(v) for v in levels[name]))
    for name in numerics:
        mean = sum(p["sums"][name] for p in parts) / max(n, 1)
        variables[name] = Variable(name, "numeric", values=np.array([mean]))
    fixed = term_columns(parsed.fixed, variables)
    if not fixed:
        raise FormulaError("the model has no fixed effects; use 'score ~ 1 + ...' at least.")
    numeric_groups: dict[str, np.ndarray] = {}
    combos: dict[tuple[str, ...], np.ndarray] = {}
    blocks: list[ReBlock] = []
    for term in parsed.random:
        for g in term.group:
            if not variables[g].is_factor and g not in numeric_groups:
                # lme4 turns a numeric grouping variable into a factor; so does build_design.
                allv = pd.concat([p["combos"][term.group][g] for p in parts])
                uniq = np.unique(allv.to_numpy(dtype=np.float64))
                numeric_groups[g] = uniq
                variables[g] = Variable(g, "factor", tuple(f"{u:g}" for u in uniq))
        if len(term.group) == 1:
            group_levels = variables[term.group[0]].levels
        else:
            combined = np.unique(np.concatenate([
                _combined_codes(p["combos"][term.group], term.group, levels, numeric_groups,
                                variables) for p in parts]))
            combos[term.group] = combined
            group_levels = tuple(_combo_labels(combined, term.group, variables))
        columns = term_columns(term.expr, variables)
        # The per-row level codes stay in the partitions (each partition's
        # cross-products are built there); the client-side block needs none.
        no_row_codes = np.zeros(0, dtype=np.int32)
        if term.diagonal:
            for col in columns:
                blocks.append(ReBlock(term.group_name, (col,), group_levels, no_row_codes, term))
        else:
            blocks.append(ReBlock(term.group_name, tuple(columns), group_levels, no_row_codes,
                                  term))
    blocks.sort(key=lambda b: -b.n_levels)
    offsets = list(np.cumsum([0] + [b.q for b in blocks])[:-1].astype(int))
    design = Design(parsed, variables, fixed, blocks, np.zeros(0), n, offsets)
    return _Header(design, levels, numeric_groups, combos, n,
                   float(sum(p["sum"] for p in parts)), max(p["max"] for p in parts))


def _factor_codes(values: pd.Series, levels: list) -> np.ndarray:
    return codes_in(values, levels).astype(np.int32)


def _combined_codes(frame: pd.DataFrame, group: tuple[str, ...], levels: dict,
                    numeric_groups: dict, variables: dict) -> np.ndarray:
    combined = np.zeros(len(frame), dtype=np.int64)
    for g in group:
        if g in numeric_groups:
            codes = np.searchsorted(numeric_groups[g], frame[g].to_numpy(dtype=np.float64))
        else:
            codes = _factor_codes(frame[g], levels[g])
        combined = combined * len(variables[g].levels) + codes
    return combined


def _combo_labels(combined: np.ndarray, group: tuple[str, ...], variables: dict) -> list[str]:
    labels = []
    for value in combined:
        parts = []
        for g in reversed(group):
            var = variables[g]
            parts.append(var.levels[int(value % len(var.levels))])
            value //= len(var.levels)
        labels.append(":".join(reversed(parts)))
    return labels


# ---------------------------------------------------------------------- pass 2
def _partition_design(canon: pd.DataFrame, header: _Header, y: np.ndarray) -> Design:
    """The slice of the design in one partition, with the global levels."""
    parsed = header.design.formula
    variables: dict[str, Variable] = {}
    for name, var in header.design.variables.items():
        if name in header.factor_levels:
            variables[name] = Variable(name, "factor", var.levels,
                                       codes=_factor_codes(canon[name], header.factor_levels[name]))
        elif name in header.numeric_groups:
            values = canon[name].to_numpy(dtype=np.float64)
            variables[name] = Variable(name, "factor", var.levels, codes=np.searchsorted(
                header.numeric_groups[name], values).astype(np.int32))
        else:
            variables[name] = Variable(name, "numeric",
                                       values=canon[name].to_numpy(dtype=np.float64))
    # Fixed columns of a numeric variable that is also a grouping factor use its values.
    fixed_vars = dict(variables)
    for name in header.numeric_groups:
        fixed_vars[name] = Variable(name, "numeric",
                                    values=canon[name].to_numpy(dtype=np.float64))
    blocks = []
    for block in header.design.blocks:
        group = block.source.group
        if len(group) == 1:
            codes = variables[group[0]].codes
        else:
            combined = _combined_codes(canon, group, header.factor_levels, header.numeric_groups,
                                       header.design.variables)
            codes = np.searchsorted(header.combos[group], combined).astype(np.int32)
        blocks.append(ReBlock(block.group, block.columns, block.levels, codes, block.source))
    design = Design(parsed, variables, header.design.fixed, blocks, y, len(y),
                    header.design.offsets)
    if header.numeric_groups:
        design.variables = {**variables, **{k: v for k, v in fixed_vars.items()
                                            if k in header.numeric_groups}}
    return design


def _centred(canon: pd.DataFrame, response: str, largest: float, centre: float) -> np.ndarray:
    y = canon[response].to_numpy(dtype=np.float64, copy=True)
    if largest == 0.0:
        return y
    y /= largest
    y -= centre
    return y


def _cross_products_partition(canon: pd.DataFrame, header: _Header, largest: float,
                              centre: float) -> CrossProducts:
    y = _centred(canon, header.design.formula.response, largest, centre)
    return cross_products(_partition_design(canon, header, y))


def _rss_partition(canon: pd.DataFrame, header: _Header, largest: float, centre: float,
                   spread: float, beta: np.ndarray, b: np.ndarray | None) -> float:
    y = _centred(canon, header.design.formula.response, largest, centre) / spread
    design = _partition_design(canon, header, y)
    r = y - design.fixed_matrix(slice(None)) @ beta
    if b is not None:
        r = r - design.random_matrix(slice(None)) @ b
    return float(r @ r)


def _signature(header: _Header, largest: float, centre: float) -> tuple:
    """What two designs share when one's cross-products are sub-blocks of the other's.

    The response and its scaling, and every random-effect block (columns and levels).
    """
    design = header.design
    blocks = tuple((b.group, tuple((c.name, c.parts) for c in b.columns), tuple(b.levels))
                   for b in design.blocks)
    return (design.formula.response, header.n, largest, centre, blocks,
            tuple(design.offsets))


def _fixed_columns(header: _Header) -> list[tuple]:
    return [(c.name, c.parts) for c in header.design.fixed]


def _raw_cross_products(results: Any, header: _Header, largest: float,
                        centre: float) -> CrossProducts:
    """The design's cross-products: one pass over the partitions, or none.

    None when a design with the same random effects and a superset of its
    fixed columns was summed before (a null model after its alternative):
    ``X'X, X'Z, X'y`` are then sub-blocks.
    """
    signature = _signature(header, largest, centre)
    wanted = _fixed_columns(header)
    for sig, columns, raw in results._cache.get("lmem_cross_products", []):
        if sig == signature and set(wanted) <= set(columns):
            idx = np.array([columns.index(c) for c in wanted], dtype=np.intp)
            return CrossProducts(raw.XtX[np.ix_(idx, idx)], raw.XtZ[idx], raw.ZtZ,
                                 raw.Xty[idx], raw.Zty, raw.yty, raw.n)
    raw = results._map_sum(_cross_products_partition, header, largest, centre,
                           desc="LMEM cross-products")
    results._cache.setdefault("lmem_cross_products", []).append((signature, wanted, raw))
    return raw


def _scaling(header: _Header) -> tuple[np.ndarray | None, float, float]:
    """``(e, largest, centre)``: the constant's coefficients and how y is scaled."""
    e = constant_coefficients(header.design)
    largest = header.largest if np.isfinite(header.largest) else 0.0
    centre = (header.total / largest / header.n) if (e is not None and largest) else 0.0
    return e, largest, centre


def _cached_header(results: Any, parsed, progress: bool | None) -> _Header:
    key = ("lmem_header", str(parsed))
    if key not in results._cache:
        results._cache[key] = _header(results, parsed, progress)
    return results._cache[key]


def sum_cross_products_once(results: Any, formulas: list[str]) -> bool:
    """Sum, in one pass, the cross-products every model of ``formulas`` will need.

    When the formulas share the response and random effects and one has
    every fixed column of the others (nested models: a null model and its
    alternatives), its cross-products are summed now; each :func:`fit` of
    these formulas then takes its sub-blocks without reading a partition.
    Returns whether that was possible (else each fit makes its own pass).

    Examples
    --------
    >>> import pytest; dd = pytest.importorskip("dask.dataframe")  # the dask extra
    >>> from benchverdict.results import Results, _example_small
    >>> df = _example_small().table.reset_index(drop=True)
    >>> from benchverdict.io import from_dask_frame
    >>> big = from_dask_frame(dd.from_pandas(df, npartitions=2), algorithm="algorithm",
    ...                          benchmark="benchmark", seed="seed", budget="budget",
    ...                          score="score", objective="maximize")
    >>> sum_cross_products_once(big, ["score ~ 1 + (1|benchmark)",
    ...                               "score ~ algorithm + (1|benchmark)"])
    True
    """
    headers = [_cached_header(results, parse_formula(f, results._frame.columns), None)
               for f in formulas]
    signatures = {_signature(h, *_scaling(h)[1:]) for h in headers}
    if len(signatures) != 1:
        return False
    widest = max(headers, key=lambda h: len(h.design.fixed))
    if not all(set(_fixed_columns(h)) <= set(_fixed_columns(widest)) for h in headers):
        return False
    _raw_cross_products(results, widest, *_scaling(widest)[1:])
    return True


class _PartitionedDesign:
    """The standardised design as the exactness checks see it: ``n`` and the row RSS."""

    def __init__(self, results: Any, header: _Header, largest: float, centre: float,
                 spread: float):
        self.results, self.header = results, header
        self.largest, self.centre, self.spread = largest, centre, spread
        self.n = header.n

    def row_rss(self, beta: np.ndarray, b: np.ndarray | None) -> float:
        """``||y - X beta - Z b||^2`` summed over the partitions."""
        return float(self.results._map_sum(_rss_partition, self.header, self.largest,
                                           self.centre, self.spread, beta, b,
                                           desc="LMEM exactness check"))


def fit_partitioned(results: Any, formula: str, *, reml: bool = False,
                    backend: str = "native", start: MixedModel | None = None,
                    exclusions: pd.DataFrame | None = None,
                    progress: bool | None = None) -> MixedModel:
    """:func:`benchverdict.lmem.fit` on a DaskResults, cross-products summed per partition.

    Examples
    --------
    >>> import pytest; dd = pytest.importorskip("dask.dataframe")  # the dask extra
    >>> from benchverdict.results import Results, _example_small
    >>> from benchverdict.lmem import fit
    >>> df = _example_small().table.reset_index(drop=True)
    >>> roles = dict(algorithm="algorithm", benchmark="benchmark", seed="seed",
    ...              budget="budget", score="score", objective="maximize")
    >>> from benchverdict.io import from_dask_frame
    >>> big = from_dask_frame(dd.from_pandas(df, npartitions=3), **roles)
    >>> m1 = fit(big, "score ~ algorithm + (1|benchmark)")
    >>> m0 = fit(Results.from_frame(df, **roles), "score ~ algorithm + (1|benchmark)")
    >>> bool(abs(m1.loglik - m0.loglik) <= 1e-9 * abs(m0.loglik))
    True
    """
    if backend == "lme4":
        raise ValueError(
            "backend='lme4' needs every row in R's memory; the partitioned data use the native "
            "engine (checked against lme4 in the test suite). Fix: backend='native', or fit "
            "lme4 on results.in_memory() when the rows fit.")
    if backend != "native":
        raise ValueError(f"backend must be 'native' or 'lme4', got {backend!r}.")
    parsed = parse_formula(formula, results._frame.columns)
    left_out = exclusions if exclusions is not None else _exclusions.exclusions_of(results)
    header = _cached_header(results, parsed, progress)
    design = header.design
    e, largest, centre = _scaling(header)
    fingerprint = (header.n, float(f"{header.total:.9e}"))
    raw = _raw_cross_products(results, header, largest, centre)
    spread = float(np.sqrt(raw.yty / raw.n)) if largest else 1.0
    if largest == 0.0:
        scale = ResponseScale(0.0, 1.0)
        spread = 1.0
    elif spread == 0.0:
        scale = ResponseScale(largest * centre, largest)
        spread = 1.0
    else:
        scale = ResponseScale(largest * centre, largest * spread)
    cp = CrossProducts(raw.XtX, raw.XtZ, raw.ZtZ, raw.Xty / spread, raw.Zty / spread,
                       raw.yty / spread**2, raw.n)
    terms = tuple((b.group, tuple(c.name for c in b.columns)) for b in design.blocks)
    common = {"formula": parsed, "reml": reml, "objective": results.objective,
              "grid": GridSpec.from_design(design),
              "random_signature": random_signature(design),
              "data_fingerprint": fingerprint, "exclusions": left_out,
              "_scale": scale, "_terms": terms, "_constant": e}
    check_full_rank(cp.XtX, design.fixed_names)
    dev = ProfiledDeviance(cp, design.blocks, reml)
    rows = _PartitionedDesign(results, header, largest, centre, spread)
    with small_problem_threads(dev.work_size):
        beta_exact = fixed_effects_reproduce(rows, cp)  # type: ignore[arg-type]
        if beta_exact is not None:
            return exact_model(dev, beta_exact, backend, common)
        if random_effects_reproduce(rows, cp, dev):  # type: ignore[arg-type]
            raise DegenerateFitError(
                f"the fixed and random effects of {parsed} reproduce the scores exactly: no "
                "residual variation is left, so the likelihood has no maximum. This happens "
                "when the scores are constant within each level of a grouping factor (e.g. "
                "every algorithm scores the same on each benchmark, or each seed repeats the "
                "same score). Remove the random term that absorbs them, or compare the "
                "scores directly.")
        embedded = embed_theta(start, terms) if start is not None else None
        theta, res = dev.minimize([embedded] if embedded is not None else [])
    return native_model(dev, theta, res, common)


__all__ = ["fit_partitioned", "sum_cross_products_once"]
