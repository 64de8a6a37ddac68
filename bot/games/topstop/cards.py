"""Top Stop, advanced game: the Level and Ba Oossee decks and the plain-data state of the cards.

Decks and counts: RULES-NOTES.md (Top Stop, "Level cards (32)" and "Ba Oossee deck (32)").
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from bot.engine.errors import BadAction
from bot.i18n import N_, Text

# Level cards: 4 of each of Levels I, II, III, IV, V, VI, VII and X (FAQ 10: no VIII or IX).
LEVELS = ("I", "II", "III", "IV", "V", "VI", "VII", "X")
LEVEL_DECK = tuple(level for level in LEVELS for _ in range(4))

# The indicated letters and categories of the cards (RULES-NOTES); which one a card shows is a chance
# outcome of its first spin (`letters`, `category`), kept while that card stays in force.
LEVEL_I_LETTERS = (("S", "C", "P"), ("B", "M", "T"), ("A", "D", "R"), ("F", "G", "L"))
LEVEL_II_LETTERS = (("O", "S"), ("A", "E"), ("I", "O"), ("R", "L"))
CATEGORIES = ("verbs", "brands", "countries", "first_names")
# One face per card (RULES-NOTES): the four cards of Levels I, II and VII carry the four faces. A card whose
# face has shown carries it in its id ("II:OS", "VII:brands"); "II:?" is the card in force before its first
# spin. The faces are forgotten when the Level deck is made again from the discards.
FACES: dict[str, tuple[tuple[str, ...], ...]] = {
    "I": LEVEL_I_LETTERS,
    "II": LEVEL_II_LETTERS,
    "VII": tuple((c,) for c in CATEGORIES),
}
FACE_MARK = ":"
UNSHOWN = "?"
# Level VII: a letter with fewer entries than this in the category list is excluded: spin again.
MIN_CATEGORY_ENTRIES = 3

# The Ba Oossee deck: id -> copies.
BA_OOSSEE_COUNTS = {
    "force_sit_out": 2,
    "sit_out": 1,
    "immunity": 2,
    "steal_level": 2,
    "steal_3": 1,
    "steal_5": 1,
    "give_3": 1,
    "give_5": 1,
    "support_7": 1,
    "birthday": 1,
    "tax_1": 1,
    "tax_2": 1,
    "mabrouk_3": 1,
    "mabrouk_5": 1,
    "left_loses_5": 1,
    "right_loses_5": 1,
    "lose_4": 1,
    "lose_6": 1,
    "six_vs_ten": 1,
    "ten_vs_six": 1,
    "forced_level": 2,
    "second_chance": 2,
    "shuffle": 1,
    "wild_level_1": 1,
    "wild_level_2": 1,
    "reverse": 2,
}
BA_OOSSEE_DECK = tuple(card for card, copies in BA_OOSSEE_COUNTS.items() for _ in range(copies))

# Cards that ask their player to choose another player.
TARGET_CARDS = frozenset(
    {"force_sit_out", "steal_level", "steal_3", "steal_5", "give_3", "give_5", "support_7"}
)
# Wild cards join their player's Level cards and count for this many of a set.
WILD_WORTH = {"wild_level_1": 1, "wild_level_2": 2}
SET_SIZE = 3  # Scoring: 5 points for each set of 3 Level cards
SET_POINTS = 5

# Texts are catalogue keys (bot/i18n): what each Level asks, each Ba Oossee card's name and effect.
LEVEL_TEXTS = {
    "I": N_("topstop.level.i"),
    "II": N_("topstop.level.ii"),
    "III": N_("topstop.level.iii"),
    "IV": N_("topstop.level.iv"),
    "V": N_("topstop.level.v"),
    "VI": N_("topstop.level.vi"),
    "VII": N_("topstop.level.vii"),
    "X": N_("topstop.level.x"),
}
CARD_NAMES = {
    "force_sit_out": N_("topstop.card_name.force_sit_out"),
    "sit_out": N_("topstop.card_name.sit_out"),
    "immunity": N_("topstop.card_name.immunity"),
    "steal_level": N_("topstop.card_name.steal_level"),
    "steal_3": N_("topstop.card_name.steal_3"),
    "steal_5": N_("topstop.card_name.steal_5"),
    "give_3": N_("topstop.card_name.give_3"),
    "give_5": N_("topstop.card_name.give_5"),
    "support_7": N_("topstop.card_name.support_7"),
    "birthday": N_("topstop.card_name.birthday"),
    "tax_1": N_("topstop.card_name.tax_1"),
    "tax_2": N_("topstop.card_name.tax_2"),
    "mabrouk_3": N_("topstop.card_name.mabrouk_3"),
    "mabrouk_5": N_("topstop.card_name.mabrouk_5"),
    "left_loses_5": N_("topstop.card_name.left_loses_5"),
    "right_loses_5": N_("topstop.card_name.right_loses_5"),
    "lose_4": N_("topstop.card_name.lose_4"),
    "lose_6": N_("topstop.card_name.lose_6"),
    "six_vs_ten": N_("topstop.card_name.six_vs_ten"),
    "ten_vs_six": N_("topstop.card_name.ten_vs_six"),
    "forced_level": N_("topstop.card_name.forced_level"),
    "second_chance": N_("topstop.card_name.second_chance"),
    "shuffle": N_("topstop.card_name.shuffle"),
    "wild_level_1": N_("topstop.card_name.wild_level_1"),
    "wild_level_2": N_("topstop.card_name.wild_level_2"),
    "reverse": N_("topstop.card_name.reverse"),
}
CARD_TEXTS = {
    "force_sit_out": N_("topstop.card.force_sit_out"),
    "sit_out": N_("topstop.card.sit_out"),
    "immunity": N_("topstop.card.immunity"),
    "steal_level": N_("topstop.card.steal_level"),
    "steal_3": N_("topstop.card.steal_3"),
    "steal_5": N_("topstop.card.steal_5"),
    "give_3": N_("topstop.card.give_3"),
    "give_5": N_("topstop.card.give_5"),
    "support_7": N_("topstop.card.support_7"),
    "birthday": N_("topstop.card.birthday"),
    "tax_1": N_("topstop.card.tax_1"),
    "tax_2": N_("topstop.card.tax_2"),
    "mabrouk_3": N_("topstop.card.mabrouk_3"),
    "mabrouk_5": N_("topstop.card.mabrouk_5"),
    "left_loses_5": N_("topstop.card.left_loses_5"),
    "right_loses_5": N_("topstop.card.right_loses_5"),
    "lose_4": N_("topstop.card.lose_4"),
    "lose_6": N_("topstop.card.lose_6"),
    "six_vs_ten": N_("topstop.card.six_vs_ten"),
    "ten_vs_six": N_("topstop.card.ten_vs_six"),
    "forced_level": N_("topstop.card.forced_level"),
    "second_chance": N_("topstop.card.second_chance"),
    "shuffle": N_("topstop.card.shuffle"),
    "wild_level_1": N_("topstop.card.wild_level_1"),
    "wild_level_2": N_("topstop.card.wild_level_2"),
    "reverse": N_("topstop.card.reverse"),
}
CATEGORY_NAMES = {
    "verbs": N_("topstop.category.verbs"),
    "brands": N_("topstop.category.brands"),
    "countries": N_("topstop.category.countries"),
    "first_names": N_("topstop.category.first_names"),
}


def card_title(card: str) -> Text:
    """The name of a Ba Oossee card, or of a Level card ("Level II"), in the reader's language."""
    if level_of(card) in LEVEL_TEXTS:
        return Text("topstop.level_name", level=level_of(card))
    return Text(CARD_NAMES[card])


