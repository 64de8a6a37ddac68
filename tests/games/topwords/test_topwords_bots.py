"""TopWords bot players: the generator finds every legal placement (and nothing else), every level's moves
are accepted by the rules, a bot never peeks, and the levels differ in strength."""

from __future__ import annotations

import hashlib
import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from topwords_helpers import Table

from bot.engine.bots import LEVELS, Level, Seen
from bot.engine.errors import GameError
from bot.engine.game import step
from bot.games.registry import game_info
from bot.games.topwords import TopWords
from bot.games.topwords.bots import PACE, VOTE_PACE, TopWordsBot, placements, policy
from bot.games.topwords.rules import MAX_HEIGHT, SIZE, TILE_COUNTS, score_placement
from bot.games.topwords.state import State
from bot.words.lexicon import Lexicon
from tests.games.topwords.conformance_hooks import perturb_secret

# -- the generator against brute force, on small boards with a small dictionary ----------------------------

ALPHABET = "AEINRS"  # letters the bag holds five or more of, so a random board fits the tile counts


def small_dictionary() -> list[str]:
    """About a third of the strings of two to five letters of ALPHABET, picked by a hash: dense enough that
    most boards have many moves, sparse enough that the search must prune."""
    words = []
    for length in range(2, 6):
        for letters in itertools.product(ALPHABET, repeat=length):
            word = "".join(letters)
            if hashlib.sha256(word.encode()).digest()[0] < 90:
                words.append(word)
    return words


@dataclass(frozen=True)
class Verdict:
    word: str
    valid: bool
    reason: str | None


class ListWords:
    """A words service whose dictionary is a list: the rules and the bot see the same words."""

    def __init__(self, words: list[str]) -> None:
        self.words = frozenset(words)

    def check_tiles(self, tiles: str, lang: str = "de") -> Verdict:
        valid = tiles in self.words
        return Verdict(tiles, valid, None if valid else "not_a_word")

    def lemma_key(self, word: str, lang: str) -> str:
        return word.lower()


WORDS = small_dictionary()
LEXICON = Lexicon(WORDS)


def random_board(rng: random.Random, rack: str) -> list[list[Any]]:
    """A setup board: stacks up to five high (no letter on itself) along a random walk from the centre, or
    the empty board of the first move."""
    if rng.random() < 0.15:
        return []
    pool = {letter: TILE_COUNTS[letter] - rack.count(letter) for letter in ALPHABET}
    stacks: dict[tuple[int, int], str] = {}
    row, col = rng.choice([(4, 4), (5, 5)])
    for _ in range(rng.randint(2, 22)):
        stack = stacks.get((row, col), "")
        choices = [x for x in ALPHABET if pool[x] > 0 and stack[-1:] != x]
        if len(stack) < MAX_HEIGHT and choices:
            letter = rng.choice(choices)
            pool[letter] -= 1
            stacks[row, col] = stack + letter
        if rng.random() < 0.7:  # else stay: stacks grow high
            dr, dc = rng.choice([(0, 1), (1, 0), (0, -1), (-1, 0)])
            row, col = min(SIZE - 1, max(0, row + dr)), min(SIZE - 1, max(0, col + dc))
    return [[r, c, stack] for (r, c), stack in sorted(stacks.items())]


def brute_force(game: TopWords, state: State, player: str) -> set[tuple[tuple[int, int, str], ...]]:
    """Every placement `apply` accepts: every set of squares in one line, every order of rack tiles."""
    rack = state.racks[player]
    accepted = set()
    for count in range(1, len(rack) + 1):
        for line in range(2 * SIZE):
            if count == 1 and line >= SIZE:
                continue  # one square: tried once, from its row
            if line < SIZE:
                squares = [(line, c) for c in range(SIZE)]
            else:
                squares = [(r, line - SIZE) for r in range(SIZE)]
            for chosen in itertools.combinations(squares, count):
                for letters in set(itertools.permutations(rack, count)):
                    tiles = [[r, c, x] for (r, c), x in zip(chosen, letters, strict=True)]
                    try:
                        game.apply(state, {"do": "place", "player": player, "tiles": tiles})
                    except GameError:
                        continue
                    accepted.add(tuple(sorted((r, c, x) for r, c, x in tiles)))
    return accepted


def small_position(seed: int) -> tuple[TopWords, State, list[list[Any]]]:
    """ann to move with one to three tiles, on a random board (its setup returned too)."""
    rng = random.Random(seed)
    rack = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 3)))
    board = random_board(rng, rack)
    game = TopWords(ListWords(WORDS))
    setup = {"first_player": "ann", "racks": {"ann": rack}, "board": board}
    return game, game.new_game({}, ["ann", "bob"], setup, random.Random(seed)), board


SMALL = range(14)


@pytest.mark.parametrize("seed", SMALL)
def test_the_generator_finds_every_placement_brute_force_finds_and_nothing_else(seed):
    game, state, _ = small_position(seed)
    expected = brute_force(game, state, "ann")
    found = placements(state.board, state.racks["ann"], LEXICON)
    assert len(found) == len(set(found))  # each once
    assert {tuple(sorted(tiles)) for tiles in found} == expected


