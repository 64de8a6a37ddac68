"""Top Stop's bot players (bot/engine/bots.py): they write words from the words service's own lists.

A bot reads only its seat's view: the letter, the Level card in force, its own words (`your_words`), the
public table (scores, Level-card counts, held cards) and the revealed history. Its words come from the
service's category lists (`category_words`: the language's verbs, and under Level VII the category's own
list), ranked from common to rare by length (the service has no frequency list, and people think of short
everyday words first), filtered by the Level's rule as the rules judge it (`levels.breaks_level`).

- easy draws a few words from the commonest ten of the letter, so it often writes what others write (crossed
  out as common), never checks them, forgets earlier rounds (duplicates) and now and then writes a name
  (a proper noun, crossed out); it writes slowly and often stops short of a full list.
- medium draws from the commonest forty, checks each word with the words service, remembers the last three
  rounds and fills its list most of the time.
- hard leaves the commonest words to the others, writes only words the service accepts, never a variant of a
  word revealed earlier, fills its list four rounds in five (one word short in the fifth: a perfect hand at
  every round made two hard bots tie round after round, tiebreak after tiebreak) and calls STOP fast.

In the review a bot makes the disputes its level wants, then says it has nothing (more) to dispute
(`review_done`), at its pace for a click; after a vote it looks again, as everyone's marks are cleared.

A list is saved two words at a time (one `submit` holds the whole list, as the writing form does), so a
STOP called meanwhile costs a bot only the words it had not saved yet; after a STOP it writes only the
words its pace fits in the grace period (none when one word takes longer than the grace). Out of words on a
poor letter, it calls STOP once its short list is worth the penalty, rather than wait out the time limit. Every action carries the view's freshness, so one made for a round, a letter
or a vote that has moved on is refused as stale.
"""

from __future__ import annotations

import random
import weakref
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from bot.engine.bots import Level, Move, Seen, of_kind
from bot.engine.game import Action
from bot.games.topstop.cards import CATEGORIES
from bot.games.topstop.game import LANGUAGES
from bot.games.topstop.levels import LevelRule, breaks_level
from bot.i18n import N_
from bot.words.text import fold

# The lobby's description of each level (bot/ui's "Add a bot" select).
DESCRIPTIONS = {
    Level.EASY: N_("topstop.bots.easy"),
    Level.MEDIUM: N_("topstop.bots.medium"),
    Level.HARD: N_("topstop.bots.hard"),
}

CHUNK = 2  # words written between two saves of the list
MAX_RESPINS = 3  # re-spins of one round a bot asks for at most
# Verdicts that judge the word itself (the words service's matter): the others (common, duplicate, variant,
# wrong_letter, level, category) are the round's, and a bot votes to keep them.
DICTIONARY_MATTERS = frozenset({None, "not_a_word", "proper_noun", "abbreviation", "voted_out"})
NAME_CATEGORIES = ("first_names", "countries", "brands")
# Cards that hurt the player they name, and cards that give the player they name points.
HARMFUL = frozenset({"force_sit_out", "steal_level", "steal_3", "steal_5"})
GENEROUS = frozenset({"give_3", "give_5", "support_7"})


@dataclass(frozen=True)
class Style:
    """How one level plays."""

    head: int | None  # it draws from this many of the commonest candidates (None: all of them)
    skip: int  # the commonest candidates it leaves to the others while it has other words
    missing: tuple[int, ...]  # words short of a full list, one drawn per round (stable within it)
    slip: float  # chance that a word is a slip: a name, which the rules cross out
    checks: bool  # asks the words service before writing a word
    memory: int | None  # earlier rounds whose words it avoids (None: every round)
    word_seconds: tuple[float, float]  # writing one word
    stop_seconds: tuple[float, float]  # from a full list to STOP
    act_seconds: tuple[float, float]  # a spin, a card, a vote
    disputes: bool
    level_share: float  # how often it draws a Level card in The Draw
    plays_cards: bool  # names the leader with a harmful card, the last with a generous one


