"""analyze: metrics as polars frames, HTML review reports and data-set export.

Reads replay's results; nothing here knows the rules beyond what a report says.
"""

from analyze.metrics import (
    Collector,
    auction_summary,
    bid_accuracy,
    collect,
    player_summary,
    team_summary,
    violations_by_rule,
)

__all__ = ["Collector", "auction_summary", "bid_accuracy", "collect", "player_summary",
           "team_summary", "violations_by_rule"]
