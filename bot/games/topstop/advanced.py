"""Top Stop, advanced game: The Draw, the Ba Oossee cards, the Levels in play, sets and the staircase tiebreak.

Rulebook: ADVANCED GAME, THE DRAW, PHASES MODIFICATIONS, TIEBREAKER, FAQ 5-8, LEVEL CARDS, BA OOSSEE CARDS;
RULES-NOTES.md for the decks and the rulings. game.py calls in here at a few hooks; everything else of a
round (writing, STOP, disputes, scoring words) is the base game's.
"""

from __future__ import annotations

import random
import string
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from bot.engine.errors import BadAction, IllegalMove, NotYourTurn, WrongPhase
from bot.engine.game import Action, Event, Timer
from bot.games.topstop.cards import (
    BA_OOSSEE_DECK,
    CATEGORIES,
    FACES,
    LEVEL_DECK,
    LEVEL_I_LETTERS,
    LEVEL_II_LETTERS,
    SET_POINTS,
    SET_SIZE,
    TARGET_CARDS,
    UNSHOWN,
    WILD_WORTH,
    Advanced,
    Choice,
    RoundCards,
    card_title,
    face_name,
    face_of,
    face_variant,
    forced_deck,
    level_of,
    rest_of_deck,
    stack_worth,
    with_face,
)
from bot.games.topstop.judging import Lexicon
from bot.games.topstop.levels import (
    CategoryWords,
    LevelRule,
    combinable,
    judge_level_lists,
    keeps_slots,
    letter_excluded,
)
from bot.games.topstop.state import CHOOSE, DRAW, SPIN, WRITING, Entry, Round, TopStopState

LETTERS = string.ascii_uppercase
TAKES = ("ba_oossee", "level")
SETUP_KEYS = frozenset({"level_deck", "ba_oossee_deck", "birthdays"})
SHUFFLE_BITS = 32


class StepLike(Protocol):
    """What an action produces besides the new state (game._Step)."""

    events: list[Event]
    private: list[tuple[str, Event]]


# -- setting up ---------------------------------------------------------------------------------------------


def new_cards(
    players: Sequence[str], setup: Mapping[str, Any], rng: random.Random, *, ba_oossee: bool = True
) -> Advanced:
    """Both decks shuffled (GETTING STARTED), their top cards as setup forces them; birthdays from setup.
    Without Ba Oossee cards (the `levels` way to play) that deck stays empty."""
    if not ba_oossee:
        for key in ("ba_oossee_deck", "birthdays"):
            if key in setup:
                raise BadAction("topstop.adv.setup_advanced_only", key=key)
    decks = []
    for key, full in (("level_deck", LEVEL_DECK), ("ba_oossee_deck", BA_OOSSEE_DECK if ba_oossee else ())):
        forced = forced_deck(setup.get(key, []), full, key)
        rest = rest_of_deck(full, forced)
        rng.shuffle(rest)
        decks.append(forced + rest)
    birthdays = setup.get("birthdays", {})
    if not isinstance(birthdays, dict) or not all(
        p in players and isinstance(day, str) for p, day in birthdays.items()
    ):
        raise BadAction("topstop.adv.birthdays")
    for day in birthdays.values():
        day_of_year(day, "setup.birthdays")
    return Advanced(
        level_deck=decks[0],
        ba_deck=decks[1],
        stacks={p: [] for p in players},
        held={p: [] for p in players},
        birthdays=dict(birthdays),
    )


def check_base_setup(setup: Mapping[str, Any]) -> None:
    for key in sorted(SETUP_KEYS & set(setup)):
        raise BadAction("topstop.adv.setup_advanced_only", key=key)


def day_of_year(text: Any, field: str) -> int:
    """MM-DD as the day of a leap year (1-366), so that 02-29 is a birthday too."""
    if isinstance(text, str) and len(text) == 5 and text[2] == "-" and text.replace("-", "", 1).isdigit():
        month, day = int(text[:2]), int(text[3:])
        lengths = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
        if 1 <= month <= 12 and 1 <= day <= lengths[month - 1]:
            return sum(lengths[: month - 1]) + day
    raise BadAction("topstop.adv.date", field=field)


# -- rounds ------------------------------------------------------------------------------------------------


def round_started(state: TopStopState, step: StepLike) -> None:
    """A new round: Level I ends with its round; the first round is played normally, every later one
    starts with The Draw; a tiebreak round plays Level X and draws no cards (TIEBREAKER)."""
    adv = _adv(state)
    current = state.round
    if adv.level == "I":
        # Level I: once played, the card is discarded and the next round goes back to the base rules.
        adv.level_discard.append(adv.playing or "I")
        adv.level, adv.variant, adv.playing = None, [], None
        step.events.append({"type": "level_ended", "level": "I"})
    if current.tiebreak:
        words = {p: state.options.words for p in current.players}
        current.cards = RoundCards(level="X", revealed=True, words=words)
        step.events.append({"type": "level_in_force", "level": "X"})
        return
    words = {p: state.options.words for p in current.players}
    current.cards = RoundCards(level=adv.level, variant=list(adv.variant), words=words)
    if current.number == 1:
        current.cards.revealed = True  # the first round: no cards are drawn
        return
    state.phase = DRAW
    step.events.append({"type": "draw_open", "round": current.number, "spinner": current.spinner})


