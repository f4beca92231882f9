"""The rulesets, one module each, found by name or alias through :func:`get_ruleset`."""

from replay.rulesets import biaofen, four_deck, tractor, wanfen  # noqa: F401 - registers
from replay.rulesets.base import (
    REGISTRY,
    Declaration,
    Option,
    Outcome,
    Ruleset,
    RulesetError,
    all_rulesets,
    get_ruleset,
)

__all__ = ["REGISTRY", "Declaration", "Option", "Outcome", "Ruleset", "RulesetError",
           "all_rulesets", "get_ruleset"]