def test_the_brute_force_comparison_covers_stacking_first_moves_and_full_stacks():
    """The boards above reach what the generator must get right (else its test proves little)."""
    seen = {"stacked": 0, "first": 0, "full": 0, "many": 0}
    for seed in SMALL:
        _, state, board = small_position(seed)
        found = placements(state.board, state.racks["ann"], LEXICON)
        seen["first"] += not board
        seen["full"] += any(len(stack) == MAX_HEIGHT for _, _, stack in board)
        seen["stacked"] += any(state.board[r * SIZE + c] for tiles in found for r, c, _ in tiles)
        seen["many"] += len(found) >= 20
    assert seen["first"] and seen["full"] and seen["stacked"] >= 5 and seen["many"] >= 3, seen


def test_every_placement_found_on_a_full_rack_is_legal_and_scored_by_the_rules():
    """With seven tiles brute force is out of reach; every placement found is still one `apply` accepts,
    worth what the rules say."""
    rng = random.Random(99)
    rack = "".join(rng.choice(ALPHABET) for _ in range(7))
    game = TopWords(ListWords(WORDS))
    setup = {"first_player": "ann", "racks": {"ann": rack}, "board": random_board(random.Random(3), rack)}
    state = game.new_game({}, ["ann", "bob"], setup, random.Random(1))
    found = placements(state.board, rack, LEXICON)
    assert len(found) > 100
    for tiles in found:
        applied = game.apply(state, {"do": "place", "player": "ann", "tiles": [list(t) for t in tiles]})
        assert applied.state.history[-1]["points"] == score_placement(state.board, tiles).points


# -- the bots in real games (the real words service) -------------------------------------------------------


@pytest.fixture(scope="module")
def words() -> Any:
    from bot.words import WordService

    return WordService()


def seen_for(game: TopWords, state: State, seat: str) -> Seen:
    return Seen(
        seat,
        game.view_for(state, seat),
        tuple(game.legal_actions(state, seat) or ()),
        game.table_actions(state, seat),
    )


def stray_action(state: State, rng: random.Random) -> dict[str, Any] | None:
    """What a person might do that a bot must then answer: a dispute of the last move or a proposed end
    (to vote on), a made-up word (to challenge)."""
    seated = state.seated
    mover = (state.pending or {}).get("player")
    others = [p for p in seated if p != mover]
    roll = rng.random()
    if mover is not None and not state.pending["settled"] and roll < 0.3:  # type: ignore[index]
        return {"do": "dispute", "player": rng.choice(others)}
    if roll < 0.45 and state.phase == "play":
        player = state.current
        rack = state.racks[player]
        occupied = [i for i, stack in enumerate(state.board) if stack]
        if not occupied or not rack:
            return None
        row, col = divmod(rng.choice(occupied), SIZE)
        letters = rng.sample(rack, k=min(len(rack), 2))
        return {"do": "place", "player": player, "tiles": [[row, col + k, x] for k, x in enumerate(letters)]}
    if roll < 0.5 and state.phase == "play":
        return {"do": "propose_end", "player": rng.choice(seated)}
    return None


def playout(
    words: Any, seed: int, players: int, mode: str, actions: int
) -> Iterator[tuple[TopWords, State, int]]:
    """The states of a real game (bots of every level, and now and then a person's stray action), with the
    number of actions so far, for the tests to ask each bot about."""
    game = TopWords(words)
    names = ["ann", "bob", "cat", "dan"][:players]
    state = game.new_game({"mode": mode}, names, {}, random.Random(seed))
    rng = random.Random(seed)
    bots = {name: policy(LEVELS[(seed + k) % 3], words) for k, name in enumerate(names)}
    version = 0
    while state.phase != "over" and version < actions:
        yield game, state, version
        action: dict[str, Any] | None = None
        if state.phase == "final_challenge":
            action = {"do": "close_challenge"}
        elif state.phase == "vote" and rng.random() < 0.2:
            action = {"do": "close_vote"}
        elif rng.random() < 0.3:
            action = stray_action(state, rng)
        if action is None:
            for name in names:
                move = bots[name].choose(seen_for(game, state, name), random.Random(version))
                if move is not None:
                    action = move.action
                    break
        if action is None:
            action = (
                {"do": "close_vote"} if state.phase == "vote" else {"do": "pass", "player": state.current}
            )
        try:
            state = step(game, state, seed, version, action)[1].state
        except GameError:
            continue  # a stray action the rules refuse
        version += 1


def test_every_action_every_level_chooses_is_accepted_by_the_rules(words):
    """Over real games (bots, and a person's stray actions), each level's choice for each seat is accepted;
    between them they place, pass or swap, challenge, and vote both ways."""
    kinds: set[tuple[str, Any]] = set()
    for seed, players, mode in [(1, 2, "strict"), (2, 3, "challenge"), (3, 2, "challenge"), (4, 4, "strict")]:
        for game, state, version in playout(words, seed, players, mode, actions=40):
            for seat in state.seated:
                for level in LEVELS:
                    move = policy(level, words).choose(seen_for(game, state, seat), random.Random(version))
                    if move is None:
                        continue
                    low, high = PACE[level] if move.action["do"] in ("place", "pass") else VOTE_PACE
                    assert low <= move.delay <= high
                    step(game, state, seed, version, move.action)  # raises if the rules refuse it
                    kinds.add((move.action["do"], move.action.get("accept")))
    assert {("place", None), ("challenge", None), ("vote", True), ("vote", False)} <= kinds, kinds