def next_spinner(state: TopStopState, spinner: str) -> str:
    """The next seat in the direction of play (a reverse card turns it)."""
    return _seat_after(state, spinner, _adv(state).direction)


def words_for(state: TopStopState, player: str) -> int:
    """How many words the player writes this round (the 6-vs-10 cards change it)."""
    cards = state.round.cards if state.rounds else None
    if cards is None:
        return state.options.words
    return cards.words.get(player, state.options.words)


def keeps_blank_slots(state: TopStopState) -> bool:
    cards = state.round.cards if state.rounds else None
    return cards is not None and keeps_slots(cards.level)


def judge(
    state: TopStopState, lists: Mapping[str, Sequence[str]], earlier: list[str], lexicon: Lexicon
) -> dict[str, list[Entry]]:
    """The round's lists judged under its Level, with the immunity cards played."""
    current = state.round
    cards = current.cards
    assert cards is not None and current.letter is not None
    rule = LevelRule(
        level=cards.level,
        letter=current.letter,
        second=cards.second,
        category=cards.variant[0] if cards.level == "VII" and cards.variant else None,
        country=state.options.country,
    )
    return judge_level_lists(lists, rule, earlier, lexicon, cards.immune)


def after_scoring(state: TopStopState, step: StepLike) -> None:
    """SCORING: 5 points for each set of 3 Level cards, which go back to the bottom of the deck (wild
    cards to the Ba Oossee discard). Incomplete sets score nothing (FAQ 8). No cards in a tiebreak."""
    adv, current = _adv(state), state.round
    if current.tiebreak or current.cards is None:
        return
    for player in state.seated:
        stack = adv.stacks[player]
        while stack_worth(stack) >= SET_SIZE:
            # The oldest cards make the set; a wild card worth 2 may complete it with one to spare.
            used: list[str] = []
            while stack_worth(used) < SET_SIZE:
                used.append(stack.pop(0))
            for card in used:
                (adv.ba_discard if card in WILD_WORTH else adv.level_deck).append(card)
            state.scores[player] += SET_POINTS
            current.cards.sets[player] = current.cards.sets.get(player, 0) + SET_POINTS
            step.events.append(
                {"type": "set_scored", "player": player, "points": SET_POINTS, "score": state.scores[player]}
            )


def player_left(state: TopStopState, player: str, step: StepLike) -> None:
    """A player who leaves gives their cards back; their Draw or choice passes on."""
    adv, current = _adv(state), state.round if state.rounds else None
    for card in adv.stacks.get(player, []):
        (adv.ba_discard if card in WILD_WORTH else adv.level_deck).append(card)
    adv.ba_discard += adv.held.get(player, [])
    adv.stacks[player], adv.held[player] = [], []
    if current is None or current.cards is None:
        return
    choice = adv.choice
    if state.phase == CHOOSE and current.spinner == player and choice is not None:
        # The Level's letter: the next spinner chooses it.
        current.spinner = next_spinner(state, player)
        adv.choice = Choice(current.spinner, choice.kind, choice.card, choice.options, choice.number)
        step.events.append({"type": "spinner_changed", "player": current.spinner})
        return
    if state.phase != DRAW:
        return
    if choice is not None and (choice.player == player or player in choice.options):
        options = [p for p in choice.options if p != player]
        if choice.player == player or (choice.kind == "target" and not options):
            adv.choice = None
            adv.ba_discard.append(choice.card)
            step.events.append({"type": "choice_dropped", "player": choice.player, "card": choice.card})
        else:
            adv.choice = Choice(choice.player, choice.kind, choice.card, options, choice.number)
    if current.spinner == player:
        # The Draw starts again with the next spinner; the leaver's face-down Level cards go back.
        current.spinner = next_spinner(state, player)
        adv.level_deck += current.cards.drawn
        current.cards.drawn, current.cards.decided, current.cards.revealed = [], False, False
        step.events.append({"type": "spinner_changed", "player": current.spinner})
    _continue(state, step)


def abandon_draw(state: TopStopState) -> None:
    """The game ends (or goes to its tiebreak) in the middle of The Draw: a face-down Level card goes back
    under the deck and a card still waiting for its choice is discarded unplayed."""
    adv, cards = _adv(state), state.round.cards
    if cards is not None:
        adv.level_deck += cards.drawn
        cards.drawn = []
    if adv.choice is not None:
        if adv.choice.kind != "letter":
            adv.ba_discard.append(adv.choice.card)
        adv.choice = None


