"""What would settle an open pair across benchmarks: the report's plan, as a guide.

Its own module so that the reconciliation, which re-plans it at its Holm family's size
(:meth:`PlanGuide.for_tests`), imports no more of the report than this.
"""

from __future__ import annotations


class PlanGuide:
    """Across benchmarks: what would settle each open pair, from the pilot's variances.

    From :func:`benchverdict.effects.planning.plan` on the compared data
    (each pair's observed difference, target power 0.8), Bonferroni over the
    tests of the Holm family that settles pairs across benchmarks
    (:meth:`for_tests`: the reconciliation counts them; until then, the
    pairs). ``guide(a, b, key)`` is a short text ("53 benchmarks at 10
    seeds, more seeds alone cannot; 24% power now") and ``priority(a, b)``
    the power now (the report names the pairs closest to settled first).
    """

    scope = "across benchmarks"

    def __init__(self, plan, pilot=None, alpha: float | None = None,
                 replicates=None) -> None:
        self._pilot, self._alpha, self._replicates = pilot, alpha, replicates
        self._use(plan)

    def _use(self, plan) -> None:
        self.plan = plan
        self.rows = {frozenset((r["a"], r["b"])): r for r in plan.table.to_dict("records")}

    def for_tests(self, tests: int) -> None:
        """Plan again at ``alpha / tests``: the Holm family's size across benchmarks.

        The report settles a pair through Holm over every vote across benchmarks
        (one per voting family and pair, and a TOST per pair with a margin);
        planned for the pairs alone, 23 benchmarks promised 0.81 power and the
        report settled the pair in 0.675 of simulated studies.
        """
        from benchverdict.effects.planning import plan

        if self._pilot is None or tests < 1 or tests == self.plan.pairs:
            return
        self._use(plan(self._pilot, alpha=self._alpha, pairs=int(tests), standardize=False,
                       replicates=self._replicates))

    @property
    def correction(self) -> str:
        """The level the plan is made at, in words (the guidance line says it)."""
        tests = int(self.plan.pairs)
        pairs = len(self.rows)
        if tests == pairs:
            return f"Bonferroni over the {pairs} pair(s)"
        return (f"Bonferroni over the {tests} tests of the Holm family that settles pairs "
                f"across benchmarks (every family's vote and equivalence test per pair)")

    def priority(self, a: str, b: str) -> float:
        """The pair's power now (0 when unknown)."""
        row = self.rows.get(frozenset((a, b)))
        value = None if row is None else row.get("power_now")
        return float(value) if value is not None and value == value else 0.0

    def __call__(self, a: str, b: str, key: tuple) -> str | None:
        """The plan of ``a`` vs ``b`` across all benchmarks in a few words, else ``None``."""
        import pandas as pd

        from benchverdict.effects.planning import MAX_BENCHMARKS

        row = self.rows.get(frozenset((a, b)))
        if key != (None, ()) or row is None or row["difference"] == 0:
            return None
        if row["lever"] == "enough":
            return None
        n_need, r, r_need = row["benchmarks_needed"], row["seeds"], row["seeds_needed"]
        size = float(row.get("benchmarks_per_replicate", 1.0) or 1.0)
        units = ("benchmarks" if size <= 1.0 else
                 f"independent replicates (of about {size:.2g} benchmarks each)")
        by_benchmarks = (f"{int(n_need):,} {units}" + (f" at {r:.3g} seeds" if pd.notna(r)
                                                       else "")
                         if pd.notna(n_need) else f"more than {MAX_BENCHMARKS:,} {units}")
        by_seeds = ("more seeds alone cannot" if pd.isna(r_need)
                    else f"or {int(r_need)} seeds per cell")
        now = f"; {row['power_now']:.0%} power now" if pd.notna(row["power_now"]) else ""
        return f"{by_benchmarks}, {by_seeds}{now}"


__all__ = ["PlanGuide"]
