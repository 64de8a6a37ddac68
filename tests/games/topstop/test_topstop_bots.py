"""Top Stop's bot players (bot/games/topstop/bots.py), with the real words service: every action they choose
is accepted by the rules, they never read another player's unrevealed words, and the levels differ."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from bench.bench_bots_topstop import play
from bot.engine.bots import LEVELS, Level, Move, Seen
from bot.engine.errors import GameError
from bot.engine.game import Game, step
from bot.games.registry import game_info
from bot.games.topstop import TopStop
from bot.games.topstop.bots import DESCRIPTIONS, STYLES, Vocabulary, make_bot
from bot.games.topstop.cards import CATEGORIES
from bot.i18n import t
from bot.words import WordService
from tests.games.topstop.conformance_hooks import perturb_secret

BOTS = ("bot1", "bot2")
PERSON = "ann"  # a seat played at random (the rules' own sampled lists, random disputes and votes)


@pytest.fixture(scope="module")
def words() -> WordService:
    return WordService()


@pytest.fixture(scope="module")
def game(words: WordService) -> TopStop:
    """One rules object for the module: its sampled lists (`sample_action`) are read once."""
    return TopStop(words)


def seen(game: Game, state: Any, seat: str) -> Seen:
    legal = game.legal_actions(state, seat) or []
    return Seen(seat, game.view_for(state, seat), tuple(legal), game.table_actions(state, seat))


def person_action(game: TopStop, state: Any, rng: random.Random) -> dict[str, Any] | None:
    """What the random seat does now: a sampled list while writing, else any of its legal actions (never
    leaving or ending the game)."""
    sampled = game.sample_action(state, PERSON, rng) if rng.random() < 0.5 else None
    if sampled is not None:
        return sampled
    legal = [a for a in game.legal_actions(state, PERSON) or [] if a["do"] not in ("leave", "end", "submit")]
    return dict(rng.choice(legal)) if legal else None


def playout(
    game: TopStop, words: WordService, options: dict[str, Any], seed: int, steps: int
) -> Iterator[tuple[Any, int]]:
    """The states of a seeded game of two bots (of random levels) and a random player: each step is a
    bot's move, the random player's action or a timer's, chosen at random."""
    rng = random.Random(seed)
    levels = {seat: rng.choice(LEVELS) for seat in BOTS}
    state = game.new_game(options, [PERSON, *BOTS], {}, rng)
    for version in range(steps):
        if state.phase == "over":
            return
        yield state, version
        candidates: list[dict[str, Any]] = [timer.action for timer in game.timers(state)]
        for seat, level in levels.items():
            move = make_bot(level, words).choose(seen(game, state, seat), random.Random(rng.random()))
            if move is not None:
                candidates += [move.action] * 3  # bots mostly get there before the timers
        if (action := person_action(game, state, rng)) is not None:
            candidates.append(action)
        try:
            state = step(game, state, seed, version, rng.choice(candidates))[1].state
        except GameError:
            continue  # the random player's action may be refused; the table stays as it was


OPTIONS = [
    {"language": lang, "mode": mode, "target": 30, "writing_time": 60}
    for lang in ("en", "fr", "de")
    for mode in ("base", "advanced")
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: f"{o['language']}-{o['mode']}")
def test_every_action_a_bot_chooses_is_accepted(
    game: TopStop, words: WordService, options: dict[str, Any]
) -> None:
    chosen: Counter[str] = Counter()
    for seed in range(3):
        for state, version in playout(game, words, options, seed, 150):
            for seat in BOTS:
                looked = seen(game, state, seat)
                for level in LEVELS:
                    move = make_bot(level, words).choose(looked, random.Random(version))
                    if move is None:
                        continue
                    assert 0 < move.delay < 120, move
                    assert move.action["player"] == seat
                    assert move.action["do"] not in ("leave", "end")
                    assert not (level == Level.EASY and move.action["do"] == "dispute")
                    step(game, state, seed, version, move.action)  # raises if the rules refuse it
                    chosen[move.action["do"]] += 1
    assert {"spin", "submit", "stop", "vote", "review_done"} <= set(chosen), chosen
    if options["mode"] == "advanced":
        assert {"draw", "choose"} <= set(chosen), chosen