# -- actions -----------------------------------------------------------------------------------------------


def draw(state: TopStopState, action: Action, step: StepLike) -> None:
    """THE DRAW: the optional Level card first (face down, FAQ 6), then the mandatory Ba Oossee card."""
    adv, current, player = _adv(state), state.round, action["player"]
    level = action.get("level")
    if not isinstance(level, bool):
        raise BadAction("topstop.adv.level_bool")
    shuffler = _shuffler(action)
    cards = current.cards
    if state.phase != DRAW or cards is None:
        raise WrongPhase("topstop.adv.not_drawing")
    if player != current.spinner:
        raise NotYourTurn("topstop.adv.not_your_draw", player=current.spinner)
    if adv.choice is not None:
        raise IllegalMove(
            "topstop.adv.wait_choice", player=adv.choice.player, card=card_title(adv.choice.card)
        )
    if cards.decided:
        raise IllegalMove("topstop.adv.drawn")
    if level and not _level_available(adv):
        raise IllegalMove("topstop.adv.no_level_card")
    cards.decided = True
    step.events.append({"type": "draw", "player": player, "level": level})
    if level:
        _draw_level(state, player, step, shuffler)
    if state.options.mode != "levels":  # the levels way to play has no Ba Oossee card
        _draw_ba_oossee(state, player, step, shuffler)
    _continue(state, step)


def choose(state: TopStopState, action: Action, step: StepLike, words: CategoryWords | None) -> None:
    """The answer to the open choice: a card's target, second chance's take, the shuffle's peek, a letter."""
    adv, player = _adv(state), action["player"]
    choice = adv.choice
    if choice is None:
        raise WrongPhase("topstop.adv.nothing_to_choose")
    if player != choice.player:
        raise NotYourTurn("topstop.adv.not_your_choice", player=choice.player)
    shuffler = _shuffler(action)
    current = state.round
    if choice.kind == "letter":
        letter = action.get("letter")
        if not isinstance(letter, str) or letter.upper() not in choice.options:
            raise BadAction("topstop.adv.letter", options=", ".join(choice.options))
        letter = letter.upper()
        adv.choice = None
        _letter_chosen(state, choice.card, letter, step)
        return
    args: dict[str, Any] = {}
    if choice.kind == "target":
        target = action.get("target")
        if not isinstance(target, str) or target not in choice.options:
            raise BadAction("topstop.adv.target", options=", ".join(choice.options))
        args["target"] = target
    elif choice.kind == "take":
        take = action.get("take")
        if take not in choice.options:
            if "level" in choice.options:
                raise BadAction("topstop.adv.take")
            raise BadAction("topstop.adv.take_ba_oossee_only")
        args["take"] = take
    else:
        peek = action.get("peek")
        if not isinstance(peek, bool):
            raise BadAction("topstop.adv.peek")
        args["peek"] = peek
    adv.choice = None
    _resolve(state, choice.player, choice.card, args, step, shuffler)
    if current.cards is not None:
        _continue(state, step)


def spin(state: TopStopState, action: Action, step: StepLike, words: CategoryWords | None) -> None:
    """THE SPIN after The Draw, under the Level in force (Level I: no spin, a letter of the card is chosen;
    Level II: a second letter is chosen; Level VII: letters with too few entries spin again)."""
    adv, current, player = _adv(state), state.round, action["player"]
    if player != current.spinner:
        raise NotYourTurn("topstop.not_your_spin", player=current.spinner)
    cards = current.cards
    assert cards is not None
    level = cards.level
    lang, country = state.options.language, state.options.country
    if level == "I":
        letters = _variant(adv, cards, action, "letters", [list(s) for s in LEVEL_I_LETTERS], level)
        state.phase = CHOOSE
        step.events.append(
            {"type": "level_letters", "round": current.number, "player": player, "letters": letters}
        )
        _open(state, Choice(player, "letter", "I", list(letters), 0), step)
        return
    letter = action.get("letter")
    if not isinstance(letter, str) or len(letter) != 1 or letter.upper() not in LETTERS:
        raise BadAction("topstop.spin_letter")
    letter = letter.upper()
    if level == "II":
        pair = _variant(adv, cards, action, "letters", [list(s) for s in LEVEL_II_LETTERS], level)
        open_letters = combinable(words, lang, letter, pair) if words is not None else list(pair)
        if not open_letters:
            _spin_again(state, letter, "level", step)
            return
        current.letter, cards.second = letter, None
        state.phase = CHOOSE
        step.events.append({"type": "spun", "round": current.number, "player": player, "letter": letter})
        _open(state, Choice(player, "letter", "II", open_letters, 0), step)
        return
    if level == "VII":
        category = _variant(adv, cards, action, "category", [[c] for c in CATEGORIES], level)[0]
        if words is not None and letter_excluded(words, lang, category, letter, country):
            _spin_again(state, letter, "category", step)
            return
    # The Spin: the letter is everyone's TOP, the cue to begin writing.
    current.letter = letter
    state.phase = WRITING
    step.events.append({"type": "spun", "round": current.number, "player": player, "letter": letter})