STYLES = {
    Level.EASY: Style(
        head=10,
        skip=0,
        missing=(0, 1, 1, 2),
        slip=0.2,
        checks=False,
        memory=0,
        word_seconds=(7.0, 12.0),
        stop_seconds=(3.0, 6.0),
        act_seconds=(2.5, 5.0),
        disputes=False,
        level_share=0.5,
        plays_cards=False,
    ),
    Level.MEDIUM: Style(
        head=40,
        skip=0,
        missing=(0, 0, 0, 1),
        slip=0.05,
        checks=True,
        memory=3,
        word_seconds=(5.0, 9.0),
        stop_seconds=(1.5, 3.5),
        act_seconds=(1.5, 3.5),
        disputes=True,
        level_share=0.75,
        plays_cards=True,
    ),
    Level.HARD: Style(
        head=None,
        skip=15,
        missing=(0, 0, 0, 0, 1),
        slip=0.0,
        checks=True,
        memory=None,
        word_seconds=(3.0, 5.0),
        stop_seconds=(0.8, 1.8),
        act_seconds=(1.0, 2.5),
        disputes=True,
        level_share=1.0,
        plays_cards=True,
    ),
}


@dataclass(frozen=True)
class Rule:
    """What a word must be this round, as the seat's view tells it."""

    lang: str
    letter: str
    level: str | None = None
    second: str | None = None
    category: str | None = None  # Level VII
    country: str | None = None  # Level VII first names

    def level_rule(self) -> LevelRule:
        return LevelRule(self.level, self.letter, self.second, self.category, self.country)


