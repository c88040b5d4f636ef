"""The ``lme4`` backend: R's lme4, emmeans and lmerTest called directly through rpy2.

Why rpy2 directly and not pymer4: pymer4 0.9.x ignores ``REML=False``
(pymer4 issue #153) and needs an R package Debian does not ship; pymer4 0.8.2
needs pandas < 3. Calling lme4 through rpy2 (< 3.6; 3.6 fails on Debian's
R 4.2) avoids both and lets us control every argument.

No user text reaches R: every variable is passed as a column with a
generated name (``V1_``, ``V2_``, ...) and the formula is rendered from the
parsed, validated :class:`~benchverdict.lmem.formula.Formula` with those
names. Results are mapped back to the user's names.
"""

from __future__ import annotations

import itertools
import os
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from benchverdict.lmem.design import Design
from benchverdict.lmem.formula import Formula, TermList
from benchverdict.lmem.scaling import ResponseScale, unscale_varcomp

_R_READY: dict[str, object] = {}
_COUNTER = itertools.count()


def available() -> bool:
    """Whether rpy2, R, lme4, emmeans and lmerTest can be loaded."""
    try:
        _r()
    except Exception:
        return False
    return True


def _r():
    if "r" not in _R_READY:
        # Starting R rewrites LD_LIBRARY_PATH (and sets R_HOME) in this process's
        # environment. R's libraries are already loaded by then, so the variable only
        # affects child processes, where it can make a Python binary load the system's
        # libpython and lose its own site-packages. Restore it once R is up.
        saved = os.environ.get("LD_LIBRARY_PATH")
        try:
            ro = _start_r()
        finally:
            if saved is None:
                os.environ.pop("LD_LIBRARY_PATH", None)
            else:
                os.environ["LD_LIBRARY_PATH"] = saved
        _R_READY["r"] = ro
    return _R_READY["r"]


def _start_r():
    """Import rpy2, start R and check that lme4, emmeans and lmerTest load."""
    try:
        import rpy2.robjects as ro
    except ImportError as err:
        raise ImportError(
            "the lme4 backend needs rpy2 (pip install 'rpy2>=3.5,<3.6') and R with lme4, "
            "emmeans and lmerTest (Debian: apt-get install r-base-core r-cran-lme4 "
            "r-cran-emmeans r-cran-lmertest)."
        ) from err
    ok = ro.r('suppressWarnings(sapply(c("lme4", "emmeans", "lmerTest"), '
              'requireNamespace, quietly = TRUE))')
    missing = [n for n, v in zip(ok.names, ok) if not v]
    if missing:
        raise ImportError(f"the lme4 backend needs the R package(s) {missing}.")
    ro.r(".bvstore <- new.env()")
    return ro


def _safe_names(design: Design) -> dict[str, str]:
    names = [design.formula.response] + [v for v in design.formula.variables
                                         if v != design.formula.response]
    return {name: f"V{i}_" for i, name in enumerate(names)}


def _render_terms(terms: TermList, safe: dict[str, str]) -> str:
    parts = ["1" if terms.intercept else "0"] + [":".join(safe[v] for v in t)
                                                 for t in terms.terms]
    return " + ".join(parts)


def render_formula(formula: Formula, safe: dict[str, str], variables) -> str:
    """The formula with generated column names, for R."""
    rhs = [_render_terms(formula.fixed, safe)]
    for term in formula.random:
        group = ":".join(safe[g] for g in term.group)
        if term.diagonal:
            if any(variables[v].is_factor for v in term.expr.variables):
                raise ValueError(
                    "the lme4 backend does not support '||' with factor columns (lme4 does "
                    "not split factors for '||'); use the native backend."
                )
            rhs.append(f"({_render_terms(term.expr, safe)} || {group})")
        else:
            rhs.append(f"({_render_terms(term.expr, safe)} | {group})")
    return f"{safe[formula.response]} ~ " + " + ".join(rhs)