def auto_choose(state: TopStopState, action: Action) -> Action:
    """The decision an idle player did not make, as the timer's action carries it (`act`): checked here,
    applied by the caller as the player's own action."""
    act = action.get("act")
    awaited = awaited_player(state)
    if (
        not isinstance(act, dict)
        or act.get("do") not in ("draw", "choose", "spin")
        or awaited is None
        or act.get("player") != awaited
    ):
        raise BadAction("topstop.adv.auto")
    return act


# -- what is open ------------------------------------------------------------------------------------------


def awaited_player(state: TopStopState) -> str | None:
    """Who the table waits for in The Draw, the spin or a Level's letter (None: nobody of these)."""
    if state.advanced is None or not state.rounds or state.phase not in (DRAW, SPIN, CHOOSE):
        return None
    if state.advanced.choice is not None:
        return state.advanced.choice.player
    return state.round.spinner


def legal_actions(state: TopStopState, player: str) -> list[Action]:
    """The Draw's decision and the open choice (base legal_actions gives the spin)."""
    adv = state.advanced
    if adv is None or state.phase not in (DRAW, CHOOSE):
        return []
    choice = adv.choice
    if choice is not None:
        if choice.player != player:
            return []
        return [{"do": "choose", "player": player, **arg} for arg in _choice_args(choice)]
    cards = state.round.cards
    if state.phase == DRAW and state.round.spinner == player and cards is not None and not cards.decided:
        takes = [False, True] if _level_available(adv) else [False]
        return [{"do": "draw", "player": player, "level": level} for level in takes]
    return []


def freshness(state: TopStopState) -> dict[str, int]:
    """An open choice is named by its number, so a click on an earlier choice's select is stale."""
    adv = state.advanced
    return {"choice": adv.choice.number} if adv is not None and adv.choice is not None else {}


def timers(state: TopStopState) -> list[Timer] | None:
    """An idle spinner (or chooser) gets a random legal choice after spin_time (RULES-NOTES)."""
    if awaited_player(state) is None:
        return None
    current, adv = state.round, _adv(state)
    key = f"{state.phase}:{current.number}:{adv.choices}:{len(current.respun)}"
    return [Timer(key, state.options.spin_time, {"do": "auto_choose"})]


def resolve_chance(
    state: TopStopState, action: Action, rng: random.Random, words: CategoryWords | None
) -> Action:
    """Fill the chance outcomes: a reshuffle's order (`shuffle`), a spin's letter, letters and category,
    and for `auto_choose` the whole decision (`act`)."""
    name = action.get("do")
    if name == "auto_choose" and "act" not in action:
        act = _random_decision(state, rng)
        if act is None:
            return action
        return {**action, "act": resolve_chance(state, act, rng, words)}
    if name in ("draw", "choose") and "shuffle" not in action:
        return {**action, "shuffle": rng.getrandbits(SHUFFLE_BITS)}
    if name == "spin" and state.phase == SPIN and state.rounds and state.round.cards is not None:
        return _resolve_spin(state, action, rng, words)
    return action


# -- what is shown -----------------------------------------------------------------------------------------


def view(state: TopStopState, viewer: str | None) -> dict[str, Any]:
    """The cards as `viewer` may see them: how many Level cards each holds, never which (but their own),
    the face-down Level card only to its drawer, never a deck's order."""
    adv = _adv(state)
    current = state.round if state.rounds else None
    choice = adv.choice
    shown: dict[str, Any] = {
        "level": adv.level,
        "level_cards": {p: len(cards) for p, cards in adv.stacks.items()},
        "held": {p: list(cards) for p, cards in adv.held.items() if cards},
        "direction": "clockwise" if adv.direction == 1 else "counterclockwise",
        "decks": {"level": len(adv.level_deck), "ba_oossee": len(adv.ba_deck)},
        "level_available": _level_available(adv),  # a Level card can be drawn (the played ones reshuffle)
        "choice": (
            {
                "player": choice.player,
                "kind": choice.kind,
                "card": choice.card,
                "options": list(choice.options),
                "number": choice.number,
            }
            if choice is not None
            else None
        ),
        "birthdays": sorted(adv.birthdays),
    }
    if current is not None and current.cards is not None:
        shown["round"] = round_record(current)
        shown["round"]["decided"] = current.cards.decided
        shown["round"]["revealed"] = current.cards.revealed
        shown["round"]["face_down"] = len(current.cards.drawn)
        if viewer is not None and viewer == current.spinner and current.cards.drawn:
            shown["your_face_down"] = [level_of(c) for c in current.cards.drawn]
    if viewer is not None and viewer in adv.stacks:
        shown["your_level_cards"] = [level_of(c) for c in adv.stacks[viewer]]
    return shown


