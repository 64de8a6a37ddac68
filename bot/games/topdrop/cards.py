"""Top Drop's cards: the 60 number cards and their colours, the action and wild cards, the direction, the hints.

Everything here is fixed, public and pure: the rules (game.py), the table and the rules page read it.
"""

from __future__ import annotations

from bot.i18n import N_

LOWEST, HIGHEST = 1, 60
NUMBERS = tuple(range(LOWEST, HIGHEST + 1))  # COMPONENTS: 60 number cards (1–60)
HAND_SIZE = 4  # SETUP: "Deal 4 Number Cards to each player"; "bring your hand back up to 4 cards"

# The colour of each number card (RULES-NOTES, Top Drop): 12 cards of each colour by a fixed table that is no
# pattern of the number, two of each colour in every ten (1–10, 11–20, …), never three neighbours alike, and
# the rulebook's examples hold (a red 12; a purple 15 matches the colour of 54). Published in
# docs/rules/topdrop.md and /rules.
COLOUR_TABLE: dict[str, tuple[int, ...]] = {
    "red": (3, 7, 12, 20, 29, 30, 32, 36, 43, 46, 51, 53),
    "yellow": (6, 8, 13, 16, 21, 28, 34, 40, 41, 44, 57, 59),
    "green": (4, 9, 14, 17, 26, 27, 35, 37, 42, 50, 52, 56),
    "blue": (2, 10, 11, 18, 23, 24, 31, 38, 48, 49, 58, 60),
    "purple": (1, 5, 15, 19, 22, 25, 33, 39, 45, 47, 54, 55),
}
COLOURS = tuple(COLOUR_TABLE)
COLOUR_OF: dict[int, str] = {card: colour for colour, cards in COLOUR_TABLE.items() for card in cards}
COLOUR_NAMES = {
    "red": N_("topdrop.colour.red"),
    "yellow": N_("topdrop.colour.yellow"),
    "green": N_("topdrop.colour.green"),
    "blue": N_("topdrop.colour.blue"),
    "purple": N_("topdrop.colour.purple"),
}

# The Direction Card's two sides.
UP, DOWN = "up", "down"
DIRECTIONS = (UP, DOWN)
DIRECTION_NAMES = {UP: N_("topdrop.direction.up"), DOWN: N_("topdrop.direction.down")}

# Action cards (RULES-NOTES: one of each per player, up to 4 each); a wild card may stand for any of them.
SKIP, FLIP, COLOR = "skip", "flip", "color"
ACTIONS = (SKIP, FLIP, COLOR)
ACTION_NAMES = {
    SKIP: N_("topdrop.action.skip"),
    FLIP: N_("topdrop.action.flip"),
    COLOR: N_("topdrop.action.color"),
}
WILD_NAME = N_("topdrop.action.wild")

# SETUP: "Take the Wild Cards depending on your chosen level of difficulty".
WILDS_BY_DIFFICULTY = {"easy": 4, "medium": 3, "hard": 2, "extreme": 1}
DIFFICULTIES = tuple(WILDS_BY_DIFFICULTY)
DIFFICULTY_NAMES = {
    "easy": N_("topdrop.difficulty.easy"),
    "medium": N_("topdrop.difficulty.medium"),
    "hard": N_("topdrop.difficulty.hard"),
    "extreme": N_("topdrop.difficulty.extreme"),
}

# "No spoilers": the table talk the rulebook allows, as phrase codes for the `hint` action. The first five are
# the rulebook's own examples; the last two are their mirror images.
HINTS = {
    "no_big_jumps": N_("topdrop.hint.no_big_jumps"),  # "Don't make big jumps on the pile"
    "only_low_cards": N_("topdrop.hint.only_low_cards"),  # "I only have low cards"
    "need_an_action_card": N_("topdrop.hint.need_an_action_card"),  # "I'll need an Action Card"
    "cannot_play": N_("topdrop.hint.cannot_play"),  # "I cannot play any cards"
    "wish_up": N_("topdrop.hint.wish_up"),  # "I wish we could place in ascending order"
    "only_high_cards": N_("topdrop.hint.only_high_cards"),
    "wish_down": N_("topdrop.hint.wish_down"),
}

# END OF THE GAME, "How good were you?": the team's rating by the cards left, best first.
TOP_TIER = "top_tier"  # every card placed: victory
SO_CLOSE = "so_close"  # the draw pile is empty: only cards in hands are left
KEEP_TRYING = "keep_trying"  # cards left in the draw pile and in hands
RATINGS = {TOP_TIER: 3, SO_CLOSE: 2, KEEP_TRYING: 1}
RATING_NAMES = {
    TOP_TIER: N_("topdrop.rating.top_tier"),
    SO_CLOSE: N_("topdrop.rating.so_close"),
    KEEP_TRYING: N_("topdrop.rating.keep_trying"),
}
# The same verdicts to a player alone: one hand, no team to talk to ("you can always try again").
SOLO_RATING_NAMES = {
    TOP_TIER: N_("topdrop.rating.top_tier_solo"),
    SO_CLOSE: N_("topdrop.rating.so_close_solo"),
    KEEP_TRYING: N_("topdrop.rating.keep_trying_solo"),
}


def colour_of(card: int) -> str:
    return COLOUR_OF[card]


def follows(card: int, top: int | None, direction: str) -> bool:
    """UP: ascending, DOWN: descending, from the pile's top card; any card opens an empty pile."""
    if top is None:
        return True
    return card > top if direction == UP else card < top


def rating(cards_left: int, deck_count: int) -> str:
    """The rulebook's three verdicts: all placed; none left to draw ("so close"); cards left to draw."""
    if cards_left == 0:
        return TOP_TIER
    return SO_CLOSE if deck_count == 0 else KEEP_TRYING


def direction_after(card: int, direction: str) -> str:
    """Special case: playing the 1 sets UP, the 60 sets DOWN, at once and without an action card."""
    if card == LOWEST:
        return UP
    if card == HIGHEST:
        return DOWN
    return direction


def opposite(direction: str) -> str:
    return DOWN if direction == UP else UP