@pytest.mark.parametrize("lang", ["en", "fr", "de"])
def test_no_peeking_at_another_players_words(game: TopStop, words: WordService, lang: str) -> None:
    """A state that differs only in another player's unrevealed words: every level makes the same move."""
    compared = 0
    for seed in range(3):
        options = {"language": lang, "mode": ("base", "advanced")[seed % 2], "target": 30}
        for state, version in playout(game, words, options, 100 + seed, 120):
            for seat in BOTS:
                for owner in (PERSON, *BOTS):
                    if owner == seat:
                        continue
                    perturbed = perturb_secret(game, state, owner, random.Random(version))
                    if perturbed is None:
                        continue
                    changed = perturbed[0]
                    looked, looked_changed = seen(game, state, seat), seen(game, changed, seat)
                    for level in LEVELS:
                        bot = make_bot(level, words)
                        before = bot.choose(looked, random.Random(version))
                        after = bot.choose(looked_changed, random.Random(version))
                        assert before == after, (level, seat, owner)
                        compared += 1
    assert compared > 50


def write_round(
    game: TopStop, state: Any, seats: dict[str, Level], words: WordService, rng: random.Random
) -> Any:
    """Every seat writes until it has nothing more to write, then writing closes: the judged state."""
    for _ in range(20):
        moved = False
        for seat, level in seats.items():
            move = make_bot(level, words).choose(seen(game, state, seat), rng)
            if move is not None and move.action["do"] == "submit":
                state = step(game, state, 0, 0, move.action)[1].state
                moved = True
        if not moved:
            break
    return step(game, state, 0, 0, {"do": "end_writing"})[1].state


def test_hard_writes_valid_rarer_words_than_easy(game: TopStop, words: WordService) -> None:
    """On the same rounds (language, letter, words revealed before), two bots of one level writing against
    each other: hard's words are valid (judged by the rules with the words service) far more often, and far
    less often crossed out as common, written by the other too; and fewer of them are among the commonest
    words of the service's lists, which the rules' own sampled players write (`TopStop.sample_action`)."""
    figures: dict[Level, Counter[str]] = {level: Counter() for level in LEVELS}
    letters = "ABCDEFGHILMNOPRSTV"
    for index in range(36):
        lang = ("en", "fr", "de")[index % 3]
        letter = letters[index % len(letters)]
        heads = {w for w in Vocabulary(words).ranked(lang, "verbs", letter.lower())[:12]}
        for level in LEVELS:
            seats = {"bot1": level, "bot2": level}
            state = game.new_game(
                {"language": lang}, list(seats), {"first_player": "bot1"}, random.Random(index)
            )
            state = step(game, state, 0, 0, {"do": "spin", "player": "bot1", "letter": letter})[1].state
            judged = write_round(game, state, seats, words, random.Random(index))
            for entries in judged.round.lists.values():
                for entry in entries:
                    counted = figures[level]
                    counted["written"] += 1
                    counted["valid"] += entry.valid
                    counted["common"] += entry.reason == "common"
                    counted["head"] += entry.word in heads
                    counted["own"] += not words.check(entry.word, lang).valid
    share = {level: {k: v / figures[level]["written"] for k, v in figures[level].items()} for level in LEVELS}
    easy, medium, hard = share[Level.EASY], share[Level.MEDIUM], share[Level.HARD]
    assert hard["valid"] > 0.9 and easy["valid"] < 0.75, share
    assert easy["valid"] < medium["valid"] < hard["valid"], share
    assert hard["common"] < easy["common"] / 3, share
    assert hard["head"] < easy["head"] / 3, share
    assert hard["own"] == 0 < easy["own"], share  # easy's slips: names the service refuses
    # Easy writes fewer words than the others.
    assert figures[Level.EASY]["written"] < figures[Level.MEDIUM]["written"] <= figures[Level.HARD]["written"]


def review(words: WordService, ann: list[str], bot: list[str], letter: str = "B") -> tuple[TopStop, Any]:
    game = TopStop(words)
    state = game.new_game({"language": "en"}, ["ann", "bot"], {"first_player": "ann"}, random.Random(1))
    for action in (
        {"do": "spin", "player": "ann", "letter": letter},
        {"do": "submit", "player": "ann", "words": ann},
        {"do": "submit", "player": "bot", "words": bot},
        {"do": "end_writing"},
    ):
        state = step(game, state, 0, 0, action)[1].state
    return game, state


def vote_on(words: WordService, game: TopStop, state: Any, disputer: str, of: str, word: str) -> bool:
    state = step(game, state, 0, 0, {"do": "dispute", "player": disputer, "of": of, "word": word})[1].state
    voter = "bot" if disputer == "ann" else "ann"
    move = make_bot(Level.HARD, words).choose(seen(game, state, voter), random.Random(0))
    assert move is not None and move.action["do"] == "vote"
    step(game, state, 0, 0, move.action)
    return bool(move.action["accept"])