class Vocabulary:
    """The words service's lists as a bot uses them: ranked, filtered by a Level's rule, and the service's
    verdicts, remembered (the same for every bot of a process: pure functions of the service)."""

    def __init__(self, words: Any) -> None:
        self.words = words
        self._entries: dict[tuple[str, str, str | None], tuple[tuple[str, str], ...]] = {}
        self._ranked: dict[tuple[str, str, str, str | None], tuple[str, ...]] = {}
        self._pools: dict[tuple[Rule, int], tuple[str, ...]] = {}
        self._valid: dict[tuple[str, str, str | None, str | None], bool] = {}

    def entries(self, lang: str, category: str, country: str | None = None) -> tuple[tuple[str, str], ...]:
        """A whole list's playable entries as (normalised, folded), shortest (commonest) first: read once,
        since the service scans the list for every prefix it is asked."""
        key = (lang, category, country)
        found = self._entries.get(key)
        if found is None:
            listed = self.words.category_words(lang, category, "", country=country)
            words = dict.fromkeys(self.words.normalise(e) for e in listed)
            ranked = sorted((w for w in words if w.isalpha()), key=len)
            found = self._entries[key] = tuple((w, fold(w)) for w in ranked)
        return found

    def warm(self) -> None:
        """Every list a bot may read, in every language (a tenth of a second or so each): read now, in the
        table layer's worker thread, rather than inside a choice that may run on the event loop. A Level VII
        card's other name countries are read when first asked."""
        for lang in LANGUAGES:
            for category in CATEGORIES:
                self.entries(lang, category)

    def ranked(self, lang: str, category: str, letters: str, country: str | None = None) -> tuple[str, ...]:
        """The list's playable entries that begin with these letters (accents ignored), commonest first."""
        key = (lang, category, letters, country)
        found = self._ranked.get(key)
        if found is None:
            prefix = fold(letters)
            entries = self.entries(lang, category, country)
            found = self._ranked[key] = tuple(w for w, folded in entries if folded.startswith(prefix))
        return found

    def pool(self, rule: Rule, slot: int = 1) -> tuple[str, ...]:
        """The candidates for a word of `slot` (Level X's staircase counts slots) under the rule."""
        key = (rule, slot if rule.level == "X" else 1)
        found = self._pools.get(key)
        if found is None:
            found = self._pools[key] = self._build_pool(rule, slot)
        return found

    def _build_pool(self, rule: Rule, slot: int) -> tuple[str, ...]:
        letter = fold(rule.letter)
        if rule.level == "VII" and rule.category in NAME_CATEGORIES:
            return self.ranked(rule.lang, rule.category, letter, rule.country)
        if rule.level in ("V", "VI", "X"):
            # The target letter's place is the Level's own rule (levels.breaks_level, on folded words):
            # any verb may do.
            verbs = self.entries(rule.lang, "verbs")
            if rule.level == "V":
                return tuple(w for w, folded in verbs if letter not in folded)
            if rule.level == "VI":
                return tuple(w for w, folded in verbs if folded.endswith(letter))
            return tuple(w for w, folded in verbs if folded[slot - 1 : slot] == letter)
        prefix = letter + fold(rule.second) if rule.level == "II" and rule.second else letter
        judged = rule.level_rule()
        return tuple(w for w in self.ranked(rule.lang, "verbs", prefix) if not breaks_level(w, slot, judged))

    def slips(self, rule: Rule) -> tuple[str, ...]:
        """Names on the letter: what a hasty player writes, and the rules cross out (a proper noun, or a
        name of another category under Level VII)."""
        letter = rule.letter.lower()
        kinds = (
            [c for c in NAME_CATEGORIES if c != rule.category] if rule.level == "VII" else NAME_CATEGORIES[:2]
        )
        return tuple(w for kind in kinds for w in self.ranked(rule.lang, kind, letter, rule.country)[:10])

    def valid(self, word: str, rule: Rule) -> bool:
        """The words service's verdict on the word (a Level VII name category: its list decides)."""
        category = rule.category if rule.level == "VII" else None
        key = (word, rule.lang, category, rule.country)
        found = self._valid.get(key)
        if found is None:
            found = self._valid[key] = self._judge(word, rule)
        return found

    def _judge(self, word: str, rule: Rule) -> bool:
        if not word.isalpha():
            return False
        if rule.level == "VII" and rule.category is not None:
            inside = bool(self.words.in_category(word, rule.lang, rule.category, country=rule.country))
            if rule.category in NAME_CATEGORIES:
                return inside
            if not inside:
                return False
        return bool(self.words.check(word, rule.lang).valid)

    def lemmas(self, word: str, lang: str) -> frozenset[str]:
        """As the rules compare words: the word and its lemmas (rules 5-8)."""
        if not word.isalpha():
            return frozenset({word})
        return frozenset(self.words.lemmas(word, lang)) | {word}


_VOCABULARIES: weakref.WeakKeyDictionary[Any, Vocabulary] = weakref.WeakKeyDictionary()


def vocabulary(words: Any) -> Vocabulary:
    found = _VOCABULARIES.get(words)
    if found is None:
        found = _VOCABULARIES[words] = Vocabulary(words)
    return found


