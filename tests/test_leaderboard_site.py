"""The leaderboard's offline site (issue 24, item 5): pages, links, hostile names, browser.

One board of two versions (hostile entry and benchmark names, a text and a
numeric metafeature) is built once per module. The pure-Python tests parse
every page; the browser test drives Debian's chromium through chromedriver
and selenium (one browser for the module; skipped without them): sorting,
the name and benchmark filters (the recomputed mean rank against pandas),
navigation to an entry and back, the changes page, and no console error.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import warnings
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from benchverdict import Results
from benchverdict.leaderboard import create_leaderboard, load_leaderboard, update_leaderboard
from benchverdict.leaderboard import store as store_module
from benchverdict.leaderboard.site import (
    CHANGES_KEPT,
    HISTORY,
    SUMS,
    add_version,
    benchmark_scores,
    check_sums,
    slug,
)
from hostile import NAME_SETS

EVIL = "<img src=x onerror=alert(1)>"
NAMES = {"best": 2.0, EVIL: 1.0, "../../etc/passwd": 0.5, "Ünïcødé 算法 " + "x" * 200: 0.0}
LATE = "<script>alert(2)</script>"
BENCHMARKS = ["<b>p</b>", "../q", "r", "s", "t", "u", "v", "w"]
#: Every tag the site writes; a name or benchmark that became markup would add one.
TAGS = {"html", "head", "meta", "title", "link", "script", "body", "nav", "a", "h1", "h2", "h3",
        "p", "small", "b", "section", "label", "input", "select", "option", "button",
        "details", "summary", "div", "table", "thead", "tbody", "tr", "th", "td", "ul", "li",
        "br"}


def frame(offsets: dict[str, float], seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    effect = rng.normal(0, 2, len(BENCHMARKS))
    rows = [(a, b, s, off + effect[i] + rng.normal(0, 0.7), "image" if i % 3 == 0 else "tab",
             float(10 * (i + 1)))
            for a, off in offsets.items() for i, b in enumerate(BENCHMARKS) for s in range(3)]
    return pd.DataFrame(rows, columns=["algo", "task", "seed", "acc", "domain", "size"])


def results(f: pd.DataFrame) -> Results:
    return Results.from_frame(f, algorithm="algo", benchmark="task", seed="seed", score="acc",
                              objective="maximize", kind="runs", min_algorithms=1,
                              metafeatures=("domain", "size"))


class Page(HTMLParser):
    """Tags, attributes, links and text of one page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += [(tag, k, v) for k, v in attrs]

    def handle_data(self, data):
        self.text.append(data)

    @property
    def links(self) -> list[str]:
        return [v for _, k, v in self.attrs if k in ("href", "src") and v is not None]


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("site") / "board"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        create_leaderboard(folder, results(frame(NAMES)), analyses=["ranks"])
        update_leaderboard(folder, results(frame({LATE: 1.5}, seed=1)))
    return folder


def site_files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*")
            if p.is_file()}


# ------------------------------------------------------------------ files and links
def test_every_entry_has_a_page_and_every_link_resolves(folder):
    for site in (folder / "site", folder / "versions" / "v0001" / "site",
                 folder / "versions" / "v0002" / "site"):
        version = 1 if "v0001" in str(site) else 2
        board = load_leaderboard(folder, version=version)
        pages = sorted(site.rglob("*.html"))
        assert {p.name for p in (site / "entry").iterdir()} == {
            f"{slug(a)}.html" for a in board.entries["algorithm"]}
        assert len(pages) == len(board.entries) + 2  # index, changes, one per entry
        for page in pages:
            parsed = parse(page)
            assert parsed.links, page
            for link in parsed.links:
                # Nothing from the network (nor a scheme-relative or data: address).
                assert not re.match(r"^([a-z]+:|//)", link, re.I), (page, link)
                target = (page.parent / link).resolve()
                assert target.is_file(), (page, link)
                assert site.resolve() in target.parents, (page, link)
        css = (site / "site.css").read_text()
        assert "url(" not in css and "@import" not in css
        # Every page forbids anything but its own files.
        assert all("default-src 'none'" in p.read_text(encoding="utf-8") for p in pages)


