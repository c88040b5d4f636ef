"""The report in a terminal: the summary a command prints, and a comparison's ``repr``."""

from __future__ import annotations

from benchverdict._plain_text import printable
from benchverdict.report.document import ReportDocument

#: The headline sentence in ``repr`` is cut after this many characters.
REPR_SENTENCE = 240
#: At most this many per-scope sentences in a comparison's summary.
MAX_SUMMARY_SCOPES = 8


def _what_ran(doc: ReportDocument) -> str:
    return ", ".join(a.name for a in doc.analyses if a.status == "ok") or "none"


def comparison_summary(document: ReportDocument) -> str:
    """The comparison in a few lines: what ran, the headline per scope, what was left out.

    Examples
    --------
    >>> from benchverdict.report.runner import compare
    >>> from benchverdict.results import _example_small
    >>> comp = compare(_example_small(), analyses=["ranks"], progress=False, figures=False)
    >>> print(comparison_summary(comp.document()).splitlines()[0])
    benchverdict report: 2 algorithms x 2 benchmarks (maximize); 3 verdicts from ranks
    """
    doc = document
    data = doc.data
    summary = doc.summary
    lines = [f"benchverdict report: {len(data.algorithms)} algorithms x "
             f"{len(data.benchmarks)} benchmarks ({doc.objective}); {doc.n_verdicts:,} "
             f"verdicts from {_what_ran(doc)}"]
    for a in doc.analyses:
        lines.append(f"  {a.name:<7} {a.status:<15} {a.n_verdicts:>4} verdicts  "
                     f"{a.seconds:6.1f} s  {a.reason}")
    lines.append("")
    if summary.head is not None:
        lines.append(summary.head.sentence)
    lines += [f"  {x.sentence}" for x in summary.others[:MAX_SUMMARY_SCOPES]]
    if len(summary.others) > MAX_SUMMARY_SCOPES:
        lines.append(f"  ... and {len(summary.others) - MAX_SUMMARY_SCOPES} more scopes "
                     f"(report.md)")
    lines += [f"  Note: {note}" for note in summary.notes]
    if summary.n_contradicted:
        lines += ["", f"{summary.n_contradicted} contradicted relation(s): see the report's "
                      f"Contradictions section."]
    if doc.n_excluded_records:
        lines += ["", f"{doc.n_excluded_records:,} row(s), run(s), seed(s) or cell(s) were "
                      f"left out by validation or the analyses: see the report's Exclusions "
                      f"section and exclusions.csv."]
    return "\n".join(lines)


def comparison_repr(document: ReportDocument) -> str:
    """A short ``repr`` of a comparison: size, analyses that ran, the headline, the counts.

    A few lines whatever the size of the data (the tables are attributes).
    """
    doc = document
    summary = doc.summary
    sentence = summary.head.sentence if summary.head is not None else (
        f"{len(summary.others)} scope(s), none over all benchmarks")
    if len(sentence) > REPR_SENTENCE:
        sentence = sentence[:REPR_SENTENCE - 3] + "..."
    other = [f"{a.name} {a.status}" for a in doc.analyses if a.status != "ok"]
    return (f"Comparison({len(doc.data.algorithms)} algorithms x {len(doc.data.benchmarks)} "
            f"benchmarks, {doc.objective}; analyses: {_what_ran(doc)}"
            + (f" ({', '.join(other)})" if other else "")
            + f"; {doc.n_verdicts:,} verdicts\n  {printable(sentence)}\n  "
            f"relations: {summary.status_counts})")


__all__ = ["MAX_SUMMARY_SCOPES", "REPR_SENTENCE", "comparison_repr", "comparison_summary"]
