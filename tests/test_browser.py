"""The report in a real browser (Debian's chromium driven by playwright): no console errors,
the charts drew, one table row per trick, a violation visible. Screenshots go to the test's
temporary folder (and to docs/ with SHENGJI_UPDATE_SCREENSHOTS=1)."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import replay
from shengji.cli import cli

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
INJECTED = ROOT / "samples" / "matches" / "tractor-2deck-injected.jsonl"
STEPPED = ROOT / "samples" / "matches" / "tractor-1deck-injected.jsonl"
"""The viewer's stepping test needs a hand with a violation at a play and every card held: the
one-deck injected sample has several."""
SAMPLE = ROOT / "samples" / "matches" / "biaofen-3p.jsonl"

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
    assert page.locator("#dashboard div.chart svg.main-svg").count() >= 4
    # hands are drawn only when they come into view: the last one is not drawn yet ...
    last = page.locator("section.hand").last
    assert last.locator(".viewer").count() == 0
    assert page.locator("section.hand .viewer").count() < hands
    last.scroll_into_view_if_needed()  # ... until it is scrolled to
    last.locator(".hand-chart svg.main-svg").first.wait_for()
    assert last.locator("table.tricks tr.trick").count() >= 1
    assert "src=\"http" not in out.read_text()  # nothing fetched: works offline
    assert errors == []


# -- the hand viewer (issue 16) ----------------------------------------------------------------

HOLDINGS = """sec => {
  const out = {};
  document.getElementById(sec).querySelectorAll('.viewer .seat').forEach(b => {
    out[b.dataset.seat] = [...b.querySelectorAll('.holding [data-card]')].map(c => +c.dataset.card);
  });
  return out;
}"""


def _plays(report) -> list[tuple[int, int, list[int]]]:
    """(trick number, seat, cards) of every play of a hand, in playing order."""
    return [(t.number, p.seat, list(p.cards)) for t in report.tricks for p in t.plays]


def _minus(holding: list[int], cards: list[int]) -> list[int]:
    left = list(holding)
    for c in cards:
        left.remove(c)
    return sorted(left)


@pytest.fixture(scope="module")
def single_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("viewer") / "r.html"
    result = CliRunner().invoke(cli, ["report", str(STEPPED), "-o", str(out)])
    assert result.exit_code == 0, result.output
    from analyze.report import page_slug

    reports = [r for r in replay.validate(STEPPED)]
    # a hand with a violation placed at a play, but no card played that was not held (the
    # holdings could not shrink by it)
    hand = next(r for r in reports if len(r.tricks) >= 8
                and any(v.trick is not None and v.seat is not None for v in r.violations)
                and not any(v.rule == "play.card-not-held" for v in r.violations))
    return out, hand, page_slug(hand.match, hand.hand)


def test_viewer_steps_with_the_arrow_keys_and_holdings_shrink_by_the_cards_played(
        browser, single_report):
    out, hand, anchor = single_report
    page, errors = open_page(browser, f"{out.as_uri()}#{anchor}")
    page.wait_for_selector(f"#{anchor} .viewer .seat")
    page.focus(f"#{anchor} .viewer")
    before = page.evaluate(HOLDINGS, anchor)
    assert sum(len(c) for c in before.values()) > 0
    plays = _plays(hand)
    for number, seat, cards in plays[:14]:
        page.keyboard.press("ArrowRight")
        after = page.evaluate(HOLDINGS, anchor)
        for s, held in before.items():
            if int(s) == seat:
                assert sorted(after[s]) == _minus(held, cards), (number, seat)
            else:
                assert after[s] == held
        before = after
    assert f"#{anchor}/" in page.evaluate("location.hash")
    page.keyboard.press("ArrowLeft")  # back one play: the cards return
    assert sorted(page.evaluate(HOLDINGS, anchor)[str(plays[13][1])]) == sorted(
        before[str(plays[13][1])] + plays[13][2])
    page.keyboard.press("ArrowDown")  # the end of the next trick
    assert page.locator(f"#{anchor} tr.trick.current td").first.inner_text() == str(
        plays[14][0])
    assert errors == []
    page.close()


def test_a_link_opens_at_trick_7_and_the_one_seat_view_hides_the_other_hands(
        browser, single_report):
    out, hand, anchor = single_report
    page, errors = open_page(browser, f"{out.as_uri()}#{anchor}")
    page.wait_for_selector(f"#{anchor} .viewer .seat")
    start = page.evaluate(HOLDINGS, anchor)
    page.close()
    page, errors = open_page(browser, f"{out.as_uri()}#{anchor}/7")
    page.wait_for_selector(f"#{anchor} .viewer .seat")
    at7 = page.evaluate(HOLDINGS, anchor)
    expected = {s: list(c) for s, c in start.items()}
    for number, seat, cards in _plays(hand):
        if number <= 7:
            expected[str(seat)] = _minus(expected[str(seat)], cards)
    assert {s: sorted(c) for s, c in at7.items()} == expected
    assert page.locator(f"#{anchor} tr.trick.current td").first.inner_text() == "7"
    seven = next(t for t in hand.tricks if t.number == 7)
    assert page.locator(f"#{anchor} .spot [data-card]").count() == sum(
        len(p.cards) for p in seven.plays)
    # one seat's view: its own holding only, the kitty only if it took it
    page.select_option(f"#{anchor} select.seat-view", "1")
    seats = page.locator(f"#{anchor} .viewer .seat")
    for i in range(seats.count()):
        box = seats.nth(i)
        shown = box.locator(".holding [data-card]").count()
        if box.get_attribute("data-seat") == "1":
            assert shown == len(at7["1"]) > 0
        else:
            assert shown == 0 and "×" in box.locator(".holding").inner_text()
    if hand.declarer != 1:
        assert page.locator(f"#{anchor} .kitty [data-card]").count() == 0
    page.select_option(f"#{anchor} select.seat-view", "-1")
    assert all(page.locator(f"#{anchor} .viewer .seat").nth(i)
               .locator(".holding [data-card]").count() > 0 for i in range(4))
    assert errors == []
    page.close()


def test_a_violation_is_marked_at_its_play_with_its_message(browser, single_report):
    out, hand, anchor = single_report
    v = next(v for v in hand.violations if v.trick is not None and v.seat is not None)
    trick = next(t for t in hand.tricks if t.number == v.trick)
    k = next(i for i, p in enumerate(trick.plays) if p.seat == v.seat) + 1
    page, errors = open_page(browser, f"{out.as_uri()}#{anchor}/{v.trick}.{k}")
    page.wait_for_selector(f"#{anchor} .play-notes .violation")
    note = page.locator(f"#{anchor} .play-notes .violation", has_text=v.rule).first
    words = [w.strip() for w in re.split(r"\bseat \d+\b", v.message) if w.strip()]
    assert note.is_visible() and all(w[:25] in note.inner_text() for w in words)
    assert not re.search(r"\bseat \d", note.inner_text())
    assert page.locator(f"#{anchor} .spot.bad").count() == 1
    assert page.locator(f"#{anchor} table.tricks .violation", has_text=v.rule).count() >= 1
    assert errors == []
    page.close()


def test_dashboard_hand_table_sorts_and_filters_in_the_page(browser, single_report):
    out, _, _ = single_report
    page, errors = open_page(browser, out.as_uri())
    rows = page.locator("#hand-index tbody tr")
    total = rows.count()
    page.check("#f-bad")
    bad = sum(1 for r in replay.validate(STEPPED) if r.violations)
    assert page.locator("#hand-index tbody tr:not([hidden])").count() == bad < total
    assert page.inner_text("#f-count") == str(bad)
    page.uncheck("#f-bad")
    page.fill("#f-min", "50")  # a one-deck match: half its points
    points = [int(t) for t in page.locator(
        "#hand-index tbody tr:not([hidden]) td:nth-child(6)").all_inner_texts()]
    assert points and min(points) >= 50
    assert len(points) < total
    page.fill("#f-min", "")
    page.click("#hand-index thead th:nth-child(6)")
    page.click("#hand-index thead th:nth-child(6)")  # descending
    column = [t for t in page.locator("#hand-index tbody td:nth-child(6)").all_inner_texts()
              if t]
    assert [int(t) for t in column] == sorted((int(t) for t in column), reverse=True)
    assert errors == []
    page.close()


def test_viewer_in_chinese_on_a_phone_with_a_player_at_the_bottom(browser, tmp_path):
    import subprocess

    if os.environ.get("CI"):  # .ci/run installs fonts-noto-cjk: zh screenshots show the text
        fonts = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True).stdout
        assert fonts.strip(), "CI must install a CJK font (fonts-noto-cjk, see .ci/run)"
    out = tmp_path / "zh.html"
    result = CliRunner().invoke(cli, ["report", str(INJECTED), "-o", str(out), "--lang", "zh",
                                      "--player", "Bo", "--hand", "2-3"])
    assert result.exit_code == 0, result.output
    from analyze.report import page_slug

    hands = [r for r in replay.validate(INJECTED) if 2 <= r.hand <= 3]
    anchor = page_slug(hands[0].match, hands[0].hand)
    page = browser.new_page(viewport={"width": 390, "height": 844})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{out.as_uri()}#{anchor}/5")
    page.wait_for_selector(f"#{anchor} .viewer .seat")
    assert page.locator("section.hand").count() == len(hands)
    info = page.inner_text(f"#{anchor} .viewer .info")
    assert "闲家" in info and "庄家方" in info
    bottom = page.locator(f"#{anchor} .viewer .seat.bottom")
    assert "Bo" in bottom.inner_text()
    assert page.locator(f"#{anchor} .viewer .seat:not(.bottom) .holding [data-card]").count() == 0
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.locator(f"#{anchor} .viewer").scroll_into_view_if_needed()
    shots(page, "report-viewer-zh.png", tmp_path)
    assert errors == []
    page.close()


def test_viewer_screenshot(browser, single_report, tmp_path):
    out, _, anchor = single_report
    page, errors = open_page(browser, f"{out.as_uri()}#{anchor}/7.3")
    page.wait_for_selector(f"#{anchor} .viewer .seat")
    page.locator(f"#{anchor} .viewer").scroll_into_view_if_needed()
    shots(page, "report-viewer.png", tmp_path)
    assert errors == []
    page.close()


def test_review_marks_show_at_their_plays(browser, tmp_path):
    """The viewer's side of the review: a marked decision shows at its play (the reviewer's own
    verdicts are tested in tests/test_review.py). The page shows the play the quick review
    marks worst in two sample hands (the README's screenshot), with its mark's name; should the
    review mark nothing there, one decision is marked by hand (a mistake), so that the page has
    a mark whatever the review finds."""
    import json
    import re

    import gamelog
    from analyze.handview import page_slug
    from analyze.metrics import collect
    from analyze.report import render
    from replay.review import budget_at, review_hands

    sample = ROOT / "samples" / "matches" / "tractor-1deck.jsonl"
    chosen = {5, 6}
    collector = collect(sample, keep_pages=True, with_plays=False, players_by_id=True,
                        keep=lambda r: r.hand in chosen)
    reviews = {page_slug(r.match, r.hand): r for r in review_hands(
        gamelog.read_hands(sample), budget=budget_at("quick"),
        keep=lambda h: h.number in chosen)}
    plays = [d for r in reviews.values() for d in r.decisions if d.kind != "bury"]
    marked = max(plays, key=lambda d: (d.mark is not None, d.swing))
    slug = next(k for k, r in reviews.items() if any(d is marked for d in r.decisions))
    if marked.mark is None:
        marked.mark, marked.swing = "mistake", 12.0
    out = tmp_path / "review.html"
    render(collector, out, reviews=reviews)
    hands = json.loads(re.search(r'id="sj-hands">(.*?)</script>', out.read_text(),
                                 re.S).group(1))
    hand, (trick, seat, mark) = next(  # the decision marked by hand (not a burial the
        (h, (d["t"], d["s"], d["m"])) for h in hands for d in h["rv"]["d"]  # review marked)
        if h["id"] == slug and d["m"] and (d["t"], d["s"]) == (marked.trick, marked.seat))
    order = next(t for t in hand["tricks"] if t[0] == trick)[7]
    k = next(i for i, p in enumerate(order) if p[0] == seat) + 1
    page, errors = open_page(browser, f"{out.as_uri()}#{hand['id']}/{trick}.{k}")
    root = f"#{hand['id']}"
    page.wait_for_selector(f"{root} .play-notes .decision")
    panel = page.locator(f"{root} .play-notes .decision").first
    assert panel.is_visible() and marked.mark in panel.inner_text()
    assert f"gave away {marked.swing:.1f} points against" in panel.inner_text()  # in words
    decision = next(d for d in hand["rv"]["d"] if (d["t"], d["s"]) == (trick, seat))
    rows = panel.locator("table.alternatives tbody tr")
    assert rows.count() == len(decision["alts"]) >= 2  # every alternative valued, with its value
    values = [float(v.split(" ")[0]) for v in rows.locator("td.value").all_inner_texts()]
    assert sorted(values) == sorted(a[1] for a in decision["alts"])
    assert panel.locator("tr.made").count() == 1 and panel.locator("tr.best").count() >= 1
    assert panel.locator(".line").count() >= 1  # what may follow the play made
    # an alternative valued on fewer deals than the best but ranked above it is explained
    sign = 1 if decision["def"] else -1
    ranked = sorted(decision["alts"], key=lambda a: -sign * a[1])
    at = next(i for i, a in enumerate(ranked) if a[0] == decision["best"])
    screened = not decision["x"] and any(a[3] is not None and a[3] < ranked[at][3]
                                         for a in ranked[:at])
    assert panel.locator("p.screened").count() == int(screened)
    page.set_viewport_size({"width": 1280, "height": 1400})
    page.locator(f"{root} .viewer").scroll_into_view_if_needed()
    shots(page, "report-review.png", tmp_path)
    assert page.locator(f"{root} .spot .mark.{mark}").count() == 1
    assert page.locator(f"{root} table.tricks .mark.{mark}").count() == sum(  # each at its play
        1 for d in hand["rv"]["d"] if d["m"] == mark and d["t"] >= 1) >= 1
    assert page.locator("#review-accuracy tbody tr").count() == 4
    assert page.locator("#review-accuracy tbody td small.note").count() == 4  # its interval
    assert re.search(r"\d+% \(\d+\u2013\d+\)", page.locator(root).inner_text())
    # every card on the table says whose it is; holdings are grouped by suit
    spots = page.locator(f"{root} .spot:has(.played)")
    assert spots.count() == k and spots.locator(".spot-who").count() == k
    names = page.evaluate(f"JSON.parse(document.getElementById('sj-hands').textContent)"
                          f".find(h => h.id === '{hand['id']}').names")
    assert set(spots.locator(".spot-who").all_inner_texts()) <= {
        n + s for n in names for s in ("", " · lead")}
    bottom = page.locator(f"{root} .seat.bottom .holding .suit-group")
    assert bottom.count() >= 2  # suits apart, in trump order
    # the evaluation graph: one point per play from the first decision, a click goes there
    page.wait_for_selector(f"{root} .eval-chart svg.main-svg")
    assert page.locator(f"{root} .eval-chart .scatterlayer .point").count() >= len(
        hand["rv"]["d"]) - 1
    page.locator(f"{root} .eval-chart .scatterlayer .point").nth(2).click(force=True)
    page.wait_for_function(f"!location.hash.endsWith('{trick}.{k}')")
    assert page.locator(f"{root} .controls .where").inner_text() != ""
    # next and previous hand, and the keys' help
    other = next(h["id"] for h in hands if h["id"] != hand["id"])
    first = [h["id"] for h in hands].index(hand["id"]) == 0  # then the other hand is next
    there, back = ("next-hand", "prev-hand") if first else ("prev-hand", "next-hand")
    page.locator(f"{root} .controls button.{there}").click()
    page.wait_for_function(f"location.hash.startsWith('#{other}')")
    page.wait_for_selector(f"#{other} .viewer")
    page.locator(f"#{other} .controls button.{back}").click()
    page.wait_for_function(f"location.hash.startsWith('#{hand['id']}')")
    page.locator(f"{root} .controls button.help").click()
    assert page.locator(f"{root} .keys-help").is_visible()
    assert errors == []
    page.close()


def _reviewed_hand(sample_name: str, number: int, *, confirm: int):  # type: ignore[no-untyped-def]
    """A sample's hand collected for the report and reviewed on a tiny budget: (collector,
    reviews by page slug, the hand's review)."""
    import gamelog
    from analyze.handview import page_slug
    from analyze.metrics import collect
    from replay.review import Budget, review_hands

    sample = ROOT / "samples" / "matches" / f"{sample_name}.jsonl"
    collector = collect(sample, keep_pages=True, with_plays=False, players_by_id=True,
                        keep=lambda r: r.hand == number)
    reviews = {page_slug(r.match, r.hand): r for r in review_hands(
        gamelog.read_hands(sample), budget=Budget(samples=1, confirm=confirm, bury=False),
        keep=lambda h: h.number == number)}
    return collector, reviews, next(iter(reviews.values()))


def test_the_auction_review_shows_on_a_biaofen_hand(browser, tmp_path):
    """标分: each bid and pass of a reviewed hand is listed under "Auction review" with the
    points the seat could hold the defenders to, and a marked bid carries its mark."""
    from analyze.handview import page_slug
    from analyze.report import render

    collector, reviews, review = _reviewed_hand("biaofen-3p", 3, confirm=1)
    assert len(review.bids) >= 2
    for other in review.bids:  # the marks are set here, whatever the few deals gave
        other.mark = None
    bid = next(b for b in review.bids if b.bid is not None)
    bid.mark, bid.swing, bid.best = "blunder", 4.5, None
    out = tmp_path / "auction.html"
    render(collector, out, reviews=reviews)
    anchor = page_slug(review.match, review.hand)
    page, errors = open_page(browser, f"{out.as_uri()}#{anchor}")
    page.wait_for_selector(f"#{anchor} .review-bid")
    rows = page.locator(f"#{anchor} .review-bid")
    assert rows.count() == len(review.bids)
    text = rows.all_inner_texts()
    assert any("blunder" in t and "pass" in t and "4.5" in t for t in text), text
    assert all("about" in t for t in text)
    assert page.locator(f"#{anchor} .review-bid .mark.blunder").count() == 1
    assert errors == []
    page.close()


def test_a_bad_fragment_raises_no_error_in_the_page(browser, single_report):
    """Issue 25 item 7: ``report.html#%`` (not an escape) threw an uncaught URIError."""
    out, _hand, _anchor = single_report
    for frag in ("%", "%E0%A4%A", "hand-%zz/3"):
        page, errors = open_page(browser, f"{out.as_uri()}#{frag}")
        page.wait_for_timeout(300)
        assert not errors, (frag, errors)
        page.close()


def test_no_sideways_scroll_at_390_px_on_any_page(browser, tmp_path):
    """A phone: the dashboard (tables in their scrolling wrappers), a hand page of a site and
    the single-file report fit 390 px; each card on the table still names its seat."""
    site = tmp_path / "site"
    result = CliRunner().invoke(cli, ["report", str(INJECTED), str(SAMPLE), "-o", f"{site}/",
                                      "--hand", "1-3"])
    assert result.exit_code == 0, result.output
    single = tmp_path / "one.html"
    assert CliRunner().invoke(cli, ["report", str(INJECTED), str(SAMPLE), "-o", str(single),
                                    "--hand", "1-3"]).exit_code == 0
    pages = [site / "index.html", *sorted(site.glob("hand-*.html"))[:2], single]
    page = browser.new_page(viewport={"width": 390, "height": 844})
    for path in pages:
        hand = pages[1].stem if path == single else path.stem
        page.goto(path.as_uri() + ("" if path == pages[0] else f"#{hand}/3.2"))
        page.wait_for_timeout(300)
        if path != pages[0]:
            page.wait_for_selector(".viewer .spot-who")
            assert page.locator(".spot:has(.played)").first.locator(".spot-who").is_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, path.name
    page.close()


def test_a_chinese_report_has_no_english_label_left(browser, tmp_path):
    """Every label the report shows exists in Chinese and is Chinese (a few names of keys and
    of the tool excepted); the page's visible text has no English word but the record's own
    (names, match ids, ruleset names); a violation's Chinese message names the seat and the
    cards as the English one does."""
    from analyze.report import LABELS

    assert set(LABELS["zh"]) == set(LABELS["en"])
    allowed = {"shengji", "toolkit", "Home", "End", "docs", "review", "md", "export"}
    for key, value in LABELS["zh"].items():
        for text in value if isinstance(value, list) else [value]:
            assert set(re.findall(r"[A-Za-z]{2,}", text)) <= allowed, (key, text)
    bad, v = next((r, v) for r in replay.validate(INJECTED) for v in r.violations
                  if v.seat is not None and v.cards and v.trick)
    out = tmp_path / "zh.html"
    result = CliRunner().invoke(cli, ["report", str(INJECTED), "-o", str(out), "--lang", "zh",
                                      "--review", "--review-samples", "1",
                                      "--hand", f"{bad.hand}-{bad.hand + 1}"])
    assert result.exit_code == 0, result.output
    html = out.read_text()
    for english in ("team 0", "bid = points", "Kitty as dealt", "points lost"):
        assert english not in html
    from analyze.report import page_slug

    anchor = page_slug(bad.match, bad.hand)
    trick = next(t for t in bad.tricks if t.number == v.trick)
    k = next(i for i, p in enumerate(trick.plays) if p.seat == v.seat) + 1
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{out.as_uri()}#{anchor}/{v.trick}.{k}")
    page.wait_for_selector(f"#{anchor} .play-notes .violation")
    names = set(page.evaluate("JSON.parse(document.getElementById('sj-hands').textContent)"
                              ".flatMap(h => h.names)"))
    record = names | {bad.match, *bad.match.split("-"), "tractor", "UTC", "LJ", "BJ"}
    shown = page.evaluate("(() => { const c = [...document.querySelectorAll('code')];"
                          " c.forEach(e => e.style.display = 'none'); const t = document.body"
                          ".innerText; c.forEach(e => e.style.display = ''); return t; })()")
    words = set(re.findall(r"[A-Za-z][A-Za-z'-]{2,}", shown))  # rule ids (code) are ids
    from replay.messages_zh import RULES_ZH

    ids = " ".join(RULES_ZH)  # rule ids are ids, shown alike in every language
    leftover = {w for w in words if w not in record and not any(w in m for m in record)
                and w not in ids}
    assert leftover <= {"shengji-toolkit", "docs", "review", "Home", "End"}, leftover
    note = page.locator(f"#{anchor} .play-notes .violation", has_text=v.rule).first.inner_text()
    seat_name = page.evaluate(f"JSON.parse(document.getElementById('sj-hands').textContent)"
                              f".find(h => h.id === '{anchor}').names[{v.seat}]")
    assert seat_name in note
    labels = page.evaluate("JSON.parse(document.getElementById('sj-config').textContent).cards")
    from gamelog.cards import CARD_BY_TOKEN

    assert all(labels[CARD_BY_TOKEN[c]][0] in note for c in v.cards)
    page.close()


def test_the_declaration_review_shows_on_a_tractor_hand(browser, tmp_path):
    """Each trump declaration of a reviewed hand is listed under "Declaration review" with the
    cards shown and when; a marked one carries its mark, the better choice and the levels."""
    from analyze.handview import page_slug
    from analyze.report import render

    collector, reviews, review = _reviewed_hand("tractor-1deck", 1, confirm=0)
    assert review.declarations
    made = review.declarations[0]
    made.mark, made.estimate, made.error, made.best = "mistake", 0.75, 0.12, None  # set here
    from replay.marks import DeclareDecision

    review.declarations.append(DeclareDecision(  # a declaration never made, set here too
        seat=2, drawn=51, made=None, alternatives=[(None, 0.1), (["2S", "2S"], 1.2)],
        value_made=0.1, best=["2S", "2S"], value_best=1.2, estimate=1.1, error=0.2, swing=0.9,
        mark="blunder", deals=32))
    out = tmp_path / "declare.html"
    render(collector, out, reviews=reviews)
    anchor = page_slug(review.match, review.hand)
    page, errors = open_page(browser, f"{out.as_uri()}#{anchor}")
    page.wait_for_selector(f"#{anchor} .review-declaration")
    rows = page.locator(f"#{anchor} .review-declaration")
    assert rows.count() == len(review.declarations)
    text = rows.all_inner_texts()[0]
    assert "mistake" in text and "declaring nothing yet" in text and "0.75" in text, text
    assert f"cards dealt: {made.drawn}" in text, text
    never = rows.all_inner_texts()[-1]
    assert "declared nothing" in never and "its last chance, cards dealt: 51" in never, never
    assert "blunder" in never and "1.1" in never, never
    assert errors == []
    page.close()
