"""The report's technical terms in plain words, and the links from the page to them.

:data:`GLOSSARY` holds one :class:`Term` per technical word or phrase the
report prints ("power gap", "implied by transitivity", "CVaR", "EMM", ...),
with the spellings it appears under and a definition of one or two
sentences for a reader who has not met it. :func:`terms_in` finds the
terms a text uses; the reports show those as their Glossary section, and
:func:`link_terms` makes the first occurrence of each term in each section
of the HTML page a link to its entry.

:data:`JARGON` is a list of technical words, independent of the glossary,
that a reader may not know; a test scans the rendered reports for them
and fails when one is printed without a glossary entry.
"""

from __future__ import annotations

from collections.abc import Iterable

from benchverdict.report import prose
from benchverdict.report.document import GlossaryEntry

__all__ = ["GLOSSARY", "JARGON", "Term", "anchor", "glossary_for", "link_terms", "lookup",
           "terms_in", "visible_text"]


#: A glossary entry (the document model's type, so that renderers read it from the document).
Term = GlossaryEntry


def anchor(term: str) -> str:
    """The HTML id of a glossary term.

    Examples
    --------
    >>> anchor("Implied by transitivity"), anchor("CVaR")
    ('g-implied-by-transitivity', 'g-cvar')
    """
    return GlossaryEntry(term, "").anchor


def _t(term: str, definition: str, *aliases: str) -> Term:
    return GlossaryEntry(term, definition, aliases)


