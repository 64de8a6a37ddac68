"""Benchmark of the word service on new words, per language, next to raw enchant measured in the same run.

- checks + lemma keys/s: what judging a new word costs (a verdict and its lemma key), as Top Stop asks it
  (lower-case, normalised), on a fresh service: nothing cached;
- a Top Stop round: 8 players × 10 new words judged (judge_lists: every rule, variants included);
- ready: from a fresh service to its first answer on a new word;
- raw enchant: one spellchecker call per word on the same words, the anchor.

The precomputed tables (`python -m bot.words build`, run by `make setup`) are what make the targets.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import enchant  # noqa: E402

from bot.games.topstop.judging import Lexicon, judge_lists  # noqa: E402
from bot.words import WordService  # noqa: E402
from bot.words.lists import hunspell_entries  # noqa: E402
from bot.words.service import SPELLERS  # noqa: E402
from bot.words.text import is_letters  # noqa: E402

TARGET_RATE = 50_000  # checks + lemma keys per second, new words
TARGET_ROUND_MS = 5.0  # a round of 8 × 10 new words judged
TARGET_READY = 1.0  # seconds from a fresh service to its first answer
N = 5_000
PLAYERS, WORDS = 8, 10


def sample(lang: str, n: int, seed: int = 7) -> list[str]:
    """Distinct lower-case dictionary words (stems), as a player would type them, seeded."""
    words = sorted({s.lower() for s, _, _ in hunspell_entries(SPELLERS[lang][0]) if is_letters(s)})
    return random.Random(seed).sample(words, n)


def mark(ok: bool) -> str:
    return "OK  " if ok else "MISS"


def main() -> int:
    missed = 0
    for lang in ("en", "fr", "de"):
        words = sample(lang, N)
        speller = enchant.Dict(SPELLERS[lang][0])
        started = time.perf_counter()
        for word in words:
            speller.check(word)
        raw = N / (time.perf_counter() - started)

        fresh = WordService()
        started = time.perf_counter()
        fresh.check(words[0], lang)
        fresh.lemma_key(words[0], lang)
        ready = time.perf_counter() - started
        tables = fresh.table(lang) is not None

        ws = WordService()
        ws.warm(lang)  # as the bot does at start: the table open, the live checker loaded for other words
        started = time.perf_counter()
        for word in words[1:]:
            ws.check(word, lang)
            ws.lemma_key(word, lang)
        rate = (N - 1) / (time.perf_counter() - started)

        ws = WordService()
        ws.warm(lang)
        rounds = sample(lang, PLAYERS * WORDS * 5, seed=11)
        times = []
        for r in range(5):
            chunk = rounds[r * PLAYERS * WORDS : (r + 1) * PLAYERS * WORDS]
            letter = chunk[0][0]
            lists = {f"p{i}": chunk[i * WORDS : (i + 1) * WORDS] for i in range(PLAYERS)}
            started = time.perf_counter()
            judge_lists(lists, letter, [], Lexicon(ws, lang, True))
            times.append((time.perf_counter() - started) * 1000)
        round_ms = sorted(times)[len(times) // 2]

        rows = [
            (
                rate >= TARGET_RATE,
                f"checks + lemma keys/s, new words {rate:10,.0f}   target ≥ {TARGET_RATE:,}",
            ),
            (None, f"raw enchant checks/s, same words {raw:10,.0f}   (anchor)"),
            (
                round_ms <= TARGET_ROUND_MS,
                f"round of {PLAYERS}×{WORDS} new words   {round_ms:8.2f} ms  target ≤ {TARGET_ROUND_MS} ms",
            ),
            (
                ready <= TARGET_READY,
                f"ready (first answer)          {ready:8.2f} s   target ≤ {TARGET_READY} s",
            ),
        ]
        print(f"     {lang} precomputed tables: {'yes' if tables else 'NO (make setup builds them)'}")
        for ok, text in rows:
            status = "    " if ok is None else mark(ok)
            missed += ok is False
            print(f"{status} {lang} {text}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