def test_sums_cover_the_site_and_the_manifest_records_them(folder):
    manifest = json.loads((folder / "manifest.json").read_text())
    for version in (1, 2):
        site = folder / "versions" / f"v{version:04d}" / "site"
        files = site_files(site)
        assert check_sums(files) == []
        listed = {line.split("  ", 1)[1] for line in files[SUMS].decode().splitlines()}
        assert listed == set(files) - {SUMS}
        recorded = next(s["files"] for s in manifest["submissions"] if s["version"] == version)
        assert recorded["site/SHA256SUMS"] == hashlib.sha256(files[SUMS]).hexdigest()
        # One digest for the whole site, not one per page.
        assert not [k for k in recorded if k.startswith("site/") and k != "site/SHA256SUMS"]
    assert site_files(folder / "site") == site_files(folder / "versions" / "v0002" / "site")
    # A changed page is caught.
    files = site_files(folder / "site")
    files["index.html"] += b"<!-- edited -->"
    assert check_sums(files) == ["index.html"]


def test_hostile_names_stay_text(folder):
    names = [*NAMES, LATE]
    for page_path in (folder / "site").rglob("*.html"):
        raw = page_path.read_text(encoding="utf-8")
        # Markup in a name is never written as markup (b is a tag the site itself uses).
        assert not [n for n in [*names, *BENCHMARKS] if "<" in n and n in raw], page_path
        page = parse(page_path)
        assert set(page.tags) <= TAGS, (page_path, set(page.tags) - TAGS)
        assert not [a for a in page.attrs if a[1].startswith("on")], page_path
        assert 1 <= page.tags.count("script") <= 2  # site.js, and the index's data block
        for tag, key, value in page.attrs:
            if tag == "script":
                assert (key, value) in {("src", "site.js"), ("src", "../site.js"),
                                        ("defer", None), ("type", "application/json"),
                                        ("id", "bv-data")}, (key, value)
    index = parse(folder / "site" / "index.html")
    text = "".join(index.text)
    for name in names:
        assert name in text  # shown as text (the JSON block escapes < and >)
    for benchmark in BENCHMARKS:
        assert benchmark in text
    raw = (folder / "site" / "index.html").read_text(encoding="utf-8")
    assert "<img" not in raw and "<script>alert" not in raw
    data = json.loads(re.search(r'id="bv-data">(.*?)</script>', raw).group(1))
    assert EVIL in data["names"] and "<b>p</b>" in data["benchmarks"]


def test_slugs_are_safe_and_distinct_for_the_hostile_corpus():
    corpus = {n for names in NAME_SETS.values() for n in names} | set(NAMES) | {LATE, "", " "}
    slugs = {slug(n) for n in corpus}
    assert len(slugs) == len(corpus)
    assert all(re.fullmatch(r"[a-z0-9][a-z0-9-]{0,40}-[0-9a-f]{10}", s) for s in slugs), slugs
    assert slug("A") != slug("a")  # distinct on case-insensitive file systems too


def test_entry_pages_show_results_relations_and_history(folder):
    board = load_leaderboard(folder)
    first = load_leaderboard(folder, version=1)
    table = pd.read_parquet(folder / "data.parquet")
    _, ranks = benchmark_scores(board, table)
    assert np.allclose(ranks.mean().to_numpy(), board.entries["mean_rank"].to_numpy())
    for r in board.entries.itertuples():
        page = parse(folder / "site" / "entry" / f"{slug(r.algorithm)}.html")
        raw = (folder / "site" / "entry" / f"{slug(r.algorithm)}.html").read_text(
            encoding="utf-8")
        assert raw.count("<small>of 5</small>") == len(BENCHMARKS)  # a rank per benchmark
        # Relations: every other entry, linked.
        others = [f"{slug(a)}.html" for a in board.entries["algorithm"] if a != r.algorithm]
        assert set(others) <= set(page.links)
        # History: this version, and the first one if the entry was in it.
        before = first.entries.set_index("algorithm")["position"].to_dict()
        rows = re.findall(r"<tr><td data-v=\"(\d)\">\d</td><td>[^<]*</td><td>([^<]*)</td>",
                          raw)
        expected = ([("1", before[r.algorithm])] if r.algorithm in before else []) + [
            ("2", r.position)]
        assert rows == expected
    history = json.loads((folder / "site" / HISTORY).read_text())
    assert [v["version"] for v in history["versions"]] == [1, 2]
    # The report's effect sizes are on the board and on the pages.
    assert board.relations["difference"].notna().all()


def effect_cells(page: str) -> dict[str, float]:
    """Other entry's page name -> the mean score difference its relation row shows."""
    rows = re.findall(r'<tr><td><a href="([^"]+)">.*?<td data-v="([^"]*)">[^<]*</td></tr>', page)
    return {href: float(value) for href, value in rows}


