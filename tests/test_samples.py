"""The samples: clean examples validate clean; each hand-made violation is found, and only it."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from click.testing import CliRunner

import replay
from shengji.cli import cli

ROOT = Path(__file__).resolve().parents[1]
VIOLATIONS = ROOT / "samples" / "violations" / "tractor.jsonl"


def test_examples_of_implemented_rulesets_validate_clean():
    examples = ROOT / "samples" / "examples"
    implemented = ("tractor", "four-deck", "biaofen", "wanfen")
    reports = [r for r in replay.validate(examples) if r.ruleset in implemented]
    assert len(reports) == 7  # the Parquet copies are the same hands, counted once
    reports += [r for r in replay.validate(sorted(examples.glob("*.parquet")))
                if r.ruleset in implemented]
    assert len(reports) == 14
    for r in reports:
        assert r.ok and r.complete, [str(v) for v in r.violations]


def test_every_hand_made_violation_is_found_and_nothing_else():
    expected = {}
    for line in VIOLATIONS.read_text().splitlines():
        event = json.loads(line)
        if event["type"] == "match":
            expected[event["match"]] = sorted(event["tags"]["expect"].split())
    found: dict[str, list[str]] = defaultdict(list)
    for report in replay.validate(VIOLATIONS):
        found[report.match].extend(v.rule for v in report.violations)
    assert {m: sorted(r) for m, r in found.items()} == expected


def test_validate_output_matches_the_expected_file():
    result = CliRunner().invoke(cli, ["validate", "samples/violations/tractor.jsonl"])
    assert result.exit_code == 1
    expected = (ROOT / "samples" / "violations" / "tractor.expected.txt").read_text()
    assert result.output == expected


def test_every_rule_id_in_the_spec_is_exercised_by_the_violation_samples():
    spec = (ROOT / "docs" / "rules" / "tractor.md").read_text()
    ids = spec_ids(spec)
    sampled = set()
    for line in VIOLATIONS.read_text().splitlines():
        event = json.loads(line)
        if event["type"] == "match":
            sampled.update(event["tags"]["expect"].split())
    tested = (ROOT / "tests" / "test_tractor_rules.py").read_text()
    missing = {i for i in ids if i not in sampled and i not in tested}
    assert not missing, f"rule ids with neither a sample nor a test: {sorted(missing)}"


def spec_ids(spec: str) -> set[str]:
    import re

    return set(re.findall(r"`((?:deal|declare|kitty|play|lead|throw|follow|result|hand|auction|"
                          r"surrender|header|trump)\.[a-z-]+)`", spec))


def test_every_rule_id_of_the_four_deck_spec_has_a_test():
    ids = spec_ids((ROOT / "docs" / "rules" / "four-deck.md").read_text())
    tests = (ROOT / "tests" / "test_four_deck_rules.py").read_text()
    shared = (ROOT / "tests" / "test_tractor_rules.py").read_text() + \
        (ROOT / "samples" / "violations" / "tractor.jsonl").read_text()
    own = {"follow.quad-required", "follow.quad-tractor-required", "follow.triple-tractor-required",
           "trump.wrong", "declare.not-a-step", "declare.not-higher", "declare.own-switch"}
    for rule in ids:
        where = tests if rule in own else tests + shared
        assert rule in where, f"{rule} has no test"


def test_every_rule_id_has_a_chinese_statement():
    import re

    from replay.messages_zh import RULES_ZH

    engine = [ROOT / "replay" / "engine.py", *(ROOT / "replay" / "phases").glob("*.py")]
    source = "".join(p.read_text() for p in engine) + \
        "".join(p.read_text() for p in (ROOT / "replay" / "rulesets").glob("*.py"))
    ids = set(re.findall(r'"((?:auction|deal|declare|follow|hand|kitty|lead|play|result|'
                         r'surrender|throw|trump)\.[a-z-]+)"', source))
    assert ids and ids <= set(RULES_ZH), sorted(ids - set(RULES_ZH))
    report = next(r for r in replay.validate(VIOLATIONS) if r.violations)
    assert report.violations[0].message_zh


def test_every_rule_id_of_the_biaofen_spec_has_a_test():
    ids = spec_ids((ROOT / "docs" / "rules" / "biaofen.md").read_text())
    tests = (ROOT / "tests" / "test_biaofen_rules.py").read_text()
    shared = (ROOT / "tests" / "test_tractor_rules.py").read_text() + \
        (ROOT / "samples" / "violations" / "tractor.jsonl").read_text()
    own = {i for i in ids if i.startswith(("auction.", "surrender.")) or "settlement" in i}
    missing = [i for i in ids if i not in (tests if i in own else tests + shared)]
    assert not missing, f"rule ids without a test: {missing}"


def test_every_rule_id_of_the_wanfen_spec_has_a_test():
    ids = spec_ids((ROOT / "docs" / "rules" / "wanfen.md").read_text())
    own = (ROOT / "tests" / "test_wanfen_rules.py").read_text()
    shared = (ROOT / "tests" / "test_tractor_rules.py").read_text() + \
        (ROOT / "samples" / "violations" / "tractor.jsonl").read_text()
    own_ids = {"follow.pattern-required", "throw.trump-not-allowed", "declare.own-switch",
               "declare.not-higher", "declare.not-a-step", "throw.wrong-forced-play",
               "follow.pair-required"}
    for rule in ids:
        assert rule in (own if rule in own_ids else own + shared), f"{rule} has no test"