def test_votes_follow_the_words_service(words: WordService) -> None:
    game, state = review(words, ["bake", "bxqzt", "barter"], ["bake", "bicker"])
    assert vote_on(words, game, state, "ann", "ann", "bxqzt") is False  # not a word: the service says no
    assert vote_on(words, game, state, "ann", "bot", "bicker") is True  # a word the service accepts
    assert vote_on(words, game, state, "ann", "ann", "bake") is False  # common: the round's matter stands


def reviewing_bicker(words: WordService) -> tuple[TopStop, Any]:
    """Round one on B in review: the bot wrote `bicker`, which a server's earlier vote refused (voted_out)."""
    game = TopStop(words)
    server = {"bicker": {"valid": False, "day": "2026-01-01"}}
    state = game.new_game(
        {"language": "en"}, ["ann", "bot"], {"first_player": "ann", "server_words": server}, random.Random(1)
    )
    for action in (
        {"do": "spin", "player": "ann", "letter": "B"},
        {"do": "submit", "player": "ann", "words": ["barter"]},
        {"do": "submit", "player": "bot", "words": ["bicker"]},
        {"do": "end_writing"},
    ):
        state = step(game, state, 0, 0, action)[1].state
    return game, state


def test_easy_never_disputes_and_hard_defends_its_word(words: WordService) -> None:
    """A server's earlier vote refused `bicker` (voted_out): hard and medium dispute their own word, since
    the words service accepts it; easy never disputes: it says at once it has nothing to dispute."""
    game, state = reviewing_bicker(words)
    looked = seen(game, state, "bot")
    easy = make_bot(Level.EASY, words).choose(looked, random.Random(0))
    assert isinstance(easy, Move) and easy.action["do"] == "review_done"
    for level in (Level.MEDIUM, Level.HARD):
        move = make_bot(level, words).choose(looked, random.Random(0))
        assert isinstance(move, Move) and move.action["do"] == "dispute"
        assert (move.action["of"], move.action["word"]) == ("bot", "bicker")


def test_a_bot_says_it_has_nothing_to_dispute_once_its_disputes_are_made(words: WordService) -> None:
    """Hard disputes the word it wants to first; after the vote (which clears every mark) it has nothing
    more to dispute and says so, at its pace for a click, carrying the review window it saw."""
    game, state = reviewing_bicker(words)
    bot = make_bot(Level.HARD, words)
    move = bot.choose(seen(game, state, "bot"), random.Random(0))
    assert move is not None and move.action["do"] == "dispute" and move.action["word"] == "bicker"
    state = step(game, state, 0, 0, move.action)[1].state
    state = step(game, state, 0, 0, {"do": "vote", "player": "ann", "accept": False})[1].state
    assert state.phase == "review" and state.round.dispute is None
    state = step(game, state, 0, 0, {"do": "review_done", "player": "ann"})[1].state
    move = bot.choose(seen(game, state, "bot"), random.Random(0))
    assert move is not None and move.action == {
        "do": "review_done", "player": "bot", **game.freshness(state)
    }  # fmt: skip
    assert 1.0 <= move.delay <= 2.5  # hard's pace for a click (STYLES: act_seconds)
    applied = step(game, state, 0, 0, move.action)[1]
    assert applied.state.phase == "spin"  # the last one of the round: scored at once
    after = bot.choose(seen(game, applied.state, "bot"), random.Random(0))
    assert after is not None and after.action["do"] == "spin"  # round 2: the bot's spin


def test_an_end_vote_is_no_while_the_game_goes_on(words: WordService) -> None:
    game, state = review(words, ["bake"], ["bicker"])
    assert make_bot(Level.HARD, words).end_vote(seen(game, state, "bot")) is False
    state = step(game, state, 0, 0, {"do": "end", "player": "ann"})[1].state
    assert make_bot(Level.EASY, words).end_vote(seen(game, state, "bot")) is True


def test_declared_with_a_description_per_level(words: WordService) -> None:
    info = game_info("topstop")
    assert info.bots is make_bot
    for level in LEVELS:
        assert info.bots(level, words).level == level
        texts = {t(DESCRIPTIONS[level], lang) for lang in ("en", "fr", "de")}
        assert len(texts) == 3 and DESCRIPTIONS[level] not in texts