def test_effects_are_the_report_s_or_a_labelled_descriptive_difference(folder):
    board = load_leaderboard(folder)
    table = pd.read_parquet(folder / "data.parquet")
    name = board.entries["algorithm"].iloc[0]
    page = f"entry/{slug(name)}.html"
    shown = effect_cells((folder / "site" / page).read_text(encoding="utf-8"))
    assert len(shown) == len(board.entries) - 1
    for r in board.relations.itertuples():
        if name in (r.a, r.b):
            other = r.b if r.a == name else r.a
            want = r.difference if r.a == name else -r.difference
            assert shown[f"{slug(other)}.html"] == pytest.approx(want, rel=1e-6)
    # A board stored before the relations kept the report's effects: a descriptive
    # difference of seed means, averaged over benchmarks, says so and is computed right.
    from benchverdict.leaderboard.site import render_site

    old = load_leaderboard(folder)
    for column in ("difference", "difference_lower", "difference_upper"):
        old.relations[column] = np.nan
    text = render_site(old, table, [])[page].decode("utf-8")
    assert "descriptive and marginal" in text and "report's estimate" not in text
    means = (table.groupby(["benchmark", "algorithm"])["score"].mean().unstack())
    assert len(effect_cells(text)) == len(board.entries) - 1
    for other, value in effect_cells(text).items():
        b = next(a for a in board.entries["algorithm"] if f"{slug(a)}.html" == other)
        assert value == pytest.approx((means[name] - means[b]).mean(), rel=1e-6)


def test_the_history_keeps_every_position_and_the_recent_changes():
    board = SimpleNamespace(
        version=0, created="", incomplete=pd.DataFrame({"algorithm": ["late"]}),
        entries=pd.DataFrame({"algorithm": ["a"], "position": ["1"], "mean_rank": [1.0]}))
    history = None
    for version in range(1, CHANGES_KEPT + 6):
        board.version = version
        history = add_version(history, board, [SimpleNamespace(kind="moved", text=f"{version}")])
    records = history["versions"]
    assert [r["version"] for r in records] == list(range(1, CHANGES_KEPT + 6))
    assert all(r["entries"] == [["a", "1", 1.0]] and r["incomplete"] == ["late"]
               for r in records)
    assert [r["version"] for r in records if "changes" in r] == list(range(6, CHANGES_KEPT + 6))
    assert records[-1]["changes"] == [["moved", f"{CHANGES_KEPT + 5}"]]


def test_a_board_without_sites_gets_its_history_and_the_top_site_is_restored(tmp_path,
                                                                           folder):
    copy = tmp_path / "old"
    shutil.copytree(folder, copy)
    # As a board stored before sites: no site anywhere, no digests of it.
    for site in [copy / "site", *copy.glob("versions/v*/site")]:
        shutil.rmtree(site)
    manifest = json.loads((copy / "manifest.json").read_text())
    for entry in manifest["submissions"]:
        entry["files"].pop("site/SHA256SUMS")
    text = json.dumps(manifest, indent=2)
    (copy / "manifest.json").write_text(text)
    (copy / "versions" / "v0002" / "manifest.json").write_text(text)
    (copy / "site").mkdir()  # someone's own files, from before sites: kept, never removed
    (copy / "site" / "mine.txt").write_text("mine")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        update_leaderboard(copy, results(frame({"late2": 0.2}, seed=2)))
    history = json.loads((copy / "site" / HISTORY).read_text())
    assert [v["version"] for v in history["versions"]] == [1, 2, 3]
    assert [p.read_text() for p in copy.glob("site.not-written-by-benchverdict-*/mine.txt")
            ] == ["mine"]
    # A writer that stopped between setting the old site aside and renaming the new one in:
    # the next writer's recovery puts the published version's site back, and clears the rest.
    shutil.rmtree(copy / "site")
    (copy / ".site.new-dead.tmp").mkdir()
    store_module._recover(copy, json.loads((copy / "manifest.json").read_text()))
    assert site_files(copy / "site") == site_files(copy / "versions" / "v0003" / "site")
    assert not list(copy.glob(".site.*"))


# ------------------------------------------------------------------ the browser
def _browser_tools():
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    try:
        import selenium  # noqa: F401
    except ImportError:
        return None
    return (chromium, driver) if chromium and driver else None


@pytest.fixture(scope="module")
def browser():
    tools = _browser_tools()
    if tools is None:
        pytest.skip("chromium, chromedriver or selenium is not installed")
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")  # never let Selenium Manager download
    options = Options()
    options.binary_location = tools[0]
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000",
                "--disable-background-networking", "--disable-component-update",
                "--no-first-run"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(tools[1]), options=options)
    yield driver
    driver.quit()


