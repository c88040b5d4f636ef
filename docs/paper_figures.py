"""Make the README's paper-kit pictures from the built-in example (docs/paper/).

Run from the repository root (needs pdflatex with booktabs and pdftoppm)::

    python docs/paper_figures.py [--out docs/paper]

Writes ``results-table.png`` (the LaTeX results table, compiled and rasterised),
``results-table.md``, ``cd-compact.png`` (a compact CD diagram with a highlighted
method), ``pairwise-matrix.png`` and ``performance-profile.png``; with the
PriorBand data in ``../shared/data`` also ``priorband-results-table.png`` (its
table at the final budget, compiled), ``priorband-results-table.md`` and
``priorband-cd.png`` (PriorBand highlighted in a compact CD diagram).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path


def main() -> None:
    """Compute the example's report once and draw each picture from it."""
    import matplotlib

    matplotlib.use("Agg")
    from benchverdict.dse.profiles import performance_profile
    from benchverdict.examples import load_example
    from benchverdict.paper import results_table
    from benchverdict.ranks.diagram import cd_diagram
    from benchverdict.report import compare
    from benchverdict.report.figures import comparison_matrix

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "paper")
    args = parser.parse_args()
    for tool in ("pdflatex", "pdftoppm"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is not installed")
    args.out.mkdir(parents=True, exist_ok=True)
    results = load_example()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comparison = compare(results, progress=False, figures=False)
    table = results_table(comparison, letters=True)
    (args.out / "results-table.md").write_text(table.to_markdown(), encoding="utf-8")
    _compiled(table, args.out / "results-table")
    figures = {
        "cd-compact": cd_diagram(results, posthoc="nemenyi", highlight="RF",
                                 layout="compact").figure,
        "pairwise-matrix": comparison_matrix(comparison).plot().figure,
        "performance-profile": performance_profile(results, band="simultaneous").plot().figure,
    }
    for name, fig in figures.items():
        fig.savefig(args.out / f"{name}.png", dpi=110, bbox_inches="tight")
    _priorband(args.out)
    print(f"wrote {args.out}")


def _priorband(out: Path) -> None:
    """PriorBand's results table and CD diagram (skipped without ../shared/data)."""
    from benchverdict.io.adapters import read_priorband
    from benchverdict.paper import results_table
    from benchverdict.ranks.diagram import cd_diagram
    from benchverdict.report import compare

    path = Path(__file__).resolve().parents[2] / "shared" / "data" / "priorband" / (
        "priorband_data.parquet")
    if not path.is_file():
        print(f"no {path}: the PriorBand pictures are not made")
        return
    results = read_priorband(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comparison = compare(results, progress=False, figures=False)
    table = results_table(comparison)
    (out / "priorband-results-table.md").write_text(table.to_markdown(), encoding="utf-8")
    _compiled(table, out / "priorband-results-table")
    cd = cd_diagram(results, posthoc="nemenyi", highlight="PB", layout="compact")
    cd.figure.savefig(out / "priorband-cd.png", dpi=110, bbox_inches="tight")


def _compiled(table, png_stem: Path) -> None:
    """The table as a standalone LaTeX document, compiled and rasterised to ``<stem>.png``."""
    with tempfile.TemporaryDirectory() as tmp:
        tex = Path(tmp) / "table.tex"
        table.to_latex(tex, standalone=True)
        subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", tex.name],
                       cwd=tmp, check=True, capture_output=True, timeout=120)
        subprocess.run(["pdftoppm", "-png", "-r", "110", "-singlefile", "table.pdf",
                        str(png_stem)], cwd=tmp, check=True, timeout=120)
    _trim(png_stem.with_suffix(".png"))


def _trim(png: Path, margin: int = 12) -> None:
    """Crop a rendered page to its ink (the standalone table sits on a whole A4 page)."""
    from PIL import Image, ImageChops

    image = Image.open(png).convert("RGB")
    box = ImageChops.difference(image, Image.new("RGB", image.size, "white")).getbbox()
    if box is not None:
        left, top, right, bottom = box
        image = image.crop((max(left - margin, 0), max(top - margin, 0),
                            min(right + margin, image.width), min(bottom + margin, image.height)))
    image.save(png, optimize=True)


if __name__ == "__main__":
    main()
