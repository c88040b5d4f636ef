"""Make docs/report-example.png: the first screen of the example report in headless Chromium.

Run from the repository root (needs Debian's ``chromium``)::

    python docs/report_screenshot.py [--out docs/report-example.png]

The page is rendered at 1400 px wide and the first 900 px (one screen) are kept:
the headline sentences, the pairwise matrix and the partial-ranking diagram.
tests/test_report_presentation.py checks that this first screen holds all three.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path

WIDTH, HEIGHT, SCREEN = 1400, 2400, 900


def main() -> None:
    """Render the example report, screenshot it and keep the first screen."""
    from PIL import Image

    from benchverdict.examples import load_example
    from benchverdict.report.runner import compare

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).resolve().parent / "report-example.png")
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("chromium is not installed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comparison = compare(load_example(), progress=False)
    with tempfile.TemporaryDirectory() as tmp:
        html = Path(tmp) / "report.html"
        comparison.to_html(html)
        png = Path(tmp) / "shot.png"
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                        "--hide-scrollbars", f"--user-data-dir={Path(tmp) / 'profile'}",
                        f"--window-size={WIDTH},{HEIGHT}", f"--screenshot={png}",
                        html.as_uri()], check=True, capture_output=True, timeout=120)
        Image.open(png).crop((0, 0, WIDTH, SCREEN)).convert("RGB").save(
            args.out, optimize=True)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
