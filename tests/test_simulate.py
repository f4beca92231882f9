"""The simulator: deterministic, clean by the validator's own account; and the validator finds
every injected violation at its place, with nothing reported on the clean remainder."""

from __future__ import annotations

import collections

import pytest
from click.testing import CliRunner

import replay
from gamelog import dumps, loads
from replay import get_ruleset
from replay.inject import MUTATIONS, inject_violations
from replay.simulate import heuristic_agents, simulate
from shengji.cli import cli


def hands_of(events):
    return [h for m in loads(dumps(events)) for h in m.hands]


def test_same_seed_same_games():
    rules = get_ruleset("tractor", decks=2)
    a = dumps(simulate(rules, matches=2, seed=11, hands=3))
    b = dumps(simulate(rules, matches=2, seed=11, hands=3))
    c = dumps(simulate(rules, matches=2, seed=12, hands=3))
    assert a == b and a != c


VARIANTS = [("tractor", 1), ("tractor", 2), ("tractor", 3), ("four-deck", 4), ("biaofen", 3),
            ("biaofen", 4), ("wanfen", 2)]


def ruleset(name, n):
    return get_ruleset(name, players=n) if name == "biaofen" else get_ruleset(name, decks=n)


@pytest.mark.parametrize(("name", "decks"), VARIANTS)
def test_simulated_matches_are_clean_and_complete(name, decks):
    """A whole match of the simulator's agents (the lookahead in the last tricks) and two of the
    heuristic agent alone: every hand complete and clean."""
    rules = ruleset(name, decks)
    events = list(simulate(rules, matches=1, seed=decks))
    events += simulate(rules, matches=2, seed=decks + 1, agents=heuristic_agents)
    kinds = collections.Counter(type(e).__name__ for e in events)
    assert kinds["Declare" if name != "biaofen" else "Bid"] > 0
    assert kinds["KittyBury"] > 0 and kinds["Result"] > 0
    reports = list(replay.validate_hands(hands_of(events)))
    assert all(r.complete for r in reports)
    assert [str(v) for r in reports for v in r.violations] == []
    # a match runs until a team passes A
    assert len(reports) > 3


RECALL_HANDS = {("tractor", 1): 1200, ("tractor", 2): 1000, ("tractor", 3): 600,
                ("four-deck", 4): 500, ("biaofen", 3): 700, ("biaofen", 4): 700,
                ("wanfen", 2): 2000}
NOT_APPLICABLE = {
    "tractor": {"auction.not-lower", "auction.out-of-turn", "auction.trump-after-kitty",
                "result.settlement-mismatch"},
    "four-deck": {"auction.not-lower", "auction.out-of-turn", "auction.trump-after-kitty",
                  "result.settlement-mismatch"},
    "wanfen": {"auction.not-lower", "auction.out-of-turn", "auction.trump-after-kitty"},
    "biaofen": {"result.level-change-mismatch", "result.next-dealer-mismatch",
                "declare.cards-not-held", "hand.dealer-mismatch", "throw.beatable"},
}


@pytest.mark.slow
@pytest.mark.parametrize(("name", "decks"), VARIANTS)
def test_injected_violations_are_all_found_and_nothing_else(name, decks):
    rules = ruleset(name, decks)
    clean = []
    seed = 100
    while sum(1 for e in clean if type(e).__name__ == "HandStart") < RECALL_HANDS[(name, decks)]:
        clean.extend(simulate(rules, matches=1, seed=seed, hands=25, agents=heuristic_agents))
        seed += 1
    events, labels = inject_violations(clean, rate=0.5, seed=decks, rules=rules)
    hands = hands_of(list(events))
    assert len(labels) > len(hands) * 0.4
    _all_found_and_nothing_else(hands, labels)
    # a kind that applies to few hands (a failed throw: 4 % of them) may have been drawn for
    # none: injected alone, into every hand it applies to
    missing_kinds = set(MUTATIONS) - {lab.rule for lab in labels} - NOT_APPLICABLE[name]
    impossible = {"follow.pair-required", "follow.tractor-required"} if decks == 1 else set()
    for kind in sorted(missing_kinds - impossible):
        events, labels = inject_violations(clean, rate=1.0, seed=decks, rules=rules,
                                           kinds=[kind])
        hands = hands_of(list(events))
        assert labels, kind
        _all_found_and_nothing_else(hands, labels)


