"""TopWords texts by key (the message catalogue, bot/i18n), refusals, and the checks on what a player types.

Private replies follow the user's Discord locale; the table in the channel follows the server's language
setting. No discord import: this module is tested on its own.
"""

from __future__ import annotations

import re
from typing import Literal

from bot.engine.errors import BadAction, GameError
from bot.games.topwords.commands import word_tiles
from bot.games.topwords.rules import SIZE
from bot.i18n import N_, language_of, t

Lang = Literal["en", "fr", "de"]
PREFIX = "topwords."

# Every key `text()` and `Refusal` are called with, some of them built at run time (f"vote_{kind}"): listed
# here so that the catalogue's extraction finds them (`text(lang, "played")` says `topwords.played`).
KEYS = (
    N_("topwords.news_left"),
    N_("topwords.news_timed_out"),
    N_("topwords.news_idle_left"),
    N_("topwords.news_vote_cancelled"),
    N_("topwords.end_players_left"),
    N_("topwords.turn_closes"),
    N_("topwords.no_game"),
    N_("topwords.not_a_player"),
    N_("topwords.not_your_turn"),
    N_("topwords.bad_word"),
    N_("topwords.long_word"),
    N_("topwords.bad_swap"),
    N_("topwords.not_manager"),
    N_("topwords.no_move"),
    N_("topwords.rack"),
    N_("topwords.rack_empty"),
    N_("topwords.played"),
    N_("topwords.challengeable"),
    N_("topwords.passed"),
    N_("topwords.swapped"),
    N_("topwords.ask_table"),
    N_("topwords.pick_word"),
    N_("topwords.vote_opened"),
    N_("topwords.vote_cast"),
    N_("topwords.vote_by_dictionary"),
    N_("topwords.end_proposed"),
    N_("topwords.ended"),
    N_("topwords.lobby_closed"),
    N_("topwords.title_play"),
    N_("topwords.title_vote"),
    N_("topwords.title_final"),
    N_("topwords.title_over"),
    N_("topwords.how_to_play"),
    N_("topwords.start_draw"),
    N_("topwords.draw_again"),
    N_("topwords.begins"),
    N_("topwords.begins_set"),
    N_("topwords.see_rack"),
    N_("topwords.news_passed"),
    N_("topwords.news_swapped"),
    N_("topwords.news_challenge_won"),
    N_("topwords.news_challenge_lost"),
    N_("topwords.news_taken_back"),
    N_("topwords.news_final"),
    N_("topwords.when_window"),
    N_("topwords.news_allowed"),
    N_("topwords.news_refused"),
    N_("topwords.news_tie_allowed"),
    N_("topwords.news_tie_refused"),
    N_("topwords.news_end_refused"),
    N_("topwords.end_out"),
    N_("topwords.end_passes"),
    N_("topwords.end_no_words"),
    N_("topwords.winner"),
    N_("topwords.winners"),
    N_("topwords.and"),
    N_("topwords.field_last_move"),
    N_("topwords.field_vote"),
    N_("topwords.field_scores"),
    N_("topwords.field_final"),
    N_("topwords.move"),
    N_("topwords.move_mine"),
    N_("topwords.doubled"),
    N_("topwords.bonus"),
    N_("topwords.score_line"),
    N_("topwords.final_line"),
    N_("topwords.penalty"),
    N_("topwords.vote_allow_move"),
    N_("topwords.vote_restore"),
    N_("topwords.vote_take_back"),
    N_("topwords.vote_end"),
    N_("topwords.vote_majority"),
    N_("topwords.vote_count"),
    N_("topwords.vote_closes"),
    N_("topwords.footer"),
    N_("topwords.mode_strict"),
    N_("topwords.mode_challenge"),
    N_("topwords.board_picture"),
    N_("topwords.channel_ended"),
    N_("topwords.button_rack"),
    N_("topwords.button_challenge"),
    N_("topwords.button_dispute"),
    N_("topwords.button_allowed"),
    N_("topwords.button_not_allowed"),
    N_("topwords.button_end"),
    N_("topwords.button_play_on"),
    N_("topwords.button_ask_table"),
)

# The /topwords command tree's descriptions and choice names, for the CommandTranslator (bot/ui/translator):
# the English catalogue holds the exact texts of cog.py's decorators. Discord allows 100 characters each.
COMMAND_KEYS = (
    N_("topwords.cmd.group"),
    N_("topwords.cmd.new"),
    N_("topwords.cmd.new.mode"),
    N_("topwords.cmd.mode.strict"),
    N_("topwords.cmd.mode.challenge"),
    N_("topwords.cmd.play"),
    N_("topwords.cmd.play.word"),
    N_("topwords.cmd.play.square"),
    N_("topwords.cmd.play.direction"),
    N_("topwords.cmd.direction.across"),
    N_("topwords.cmd.direction.down"),
    N_("topwords.cmd.pass"),
    N_("topwords.cmd.pass.swap"),
    N_("topwords.cmd.rack"),
    N_("topwords.cmd.propose_end"),
)


_WORD = re.compile(r"[A-Za-zÄÖÜäöüßẞ]+")
_SWAP = re.compile(r"[A-Za-zÄÖÜäöü]")


def lang_of(locale: object) -> Lang:
    """The language of a Discord locale: French for `fr`, German for `de`, English for every other."""
    lang = language_of(locale)
    return "fr" if lang == "fr" else "de" if lang == "de" else "en"


def text(lang: str, key: str, **fields: object) -> str:
    """The TopWords text `key` (without its `topwords.` prefix) in `lang`."""
    return t(PREFIX + key, lang, **fields)


class Refusal(BadAction):
    """A refusal of the cog's own: `key` is a TopWords text key (without its prefix), also its code."""

    def __init__(self, key: str, /, **fields: object) -> None:
        super().__init__(PREFIX + key, **fields)
        self.code = key


def error_text(error: GameError, lang: str) -> str:
    """The refusal in the reader's language."""
    return error.text(lang)


def word_letters(word: str) -> str:
    """A typed word as tiles (capitals, ß as SS), refused unless it is letters only and fits the board."""
    typed = word.strip()
    if not _WORD.fullmatch(typed):
        raise Refusal("bad_word", word=_quoted(typed))
    letters = word_tiles(typed)
    if len(letters) > SIZE:
        raise Refusal("long_word", word=letters, count=len(letters), size=SIZE)
    return letters


def swap_letter(letter: str) -> str:
    """The tile to swap when passing: one letter A–Z, Ä, Ö, Ü, as a capital."""
    typed = letter.strip()
    if not _SWAP.fullmatch(typed):
        raise Refusal("bad_swap", letter=_quoted(typed))
    return typed.upper()


def _quoted(typed: str) -> str:
    """User text echoed in a refusal: short, in code format so that it renders as typed."""
    shown = typed[:20].replace("`", "'")
    return f"`{shown}`" if shown else "—"