def test_warm_reads_every_list_a_bot_reads_in_every_language(words: WordService) -> None:
    """The table layer warms a policy in a worker thread: after it, no choice reads a list for the first time
    (a Level VII card's other name countries apart)."""
    vocabulary = Vocabulary(words)  # a fresh one: the shared one may have read lists already
    bot = make_bot(Level.HARD, words)
    bot.vocabulary = vocabulary
    bot.warm()
    assert set(vocabulary._entries) == {
        (lang, category, None) for lang in ("en", "fr", "de") for category in CATEGORIES
    }


def stopped_by_ann(words: WordService, grace: float) -> tuple[TopStop, Any]:
    """Round one on B: the bot has saved two words, then ann (full list) calls STOP."""
    game = TopStop(words)
    state = game.new_game(
        {"language": "en", "grace": grace}, ["ann", "bot"], {"first_player": "ann"}, random.Random(1)
    )
    for action in (
        {"do": "spin", "player": "ann", "letter": "B"},
        {"do": "submit", "player": "bot", "words": ["bicker", "barter"]},
        {"do": "submit", "player": "ann", "words": ["bake", "bind", "blend", "boil", "brew"]},
        {"do": "stop", "player": "ann"},
    ):
        state = step(game, state, 0, 0, action)[1].state
    return game, state


@pytest.mark.parametrize("level", LEVELS)
def test_after_a_stop_a_bot_writes_only_what_its_pace_fits_in_the_grace(
    words: WordService, level: Level
) -> None:
    """In game seconds, whatever BOT_PACE makes of its wait: with a grace shorter than one of its words it
    writes nothing more; with a longer one, the words its pace fits, at that pace."""
    game, state = stopped_by_ann(words, grace=1)
    assert make_bot(level, words).choose(seen(game, state, "bot"), random.Random(0)) is None
    game, state = stopped_by_ann(words, grace=30)
    move = make_bot(level, words).choose(seen(game, state, "bot"), random.Random(0))
    assert move is not None and move.action["do"] == "submit"
    style = STYLES[level]
    fits = int(30 // (sum(style.word_seconds) / 2))
    added = len(move.action["words"]) - 2
    assert 1 <= added <= fits
    assert added * style.word_seconds[0] <= move.delay <= added * style.word_seconds[1]


def test_out_of_words_on_a_poor_letter_a_bot_calls_stop_once_its_list_is_worth_the_penalty(
    words: WordService,
) -> None:
    """French W: two verbs in the service's list. Hard writes both, then calls STOP rather than keep the
    table waiting for the round time limit; with a penalty that would eat its list, it waits."""
    game = TopStop(words)
    state = game.new_game({"language": "fr"}, ["ann", "bot"], {"first_player": "ann"}, random.Random(1))
    state = step(game, state, 0, 0, {"do": "spin", "player": "ann", "letter": "W"})[1].state
    bot = make_bot(Level.HARD, words)
    moves = []
    for version in range(5):
        move = bot.choose(seen(game, state, "bot"), random.Random(version))
        assert move is not None
        moves.append(move.action["do"])
        state = step(game, state, 0, version, move.action)[1].state
        if move.action["do"] == "stop":
            break
    assert moves == ["submit", "stop"] and len(state.round.submissions["bot"]) == 2
    # The same list with two STOP penalties taken before: a third would cost 3, more than its 2 words.
    game = TopStop(words)
    state = game.new_game({"language": "fr"}, ["ann", "bot"], {"first_player": "ann"}, random.Random(1))
    state.penalties["bot"] = 2
    state = step(game, state, 0, 0, {"do": "spin", "player": "ann", "letter": "W"})[1].state
    state = step(game, state, 0, 1, {"do": "submit", "player": "bot", "words": ["warranter", "wolophiser"]})[
        1
    ].state
    assert bot.choose(seen(game, state, "bot"), random.Random(0)) is None


def test_two_hard_bots_do_not_tie_round_after_round(words: WordService) -> None:
    """A perfect list at every round made two hard bots tie at every round, through tiebreak after tiebreak
    (22 rounds on average, up to 73, for a target 10 full rounds away): one round in five hard is one word
    short, so their games end near the target's own pace, in every language."""
    game = TopStop(words)
    lengths = []
    for index in range(12):
        bots = {seat: make_bot(Level.HARD, words) for seat in ("p1", "p2")}
        state = play(game, {"language": ("en", "fr", "de")[index % 3]}, bots, seed=index)
        assert state.phase == "over" and len(state.winners) == 1
        lengths.append(len(game.view_for(state, None)["history"]))
    assert max(lengths) <= 25 and sum(lengths) / len(lengths) <= 16