def test_hard_challenges_a_refused_word_and_easy_never_does(words):
    table = Table(
        words=words,
        mode="challenge",
        setup={"first_player": "ann", "racks": {"ann": "QXZTEIN", "bob": "EINSTAR"}},
    )
    table.place("ann", [[4, 4, "Q"], [4, 5, "X"], [4, 6, "Z"]])  # unchecked in challenge mode
    game, state = table.game, table.state
    hard = policy(Level.HARD, words).choose(seen_for(game, state, "bob"), random.Random(0))
    assert hard is not None and hard.action == {"do": "challenge", "player": "bob"}
    easy = policy(Level.EASY, words).choose(seen_for(game, state, "bob"), random.Random(0))
    assert easy is None or easy.action["do"] != "challenge"


def test_with_no_move_a_bot_swaps_or_passes(words):
    """A rack no German word can be made of, on an empty board: a swap while the bag has tiles."""
    table = Table(words=words, setup={"first_player": "ann", "racks": {"ann": "QXY", "bob": "EINSTAR"}})
    move = policy(Level.HARD, words).choose(seen_for(table.game, table.state, "ann"), random.Random(0))
    assert move is not None and move.action["do"] == "pass" and move.action["swap"] == "Q"


def test_no_bot_peeks_at_another_players_rack(words):
    """perturb_secret changes another player's rack (and the bag behind it): every level decides the same."""
    compared = 0
    for seed, players, mode in [(6, 2, "strict"), (7, 3, "challenge")]:
        for game, state, version in playout(words, seed, players, mode, actions=30):
            for seat in state.seated:
                for other in [p for p in state.seated if p != seat][:1]:
                    perturbed = perturb_secret(game, state, other, random.Random(version))
                    if perturbed is None:
                        continue
                    changed = perturbed[0]
                    assert changed.racks[other] != state.racks[other] or changed.bag != state.bag
                    for level in LEVELS:
                        bot = policy(level, words)
                        before = bot.choose(seen_for(game, state, seat), random.Random(version))
                        after = bot.choose(seen_for(game, changed, seat), random.Random(version))
                        assert before == after
                        compared += before is not None
    assert compared > 20


def test_the_levels_differ_hard_scores_most_then_medium_then_easy(words):
    points: dict[Level, list[int]] = {level: [] for level in LEVELS}
    positions = 0
    for game, state, version in playout(words, 8, 2, "strict", actions=40):
        if state.phase != "play" or state.moves < 2:
            continue
        seat = state.current
        seen = seen_for(game, state, seat)
        positions += 1
        for level in LEVELS:
            move = policy(level, words).choose(seen, random.Random(version))
            assert move is not None
            tiles = move.action.get("tiles")
            points[level].append(
                score_placement(state.board, [tuple(t) for t in tiles]).points if tiles else 0
            )
    mean = {level: sum(p) / len(p) for level, p in points.items()}
    assert positions >= 20
    assert mean[Level.HARD] > mean[Level.MEDIUM] > mean[Level.EASY], mean


def test_the_game_declares_its_bots():
    info = game_info("topwords")
    assert info.bots is not None
    bot = info.bots(Level.MEDIUM, None)
    assert isinstance(bot, TopWordsBot) and bot.level is Level.MEDIUM


def test_the_game_warms_the_lexicon_every_bot_then_shares(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    # Read once at start-up (GameInfo.warm, before the bot goes online), never by the first bot to move in play.
    from bot.words import lexicon as lexicons

    reads: list[str] = []
    built = Lexicon(["AB"], ["AB"])

    def read(path: str, alphabet: frozenset[str], longest: int) -> Lexicon:
        reads.append(path)
        return built

    monkeypatch.setattr(lexicons, "_read", read)
    table = type("Table", (), {"path": tmp_path / "de.sqlite"})()
    words = type("Words", (), {"table": lambda self, lang: table})()
    warm = game_info("topwords").warm
    assert warm is not None
    warm(words)
    assert reads == [str(table.path)]
    assert all(policy(level, words)._lexicon() is built for level in LEVELS) and len(reads) == 1


async def test_the_bot_warms_each_games_words_before_it_goes_online() -> None:
    # The app's warm-up (awaited before the bot is ready) runs every game's `warm` with the words service.
    from types import SimpleNamespace

    from bot.app import TopBot

    warmed: list[Any] = []
    words = SimpleNamespace(languages=(), table=lambda lang: None, warm=lambda lang: None)
    infos = [SimpleNamespace(name="topwords", warm=warmed.append), SimpleNamespace(name="topple", warm=None)]
    await TopBot._warm_words(SimpleNamespace(words=words, game_infos=infos))  # type: ignore[arg-type]
    assert warmed == [words]
