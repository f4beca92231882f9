"""How a decision's alternatives are compared on deals (used by :mod:`replay.review`): the
**screen** (every alternative on a few deals, the better half again, until the contenders are
left), the **race** (the contenders against the play made on rounds of fresh deals, the same
deals for all, a runner clearly behind dropping out, until the decision is resolved or the
budget spent), and the decision judged from the result (its swing less its standard error, its
mark, its confidence). Knows nothing of cards or rules: ``evaluate(alternatives, deals)`` gives
one row of values per deal."""

from __future__ import annotations

from collections.abc import Callable
from itertools import islice

from gamelog.cards import CARD_TOKENS
from replay.marks import Budget, Decision, mark_for, thresholds


def _judge(evaluate: Callable[[list[list[int]], int], list[list[float]]],
           alternatives: list[list[int]], defender: bool, budget: Budget, scale: float,
           exact: bool, *, trick: int, seat: int, kind: str, solved: bool = False) -> Decision:
    """Value the alternatives (the play made first) with ``evaluate(alternatives, deals)``
    (one row of values per deal); then, unless exact, race the few that looked best against
    the play made on fresh deals (the best of several noisy estimates is biased upwards, so
    the screen only selects): round by round, a contender clearly behind the leader drops
    out, until every contender left is resolved (each mark's threshold at least ``resolve``
    standard errors from its swing) or the budget is spent. The best is the leader; the
    decision is marked when its swing less ``z`` standard errors reaches a threshold, and a
    worse mark the estimate reaches without that confidence is named ``unclear``. ``solved``:
    each deal costs a search (solved exactly, or its last tricks searched deep: the race's
    rounds are :attr:`Budget.exact_solo` at most)."""
    rows = evaluate(alternatives, budget.samples)
    values = [sum(r[i] for r in rows) / len(rows) for i in range(len(alternatives))]
    errors = [0.0 if exact else _standard_error([r[i] for r in rows])
              for i in range(len(alternatives))]
    counts = [len(rows)] * len(alternatives)
    sign = 1 if defender else -1
    best_i = max(range(len(values)), key=lambda i: (sign * values[i], -i))
    error = 0.0
    deals = len(rows)
    if not exact and len(values) > 1 and budget.confirm and budget.contenders:
        ranked = _screen(evaluate, alternatives, rows, sign, budget, values, errors, counts)
        best_i, estimate, error, deals = _race(evaluate, alternatives, ranked, sign, scale,
                                               budget, values, errors, counts, solved)
    else:
        if not exact and best_i != 0:  # no race (``confirm`` 0): the screen's own error
            error = _gain_error(_paired([[r[0], r[best_i]] for r in rows], sign), budget,
                                scale, len(rows))[1]
        estimate = max(0.0, sign * (values[best_i] - values[0])) if best_i != 0 else 0.0
    # the swing is what the play gave away at the stated confidence: the estimate less z
    # standard errors (the noise of the deals is not charged to the player)
    swing = estimate if exact else max(0.0, estimate - budget.z * error)
    mark = mark_for(swing, scale)
    unclear = mark_for(estimate, scale)
    unclear = unclear if unclear != mark else None
    confidence = None
    if mark is not None:
        threshold = dict(thresholds(scale))[mark]
        confidence = 1.0 if exact or error == 0 else _normal_cdf((estimate - threshold) / error)
    tokens = [[CARD_TOKENS[c] for c in cards] for cards in alternatives]
    return Decision(trick=trick, seat=seat, lead=kind == "lead", kind=kind, made=tokens[0],
                    alternatives=list(zip(tokens, values, strict=True)), value_made=values[0],
                    best=tokens[best_i], value_best=values[best_i], swing=swing,
                    mark=mark, defender=defender, exact=exact, error=error,
                    confidence=confidence, unclear=unclear, deals=deals, estimate=estimate,
                    errors=errors, counts=counts)


