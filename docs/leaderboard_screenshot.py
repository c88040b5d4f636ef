"""Make docs/leaderboard-site.png: the first screen of a leaderboard's site in headless Chromium.

Run from the repository root (needs Debian's ``chromium``)::

    python docs/leaderboard_screenshot.py [--out docs/leaderboard-site.png]

The board is built from the built-in example (:func:`benchverdict.examples.load_example`):
three algorithms first, then the other two as one submission each, so the site has three
versions. Its ``site/index.html`` is rendered 1400 px wide and the first 1000 px are kept:
the headline, the filters (name, the example's three metafeatures, the benchmarks) and
the ranked table.
"""

from __future__ import annotations

import argparse
import tempfile
import warnings
from pathlib import Path

from _chromium import chromium, screenshot

WIDTH, HEIGHT = 1400, 1000


def main() -> None:
    """Build the example board, screenshot its site's index and keep the first screen."""
    from benchverdict.examples import load_example
    from benchverdict.leaderboard import create_leaderboard, update_leaderboard

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).resolve().parent / "leaderboard-site.png")
    args = parser.parse_args()
    chromium()  # before the board is built: fail early without the browser
    example = load_example()
    first, later = example.algorithms[:3], example.algorithms[3:]
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        board = Path(tmp) / "board"
        create_leaderboard(board, example.subset(algorithms=first))
        for algorithm in later:
            update_leaderboard(board, example.subset(algorithms=[algorithm]))
        # A palette of 64 colours keeps text sharp and the file small.
        screenshot(board / "site" / "index.html", args.out, width=WIDTH, height=HEIGHT,
                   colors=64)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
