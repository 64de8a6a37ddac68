"""Benchmark of the word service: load time, checks/s and same/s per language, against targets."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.words import WordService  # noqa: E402
from bot.words.lists import hunspell_entries  # noqa: E402
from bot.words.text import is_letters  # noqa: E402

TARGET_CHECKS = 10_000  # distinct words per second, dictionaries loaded, nothing cached
TARGET_SAME_NEW = 200  # pairs of unseen words per second: a round's ~100 words compared in under a second
TARGET_SAME = 100_000  # pairs per second once each word's lemma set is cached (every pair of a round)
TARGET_LOAD = 5.0  # seconds for a language's first check
TAGS = {"en": "en_US", "fr": "fr", "de": "de_DE"}
# A first pair that reaches every lemmatizer of the language (simplemma loads its tables on first use).
FIRST_PAIR = {"en": ("went", "go"), "fr": ("allé", "aller"), "de": ("ging", "gehen")}
N = 5_000


def sample(lang: str, n: int) -> list[str]:
    """Distinct dictionary stems in three casings (as typed, Capitalised, ALL-CAPS), seeded."""
    stems = sorted({s for s, _, _ in hunspell_entries(TAGS[lang]) if is_letters(s)})
    rng = random.Random(7)
    picked = rng.sample(stems, n)
    return [w if i % 3 == 0 else w.capitalize() if i % 3 == 1 else w.upper() for i, w in enumerate(picked)]


def rate(count: int, seconds: float) -> float:
    """Operations per second."""
    return count / seconds if seconds > 0 else float("inf")


def mark(value: float, target: float, higher_is_better: bool = True) -> str:
    """OK or MISS against a target."""
    ok = value >= target if higher_is_better else value <= target
    return "OK  " if ok else "MISS"


def main() -> int:
    """Run the benchmark and print one line per figure; exit 1 if a target is missed."""
    missed = 0
    for lang in ("en", "fr", "de"):
        ws = WordService()
        t0 = time.perf_counter()
        ws.check("test", lang)
        load = time.perf_counter() - t0
        t0 = time.perf_counter()
        ws.same_word(*FIRST_PAIR[lang], lang)
        lemma_load = time.perf_counter() - t0
        words = sample(lang, N)

        t0 = time.perf_counter()
        for w in words:
            ws.check(w, lang)
        cold = rate(len(words), time.perf_counter() - t0)
        t0 = time.perf_counter()
        for w in words:
            ws.check(w, lang)
        cached = rate(len(words), time.perf_counter() - t0)

        pairs = list(zip(words[: N // 5], words[1 : N // 5 + 1], strict=True))
        t0 = time.perf_counter()
        for a, b in pairs:
            ws.same_word(a, b, lang)
        same_cold = rate(len(pairs), time.perf_counter() - t0)
        t0 = time.perf_counter()
        for a, b in pairs:
            ws.same_word(a, b, lang)
        same_warm = rate(len(pairs), time.perf_counter() - t0)

        lines = [
            (
                mark(load, TARGET_LOAD, higher_is_better=False),
                f"load (first check)     {load:8.2f} s    target ≤ {TARGET_LOAD} s",
            ),
            ("    ", f"lemmatizer load        {lemma_load:8.2f} s"),
            (mark(cold, TARGET_CHECKS), f"checks/s, new words    {cold:10,.0f}   target ≥ {TARGET_CHECKS:,}"),
            ("    ", f"checks/s, cached       {cached:10,.0f}"),
            (
                mark(same_cold, TARGET_SAME_NEW),
                f"same/s, new words      {same_cold:10,.0f}   target ≥ {TARGET_SAME_NEW:,}",
            ),
            (
                mark(same_warm, TARGET_SAME),
                f"same/s, words seen     {same_warm:10,.0f}   target ≥ {TARGET_SAME:,}",
            ),
        ]
        for status, text in lines:
            missed += status == "MISS"
            print(f"{status} {lang} {text}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