def _screen(evaluate: Callable[[list[list[int]], int], list[list[float]]],
            alternatives: list[list[int]], rows: list[list[float]], sign: int, budget: Budget,
            values: list[float], errors: list[float], counts: list[int]) -> list[int]:
    """The ``budget.contenders`` alternatives other than the play made that look best, by
    successive halving: every one valued on the first ``rows``, then the better half (at
    least twice the contenders) on ``samples`` more deals, and so on (values accumulate) until
    no more than twice the contenders are left, with one stage at least when there are more
    plays than places (until session 26 up to twice the contenders were ranked on the first
    deals alone: a run whose first 32 deals favoured the wrong five never raced the best play);
    each stage ranks on the same deals for all; a play that scored exactly as a better-ranked
    one on every deal so far takes no place of its own in a cut (since session 27: a dozen
    forms of one play crowded the best one out of the first), and after the first stage it
    gives up its place, unless a place would be left free (since session 35: a trump throw
    that scored as a single on 64 deals, parted from it by a rare kitty, was left out of a race
    of six with two places free).
    The likely play (index 1: the heuristic agent's choice, or the cheapest follow when that
    was the play made) takes the last place when it is not among them and did not score as one
    of them on every deal it met. Fills in ``values``, ``errors`` and ``counts`` of the
    screen."""
    seen: dict[int, list[float]] = {i: [r[i] for r in rows] for i in range(1, len(values))}

    def distinct(pool: list[int]) -> list[int]:
        """The pool less plays that scored as a better-ranked one on every deal, once past
        the first stage (most likely the same play in effect: racing both wastes a place)."""
        if len(seen[pool[0]]) <= budget.samples:
            return pool
        out: list[int] = []
        for i in pool:
            if not any(seen[j] == seen[i] for j in out):
                out.append(i)
        return out

    def places(pool: list[int], keep: int) -> list[int]:
        """The best ``keep`` plays of the pool, a play that scored as a better-ranked one on
        every deal so far taking no place of its own (it goes on beside that one: on the
        first deals alone it may yet differ)."""
        out: list[int] = []
        firsts: list[int] = []
        for i in pool:
            if not any(seen[j] == seen[i] for j in firsts):
                if len(firsts) == keep:
                    break
                firsts.append(i)
            out.append(i)
        return out

    pool = sorted(seen, key=lambda i: (-sign * values[i], i))
    ordered = pool  # the last stage's ranking, plays that scored alike included
    staged = False
    while len(pool) > 2 * budget.contenders or (not staged and len(pool) > budget.contenders):
        staged = True  # more plays than places: never ranked on the first deals alone
        pool = places(pool, max(len(pool) // 2, 2 * budget.contenders))
        for r in evaluate([alternatives[i] for i in pool], budget.samples):
            for j, i in enumerate(pool):
                seen[i].append(r[j])
        for i in pool:
            values[i], errors[i], counts[i] = \
                sum(seen[i]) / len(seen[i]), _standard_error(seen[i]), len(seen[i])
        ordered = sorted(pool, key=lambda i: (-sign * values[i], i))
        pool = distinct(ordered)
    ranked = pool[:budget.contenders]
    # places left free go to the plays that scored as a better-ranked one on every deal so far,
    # best first: scoring alike on a few dozen deals, they may yet part on a rare one
    ranked += [i for i in ordered if i not in ranked][:budget.contenders - len(ranked)]
    if 1 in seen and 1 not in ranked and len(ranked) > 1 \
            and not any(seen[j][:len(seen[1])] == seen[1] for j in ranked):
        ranked[-1] = 1  # the likely play races in the last place: a few deals can hide a gain
    return ranked


def _race(evaluate: Callable[[list[list[int]], int], list[list[float]]],
          alternatives: list[list[int]], ranked: list[int], sign: int, scale: float,
          budget: Budget, values: list[float], errors: list[float], counts: list[int],
          solved: bool = False) -> tuple[int, float, float, int]:
    """The contenders ``ranked`` (indices into ``alternatives``; 0 is the play made) raced
    against the play made on rounds of ``budget.confirm`` fresh deals, every runner on the same
    deals. From the third round on, a contender whose gain over the play made trails the
    leader's by ``drop`` standard errors of their paired difference drops out; the
    race ends when every runner left and the best play's gain are resolved (no mark's
    threshold within ``resolve`` standard errors below the gain (:meth:`Budget.resolve_at`),
    ``resolve_above`` above it),
    or when its ``extend`` + ``solo`` rounds are spent (the runners left after ``extend``
    rounds go on, and drop out as before: until session 35 the leader alone went on, and
    which of two close runners led after ``extend`` rounds decided the swing). Fills in the
    runners' ``values``, ``errors`` and ``counts``; returns the best (0 when no contender
    gained on the play made), the best play's gain over the play made as estimated
    (:meth:`_Tally.cross_fitted`: never the largest of several noisy gains read on the deals that
    made it the largest), its standard error, and the deals it was measured on. A standard
    error is taken as :func:`_gain_error` says, and the stop reads it raised on the first
    deals (:func:`_early_error`), as the drop-out does (since session 44)."""
    made: list[float] = []
    taken: dict[int, list[float]] = {i: [] for i in ranked}  # a runner's values, from deal 0
    running = list(ranked)
    tally = _Tally(ranked)
    gains: dict[int, tuple[float, float]] = {}
    best = (0.0, 0.0)
    for round_ in range(budget.extend + budget.solo_rounds(scale, solved) + 1):
        for r in evaluate([alternatives[0], *(alternatives[i] for i in running)],
                          budget.confirm):
            made.append(r[0])
            for j, i in enumerate(running, 1):
                taken[i].append(r[j])
            tally.add([sign * (r[j] - r[0]) for j in range(1, len(running) + 1)], running)
        n = len(made)
        gains = {i: _gain_error(tally.gain(i), budget, scale, n) for i in running}
        leader = max(running, key=lambda i: (gains[i][0], -i))
        if round_ >= 2:  # a few deals can hide a rare large gain: no one drops out early,
            # and on the first deals only on a margin raised as the stop's is (a runner unlucky
            # on its first 288 deals, 8H at 0.4 against 6.3, dropped out 3 errors behind, where
            # the full race finds it 5 points better: session 44)
            drop = budget.drop * _early_error(1.0, budget, n)
            running = [i for i in running if i == leader or not tally.behind(leader, i, drop)]
        best = _gain_error(_mean_error(*tally.cross_fitted(running)), budget, scale, n)
        if _resolved([best, *(gains[i] for i in running)], budget, scale, n, round_):
            break
    for i in ranked:
        column = taken[i]
        values[i], errors[i], counts[i] = \
            sum(column) / len(column), _standard_error(column), len(column)
    values[0], errors[0], counts[0] = sum(made) / len(made), _standard_error(made), len(made)
    leader = max(running, key=lambda i: (gains[i][0], -i))
    if gains[leader][0] <= 0:
        return 0, 0.0, best[1], len(made)
    return leader, max(0.0, best[0]), best[1], len(made)


def _resolved(gains: list[tuple[float, float]], budget: Budget, scale: float, deals: int,
              round_: int) -> bool:
    """Whether a race may stop after its round ``round_`` (from 0) on ``deals`` deals: every
    mark's threshold at least :meth:`Budget.resolve_at` standard errors below each gain (with
    its error) and ``resolve_above`` above it. The first rounds need a wider margin
    (:func:`_early_error`): a heavy-tailed gain's first deals are often lucky, and the race is
    looked at after every round."""
    resolve = budget.resolve_at(scale, round_)
    return all(abs(gain - t) >= (budget.resolve_above if gain > t else resolve)
               * _early_error(error, budget, deals)
               for gain, error in gains for _, t in thresholds(scale))


class _Tally:
    """A race's gains over the play made (from the deciding seat's side), kept as running sums
    by runner and by the parity of the deal, and each runner's gains deal by deal: every
    figure a round reads (a gain and its error, a paired difference between two runners, the
    cross-fitted best gain) without a pass over the deals so far. A pair's cross product is
    summed for the pairs a round compares, from where its sum was last brought up to date (in
    the order of the deals, as a running sum kept at every deal for every pair was until
    session 46)."""

    def __init__(self, runners: list[int]) -> None:
        self.n = 0
        self.sums = {i: [0.0, 0.0] for i in runners}     # by parity of the deal
        self.squares = {i: [0.0, 0.0] for i in runners}
        self.gains: dict[int, list[float]] = {i: [] for i in runners}
        self.cross: dict[tuple[int, int], tuple[int, float]] = {}  # deals summed, the sum

    def add(self, gains: list[float], running: list[int]) -> None:
        """One deal's gains of the ``running`` runners (in that order)."""
        k = self.n & 1
        for g, i in zip(gains, running, strict=True):
            self.sums[i][k] += g
            self.squares[i][k] += g * g
            self.gains[i].append(g)
        self.n += 1

    def gain(self, i: int) -> tuple[float, float]:
        return _mean_error(sum(self.sums[i]), sum(self.squares[i]), self.n)

    def behind(self, leader: int, other: int, resolve: float) -> bool:
        """Whether ``other`` trails ``leader`` by ``resolve`` standard errors of their paired
        difference (both ran on every deal)."""
        cross = self._cross(leader, other)
        mean, error = _mean_error(sum(self.sums[leader]) - sum(self.sums[other]),
                                  sum(self.squares[leader]) + sum(self.squares[other])
                                  - 2 * cross, self.n)
        return mean > 0 and mean >= resolve * error

    def _cross(self, a: int, b: int) -> float:
        """The sum over the deals of runners ``a``'s and ``b``'s gains multiplied."""
        pair = (a, b) if a < b else (b, a)
        done, total = self.cross.get(pair, (0, 0.0))
        for x, y in zip(islice(self.gains[a], done, None), islice(self.gains[b], done, None),
                        strict=True):
            total += x * y
        self.cross[pair] = (self.n, total)
        return total

    def cross_fitted(self, running: list[int]) -> tuple[float, float, int]:
        """The best runner's gains cross-fitted: the deals split by parity, the best runner on
        each half read on the other (the largest of several gains read on the deals that
        picked it overstates the best play's gain when runners are close, by about a standard
        error of their differences for five that tie; read on deals that did not pick it, the
        gain is the chosen play's own). Their sum, sum of squares and count."""
        def best_on(parity: int) -> int:
            return max(running, key=lambda i: (self.sums[i][parity], -i))
        odd, even = best_on(1), best_on(0)  # a deal is read with the other half's pick
        return (self.sums[odd][0] + self.sums[even][1],
                self.squares[odd][0] + self.squares[even][1], self.n)


def _mean_error(total: float, squares: float, n: int) -> tuple[float, float]:
    """The mean and its standard error of ``n`` values from their sum and sum of squares."""
    if n < 2:
        return (total / n if n else 0.0), 0.0
    mean = total / n
    variance = max(0.0, (squares - total * mean) / (n - 1))
    return mean, (variance / n) ** 0.5


def _gain_error(gain: tuple[float, float], budget: Budget, scale: float, deals: int
                ) -> tuple[float, float]:
    """A paired gain measured on ``deals`` deals with the standard error it is taken to have:
    the spread of the gain over the deals is read as the measured one pooled with
    ``budget.spread`` (scaled) counted as ``budget.spread_deals`` deals, so a few deals on
    which two plays scored alike say little (a rare deal can part them by a kitty) and many
    say what they measured (``spread_deals`` 0: never below ``spread`` over the square root
    of the deals, as until session 51)."""
    mean, error = gain
    if deals < 1:
        return mean, error
    prior = budget.spread * scale
    if budget.spread_deals <= 0:
        return mean, max(error, prior / deals ** 0.5)
    weight = budget.spread_deals
    variance = error * error * deals  # the gain's spread over the deals, squared
    pooled = (deals * variance + weight * prior * prior) / (deals + weight)
    return mean, max(error, (pooled / deals) ** 0.5)


def _early_error(error: float, budget: Budget, deals: int) -> float:
    """The standard error a race's stop reads: ``error`` raised by ``sqrt(budget.trusted /
    deals)`` on fewer than ``budget.trusted`` deals. A heavy-tailed gain's first deals often
    miss or overweight its rare large values (a kitty changing hands), and a race looked at
    after every round would end early on a lucky estimate. Only the stop reads it: a race
    that stops is as far from every threshold by the error as measured, so the mark is the
    same either way, and the swing is charged the error as measured."""
    return error * (budget.trusted / deals) ** 0.5 if deals < budget.trusted else error


def _standard_error(values: list[float]) -> float:
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    spread = (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5
    return spread / len(values) ** 0.5


def _normal_cdf(x: float) -> float:
    import math

    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def _paired(rows: list[list[float]], sign: int) -> tuple[float, float]:
    """The mean of the paired differences (second minus first, from the seat's side) and its
    standard error."""
    diffs = [sign * (r[1] - r[0]) for r in rows]
    return sum(diffs) / len(diffs), _standard_error(diffs)
