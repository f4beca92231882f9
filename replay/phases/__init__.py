"""The phases of a hand, in the order the replayer (:mod:`replay.engine`) runs them:

1. :mod:`~replay.phases.deal`: the hand's start, the deal or a set-up, declarations, trump;
2. :mod:`~replay.phases.auction`: 标分's bids and passes, and the auction's close;
3. :mod:`~replay.phases.kitty`: the kitty taken and buried;
4. :mod:`~replay.phases.tricks`: each play judged (:mod:`~replay.phases.follow`,
   :mod:`~replay.phases.throws`), each trick's winner and points;
5. :mod:`~replay.phases.outcome`: a surrender, the hand's outcome, the record's claims.

Each is a set of functions of one :class:`~replay.state.HandState` and an event. A phase never
calls another: it returns what happened (a completed trick) or sets the state, and the replayer
decides what follows (the auction closes before trump is named, the kitty taken, a surrender or
the first play; the outcome follows the last trick).
"""