#: Every term, alphabetical by headword.
GLOSSARY: tuple[Term, ...] = tuple(sorted((
    _t("adjusted p", "A p-value made larger to account for testing many pairs at once; a "
       "relation counts as settled when its adjusted p is at most alpha.",
       "adjusted p-value", "Holm-adjusted p", "p_value_adjusted"),
    _t("alpha", "The error rate the decisions are held to: with alpha 0.05, the chance that any "
       "settled relation of a scope type is wrong is at most 5%."),
    _t("Akinshin's gamma", "An effect size for two samples that compares their quantiles, "
       "robust to outliers; reported by the rank tests (after Autorank)."),
    _t("Autorank", "A procedure (and Python package) that picks a test from normality and "
       "equal-variance checks and ranks the algorithms; the report runs its decision path and "
       "shows it beside its own answer."),
    _t("Bonferroni", "The simplest multiple-comparison adjustment: each of m tests or intervals "
       "is held to alpha/m, so all hold together with probability at least 1 - alpha.",
       "Bonferroni-Dunn"),
    _t("CDF", "Cumulative distribution function: for each score, the share of draws at or "
       "below it; a plot of the whole score distribution.", "CDFs", "empirical CDF"),
    _t("normality and equal-variance checks", "Shapiro-Wilk tests whether scores look normally "
       "distributed, Levene's and Bartlett's tests whether their variances are equal; Autorank "
       "uses them to choose its test.", "Shapiro-Wilk", "Levene's test", "Levene",
       "Bartlett"),
    _t("Welch's t", "A t-test or interval for the difference of two means that does not assume "
       "equal variances. Within one benchmark its degrees of freedom are Hsu's min(n_a, n_b) - 1, "
       "which hold for any ratio of the variances; across these benchmarks, Welch-"
       "Satterthwaite's.", "Welch's interval",
       "Welch's difference", "Welch"),
    _t("block", "One unit of a rank test: a benchmark (its scores averaged over seeds) in which "
       "the algorithms are ranked against each other.", "blocks"),
    _t("bootstrap", "Resampling the data with replacement many times to see how much an "
       "estimate varies; percentile or studentized intervals are read from the resamples.",
       "bootstrap interval", "resamples", "percentile bootstrap"),
    _t("CD diagram", "A critical-difference diagram: algorithms placed by average rank, with a "
       "bar joining those whose ranks differ by less than the critical difference (CD), i.e. "
       "that the test cannot tell apart.", "critical difference", "critical-difference",
       "CD"),
    _t("Cliff's delta", "An effect size: the probability that a score of one algorithm beats a "
       "score of the other minus the reverse probability, from -1 to 1."),
    _t("contradicted", "Two families of evidence decide a pair in opposite directions (or the "
       "settled relations form a cycle); the report does not pick a side.", "contradiction",
       "contradictions"),
    _t("CVaR", "Conditional value at risk: CVaR_a is the mean of the best (1 - a) share of an "
       "algorithm's scores, e.g. CVaR_0.95 is the mean of its best 5% of draws, a summary of "
       "its upper tail.", "CVaR_0.95", "CVaR_0.5", "CVaR_a"),
    _t("DSE", "Score distributions: each random-search draw is one sample of an algorithm's "
       "performance, compared as whole distributions (CDFs, CVaR, dominance) after Jordan et al. "
       "(2018); they describe single draws and do not vote.", "score distributions"),
    _t("DKW", "The Dvoretzky-Kiefer-Wolfowitz inequality (with Massart's constant): a band of "
       "fixed width around an empirical CDF that contains the true CDF everywhere with a "
       "stated probability.", "Dvoretzky-Kiefer-Wolfowitz"),
    _t("EMM", "Estimated marginal mean: a model's predicted mean score of an algorithm, "
       "averaged over the benchmarks; the LMEM compares algorithms by contrasts of EMMs.",
       "EMMs", "estimated marginal means", "marginal means"),
    _t("effect size", "How much better one algorithm is than another, not just whether: here "
       "the mean score difference with its interval, and how often one beats the other.",
       "by how much", "mean difference"),
    _t("equivalence margin", "The largest difference that does not matter in practice, given by "
       "the user (--margin); two algorithms are practically equivalent when their difference "
       "is shown to lie inside it.", "margin of practical equivalence", "margin",
       "practically equivalent", "practical equivalence"),
    _t("estimand", "The quantity a claim is about: here, whether 'A beats B across benchmarks' "
       "means on benchmarks like these (a population the observed ones sample) or on exactly "
       "these benchmarks.", "benchmarks like these", "these benchmarks"),
    _t("family of evidence", "One kind of analysis (rank tests, LMEM, tuning curves, score "
       "distributions); several tests of one family on the same data count as one piece of "
       "evidence and cast one vote per pair.", "family", "families", "families of evidence"),
    _t("family-wise", "An error rate for a whole set of decisions: family-wise error at most "
       "alpha means the chance that even one settled relation of the set is wrong is at most "
       "alpha.", "family-wise error", "family-wise adjustment", "FWER"),
    _t("Friedman test", "A rank test of whether any of several algorithms differ: it ranks them "
       "within each benchmark and asks whether the average ranks differ more than chance "
       "allows.", "Friedman", "Friedman Q", "Iman-Davenport"),
    _t("GLRT", "Generalised likelihood-ratio test: compares how well two nested models fit, "
       "e.g. a mixed model with and without a term.", "likelihood-ratio test"),
    _t("Holm", "Holm's step-down adjustment: sort the p-values and compare the smallest with "
       "alpha/m, the next with alpha/(m-1), and so on; it controls the family-wise error under "
       "any dependence.", "Holm's", "step-down"),
    _t("implied by transitivity", "A relation not tested directly but following from settled "
       "ones: if A beats B and B beats C, then A is implied to beat C (the families may measure "
       "different things, so it is marked).", "implied", "transitivity"),
    _t("incumbent", "The best score an HPO run has found so far at a given budget (its running "
       "best).", "incumbents"),
    _t("intersection-union test", "A test of 'A beats B on every benchmark': it passes only if "
       "every per-benchmark test passes, each at level alpha, and then holds at level alpha "
       "without adjustment.", "intersection-union", "on every benchmark"),
    _t("Kendall's W", "The agreement of the benchmarks' rankings, from 0 (no agreement) to 1 "
       "(every benchmark ranks the algorithms alike)."),
    _t("KS test", "Kolmogorov-Smirnov test: compares two distributions by the largest gap "
       "between their CDFs; two one-sided KS tests decide stochastic dominance.",
       "Kolmogorov-Smirnov", "one-sided KS", "KS"),
    _t("LD highest-density band", "Lourie et al.'s confidence band for a tuning curve, built "
       "from the Learned-Miller-DeStefano band of the score CDF with the shortest "
       "(highest-density) interval per order statistic.", "LD highest-density",
       "ld_highest_density", "LD bands", "highest-density"),
    _t("LMEM", "Linear mixed-effects model: a regression of the scores on the algorithm with "
       "random effects for benchmarks (and algorithm x benchmark), so benchmark-to-benchmark "
       "variation is part of the uncertainty.", "mixed model", "mixed-effects",
       "linear mixed-effects models"),
    _t("Nemenyi test", "A post-hoc test after Friedman's: two algorithms differ when their "
       "average ranks differ by more than a critical difference; its answer for a pair depends "
       "on the other algorithms in the study.", "Nemenyi", "Nemenyi's"),
    _t("order-statistic test", "An exact test of two tuning curves at one budget, built from "
       "the order statistics (sorted scores) of each algorithm's draws.",
       "exact order-statistic test", "order-statistic"),
    _t("partial order", "A ranking in which some pairs are left unordered: the report orders "
       "only the pairs it can settle.", "partial ranking"),
    _t("permutation test", "A test that shuffles the algorithm labels (of draws or of whole "
       "runs) many times and asks how often a difference as large as the observed one "
       "arises.", "label-permutation test", "permutes"),
    _t("power gap", "A pair one family decides at its own level but not after the family-wise "
       "adjustment over all tests: more data would likely settle it.", "power gaps"),
    _t("probability of superiority", "How often one algorithm beats the other: across "
       "benchmarks, on what share of benchmarks its mean over the runs is ahead (few runs "
       "pull it toward 50%; benchmarks joined into one replicate, by copied runs or a "
       "declared task, count once, with the mean of their differences); within a "
       "benchmark, how often one run beats another.",
       "superiority"),
    _t("REML", "Restricted maximum likelihood: the usual way to fit a mixed model's variance "
       "components without the bias plain maximum likelihood has.", "maximum likelihood"),
    _t("replicate", "An independent repetition a test counts as one observation: a benchmark "
       "across benchmarks (benchmarks on which an algorithm's runs are identical, or that "
       "share a declared task, count once), a run (seed) within one benchmark.",
       "replicates",
       "unit of replication", "replication unit"),
    _t("Satterthwaite", "A way to compute degrees of freedom for a mixed model's t-tests from "
       "its variance components (lmerTest's default).", "Satterthwaite df",
       "Welch-Satterthwaite"),
    _t("scope", "Where a claim holds: across all benchmarks, on one benchmark, or within one "
       "level of a metafeature; a scope type is all scopes of one kind (e.g. every single "
       "benchmark), the set Holm adjusts together.", "scope type", "scopes"),
    _t("settled", "A relation decided with the family-wise error controlled: some family "
       "rejects 'no difference' after Holm's adjustment and no family decides the other way.",
       "settles", "settle"),
    _t("sign test", "Counts on how many benchmarks one algorithm wins, ties or loses against "
       "the other and tests whether wins and losses are equally likely.", "win/tie/loss"),
    _t("simultaneous", "An interval or band is simultaneous when all of them (over every pair, "
       "or every budget) hold together with the stated probability, not only each one alone.",
       "simultaneous interval", "simultaneous bands"),
    _t("single draw", "One random-search trial (k = 1): how often one algorithm's single draw "
       "beats another's, which says nothing about tuned performance.", "single draws"),
    _t("singular fit", "A mixed-model fit in which a variance component is estimated as zero; "
       "its tests can be unreliable.", "singular"),
    _t("stochastic dominance", "A's score distribution dominates B's when A is at least as "
       "likely as B to exceed every threshold, i.e. A's CDF lies below B's everywhere.",
       "dominance", "first-order stochastic dominance"),
    _t("studentized", "Divided by its own estimated standard error; a studentized bootstrap "
       "interval resamples this ratio, which keeps its level better than a plain percentile "
       "interval.", "studentized bootstrap"),
    _t("TOST", "Two one-sided tests: shows equivalence by rejecting both 'difference <= "
       "-margin' and 'difference >= margin'.", "two one-sided tests"),
    _t("tuning curve", "The best score found after k random hyperparameter trials, as a "
       "function of k: how good an algorithm is for a given tuning budget.", "tuning curves",
       "median tuning curves"),
    _t("Tukey", "Tukey's adjustment for all pairwise comparisons of means, from the "
       "studentized range distribution.", "Tukey's", "studentized range"),
    _t("unsettled", "No family separates the pair, even at its own level: the data cannot "
       "tell them apart.", "cannot be separated", "not separated"),
    _t("Wilcoxon signed-rank test", "A paired test over benchmarks that ranks the absolute "
       "differences and compares the ranks of positive and negative ones.", "Wilcoxon",
       "signed-rank"),
), key=lambda t: t.term.lower()))