def _data_frame(design: Design, safe: dict[str, str]):
    ro = _r()
    cols = {safe[design.formula.response]: ro.FloatVector(design.y)}
    for name, var in design.variables.items():
        if var.is_factor:
            vec = ro.IntVector((var.codes + 1).astype(int))
            vec = ro.r["structure"](vec, levels=ro.StrVector(list(var.levels)),
                                    **{"class": "factor"})
        else:
            vec = ro.FloatVector(var.values)
        cols[safe[name]] = vec
    return ro.DataFrame(cols)


def _label_map(design: Design, safe: dict[str, str]) -> dict[str, str]:
    """R column label (with generated names) -> our label, for every design column."""
    mapping = {"(Intercept)": "(Intercept)"}
    cols = list(design.fixed) + [c for b in design.blocks for c in b.columns]
    for col in cols:
        if not col.parts:
            continue
        r_label = ":".join(
            safe[v] + (design.variables[v].levels[k] if k is not None else "")
            for v, k in col.parts
        )
        mapping[r_label] = col.name
    return mapping


def fit_lme4(design: Design, *, e: np.ndarray | None, scale: ResponseScale, formula: Formula,
             reml: bool) -> tuple[dict[str, Any], str]:
    """Fit with lme4::lmer (or stats::lm when there are no random effects).

    ``design`` holds the standardised response (``y* = (y - c) / s``, see
    :mod:`benchverdict.lmem.scaling`); lme4 fits that, and the estimates are
    mapped back to the scores' units here and in :func:`emmeans` and
    :func:`pairwise`.

    Returns the fitted model's fields (``MixedModel(**fields, ...)``; the
    fitting layer builds the model, so this module never imports it) and
    the key of the R environment to free with :func:`release` once the
    model is gone.
    """
    _scale = scale
    reml = bool(reml)

    ro = _r()
    safe = _safe_names(design)
    inverse = {v: k for k, v in safe.items()}
    labels = _label_map(design, safe)
    rformula = render_formula(formula, safe, design.variables)
    data = _data_frame(design, safe)
    # lmerTest re-evaluates the model's call, so the data and formula must live under names
    # the call can find: a private environment per model, released with the model.
    key = f"bv{next(_COUNTER)}"
    store = ro.r("function(key, f, d) { e <- new.env(); e$d <- d; "
                 "e$f <- as.formula(f, env = e); assign(key, e, envir = .bvstore); e }")
    env = store(key, rformula, data)
    if formula.random:
        # Tight tolerances so that agreement with the native engine is not limited by lme4's
        # default stopping rule.
        model = ro.r("""function(e, reml) { e$reml <- reml; with(e, suppressWarnings(
            suppressMessages(lme4::lmer(f, data = d, REML = reml,
                control = lme4::lmerControl(optimizer = "bobyqa", calc.derivs = FALSE,
                    optCtrl = list(rhoend = 1e-12, maxfun = 1e6)))))) }""")(
            env, ro.BoolVector([reml]))
        loglik = float(ro.r("function(m) as.numeric(logLik(m))")(model)[0])
        n_params = int(ro.r("function(m) attr(logLik(m), 'df')")(model)[0])
        sigma = float(ro.r("function(m) sigma(m)")(model)[0])
        theta = np.array(ro.r("function(m) lme4::getME(m, 'theta')")(model))
        singular = bool(ro.r("function(m) lme4::isSingular(m)")(model)[0])
        vc = ro.r("function(m) { v <- as.data.frame(lme4::VarCorr(m), order = 'lower.tri');"
                  " v$var1[is.na(v$var1)] <- ''; v$var2[is.na(v$var2)] <- '';"
                  " list(v$grp, v$var1, v$var2, v$vcov, v$sdcor) }")(model)
        grp, v1, v2, vcov_, sdcor = (list(x) for x in vc)
        rows = []
        for g, a, b, value, sdc in zip(grp, v1, v2, vcov_, sdcor):
            if g == "Residual":
                rows.append({"group": "Residual", "term1": "", "term2": "", "value": value,
                             "sd_cor": sdc})
                continue
            gname = ":".join(inverse[x] for x in g.split(":")) if g in _groups(safe, formula) \
                else _map_group(g, safe, inverse)
            t1 = labels[a]
            t2 = labels[b] if b else t1
            rows.append({"group": gname, "term1": t1, "term2": t2, "value": value,
                         "sd_cor": sdc})
        varcomp = pd.DataFrame(rows)
    else:
        model = ro.r("function(e) with(e, stats::lm(f, data = d))")(env)
        loglik = float(ro.r("function(m, reml) as.numeric(logLik(m, REML = reml))")(
            model, ro.BoolVector([reml]))[0])
        n_params = int(ro.r("function(m) attr(logLik(m), 'df')")(model)[0])
        n = design.n
        rss = float(ro.r("function(m) sum(residuals(m)^2)")(model)[0])
        sigma = float(np.sqrt(rss / (n - design.p if reml else n)))
        theta = np.zeros(0)
        singular = False
        varcomp = pd.DataFrame([{"group": "Residual", "term1": "", "term2": "",
                                 "value": sigma**2, "sd_cor": sigma}])
    fixef_r = ro.r("function(m) if (inherits(m, 'merMod')) lme4::fixef(m) else coef(m)")(model)
    names = [labels[x] for x in fixef_r.names]
    vc_r = np.array(ro.r("function(m) as.matrix(vcov(m))")(model))
    # Without random effects, inference uses lm's unbiased residual variance and n - p df
    # (as emmeans does for lm), in both backends.
    s = np.float64(_scale.scale)  # numpy: s**2 may overflow to inf instead of raising
    beta = s * np.array(fixef_r)
    if e is not None:
        beta = beta + _scale.location * e[[design.fixed_names.index(n) for n in names]]
    fixef = pd.Series(beta, index=names, name="estimate")
    n_eff = design.n - design.p if reml else design.n
    fields = {
        "backend": "lme4", "loglik": float(loglik - n_eff * np.log(s)), "fixef": fixef,
        "vcov": pd.DataFrame(_times_square(vc_r, s), index=names, columns=names),
        "sigma": float(sigma * s), "_vcov_std": vc_r,
        "theta": theta, "varcomp": unscale_varcomp(varcomp, s), "n_params": n_params,
        "singular": singular, "nobs": design.n, "_r_model": (model, safe, inverse),
    }
    return fields, key