def round_record(current: Round) -> dict[str, Any]:
    """The round's cards for its history record (SCENARIOS: level, ba_oossee, words_per_player)."""
    cards = current.cards
    assert cards is not None
    record: dict[str, Any] = {
        "level": cards.level,
        "ba_oossee": [dict(p) for p in cards.played],
        "words_per_player": {p: cards.words[p] for p in current.players if p in cards.words},
        "sitting_out": list(cards.sitting_out),
        "immune": list(cards.immune),
        "set_points": dict(cards.sets),
    }
    if cards.level == "VII" and cards.variant:
        record["category"] = cards.variant[0]
    elif cards.level in ("I", "II") and cards.variant:
        record["letters"] = list(cards.variant)
    if cards.second is not None:
        record["second_letter"] = cards.second
    return record


def output(state: TopStopState) -> dict[str, Any]:
    """The replay output's keys of the advanced game (SCENARIOS: level_cards, held)."""
    adv = _adv(state)
    return {
        "level": adv.level,
        "level_cards": {p: [level_of(c) for c in cards] for p, cards in adv.stacks.items()},
        # The face each of those cards has shown (one face per card, RULES-NOTES), null for none yet.
        "level_faces": {p: [face_of(c) for c in cards] for p, cards in adv.stacks.items()},
        "held": {p: list(cards) for p, cards in adv.held.items() if cards},
        "direction": "clockwise" if adv.direction == 1 else "counterclockwise",
    }


# -- the Draw's machinery ----------------------------------------------------------------------------------


def _adv(state: TopStopState) -> Advanced:
    if state.advanced is None:
        raise WrongPhase("topstop.adv.advanced_only")
    return state.advanced


def _seat_after(state: TopStopState, player: str, direction: int) -> str:
    seats = state.seats
    start = seats.index(player)
    for offset in range(1, len(seats) + 1):
        candidate = seats[(start + direction * offset) % len(seats)]
        if candidate not in state.left:
            return candidate
    raise AssertionError("no seated player")