#: Technical words a reader may not know, independent of the glossary: a report that prints
#: one must define it (tests/test_report_prose.py).
JARGON: tuple[str, ...] = (
    "power gap", "implied by transitivity", "family-wise", "intersection-union",
    "LD highest-density", "CVaR", "studentized", "equivalence margin", "GLRT", "EMM",
    "estimand", "TOST", "Holm", "Nemenyi", "Friedman", "Wilcoxon", "LMEM", "REML",
    "Satterthwaite", "Tukey", "Kendall's W", "Cliff's delta", "Akinshin's gamma", "sign test",
    "KS", "stochastic dominance", "permutation test", "bootstrap", "tuning curve",
    "order-statistic", "incumbent", "singular", "simultaneous", "adjusted p", "DSE",
    "DKW", "partial order", "contradicted", "unsettled", "settled", "replicate", "block",
    "Autorank", "critical difference", "Bonferroni", "CDF", "Shapiro-Wilk", "Levene",
    "Welch",
)


_OWNER = {s.lower(): t for t in GLOSSARY for s in t.spellings}


def lookup(word: str) -> Term | None:
    """The entry a word or phrase is spelled as (any spelling, any case), or ``None``.

    Examples
    --------
    >>> lookup("Power gaps").term, lookup("CVaR_0.95").term, lookup("nonsense")
    ('power gap', 'CVaR', None)
    """
    return _OWNER.get(word.lower())


