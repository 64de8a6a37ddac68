"""Dictionary service: checking, lemmas and variants, categories, normalisation. Never imports discord."""

from bot.words.service import Verdict, WordService

__all__ = ["Verdict", "WordService"]