def test_the_site_in_a_real_browser(browser, folder):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    board = load_leaderboard(folder)
    _, ranks = benchmark_scores(board, pd.read_parquet(folder / "data.parquet"))
    index = (folder / "site" / "index.html").as_uri()
    browser.get(index)
    rows = browser.find_elements(By.CSS_SELECTOR, "#bv-board tbody tr")

    def names() -> list[str]:
        return [r.find_element(By.CSS_SELECTOR, "td:nth-child(2)").text for r in
                browser.find_elements(By.CSS_SELECTOR, "#bv-board tbody tr")
                if r.is_displayed()]

    assert len(rows) == len(board.entries) == 5
    # Sorting: mean rank descending on the second click, by the numbers.
    header = browser.find_element(By.XPATH, "//table[@id='bv-board']//th[.='mean rank']")
    header.click()
    by_mean = board.entries.sort_values("mean_rank", kind="stable")["algorithm"].tolist()
    assert names() == [printed(a) for a in by_mean]
    header.click()
    assert names()[0] == printed(by_mean[-1])
    assert header.get_attribute("aria-sort") == "descending"
    # The name filter hides the rows that do not match.
    box = browser.find_element(By.ID, "bv-name")
    box.send_keys("<IMG")
    assert names() == [EVIL]
    box.clear()
    box.send_keys("zzz-none")
    assert names() == []
    browser.find_element(By.ID, "bv-reset").click()
    assert len(names()) == 5
    banner = browser.find_element(By.ID, "bv-banner")
    assert not banner.is_displayed()
    # A metafeature filter: the mean rank on the selected benchmarks, as pandas computes it.
    Select(browser.find_element(By.CSS_SELECTOR, "select.bv-group[data-g='0']")
           ).select_by_visible_text("image (3)")
    chosen = [b for i, b in enumerate(BENCHMARKS) if i % 3 == 0]
    assert banner.is_displayed() and "not re-tested" in banner.text
    assert "3 of 8 benchmarks" in banner.text
    expected = ranks.loc[chosen].mean()
    shown = shown_subset(browser)
    assert shown.keys() == set(board.entries["algorithm"])
    for name, value in shown.items():
        assert value == pytest.approx(expected[name], abs=1e-6)
    # ... and one benchmark unticked by hand on top of it.
    browser.find_element(By.TAG_NAME, "summary").click()
    position = list(ranks.index).index(chosen[0])  # the boxes follow the design's order
    browser.find_element(By.CSS_SELECTOR, f"input.bv-bench[value='{position}']").click()
    expected = ranks.loc[chosen[1:]].mean()
    for name, value in shown_subset(browser).items():
        assert value == pytest.approx(expected[name], abs=1e-6)
    # Sorting by the recomputed column works too.
    browser.find_element(By.XPATH, "//th[.='mean rank on selected']").click()
    assert names() == [printed(a) for a in expected.sort_values(kind="stable").index]
    browser.find_element(By.ID, "bv-reset").click()
    assert not banner.is_displayed()
    # Navigation: an entry's page, back to the table, the changes.
    browser.find_element(By.LINK_TEXT, EVIL).click()
    assert browser.title == EVIL
    assert browser.find_element(By.TAG_NAME, "h1").text == EVIL
    relations = browser.find_elements(By.XPATH, "//h2[.='Relations']/following::table[1]"
                                                "/tbody/tr")
    assert len(relations) == 4
    browser.find_element(By.LINK_TEXT, "Leaderboard").click()
    assert browser.current_url == index
    browser.back()
    assert browser.title == EVIL
    browser.find_element(By.LINK_TEXT, "Changes").click()
    assert browser.find_element(By.TAG_NAME, "h1").text == "Changes in version 2"
    assert browser.find_element(By.XPATH, "//h2[starts-with(., 'Version 1')]").is_displayed()
    assert printed(LATE) in browser.find_element(By.TAG_NAME, "body").text
    severe = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert severe == []


def printed(name: str) -> str:
    """A name as the browser shows it (runs of spaces collapse; no trailing space)."""
    return re.sub(r"\s+", " ", name).strip()


def shown_subset(browser) -> dict[str, float]:
    from selenium.webdriver.common.by import By

    out = {}
    for row in browser.find_elements(By.CSS_SELECTOR, "#bv-board tbody tr"):
        name = browser.execute_script(
            "var d = JSON.parse(document.getElementById('bv-data').textContent);"
            "return d.names[Number(arguments[0].getAttribute('data-i'))];", row)
        cell = row.find_element(By.CSS_SELECTOR, "td.bv-subset")
        assert cell.is_displayed()
        out[name] = float(cell.get_attribute("data-v"))
    return out