def _shuffler(action: Action) -> random.Random:
    """The reshuffles of one action follow its `shuffle` number, so the log replays them exactly."""
    seed = action.get("shuffle", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**SHUFFLE_BITS:
        raise BadAction("topstop.adv.shuffle")
    return random.Random(seed)


def _level_available(adv: Advanced) -> bool:
    return bool(adv.level_deck or adv.level_discard)


def _draw_level(state: TopStopState, player: str, step: StepLike, shuffler: random.Random) -> None:
    """STEP 1: a Level card, face down in front of the spinner (only they see it until it is revealed)."""
    adv, cards = _adv(state), state.round.cards
    assert cards is not None
    if not adv.level_deck:
        # Our ruling: the played Level I cards make a new deck when the deck runs out.
        adv.level_deck, adv.level_discard = adv.level_discard, []
        _forget_faces(adv)
        shuffler.shuffle(adv.level_deck)
        step.events.append({"type": "level_deck_reshuffled", "cards": len(adv.level_deck)})
    if not adv.level_deck:
        step.events.append({"type": "no_level_card", "player": player})
        return
    card = adv.level_deck.pop(0)
    cards.drawn.append(card)
    step.events.append({"type": "level_drawn", "player": player, "face_down": len(cards.drawn)})
    step.private.append((player, {"type": "your_level_card", "level": level_of(card)}))


def _draw_ba_oossee(state: TopStopState, player: str, step: StepLike, shuffler: random.Random) -> None:
    """STEP 2: the Ba Oossee card, read and followed at once (or held until it can apply)."""
    adv = _adv(state)
    if not adv.ba_deck:
        # When all Ba Oossee cards have been drawn, the discard pile is shuffled into a new deck.
        adv.ba_deck, adv.ba_discard = adv.ba_discard, []
        shuffler.shuffle(adv.ba_deck)
        step.events.append({"type": "ba_oossee_reshuffled", "cards": len(adv.ba_deck)})
    if not adv.ba_deck:
        step.events.append({"type": "no_ba_oossee_card", "player": player})
        return
    card = adv.ba_deck.pop(0)
    step.events.append({"type": "ba_oossee_drawn", "player": player, "card": card})
    _start_card(state, player, card, step, shuffler)


def _targets(state: TopStopState, player: str, card: str) -> list[str]:
    """The players a card may name: others still seated (sit-out: others who write this round; steal a
    Level card: others who hold one)."""
    adv = _adv(state)
    if card == "force_sit_out":
        return [p for p in state.round.players if p != player and p not in state.left]
    others = [p for p in state.seated if p != player]
    if card == "steal_level":
        return [p for p in others if adv.stacks[p]]
    return others


def _start_card(state: TopStopState, player: str, card: str, step: StepLike, shuffler: random.Random) -> None:
    adv = _adv(state)
    if card in TARGET_CARDS:
        targets = _targets(state, player, card)
        if not targets:
            # If following the instruction is not yet possible, hold the card; play it as soon as it applies.
            adv.held[player].append(card)
            step.events.append({"type": "ba_oossee_held", "player": player, "card": card})
            return
        _open(state, Choice(player, "target", card, targets, 0), step)
    elif card == "second_chance":
        takes = ["ba_oossee", "level"] if _level_available(adv) else ["ba_oossee"]
        _open(state, Choice(player, "take", card, takes, 0), step)
    elif card == "shuffle":
        _open(state, Choice(player, "peek", card, [], 0), step)
    else:
        _resolve(state, player, card, {}, step, shuffler)


def _open(state: TopStopState, choice: Choice, step: StepLike) -> None:
    adv = _adv(state)
    adv.choices += 1
    adv.choice = Choice(choice.player, choice.kind, choice.card, choice.options, adv.choices)
    step.events.append(
        {
            "type": "choice_open",
            "player": choice.player,
            "kind": choice.kind,
            "card": choice.card,
            "options": list(choice.options),
            "choice": adv.choices,
        }
    )


def _continue(state: TopStopState, step: StepLike) -> None:
    """After each card: wait for an open choice; STEP 3, the reveal; then play the held cards that now
    apply (one choice at a time, in seat order from the spinner); then the spin."""
    adv, current = _adv(state), state.round
    cards = current.cards
    if adv.choice is not None or state.phase != DRAW or cards is None or not cards.decided:
        return
    if not cards.revealed:
        _reveal(state, step)
    for holder in _seat_order(state, current.spinner):
        for card in adv.held[holder]:
            targets = _targets(state, holder, card)
            if targets:
                adv.held[holder].remove(card)
                step.events.append({"type": "held_card_applies", "player": holder, "card": card})
                _open(state, Choice(holder, "target", card, targets, 0), step)
                return
    state.phase = SPIN


def _reveal(state: TopStopState, step: StepLike) -> None:
    """STEP 3: the Level card read out; with two drawn (FAQ 7) the last one plays and the spinner keeps both.
    A Level I that plays is discarded after its round, so it never joins a set."""
    adv, current = _adv(state), state.round
    cards = current.cards
    assert cards is not None
    spinner = current.spinner
    if cards.drawn:
        *kept, playing = cards.drawn
        level, face = level_of(playing), face_of(playing)
        _forget_unshown(adv)
        if level in FACES and face is None:
            playing = with_face(playing, UNSHOWN)  # its face shows at its first spin
        adv.stacks[spinner] += kept if level == "I" else [*kept, playing]
        # A card that showed its face before plays it again (RULES-NOTES: one face per card).
        variant = face_variant(level, face) if face is not None else []
        adv.level, adv.variant, adv.playing = level, list(variant), playing
        cards.level, cards.variant = level, list(variant)
        cards.drawn = []
        step.events.append({"type": "level_revealed", "player": spinner, "level": level})
    else:
        # FAQ 5: without a new Level card the Level in force (or the base game) goes on.
        step.events.append({"type": "level_in_force", "level": adv.level})
    cards.revealed = True


def _seat_order(state: TopStopState, first: str) -> list[str]:
    start = state.seats.index(first)
    return [p for p in state.seats[start:] + state.seats[:start] if p not in state.left]


def _resolve(
    state: TopStopState, player: str, card: str, args: dict[str, Any], step: StepLike, shuffler: random.Random
) -> None:
    """Follow a Ba Oossee card's instructions (its choice made); it then goes to the discard pile, face up."""
    adv, current = _adv(state), state.round
    cards = current.cards
    assert cards is not None
    points: dict[str, int] = {}
    target = args.get("target")
    amount = _amount(card)
    if card == "force_sit_out" or card == "sit_out":
        sitter = target if card == "force_sit_out" else player
        assert sitter is not None
        if sitter in current.players:
            current.players.remove(sitter)
        cards.sitting_out.append(sitter)
    elif card == "immunity":
        cards.immune.append(player)
    elif card == "steal_level":
        assert target is not None
        taken = adv.stacks[target].pop()  # the card they gained last
        adv.stacks[player].append(taken)
        step.private.append((player, {"type": "level_card_taken", "from": target, "level": level_of(taken)}))
        step.private.append((target, {"type": "level_card_lost", "to": player, "level": level_of(taken)}))
    elif card in ("steal_3", "steal_5"):
        assert target is not None
        _transfer(state, target, player, amount, points)
    elif card in ("give_3", "give_5"):
        assert target is not None
        _transfer(state, player, target, amount, points)
    elif card == "support_7":
        assert target is not None
        _add(state, target, amount, points)
    elif card == "birthday":
        _birthday(state, player, points)
    elif card in ("tax_1", "tax_2"):
        for other in state.seated:
            if other != player:
                _transfer(state, other, player, amount, points)
    elif card in ("mabrouk_3", "mabrouk_5"):
        _add(state, player, amount, points)
    elif card in ("left_loses_5", "right_loses_5"):
        # The player to the left is the next seat clockwise, whatever the direction of play.
        side = _seat_after(state, player, 1 if card == "left_loses_5" else -1)
        _add(state, side, -amount, points)
        args = {"loser": side}
    elif card in ("lose_4", "lose_6"):
        _add(state, player, -amount, points)
    elif card in ("six_vs_ten", "ten_vs_six"):
        mine, theirs = (6, 10) if card == "six_vs_ten" else (10, 6)
        cards.words = {p: mine if p == player else theirs for p in state.seated}
    elif card == "reverse":
        adv.direction = -adv.direction
    record: dict[str, Any] = {"card": card, "player": player, **args}
    if points:
        record["points"] = points
    cards.played.append(record)
    if card in WILD_WORTH:
        adv.stacks[player].append(card)  # wild cards join the Level cards until a set is collected
    else:
        adv.ba_discard.append(card)
    step.events.append({"type": "ba_oossee_played", **record})
    if card == "forced_level" or args.get("take") == "level":
        _draw_level(state, player, step, shuffler)
    elif args.get("take") == "ba_oossee":
        _draw_ba_oossee(state, player, step, shuffler)
    elif card == "shuffle":
        _shuffle(state, player, bool(args.get("peek")), step, shuffler)


def _amount(card: str) -> int:
    tail = card.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def _add(state: TopStopState, player: str, delta: int, points: dict[str, int]) -> None:
    """Points added or deducted at once; scores never go below 0."""
    before = state.scores[player]
    state.scores[player] = max(0, before + delta)
    points[player] = points.get(player, 0) + state.scores[player] - before


def _transfer(state: TopStopState, giver: str, taker: str, amount: int, points: dict[str, int]) -> None:
    """Points move from one player to another: at most what the giver has (RULES-NOTES)."""
    moved = min(amount, state.scores[giver])
    _add(state, giver, -moved, points)
    _add(state, taker, moved, points)


def _birthday(state: TopStopState, player: str, points: dict[str, int]) -> None:
    """10 points to the registered birthday closest to today (either way round the year), ties sharing the
    gift; a 2-point tip to the card's player unless the gift is theirs alone. Nobody registered (or no
    date for today): no effect."""
    adv = _adv(state)
    registered = {p: day for p, day in adv.birthdays.items() if p in state.seated}
    if not registered or state.options.today is None:
        return
    today = day_of_year(state.options.today, "today")

    def distance(day: str) -> int:
        gap = abs(day_of_year(day, "setup.birthdays") - today)
        return min(gap, 366 - gap)

    closest = min(distance(day) for day in registered.values())
    lucky = [p for p, day in registered.items() if distance(day) == closest]
    for p in lucky:
        _add(state, p, 10, points)
    if any(p != player for p in lucky):
        _add(state, player, 2, points)


def _shuffle(state: TopStopState, player: str, peek: bool, step: StepLike, shuffler: random.Random) -> None:
    """The shuffle card: the spinner may look at the top card (privately), then the deck is shuffled."""
    adv = _adv(state)
    if not adv.ba_deck:
        adv.ba_deck, adv.ba_discard = adv.ba_discard, []
    if peek and adv.ba_deck:
        step.private.append((player, {"type": "peeked", "card": adv.ba_deck[0]}))
    shuffler.shuffle(adv.ba_deck)
    step.events.append({"type": "ba_oossee_shuffled", "player": player, "peeked": peek})


def _letter_chosen(state: TopStopState, level: str, letter: str, step: StepLike) -> None:
    """Level I: the chosen letter is the target letter; Level II: the second letter. Writing begins."""
    current = state.round
    cards = current.cards
    assert cards is not None
    if level == "I":
        current.letter = letter
    else:
        cards.second = letter
    state.phase = WRITING
    step.events.append(
        {
            "type": "letter_chosen",
            "round": current.number,
            "player": current.spinner,
            "level": level,
            "letter": current.letter,
            "second": cards.second,
        }
    )


def _spin_again(state: TopStopState, letter: str, why: str, step: StepLike) -> None:
    """Level II (no second letter combines) and VII (too few entries): this letter does not count."""
    current = state.round
    current.respun.append(letter)
    step.events.append({"type": "spin_again", "round": current.number, "letter": letter, "reason": why})


def _variant(
    adv: Advanced, cards: RoundCards, action: Action, key: str, options: list[list[str]], level: str
) -> list[str]:
    """The card's letters or category: chosen at its first spin, then kept while it stays in force."""
    given = action.get(key)
    if key == "category" and isinstance(given, str):
        given = [given]
    if isinstance(given, list):
        given = [g.upper() if isinstance(g, str) and key == "letters" else g for g in given]
    if adv.variant:
        if given is not None and given != adv.variant:
            shown = ", ".join(adv.variant)
            raise IllegalMove("topstop.adv.variant_fixed", level=level, value=shown)
        cards.variant = list(adv.variant)
        return list(adv.variant)
    options = [o for o in options if face_name(o) in open_faces(adv, level)]
    if given not in options:
        if key == "category":
            raise BadAction("topstop.adv.category", options=", ".join(o[0] for o in options))
        shown = " ".join("".join(o) for o in options)
        raise BadAction("topstop.adv.letters", level=level, options=shown)
    assert isinstance(given, list)
    adv.variant, cards.variant = list(given), list(given)
    _show_face(adv, face_name(given))
    return list(given)


def open_faces(adv: Advanced, level: str) -> list[str]:
    """The faces of a Level that no card of it has shown since the deck was last made (RULES-NOTES: two
    cards in play never show the same one), in the card's order."""
    cards = [*adv.level_deck, *adv.level_discard, *(c for stack in adv.stacks.values() for c in stack)]
    shown = {face_of(c) for c in cards if level_of(c) == level}
    faces = [face_name(f) for f in FACES[level]]
    return [f for f in faces if f not in shown] or faces


def _show_face(adv: Advanced, face: str) -> None:
    """The card in force shows its face: it carries it from now on, wherever it goes."""
    unshown = adv.playing
    if unshown is None or face_of(unshown) is not None:
        return
    faced = with_face(unshown, face)
    adv.playing = faced
    for stack in adv.stacks.values():
        if unshown in stack:
            stack[stack.index(unshown)] = faced
            return


def _forget_unshown(adv: Advanced) -> None:
    """A card that left play before its first spin shows no face: it goes on as a card without one."""
    unshown = adv.playing
    if unshown is None or not unshown.endswith(UNSHOWN):
        return
    for pile in (*adv.stacks.values(), adv.level_deck, adv.level_discard):
        for i, card in enumerate(pile):
            if card == unshown:
                pile[i] = level_of(card)
    adv.playing = None


def _forget_faces(adv: Advanced) -> None:
    """The Level deck made again from the discards: every card may show any face again."""
    for pile in (*adv.stacks.values(), adv.level_deck, adv.level_discard):
        pile[:] = [level_of(c) if level_of(c) in FACES and c != adv.playing else c for c in pile]


def _choice_args(choice: Choice) -> list[dict[str, Any]]:
    if choice.kind == "target":
        return [{"target": p} for p in choice.options]
    if choice.kind == "take":
        return [{"take": t} for t in choice.options]
    if choice.kind == "letter":
        return [{"letter": letter} for letter in choice.options]
    return [{"peek": True}, {"peek": False}]


def _random_decision(state: TopStopState, rng: random.Random) -> Action | None:
    """A random legal choice for the player the table waits for (RULES-NOTES: an idle spinner)."""
    player = awaited_player(state)
    if player is None:
        return None
    if state.phase == SPIN:
        return {"do": "spin", "player": player}
    options = legal_actions(state, player)
    return dict(rng.choice(options)) if options else None


def _resolve_spin(
    state: TopStopState, action: Action, rng: random.Random, words: CategoryWords | None
) -> Action:
    """A spin's chance outcomes under the Level. Landing on an excluded letter means spinning again, so a
    random spin is uniform over the letters that stand; a forced one may still land on an excluded letter."""
    adv, cards = _adv(state), state.round.cards
    assert cards is not None
    level = cards.level
    filled = dict(action)
    lang, country = state.options.language, state.options.country
    if level in ("I", "II") and "letters" not in filled:
        filled["letters"] = list(adv.variant) if adv.variant else list(rng.choice(open_faces(adv, level)))
    if level == "VII" and "category" not in filled:
        filled["category"] = adv.variant[0] if adv.variant else rng.choice(open_faces(adv, level))
    if level == "I" or filled.get("letter") is not None:
        return filled
    allowed = list(LETTERS)
    if words is not None and level == "II" and isinstance(filled["letters"], list):
        seconds = [s for s in filled["letters"] if isinstance(s, str)]
        allowed = [x for x in LETTERS if combinable(words, lang, x, seconds)]
    elif words is not None and level == "VII" and filled["category"] in CATEGORIES:
        allowed = [x for x in LETTERS if not letter_excluded(words, lang, filled["category"], x, country)]
    filled["letter"] = rng.choice(allowed or list(LETTERS))
    return filled