def level_of(card: str) -> str:
    """A card's Level (or Ba Oossee id), without the face it carries: "II:OS" -> "II"."""
    return card.split(FACE_MARK, 1)[0]


def face_of(card: str) -> str | None:
    """The face a Level card has shown ("OS", "brands"), or None while it has shown none."""
    _, mark, face = card.partition(FACE_MARK)
    return face if mark and face != UNSHOWN else None


def with_face(card: str, face: str) -> str:
    return f"{level_of(card)}{FACE_MARK}{face}"


def face_name(variant: list[str] | tuple[str, ...]) -> str:
    """How a face is written in a card's id: the letters run together, or the category."""
    return "".join(variant)


def face_variant(level: str, face: str) -> list[str]:
    """A face as the round's `letters` or `category`: ["O", "S"] or ["brands"]."""
    return [face] if level == "VII" else list(face)


@dataclass
class Choice:
    """A decision the table waits for: a card's target, second chance, the shuffle's peek, a Level's letter."""

    player: str
    kind: str  # "target" | "take" | "peek" | "letter"
    card: str  # the Ba Oossee card, or the Level ("I", "II") whose letter is chosen
    options: list[str]  # the targets, takes or letters open; empty for a peek (yes or no)
    number: int  # the choice's number in the game, named by its buttons (freshness)


@dataclass
class Advanced:
    """The cards of an advanced game. Decks list the top card first; a Level card set goes to the bottom."""

    level_deck: list[str]
    ba_deck: list[str]
    stacks: dict[str, list[str]]  # each player's Level cards (and wild cards), oldest first: secret
    held: dict[str, list[str]]  # Ba Oossee cards waiting until they can apply
    birthdays: dict[str, str]  # "MM-DD" of the players who registered one
    level_discard: list[str] = field(default_factory=list)  # played Level I cards
    ba_discard: list[str] = field(default_factory=list)
    level: str | None = None  # the Level in force (None: base rules)
    variant: list[str] = field(default_factory=list)  # its letters (I, II) or category (VII), once spun
    direction: int = 1  # 1 clockwise (to the left), -1 after a reverse card
    choices: int = 0  # choices opened so far: the next one's number - 1
    choice: Choice | None = None
    playing: str | None = None  # the id of the Level card in force (with its face, once shown)