def _times_square(values: np.ndarray, s: np.float64) -> np.ndarray:
    """``values * s**2``, inf where it overflows (scores near 1e300)."""
    with np.errstate(over="ignore"):
        return values * s**2


def release(key: str) -> None:
    """Free the R environment of a fitted model (called when the model is collected)."""
    ro = _R_READY.get("r")
    if ro is not None:
        ro.r(f"function() if (exists('{key}', envir = .bvstore)) rm('{key}', envir = .bvstore)")()


def _groups(safe: dict[str, str], formula: Formula) -> set[str]:
    return {":".join(safe[g] for g in t.group) for t in formula.random}


def _map_group(g: str, safe: dict[str, str], inverse: dict[str, str]) -> str:
    # '||' terms print as 'V3_.1' etc.
    base = g.split(".")[0]
    return ":".join(inverse.get(x, x) for x in base.split(":"))


def _emm_df_arg(model, df: str) -> str:
    if df == "auto":
        df = model.auto_df()  # one rule for both backends (MixedModel.auto_df)
    if df not in ("asymptotic", "satterthwaite"):
        raise ValueError(f"df must be 'auto', 'asymptotic' or 'satterthwaite', got {df!r}.")
    return df


def _emm(model, factor: str, by: str | None, df: str):
    ro = _r()
    r_model, safe, _ = model._r_model
    env = None
    emm = ro.r(
        "function(m, spec, by, dfm) suppressMessages(emmeans::emmeans(m, specs = spec, by = by, "
        "lmer.df = dfm, lmerTest.limit = Inf, pbkrtest.limit = Inf))")(
        r_model, ro.StrVector([safe[factor]]), ro.StrVector([safe[by]]) if by else ro.NULL,
        ro.StrVector([_emm_df_arg(model, df)]))
    return emm, env