def terms_in(texts: Iterable[str]) -> list[Term]:
    """The glossary entries the texts use, in glossary order.

    Examples
    --------
    >>> [t.term for t in terms_in(["two power gaps; CVaR_0.95 and the EMMs"])]
    ['CVaR', 'EMM', 'power gap']
    """
    return prose.terms_used(texts, GLOSSARY)


def glossary_for(texts: Iterable[str]) -> list[Term]:
    """The glossary a text needs: the terms it uses, and the terms their definitions use.

    Examples
    --------
    >>> terms = [t.term for t in glossary_for(["a power gap"])]
    >>> "power gap" in terms, "family-wise" in terms  # the second from the first's definition
    (True, True)
    """
    return prose.glossary_for(texts, GLOSSARY)


def link_terms(html: str, entries: Iterable[Term] = GLOSSARY) -> str:
    """``html`` with each section's first use of each term linked (:func:`prose.link_terms`).

    Examples
    --------
    >>> link_terms('<section id="s"><p>a GLRT</p></section>')
    '<section id="s"><p>a <a class="gloss" href="#g-glrt">GLRT</a></p></section>'
    """
    return prose.link_terms(html, tuple(entries))


#: The text a reader sees on an HTML page (:func:`prose.visible_text`).
visible_text = prose.visible_text