@dataclass
class RoundCards:
    """What the cards did to one round."""

    level: str | None  # the Level in force this round
    drawn: list[str] = field(default_factory=list)  # Level cards drawn in this Draw, face down: secret
    decided: bool = False  # the spinner has drawn: no changing one's mind (FAQ 6)
    revealed: bool = False  # The Draw is over
    played: list[dict[str, Any]] = field(default_factory=list)  # Ba Oossee cards played, with choices
    sitting_out: list[str] = field(default_factory=list)
    immune: list[str] = field(default_factory=list)
    words: dict[str, int] = field(default_factory=dict)  # words to write, where not the table's number
    variant: list[str] = field(default_factory=list)  # the Level's letters or category this round
    second: str | None = None  # Level II: the chosen second letter
    sets: dict[str, int] = field(default_factory=dict)  # set points scored at this round's end


def copy_advanced(adv: Advanced) -> Advanced:
    """A copy whose containers a step may change (choices are replaced, never changed)."""
    return replace(
        adv,
        level_deck=list(adv.level_deck),
        ba_deck=list(adv.ba_deck),
        stacks={p: list(cards) for p, cards in adv.stacks.items()},
        held={p: list(cards) for p, cards in adv.held.items()},
        birthdays=dict(adv.birthdays),
        level_discard=list(adv.level_discard),
        ba_discard=list(adv.ba_discard),
        variant=list(adv.variant),
    )


def copy_round_cards(cards: RoundCards) -> RoundCards:
    return replace(
        cards,
        drawn=list(cards.drawn),
        played=[dict(p) for p in cards.played],
        sitting_out=list(cards.sitting_out),
        immune=list(cards.immune),
        words=dict(cards.words),
        variant=list(cards.variant),
        sets=dict(cards.sets),
    )


def load_advanced(data: dict[str, Any]) -> Advanced:
    choice = data["choice"]
    return Advanced(
        level_deck=list(data["level_deck"]),
        ba_deck=list(data["ba_deck"]),
        stacks={p: list(cards) for p, cards in data["stacks"].items()},
        held={p: list(cards) for p, cards in data["held"].items()},
        birthdays=dict(data["birthdays"]),
        level_discard=list(data["level_discard"]),
        ba_discard=list(data["ba_discard"]),
        level=data["level"],
        variant=list(data["variant"]),
        direction=data["direction"],
        choices=data["choices"],
        choice=Choice(**{**choice, "options": list(choice["options"])}) if choice is not None else None,
        playing=data.get("playing", data["level"]),  # snapshots from before faces: the Level itself
    )


def load_round_cards(data: dict[str, Any]) -> RoundCards:
    return RoundCards(
        level=data["level"],
        drawn=list(data["drawn"]),
        decided=data["decided"],
        revealed=data["revealed"],
        played=[dict(p) for p in data["played"]],
        sitting_out=list(data["sitting_out"]),
        immune=list(data["immune"]),
        words=dict(data["words"]),
        variant=list(data["variant"]),
        second=data["second"],
        sets=dict(data["sets"]),
    )


def forced_deck(forced: Any, full: tuple[str, ...], name: str) -> list[str]:
    """The forced top cards of a deck (setup `level_deck` / `ba_oossee_deck`), checked against its cards.

    Returns the forced cards; the caller shuffles the rest of the deck under them.
    """
    if not isinstance(forced, list) or not all(isinstance(card, str) for card in forced):
        raise BadAction("topstop.adv.deck_not_list", deck=name)
    unknown = sorted(set(forced) - set(full))
    if unknown:
        raise BadAction("topstop.adv.deck_unknown", deck=name, cards=", ".join(unknown))
    counts, available = Counter(forced), Counter(full)
    extra = sorted(card for card, n in counts.items() if n > available[card])
    if extra:
        raise BadAction("topstop.adv.deck_extra", deck=name, cards=", ".join(extra))
    return list(forced)


def rest_of_deck(full: tuple[str, ...], forced: list[str]) -> list[str]:
    """The cards of `full` not among `forced` (multiset difference), in the deck's order."""
    left = Counter(full)
    left.subtract(forced)
    return [card for card in dict.fromkeys(full) for _ in range(left[card])]


def stack_worth(cards: list[str]) -> int:
    """How many Level cards a stack counts for (wild cards count 1 or 2)."""
    return sum(WILD_WORTH.get(card, 1) for card in cards)
