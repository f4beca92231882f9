"""The report in a real browser (Debian's chromium driven by playwright): no console errors,
the charts drew, one table row per trick, a violation visible. Screenshots go to the test's
temporary folder (and to docs/ with SHENGJI_UPDATE_SCREENSHOTS=1)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import replay
from shengji.cli import cli

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
INJECTED = ROOT / "samples" / "matches" / "tractor-2deck-injected.jsonl"

if not Path(CHROMIUM).exists() or shutil.which("chromium") is None:
    if os.environ.get("CI"):
        raise RuntimeError("CI must install chromium (see .ci/run)")
    pytest.skip("Debian's chromium is not installed", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


def open_page(browser, url: str):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector("svg.main-svg", timeout=15_000)
    return page, errors


def shots(page, name: str, tmp_path: Path) -> None:
    page.screenshot(path=str(tmp_path / name))
    if os.environ.get("SHENGJI_UPDATE_SCREENSHOTS"):
        shutil.copy(tmp_path / name, ROOT / "docs" / name)


def test_dashboard_and_hand_page(browser, tmp_path):
    site = tmp_path / "site"
    result = CliRunner().invoke(cli, ["report", str(INJECTED), "-o", f"{site}/"])
    assert result.exit_code == 0, result.output
    reports = list(replay.validate(INJECTED))

    page, errors = open_page(browser, (site / "index.html").as_uri())
    assert errors == []
    charts = page.locator("div.chart")
    assert charts.count() >= 4
    for i in range(charts.count()):  # every chart drew its SVG
        assert charts.nth(i).locator("svg.main-svg").count() >= 1
    assert page.locator("#hand-index tbody tr").count() == len(reports)
    shots(page, "report-dashboard.png", tmp_path)
    page.close()

    bad = next(r for r in reports if any(v.trick is not None for v in r.violations))
    page, errors = open_page(browser, (site / f"hand-{bad.match}-{bad.hand}.html").as_uri())
    assert errors == []
    assert page.locator("div.chart svg.main-svg").count() >= 1
    assert page.locator("table.tricks tr.trick").count() == len(bad.tricks)
    first = bad.violations[0]
    violation = page.locator(".violation", has_text=first.rule).first
    assert violation.is_visible()
    violation.scroll_into_view_if_needed()
    shots(page, "report-hand.png", tmp_path)


def test_single_file_report_works_offline(browser, tmp_path):
    out = tmp_path / "r.html"
    assert CliRunner().invoke(cli, ["report", str(INJECTED), "-o", str(out)]).exit_code == 0
    page, errors = open_page(browser, out.as_uri())
    assert errors == []
    hands = len(list(replay.validate(INJECTED)))
    assert page.locator("section.hand").count() == hands
    assert page.locator("div.chart svg.main-svg").count() >= hands
