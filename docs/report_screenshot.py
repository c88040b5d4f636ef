"""Make docs/report-example.png: the first screen of the example report in headless Chromium.

Run from the repository root (needs Debian's ``chromium``)::

    python docs/report_screenshot.py [--out docs/report-example.png]

The page is rendered at 1400 px wide and the first 900 px (one screen) are kept:
the headline sentences, the pairwise matrix and the partial-ranking diagram.
tests/test_report_presentation.py checks that this first screen holds all three.
"""

from __future__ import annotations

import argparse
import tempfile
import warnings
from pathlib import Path

from _chromium import chromium, screenshot

WIDTH, HEIGHT, SCREEN = 1400, 2400, 900


def main() -> None:
    """Render the example report, screenshot it and keep the first screen."""
    from benchverdict.examples import load_example
    from benchverdict.report.runner import compare

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).resolve().parent / "report-example.png")
    args = parser.parse_args()
    chromium()  # before the report is computed: fail early without the browser
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comparison = compare(load_example(), progress=False)
    with tempfile.TemporaryDirectory() as tmp:
        html = Path(tmp) / "report.html"
        comparison.to_html(html)
        screenshot(html, args.out, width=WIDTH, height=HEIGHT, keep=SCREEN)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