def _all_found_and_nothing_else(hands, labels) -> None:  # type: ignore[no-untyped-def]
    by_hand = {(lab.match, lab.hand): lab for lab in labels}
    missed, false_positives = [], []
    for report in replay.validate_hands(hands):
        lab = by_hand.get((report.match, report.hand))
        if lab is None:
            false_positives += [str(v) for v in report.violations]
        elif not any(v.rule == lab.rule and v.seq == lab.seq for v in report.violations):
            missed.append((lab, [str(v) for v in report.violations[:3]]))
    assert missed == []
    assert false_positives == []


def test_simulate_command_writes_games_and_labels(tmp_path):
    out = tmp_path / "games.parquet"
    result = CliRunner().invoke(cli, ["simulate", "--decks", "1", "--matches", "2", "--hands", "3",
                                      "--seed", "3", "--inject", "0.5", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.exists() and (tmp_path / "games.labels.jsonl").exists()
    result = CliRunner().invoke(cli, ["validate", str(out), "-q"])
    assert result.exit_code == 1


def test_simulate_on_several_cores_writes_the_same_games(tmp_path):
    """``simulate -j 2`` plays the matches in two processes: byte for byte the file of -j 1
    (each match is played from its own seed), injected violations and their labels too."""
    outputs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"games-{jobs}.jsonl"
        result = CliRunner().invoke(cli, ["simulate", "--decks", "2", "--matches", "3", "--hands",
                                          "2", "--seed", "5", "--agent", "heuristic", "--inject",
                                          "0.5", "-j", jobs, "-o", str(out)])
        assert result.exit_code == 0, result.output
        outputs.append((out.read_bytes(), (tmp_path / f"games-{jobs}.labels.jsonl").read_bytes()))
    assert outputs[0] == outputs[1]
    assert outputs[0][0].count(b'{"type":"match",') == 3


def test_match_contexts_are_bounded_and_a_forgotten_match_is_not_wrongly_flagged(monkeypatch,
                                                                                  tmp_path):
    """validate keeps a bounded number of open matches (flat memory on huge files); a match met
    again after it was dropped has no known previous result, so its levels are not checked."""
    import msgspec

    import replay
    from gamelog import files

    rules = replay.get_ruleset("tractor", decks=2)
    path = tmp_path / "three.jsonl"
    path.write_bytes(dumps(simulate(rules, matches=3, seed=5, hands=3)))
    hands = list(files.read_hands(path))
    by_match: dict[str, list] = {}
    for h in hands:
        by_match.setdefault(h.match, []).append(h)
    interleaved = [h for trio in zip(*by_match.values(), strict=True) for h in trio]
    second = interleaved[3]  # the first match's second hand, after the other two matches
    start = second.events[0]
    second.events[0] = msgspec.structs.replace(start, levels=["K", "K"])

    def flagged() -> set[tuple[str, int, str]]:
        return {(r.match, r.hand, v.rule) for r in replay.validate_hands(interleaved)
                for v in r.violations}

    assert (second.match, 2, "hand.level-mismatch") in flagged()
    monkeypatch.setattr(replay, "_OPEN_MATCHES", 2)  # the first match is dropped by its 2nd hand
    assert (second.match, 2, "hand.level-mismatch") not in flagged()


def test_the_simulate_commands_agents_are_the_simulators():
    """``shengji simulate --agent`` offers exactly the simulator's agents (replay.simulate.AGENTS),
    the lookahead agent by default: the command's list is written out so that its help does not
    import the simulator."""
    import click

    from replay.simulate import AGENTS, default_agents

    command = cli.get_command(click.Context(cli), "simulate")
    option = next(p for p in command.params if p.name == "agent")
    assert sorted(option.type.choices) == sorted(AGENTS)
    assert AGENTS[option.default] is default_agents
