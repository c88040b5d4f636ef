"""The works the report's methods rest on, as BibTeX, and which a comparison cites.

:data:`REFERENCES` holds one :class:`Reference` per work a methods
paragraph (:func:`benchverdict.report.summary.methods_paragraph`) can cite.
Each entry was checked against the publisher's or an indexing service's
record (title, authors, venue, year; DOI where the record shows one); a
field that could not be checked is left out rather than guessed.

A paragraph marks a citation in its text as ``{cite:key1,key2}``;
:func:`render_citations` turns the marks into author-year text, LaTeX
``\\citep`` or Pandoc ``[@key]``, and :func:`cited_keys` lists the keys a
text cites, in order of first citation. :func:`bibtex` writes the entries
of exactly those keys, so a paper's reference list holds what its
paragraph cites and nothing else. :func:`parse_bibtex` reads BibTeX back
and checks it (balanced braces, unique keys, the fields each entry type
requires), for tests and for users who edit the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "CITE_STYLES",
    "REFERENCES",
    "REQUIRED_FIELDS",
    "BibEntry",
    "Reference",
    "bibtex",
    "cited_keys",
    "parse_bibtex",
    "reference_list",
    "render_citations",
]

#: How :func:`render_citations` writes a citation mark.
CITE_STYLES = ("text", "latex", "pandoc")
#: The fields BibTeX's standard styles require, per entry type (``author|editor``: either).
REQUIRED_FIELDS: dict[str, tuple[str, ...]] = {
    "article": ("author", "title", "journal", "year"),
    "inproceedings": ("author", "title", "booktitle", "year"),
    "phdthesis": ("author", "title", "school", "year"),
    "book": ("author|editor", "title", "publisher", "year"),
    "manual": ("title",),
    "misc": ("title",),
}
_MARK = re.compile(r"\{cite:([^{}]+)\}")


@dataclass(frozen=True)
class Reference:
    """One citable work.

    Attributes
    ----------
    key : str
        The BibTeX key (``"holm1979"``).
    entry_type : str
        ``"article"``, ``"inproceedings"``, ...: a key of :data:`REQUIRED_FIELDS`.
    fields : tuple of (str, str)
        The BibTeX fields, in order, values without the outer braces
        (LaTeX accents as BibTeX writes them, e.g. ``Dem{\\v{s}}ar``).
    cite_as : str
        The author-year text ("Holm 1979", "Bates et al. 2015").
    plain : str
        The reference in words, for a reference list in HTML or Markdown.

    Examples
    --------
    >>> REFERENCES["holm1979"].cite_as
    'Holm 1979'
    >>> print(REFERENCES["holm1979"].bibtex().splitlines()[0])
    @article{holm1979,
    """

    key: str
    entry_type: str
    fields: tuple[tuple[str, str], ...]
    cite_as: str
    plain: str

    def __post_init__(self) -> None:
        if self.entry_type not in REQUIRED_FIELDS:
            raise ValueError(f"{self.key}: entry type must be one of {sorted(REQUIRED_FIELDS)}, "
                             f"got {self.entry_type!r}.")

    def field(self, name: str) -> str | None:
        """The value of field ``name``, or ``None``."""
        return dict(self.fields).get(name)

    def bibtex(self) -> str:
        """The entry as BibTeX text."""
        width = max(len(k) for k, _ in self.fields)
        body = ",\n".join(f"  {k.ljust(width)} = {{{v}}}" for k, v in self.fields)
        return f"@{self.entry_type}{{{self.key},\n{body}\n}}"


def _ref(key: str, entry_type: str, cite_as: str, plain: str, **fields: str) -> Reference:
    return Reference(key, entry_type, tuple(fields.items()), cite_as, plain)


_ALL = [
    _ref("friedman1937", "article", "Friedman 1937",
         "Friedman, M. (1937). The use of ranks to avoid the assumption of normality implicit "
         "in the analysis of variance. Journal of the American Statistical Association.",
         author="Friedman, Milton",
         title="The Use of Ranks to Avoid the Assumption of Normality Implicit in the Analysis "
               "of Variance",
         journal="Journal of the American Statistical Association", year="1937"),
    _ref("nemenyi1963", "phdthesis", "Nemenyi 1963",
         "Nemenyi, P. B. (1963). Distribution-free multiple comparisons. PhD thesis, Princeton "
         "University.",
         author="Nemenyi, Peter Bjorn", title="Distribution-free Multiple Comparisons",
         school="Princeton University", year="1963"),
    _ref("demsar2006", "article", "Demšar 2006",
         "Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets. "
         "Journal of Machine Learning Research, 7, 1-30.",
         author="Dem{\\v{s}}ar, Janez",
         title="Statistical Comparisons of Classifiers over Multiple Data Sets",
         journal="Journal of Machine Learning Research", volume="7", pages="1--30",
         year="2006"),
    _ref("holm1979", "article", "Holm 1979",
         "Holm, S. (1979). A simple sequentially rejective multiple test procedure. "
         "Scandinavian Journal of Statistics, 6, 65-70.",
         author="Holm, Sture", title="A Simple Sequentially Rejective Multiple Test Procedure",
         journal="Scandinavian Journal of Statistics", volume="6", pages="65--70",
         year="1979"),
    _ref("wilcoxon1945", "article", "Wilcoxon 1945",
         "Wilcoxon, F. (1945). Individual comparisons by ranking methods. Biometrics Bulletin, "
         "1, 80-83.",
         author="Wilcoxon, Frank", title="Individual Comparisons by Ranking Methods",
         journal="Biometrics Bulletin", volume="1", pages="80--83", year="1945"),
    _ref("welch1947", "article", "Welch 1947",
         "Welch, B. L. (1947). The generalization of 'Student's' problem when several "
         "different population variances are involved. Biometrika, 34, 28-35.",
         author="Welch, Bernard Lewis",
         title="The Generalization of `{Student's}' Problem when Several Different "
               "Population Variances are Involved",
         journal="Biometrika", volume="34", pages="28--35", year="1947"),
    _ref("hsu1938", "article", "Hsu 1938",
         "Hsu, P. L. (1938). Contribution to the theory of 'Student's' t-test as applied to "
         "the problem of two samples. Statistical Research Memoirs, 2, 1-24.",
         author="Hsu, Pao-Lu",
         title="Contribution to the Theory of `{Student's}' t-Test as Applied to the Problem "
               "of Two Samples",
         journal="Statistical Research Memoirs", volume="2", pages="1--24", year="1938"),
    _ref("benavoli2016", "article", "Benavoli et al. 2016",
         "Benavoli, A., Corani, G. and Mangili, F. (2016). Should we really use post-hoc tests "
         "based on mean-ranks? Journal of Machine Learning Research, 17(5), 1-10.",
         author="Benavoli, Alessio and Corani, Giorgio and Mangili, Francesca",
         title="Should We Really Use Post-Hoc Tests Based on Mean-Ranks?",
         journal="Journal of Machine Learning Research", volume="17", number="5",
         pages="1--10", year="2016"),
    _ref("herbold2020", "article", "Herbold 2020",
         "Herbold, S. (2020). Autorank: a Python package for automated ranking of classifiers. "
         "Journal of Open Source Software.",
         author="Herbold, Steffen",
         title="Autorank: A Python Package for Automated Ranking of Classifiers",
         journal="Journal of Open Source Software", year="2020", doi="10.21105/joss.02173"),
    _ref("bates2015", "article", "Bates et al. 2015",
         "Bates, D., Mächler, M., Bolker, B. and Walker, S. (2015). Fitting linear mixed-effects "
         "models using lme4. Journal of Statistical Software, 67(1), 1-48.",
         author="Bates, Douglas and M{\\\"a}chler, Martin and Bolker, Ben and Walker, Steve",
         title="Fitting Linear Mixed-Effects Models Using {lme4}",
         journal="Journal of Statistical Software", volume="67", number="1", pages="1--48",
         year="2015", doi="10.18637/jss.v067.i01"),
    _ref("kuznetsova2017", "article", "Kuznetsova et al. 2017",
         "Kuznetsova, A., Brockhoff, P. B. and Christensen, R. H. B. (2017). lmerTest package: "
         "tests in linear mixed effects models. Journal of Statistical Software, 82(13), 1-26.",
         author="Kuznetsova, Alexandra and Brockhoff, Per B. and Christensen, Rune H. B.",
         title="{lmerTest} Package: Tests in Linear Mixed Effects Models",
         journal="Journal of Statistical Software", volume="82", number="13", pages="1--26",
         year="2017", doi="10.18637/jss.v082.i13"),
    _ref("lenth_emmeans", "manual", "Lenth, emmeans",
         "Lenth, R. V. emmeans: Estimated marginal means, aka least-squares means. R package, "
         "https://rvlenth.github.io/emmeans/.",
         title="{emmeans}: Estimated Marginal Means, aka Least-Squares Means",
         author="Lenth, Russell V.", note="R package",
         url="https://rvlenth.github.io/emmeans/"),
    _ref("geburek2024", "misc", "Geburek et al. 2024",
         "Geburek, A., Mallik, N., Stoll, D., Bouthillier, X. and Hutter, F. (2024). LMEMs for "
         "post-hoc analysis of HPO benchmarking. arXiv:2408.02533.",
         author="Geburek, Anton and Mallik, Neeratyoy and Stoll, Danny and Bouthillier, Xavier "
                "and Hutter, Frank",
         title="{LMEMs} for Post-hoc Analysis of {HPO} Benchmarking",
         year="2024", eprint="2408.02533", archiveprefix="arXiv"),
    _ref("dodge2019", "inproceedings", "Dodge et al. 2019",
         "Dodge, J., Gururangan, S., Card, D., Schwartz, R. and Smith, N. A. (2019). Show your "
         "work: improved reporting of experimental results. EMNLP-IJCNLP, 2185-2194.",
         author="Dodge, Jesse and Gururangan, Suchin and Card, Dallas and Schwartz, Roy and "
                "Smith, Noah A.",
         title="Show Your Work: Improved Reporting of Experimental Results",
         booktitle="Proceedings of the 2019 Conference on Empirical Methods in Natural Language "
                   "Processing and the 9th International Joint Conference on Natural Language "
                   "Processing (EMNLP-IJCNLP)",
         pages="2185--2194", publisher="Association for Computational Linguistics",
         year="2019", doi="10.18653/v1/D19-1224"),
    _ref("tang2020", "misc", "Tang et al. 2020",
         "Tang, R., Lee, J., Xin, J., Liu, X., Yu, Y. and Lin, J. (2020). Showing your work "
         "doesn't always work. arXiv:2004.13705.",
         author="Tang, Raphael and Lee, Jaejun and Xin, Ji and Liu, Xinyu and Yu, Yaoliang and "
                "Lin, Jimmy",
         title="Showing Your Work Doesn't Always Work", year="2020", eprint="2004.13705",
         archiveprefix="arXiv"),
    _ref("lourie2024", "inproceedings", "Lourie et al. 2024",
         "Lourie, N., Cho, K. and He, H. (2024). Show your work with confidence: confidence "
         "bands for tuning curves. NAACL-HLT, 3455-3472.",
         author="Lourie, Nicholas and Cho, Kyunghyun and He, He",
         title="Show Your Work with Confidence: Confidence Bands for Tuning Curves",
         booktitle="Proceedings of the 2024 Conference of the North American Chapter of the "
                   "Association for Computational Linguistics: Human Language Technologies "
                   "(Volume 1: Long Papers)",
         pages="3455--3472", publisher="Association for Computational Linguistics",
         year="2024", doi="10.18653/v1/2024.naacl-long.189"),
    _ref("learnedmiller2008", "article", "Learned-Miller and DeStefano 2008",
         "Learned-Miller, E. and DeStefano, J. (2008). A probabilistic upper bound on "
         "differential entropy. IEEE Transactions on Information Theory.",
         author="Learned-Miller, Erik and DeStefano, Joseph",
         title="A Probabilistic Upper Bound on Differential Entropy",
         journal="IEEE Transactions on Information Theory", year="2008"),
    _ref("dvoretzky1956", "article", "Dvoretzky et al. 1956",
         "Dvoretzky, A., Kiefer, J. and Wolfowitz, J. (1956). Asymptotic minimax character of "
         "the sample distribution function and of the classical multinomial estimator. Annals "
         "of Mathematical Statistics.",
         author="Dvoretzky, Aryeh and Kiefer, Jack and Wolfowitz, Jacob",
         title="Asymptotic Minimax Character of the Sample Distribution Function and of the "
               "Classical Multinomial Estimator",
         journal="Annals of Mathematical Statistics", year="1956"),
    _ref("massart1990", "article", "Massart 1990",
         "Massart, P. (1990). The tight constant in the Dvoretzky-Kiefer-Wolfowitz inequality. "
         "Annals of Probability, 18(3), 1269-1283.",
         author="Massart, Pascal",
         title="The Tight Constant in the {Dvoretzky-Kiefer-Wolfowitz} Inequality",
         journal="Annals of Probability", volume="18", number="3", pages="1269--1283",
         year="1990", doi="10.1214/aop/1176990746"),
    _ref("jordan2018", "misc", "Jordan et al. 2018",
         "Jordan, S. M., Cohen, D. and Thomas, P. S. (2018). Using cumulative distribution based "
         "performance analysis to benchmark models.",
         author="Jordan, Scott M. and Cohen, Daniel and Thomas, Philip S.",
         title="Using Cumulative Distribution Based Performance Analysis to Benchmark Models",
         year="2018"),
    _ref("schuirmann1987", "article", "Schuirmann 1987",
         "Schuirmann, D. J. (1987). A comparison of the two one-sided tests procedure and the "
         "power approach for assessing the equivalence of average bioavailability. Journal of "
         "Pharmacokinetics and Biopharmaceutics, 15(6), 657-680.",
         author="Schuirmann, Donald J.",
         title="A Comparison of the Two One-Sided Tests Procedure and the Power Approach for "
               "Assessing the Equivalence of Average Bioavailability",
         journal="Journal of Pharmacokinetics and Biopharmaceutics", volume="15", number="6",
         pages="657--680", year="1987", doi="10.1007/BF01068419"),
]
#: Every citable work, by key.
REFERENCES: dict[str, Reference] = {r.key: r for r in _ALL}


def cited_keys(text: str) -> list[str]:
    """The keys ``text`` cites (``{cite:a,b}`` marks), each once, in order of first citation.

    Raises
    ------
    KeyError
        A mark names a key that is not in :data:`REFERENCES`.

    Examples
    --------
    >>> cited_keys("Holm {cite:holm1979}; ranks {cite:friedman1937,holm1979}.")
    ['holm1979', 'friedman1937']
    """
    out: list[str] = []
    for m in _MARK.finditer(text):
        for key in (k.strip() for k in m.group(1).split(",")):
            if key not in REFERENCES:
                raise KeyError(f"citation key {key!r} is not in benchverdict.report.citations."
                               f"REFERENCES; known: {sorted(REFERENCES)}.")
            if key not in out:
                out.append(key)
    return out


def render_citations(text: str, style: str = "text") -> str:
    """``text`` with its ``{cite:...}`` marks written in ``style``.

    ``"text"``: author-year in parentheses ("(Holm 1979)"); ``"latex"``:
    ``\\citep{key}``; ``"pandoc"``: ``[@key]``.

    Examples
    --------
    >>> t = "adjusted by Holm's procedure {cite:holm1979,demsar2006}"
    >>> render_citations(t)
    "adjusted by Holm's procedure (Holm 1979; Demšar 2006)"
    >>> render_citations(t, "latex")
    "adjusted by Holm's procedure \\\\citep{holm1979,demsar2006}"
    >>> render_citations(t, "pandoc")
    "adjusted by Holm's procedure [@holm1979; @demsar2006]"
    """
    if style not in CITE_STYLES:
        raise ValueError(f"style must be one of {CITE_STYLES}, got {style!r}.")
    cited_keys(text)  # unknown keys raise

    def one(m: re.Match) -> str:
        keys = [k.strip() for k in m.group(1).split(",")]
        if style == "latex":
            return "\\citep{" + ",".join(keys) + "}"
        if style == "pandoc":
            return "[" + "; ".join(f"@{k}" for k in keys) + "]"
        return "(" + "; ".join(REFERENCES[k].cite_as for k in keys) + ")"

    return _MARK.sub(one, text)


def bibtex(keys: Iterable[str]) -> str:
    """The BibTeX entries of ``keys``, in that order, separated by blank lines.

    Examples
    --------
    >>> text = bibtex(["holm1979"])
    >>> [e.key for e in parse_bibtex(text)]
    ['holm1979']
    """
    out = []
    for key in keys:
        if key not in REFERENCES:
            raise KeyError(f"citation key {key!r} is not in REFERENCES; known: "
                           f"{sorted(REFERENCES)}.")
        out.append(REFERENCES[key].bibtex())
    return "\n\n".join(out) + ("\n" if out else "")


def reference_list(keys: Sequence[str]) -> list[str]:
    """The works of ``keys`` in words, sorted by their author-year text.

    Examples
    --------
    >>> reference_list(["holm1979", "demsar2006"])[0][:20]
    'Demšar, J. (2006). S'
    """
    return [REFERENCES[k].plain for k in sorted(keys, key=lambda k: REFERENCES[k].cite_as)]


# ----------------------------------------------------------------------------- checking
@dataclass(frozen=True)
class BibEntry:
    """One parsed BibTeX entry: type, key and fields (names lower-case, values unbraced)."""

    entry_type: str
    key: str
    fields: dict[str, str]


_ENTRY = re.compile(r"@([A-Za-z]+)\s*\{\s*([^,\s{}]+)\s*,")
_FIELD = re.compile(r"\s*([A-Za-z][A-Za-z0-9_-]*)\s*=\s*")


def _braced(text: str, start: int) -> int:
    """The index just past the ``}`` that closes the ``{`` at ``start``."""
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c == "\\":
            continue
        if c == "{" and (i == 0 or text[i - 1] != "\\"):
            depth += 1
        elif c == "}" and (i == 0 or text[i - 1] != "\\"):
            depth -= 1
            if depth == 0:
                return i + 1
    raise ValueError(f"unbalanced braces: the '{{' at character {start} is never closed.")


def parse_bibtex(text: str) -> list[BibEntry]:
    """Parse and check BibTeX: balanced braces, unique keys, each type's required fields.

    Field values must be braced (as :func:`bibtex` writes them) or bare
    numbers. Only the entry types of :data:`REQUIRED_FIELDS` are accepted.

    Raises
    ------
    ValueError
        Naming the entry and what is wrong with it.

    Examples
    --------
    >>> parse_bibtex("@misc{k, title = {T}, year = 2020}")[0].fields
    {'title': 'T', 'year': '2020'}
    >>> parse_bibtex("@article{k, title = {T}}")
    Traceback (most recent call last):
    ...
    ValueError: entry 'k' (@article) lacks the required field(s) author, journal, year.
    """
    entries: list[BibEntry] = []
    pos = 0
    while True:
        at = text.find("@", pos)
        if at < 0:
            break
        m = _ENTRY.match(text, at)
        if m is None:
            raise ValueError(f"malformed entry head at character {at}: "
                             f"{text[at:at + 40]!r}.")
        entry_type, key = m.group(1).lower(), m.group(2)
        end = _braced(text, text.index("{", at))
        body = text[m.end():end - 1]
        fields: dict[str, str] = {}
        i = 0
        while i < len(body):
            f = _FIELD.match(body, i)
            if f is None:
                if body[i:].strip(" \n\t,"):
                    raise ValueError(f"entry {key!r}: cannot read {body[i:i + 40]!r}.")
                break
            name = f.group(1).lower()
            j = f.end()
            if j < len(body) and body[j] == "{":
                k = _braced(body, j)
                value = body[j + 1:k - 1]
            else:
                v = re.match(r"[0-9]+", body[j:])
                if v is None:
                    raise ValueError(f"entry {key!r}: field {name!r} must be braced or a "
                                     f"number.")
                k = j + v.end()
                value = v.group(0)
            if name in fields:
                raise ValueError(f"entry {key!r}: field {name!r} appears twice.")
            fields[name] = value
            i = k
            rest = re.match(r"\s*,?", body[i:])
            i += rest.end() if rest else 0
        if entry_type not in REQUIRED_FIELDS:
            raise ValueError(f"entry {key!r}: type @{entry_type} is not one of "
                             f"{sorted(REQUIRED_FIELDS)}.")
        missing = [r for r in REQUIRED_FIELDS[entry_type]
                   if not any(fields.get(alt, "").strip() for alt in r.split("|"))]
        if missing:
            raise ValueError(f"entry {key!r} (@{entry_type}) lacks the required field(s) "
                             f"{', '.join(missing)}.")
        if any(e.key == key for e in entries):
            raise ValueError(f"key {key!r} is used by two entries.")
        entries.append(BibEntry(entry_type, key, fields))
        pos = end
    return entries
