"""Headless Chromium screenshots for the docs' pictures (``docs/*_screenshot.py``).

The scripts run as ``python docs/NAME.py`` from the repository root, so this
folder is on ``sys.path`` and they import this module by its name.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def chromium() -> str:
    """The path of Debian's ``chromium`` (or ``chromium-browser``); exits when there is none."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        raise SystemExit("chromium is not installed")
    return found


def screenshot(page: Path, out: Path, *, width: int, height: int, keep: int | None = None,
               colors: int | None = None) -> None:
    """Render ``page`` at ``width`` x ``height`` px and save its first ``keep`` px as ``out``.

    ``colors``: a palette of that many colours (keeps text sharp and the file small).
    The browser profile lives in a temporary folder beside the shot.
    """
    import tempfile

    from PIL import Image

    with tempfile.TemporaryDirectory() as tmp:
        png = Path(tmp) / "shot.png"
        subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu",
                        "--hide-scrollbars", f"--user-data-dir={Path(tmp) / 'profile'}",
                        f"--window-size={width},{height}", f"--screenshot={png}",
                        Path(page).resolve().as_uri()],
                       check=True, capture_output=True, timeout=120)
        image = Image.open(png).convert("RGB")
        if keep is not None:
            image = image.crop((0, 0, width, keep))
        if colors is not None:
            image = image.quantize(colors=colors)
        image.save(out, optimize=True)