def emmeans(model, factor: str, *, by: str | None, df: str, confidence: float) -> pd.DataFrame:
    """Marginal means from R's emmeans (same layout as the native method)."""
    ro = _r()
    emm, _ = _emm(model, factor, by, df)
    s = ro.r(
        "function(e, lvl) {s <- as.data.frame(summary(e, level = lvl)); "
        "names(s)[ncol(s) - 1:0] <- c('lower', 'upper'); s}")(emm, ro.FloatVector([confidence]))
    _, safe, _ = model._r_model
    out = pd.DataFrame({factor: [str(x) for x in s.rx2(safe[factor]).levels.rx(
        ro.IntVector(list(s.rx2(safe[factor]))))]})
    if by:
        col = s.rx2(safe[by])
        out[by] = [str(x) for x in col.levels.rx(ro.IntVector(list(col)))]
    # Back from the standardised response: every grid row averages to 1 on the constant.
    loc, scale = model._scale.location, model._scale.scale
    out["emmean"] = loc + scale * np.array(s.rx2("emmean"))
    out["se"] = scale * np.array(s.rx2("SE"))
    out["df"] = np.array(s.rx2("df"))
    out["lower"] = loc + scale * np.array(s.rx2("lower"))
    out["upper"] = loc + scale * np.array(s.rx2("upper"))
    return out


def pairwise(model, factor: str, *, adjust: str, by: str | None, df: str) -> pd.DataFrame:
    """Pairwise contrasts from R's emmeans ``pairs()``."""
    ro = _r()
    emm, _ = _emm(model, factor, by, df)
    s = ro.r("function(e, adj) as.data.frame(pairs(e, adjust = adj))")(
        emm, ro.StrVector([adjust]))
    contrast = [str(x) for x in (s.rx2("contrast").levels.rx(ro.IntVector(list(
        s.rx2("contrast")))) if hasattr(s.rx2("contrast"), "levels") else s.rx2("contrast"))]
    stat_name = "z.ratio" if "z.ratio" in list(s.names) else "t.ratio"
    levels = model.grid.factors[factor]
    a_b = [_split_contrast(c, levels) for c in contrast]
    out = pd.DataFrame({
        "contrast": contrast,
        "estimate": model._scale.scale * np.array(s.rx2("estimate")),
        "se": model._scale.scale * np.array(s.rx2("SE")),
        "statistic": np.array(s.rx2(stat_name)),
        "df": np.array(s.rx2("df")),
        "p_value_adjusted": np.array(s.rx2("p.value")),
        "a": [x[0] for x in a_b],
        "b": [x[1] for x in a_b],
    })
    # emmeans gives the adjusted p-value only; the unadjusted one is the two-sided t (z) tail
    out.insert(5, "p_value", 2 * stats.t.sf(np.abs(out["statistic"].to_numpy()),
                                            out["df"].to_numpy()))
    out.insert(7, "adjustment", adjust)
    if by:
        _, safe, _ = model._r_model
        col = s.rx2(safe[by])
        out[by] = [str(x) for x in col.levels.rx(ro.IntVector(list(col)))]
    return out


def _split_contrast(text: str, levels) -> tuple[str, str]:
    for a in levels:
        for b in levels:
            if a != b and text in (f"{a} - {b}", f"({a}) - ({b})", f"{a} - ({b})",
                                   f"({a}) - {b}"):
                return a, b
    raise ValueError(f"cannot map emmeans contrast {text!r} to levels {list(levels)}.")
