"""The HTML report in headless Chromium: it renders, figures load, no console messages.

Skipped when Debian's ``chromium`` is not installed.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from benchverdict.report.runner import compare
from test_report_render import NAMES, evil_results, fake_runner

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed"),
    pytest.mark.filterwarnings("ignore:Glyph:UserWarning"),
]


def screenshot(html_path, png_path, profile, width=1366, height=3000):
    """Open the page in headless Chromium; return (exit code, console lines)."""
    cmd = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
        f"--window-size={width},{height}", "--hide-scrollbars",
        f"--screenshot={png_path}", html_path.resolve().as_uri(),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return proc.returncode, console


def colour_pixels(image: np.ndarray, rgb: tuple[int, int, int], tol: int = 12) -> int:
    pixels = (image[..., :3] * 255).round().astype(int)
    return int((np.abs(pixels - np.array(rgb)).max(axis=-1) <= tol).sum())


def test_report_renders_in_chromium(tmp_path):
    import matplotlib.image

    runners = {"ranks": fake_runner("ranks"), "lmem": fake_runner("lmem", ("a", "a", "a"))}
    comparison = compare(evil_results(), runners=runners, progress=False)
    html = tmp_path / "report.html"
    comparison.to_html(html)
    png = tmp_path / "shot.png"
    code, console = screenshot(html, png, tmp_path / "profile")
    assert code == 0
    # No console output at all: no errors, no blocked loads, no script the CSP had to stop.
    assert console == []
    image = matplotlib.image.imread(png)
    assert image.shape[:2] == (3000, 1366)
    non_white = (image[..., :3] < 0.95).any(axis=-1).mean()
    assert non_white > 0.02  # text and figures were drawn
    # The matrix's "better" cells (#0072B2) are large blocks, not just link text.
    assert colour_pixels(image, (0, 114, 178)) > 2000
    # The ranking diagram is inline SVG: its node labels (the hostile names) are text in the
    # page, drawn by the browser, so nothing has to decode; it sits in the summary.
    page = html.read_text(encoding="utf-8")
    assert page.index('id="ranking-diagram"') < page.index('id="contradictions"')
    assert len(NAMES) == 3


def test_missing_matrix_would_be_detected(tmp_path):
    """Guard for the colour check above: a page without the matrix has no blue blocks."""
    import matplotlib.image

    html = tmp_path / "plain.html"
    html.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>'
        '<p style="color: #0072B2">a blue line of text, not a block</p></body></html>',
        encoding="utf-8",
    )
    png = tmp_path / "plain.png"
    code, _ = screenshot(html, png, tmp_path / "profile", height=600)
    assert code == 0
    assert colour_pixels(matplotlib.image.imread(png), (0, 114, 178)) < 2000