class TopStopBot:
    """One seat's play at one level (bot.engine.bots.Policy)."""

    def __init__(self, level: Level, words: Any) -> None:
        self.level = level
        self.style = STYLES[level]
        self.vocabulary = vocabulary(words) if words is not None else None

    def warm(self) -> None:
        """The word lists its choices read (bot.engine.bots.Policy: called in a worker thread)."""
        if self.vocabulary is not None:
            self.vocabulary.warm()

    def choose(self, seen: Seen, rng: random.Random) -> Move | None:
        view, names = seen.view, {action.get("do") for action in seen.legal}
        fresh = dict(view.get("freshness") or {})
        move: tuple[Action, float] | None = None
        if "vote" in names:
            move = self._vote(seen, rng)
        elif "choose" in names:
            move = self._choose(seen, rng)
        elif "draw" in names:
            # A Level card joins its drawer's cards: three make a set, worth 5 points.
            level = rng.random() < self.style.level_share
            draws = of_kind(seen.legal, "draw")
            move = next((a for a in draws if a["level"] == level), draws[0]), self._act(rng)
        elif "spin" in names:
            move = of_kind(seen.legal, "spin")[0], self._act(rng)
        elif names & {"submit", "stop", "respin"} and view["phase"] == "writing":
            move = self._write(seen, rng)
        elif names & {"dispute", "review_done"}:
            move = self._review(seen, rng)
        if move is None:
            return None
        action, delay = move
        return Move({**action, **fresh}, delay)

    def end_vote(self, seen: Seen) -> bool:
        """A vote to end the game: yes only when it cannot go on (over, or fewer than two players left)."""
        view = seen.view
        seated = [p for p in view["players"] if p not in view["left"]]
        return bool(view["finished"]) or len(seated) < 2

    # -- writing -------------------------------------------------------------------------------------------

    def _write(self, seen: Seen, rng: random.Random) -> tuple[Action, float] | None:
        view, seat = seen.view, seen.seat
        current = view["round"]
        legal = {action["do"]: action for action in seen.legal}
        written = list(current.get("your_words") or [])
        filled = [w for w in written if w]
        required = _required(view, seat)
        if len(filled) >= required:
            return (legal["stop"], self._seconds(rng, self.style.stop_seconds)) if "stop" in legal else None
        target = required - (self._missing(seat, current["number"], filled[0]) if filled else 0)
        rule = _rule(view)
        if len(filled) >= target or rule is None or self.vocabulary is None or "submit" not in legal:
            return None
        stopped = current["stopped_by"] is not None
        grace = float(view["options"]["grace"])
        per_word = sum(self.style.word_seconds) / 2
        # After a STOP: only the words its pace fits in the grace period, in game seconds (BOT_PACE scales
        # the wait, not the grace); none when a word takes longer, as a person's half-written word is lost.
        count = int(grace // per_word) if stopped else CHUNK
        if count == 0:
            return None
        new, added = self._extend(written, min(count, target - len(filled)), required, rule, view, rng)
        if not added:
            # Nothing to write on this letter: ask for another (a few times a round: a re-spin keeps the
            # Level, whose rule may leave no word on any letter).
            if not filled and "respin" in legal and len(current["respun"]) < MAX_RESPINS:
                return legal["respin"], self._seconds(rng, (2 * per_word, 3 * per_word))
            # Out of words with a short list (a poor letter: X, or W in French): STOP once the list is
            # worth its penalty, rather than keep the table waiting for the round time limit.
            if "stop" in legal and len(filled) >= view["penalties"].get(seat, 0) + 1:
                return legal["stop"], self._seconds(rng, (per_word, 2 * per_word))
            return None
        # At its own pace, after a STOP too: a slow hand may miss the grace (refused as too late).
        delay = sum(self._seconds(rng, self.style.word_seconds) for _ in range(added))
        return {**legal["submit"], "words": new}, delay

    def _extend(
        self,
        written: list[str],
        count: int,
        required: int,
        rule: Rule,
        view: dict[str, Any],
        rng: random.Random,
    ) -> tuple[list[str], int]:
        """The list with up to `count` more words (Level X: in the open slots, in order), and how many."""
        assert self.vocabulary is not None
        words = list(written)
        taken: set[str] = set()
        for w in written:
            if w:
                taken |= self.vocabulary.lemmas(w, rule.lang)
        used = self._used_lemmas(view, rule.lang)
        added = 0
        slots = range(1, max(required, len(words)) + 1) if rule.level == "X" else [len(words) + 1] * count
        for slot in slots:
            if added >= count:
                break
            if rule.level == "X" and slot <= len(words) and words[slot - 1]:
                continue
            word = self._pick(rule, slot, taken, used, rng)
            if word is None:
                if rule.level == "X":
                    continue  # a blank slot keeps its place
                break
            if rule.level == "X":
                words += [""] * (slot - len(words))
                words[slot - 1] = word
            else:
                words.append(word)
            taken |= self.vocabulary.lemmas(word, rule.lang)
            added += 1
        while words and not words[-1]:
            words.pop()
        return words, added

    def _pick(
        self, rule: Rule, slot: int, taken: set[str], used: frozenset[str], rng: random.Random
    ) -> str | None:
        vocabulary, style = self.vocabulary, self.style
        assert vocabulary is not None
        if style.slip and rng.random() < style.slip:
            slips = [w for w in vocabulary.slips(rule) if w not in taken]
            if slips:
                return rng.choice(slips)

        def fits(word: str) -> bool:
            lemmas = vocabulary.lemmas(word, rule.lang)
            if lemmas & taken or lemmas & used:
                return False
            return not style.checks or vocabulary.valid(word, rule)

        pool = vocabulary.pool(rule, slot)
        window = pool[: style.head] if style.head is not None else pool
        rare, common = window[style.skip :], window[: style.skip]
        # The rare words first; the commonest only when nothing else is left, rarest of them first.
        return _draw(rare, fits, rng) or next((w for w in reversed(common) if fits(w)), None)

    def _used_lemmas(self, view: dict[str, Any], lang: str) -> frozenset[str]:
        """The lemmas of the words revealed in the rounds this level remembers (rule 6: duplicates)."""
        memory = self.style.memory
        assert self.vocabulary is not None
        if memory == 0:
            return frozenset()
        records = view["history"] if memory is None else view["history"][-memory:]
        used: set[str] = set()
        for record in records:
            for entries in record["words"].values():
                for entry in entries:
                    used |= self.vocabulary.lemmas(entry["word"], lang)
        return frozenset(used)

    def _missing(self, seat: str, number: int, first: str) -> int:
        """How many words short of a full list it stops this round: one draw per round, the same at every
        look (seeded by its own first word, which its view keeps)."""
        missing = self.style.missing
        return missing[zlib.crc32(f"{seat}:{number}:{first}".encode()) % len(missing)]

    # -- the review ----------------------------------------------------------------------------------------

    def _vote(self, seen: Seen, rng: random.Random) -> tuple[Action, float] | None:
        """By the words service's verdict on a matter of the word itself; a round's matter (a common word,
        a duplicate, a Level's rule) keeps the rules' verdict."""
        view = seen.view
        dispute = view["round"]["dispute"]
        rule = _rule(view)
        if dispute["reason"] not in DICTIONARY_MATTERS or rule is None or self.vocabulary is None:
            accept = dispute["valid"]
        else:
            accept = self.vocabulary.valid(dispute["word"], rule)
        action = next(a for a in of_kind(seen.legal, "vote") if a["accept"] == accept)
        return action, self._act(rng)

    def _review(self, seen: Seen, rng: random.Random) -> tuple[Action, float] | None:
        """The disputes it wants to make first (one at a time: each vote reopens the review); then, with
        nothing (more) to dispute, it says so, so that a table of quick players need not wait out the
        review window."""
        if self.style.disputes and (dispute := self._dispute(seen, rng)) is not None:
            return dispute
        done = of_kind(seen.legal, "review_done")
        return (done[0], self._act(rng)) if done else None

    def _dispute(self, seen: Seen, rng: random.Random) -> tuple[Action, float] | None:
        """Never at easy. Medium defends its own words the service accepts but the table crossed out (a
        server's earlier vote); hard also challenges another's word the service refuses."""
        view, vocabulary = seen.view, self.vocabulary
        rule = _rule(view)
        if rule is None or vocabulary is None:
            return None
        open_words = {(a["of"], a["word"]): a for a in of_kind(seen.legal, "dispute")}
        for owner, entries in view["round"].get("lists", {}).items():
            mine = owner == seen.seat
            if not mine and self.level != Level.HARD:
                continue
            for entry in entries:
                action = open_words.get((owner, entry["word"]))
                if action is None or entry["reason"] not in DICTIONARY_MATTERS:
                    continue
                if vocabulary.valid(entry["word"], rule) != entry["valid"] and mine != entry["valid"]:
                    return action, self._act(rng)
        return None

    # -- the cards (advanced game) -------------------------------------------------------------------------

    def _choose(self, seen: Seen, rng: random.Random) -> tuple[Action, float]:
        view, options = seen.view, of_kind(seen.legal, "choose")
        choice = view["cards"]["choice"]
        delay = self._act(rng)
        if not self.style.plays_cards:
            return rng.choice(options), delay
        kind, card = choice["kind"], choice["card"]
        if kind == "take":  # second chance: a Level card counts towards a set (5 points)
            return _one(options, "take", "level", "ba_oossee"), delay
        if kind == "peek":  # a free look at the top card
            return _one(options, "peek", True, False), delay
        if kind == "letter":  # the letter (Level I) or second letter (Level II) with the most words
            return max(options, key=lambda a: (self._letter_words(view, a["letter"]), rng.random())), delay
        scores = view["scores"]
        held = view["cards"]["level_cards"]
        if card in HARMFUL:
            return max(options, key=lambda a: (held.get(a["target"], 0) if card == "steal_level" else 0,
                                               scores[a["target"]], rng.random())), delay  # fmt: skip
        if card in GENEROUS:
            return min(options, key=lambda a: (scores[a["target"]], rng.random())), delay
        return rng.choice(options), delay

    def _letter_words(self, view: dict[str, Any], letter: str) -> int:
        """How many words it could write if this letter were chosen."""
        rule = _rule(view, letter=letter)
        if rule is None or self.vocabulary is None:
            return 0
        return len(self.vocabulary.pool(rule))

    # -- pace ----------------------------------------------------------------------------------------------

    def _act(self, rng: random.Random) -> float:
        return self._seconds(rng, self.style.act_seconds)

    def _seconds(self, rng: random.Random, span: tuple[float, float]) -> float:
        return rng.uniform(*span)


def make_bot(level: Level, words: Any) -> TopStopBot:
    """GameInfo.bots: a Top Stop bot at `level`, drawing its words from the bot.words service `words`."""
    return TopStopBot(level, words)


def _required(view: dict[str, Any], seat: str) -> int:
    """How many words the seat writes this round (a 6-vs-10 card changes it)."""
    cards = (view.get("cards") or {}).get("round") or {}
    return int(cards.get("words_per_player", {}).get(seat, view["options"]["words"]))


def _rule(view: dict[str, Any], letter: str | None = None) -> Rule | None:
    """The round's rule from the view; `letter`: one of the letters a Level I or II choice offers."""
    current = view.get("round")
    if current is None:
        return None
    lang = view["options"]["language"]
    # Level VII's first names follow the table's `country`, which the view does not show (yet): without it,
    # the language's own list (the rules' default).
    country = view["options"].get("country")
    cards = (view.get("cards") or {}).get("round")
    target = current.get("letter")
    if cards is None:
        return Rule(lang, target) if target else None
    level = cards.get("level")
    second = cards.get("second_letter")
    if letter is not None:
        if level == "II":
            second = letter
        else:
            target = letter
    if not target:
        return None
    return Rule(lang, target, level, second, cards.get("category"), country)


def _draw(candidates: tuple[str, ...], fits: Callable[[str], bool], rng: random.Random) -> str | None:
    """A uniform draw among the candidates that fit: a few random tries first (most fit), then a scan."""
    if not candidates:
        return None
    for _ in range(16):
        word = rng.choice(candidates)
        if fits(word):
            return word
    fitting = [w for w in candidates if fits(w)]
    return rng.choice(fitting) if fitting else None


def _one(options: Iterable[Action], key: str, *preferred: object) -> Action:
    """The first option whose `key` is the most preferred value offered."""
    listed = list(options)
    for value in preferred:
        for action in listed:
            if action.get(key) == value:
                return action
    return listed[0]
