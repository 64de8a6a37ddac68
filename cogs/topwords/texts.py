"""TopWords texts in English and German, refusals in both, and the checks on what a player types.

Private replies follow the user's Discord locale (German for `de`, English otherwise); the table in the
channel follows the server's language setting. No discord import: this module is tested on its own.
"""

from __future__ import annotations

import re
from typing import Literal

from bot.engine.errors import BadAction, GameError
from bot.games.topwords.commands import word_tiles
from bot.games.topwords.rules import SIZE

Lang = Literal["en", "de"]

# key: (English, German)
TEXTS: dict[str, tuple[str, str]] = {
    # -- refusals ---------------------------------------------------------------------------------
    "no_game": (
        "No TopWords game is open in this channel. Start one with `/topwords new`.",
        "In diesem Kanal läuft kein TopWords-Spiel. Starte eines mit `/topwords new`.",
    ),
    "not_a_player": (
        "You are not playing in this game; you can watch.",
        "Du spielst in dieser Partie nicht mit; du kannst zuschauen.",
    ),
    "not_your_turn": ("It is not your turn: {name} is to move.", "Du bist nicht am Zug: {name} ist dran."),
    "bad_word": (
        "Write the word with letters only — A–Z, Ä, Ö, Ü (ß counts as SS) — not {word}.",
        "Schreibe das Wort nur mit Buchstaben — A–Z, Ä, Ö, Ü (ß zählt als SS) — nicht {word}.",
    ),
    "long_word": (
        "{word} has {count} letters: the board is {size} squares wide.",
        "{word} hat {count} Buchstaben: das Spielbrett ist nur {size} Felder breit.",
    ),
    "bad_swap": (
        "Swap one tile: a single letter A–Z, Ä, Ö or Ü (there is no ß tile), not {letter}.",
        "Tausche einen Buchstaben: A–Z, Ä, Ö oder Ü (es gibt kein ß), nicht {letter}.",
    ),
    "not_manager": (
        "Only the host or a member with Manage Server can end this game without a result. "
        "To end it with the scores, everyone must agree: `/topwords propose_end`.",
        "Nur der Gastgeber oder ein Mitglied mit „Server verwalten“ kann dieses Spiel ohne Wertung beenden. "
        "Mit Wertung endet es, wenn alle zustimmen: `/topwords propose_end`.",
    ),
    "no_move": ("This button does not carry a move.", "Dieser Knopf enthält keinen Zug."),
    # -- private replies --------------------------------------------------------------------------
    "rack": (
        "🔤 Your rack (only you see this): {rack} — {bag} tiles left in the bag.",
        "🔤 Dein Stellbrett (nur du siehst es): {rack} — noch {bag} Buchstaben im Beutel.",
    ),
    "rack_empty": ("*empty*", "*leer*"),
    "played": ("You played {move}.", "Du hast {move} gelegt."),
    "challengeable": (
        "The others may challenge it until the next player acts.",
        "Die anderen können ihn anzweifeln, bis der nächste Spieler handelt.",
    ),
    "passed": ("You passed.", "Du hast gepasst."),
    "swapped": (
        "You passed and put {returned} back into the bag; you drew {drawn}.",
        "Du hast gepasst und {returned} in den Beutel zurückgelegt; gezogen hast du {drawn}.",
    ),
    "ask_table": (
        "Think the dictionary is wrong? Ask the table to allow it: the other players vote.",
        "Hältst du das Wörterbuch für falsch? Lass den Tisch abstimmen: die anderen entscheiden.",
    ),
    "pick_word": ("Which word should the table judge?", "Über welches Wort soll der Tisch abstimmen?"),
    "vote_opened": (
        "The vote is open: the other players decide.",
        "Die Abstimmung läuft: die anderen Spieler entscheiden.",
    ),
    "vote_cast": ("Your vote is in.", "Deine Stimme ist abgegeben."),
    "vote_by_dictionary": (
        "Nobody else can vote on this move (its player does not), so the dictionary decided.",
        "Über diesen Zug kann sonst niemand abstimmen (sein Spieler nicht), also hat das Wörterbuch entschieden.",
    ),
    "end_proposed": (
        "You proposed to end the game: the others vote, and all of them must agree.",
        "Du hast das Spielende vorgeschlagen: die anderen stimmen ab, alle müssen zustimmen.",
    ),
    "ended": ("The game is ended; no result is recorded.", "Das Spiel ist beendet; es wird nicht gewertet."),
    "lobby_closed": ("The lobby is closed.", "Die Lobby ist geschlossen."),
    # -- the table --------------------------------------------------------------------------------
    "title_play": ("TopWords — {name} to move", "TopWords — {name} ist am Zug"),
    "title_vote": ("TopWords — vote", "TopWords — Abstimmung"),
    "title_final": ("TopWords — last chance to challenge", "TopWords — letzte Gelegenheit zum Anzweifeln"),
    "title_over": ("TopWords — game over", "TopWords — Spielende"),
    "how_to_play": (
        "`/topwords play` word · square · direction, or `/topwords pass`",
        "`/topwords play` Wort · Feld · Richtung, oder `/topwords pass`",
    ),
    "start_draw": ("Start draw: {draws}", "Startziehung: {draws}"),
    "draw_again": ("Tied, again: {draws}", "Gleichstand, noch einmal: {draws}"),
    "begins": ("**{name}** begins: closest to A.", "**{name}** beginnt: am nächsten an A."),
    "begins_set": ("**{name}** begins.", "**{name}** beginnt."),
    "see_rack": ("Press **My rack** to see your tiles.", "Drücke **Mein Stellbrett** für deine Buchstaben."),
    "news_passed": ("**{name}** passed.", "**{name}** hat gepasst."),
    "news_swapped": (
        "**{name}** passed and swapped a tile.",
        "**{name}** hat gepasst und einen Buchstaben getauscht.",
    ),
    "news_challenge_won": (
        "**{by}** challenged the move of **{of}**: {words} not allowed.",
        "**{by}** hat den Zug von **{of}** angezweifelt: {words} nicht erlaubt.",
    ),
    "news_challenge_lost": (
        "**{by}** challenged the move of **{of}**: every word is allowed, the move stands.",
        "**{by}** hat den Zug von **{of}** angezweifelt: jedes Wort ist erlaubt, der Zug gilt.",
    ),
    "news_taken_back": (
        "The move of **{name}** is taken back ({points} points); **{name}** plays again.",
        "Der Zug von **{name}** wird zurückgenommen ({points} Punkte); **{name}** ist noch einmal dran.",
    ),
    "news_final": (
        "**{name}** has placed the last tile: the move may still be challenged; the game ends {when}.",
        "**{name}** hat den letzten Buchstaben gelegt: der Zug kann noch angezweifelt werden; "
        "das Spiel endet {when}.",
    ),
    "when_window": ("when the window closes", "mit dem Ende des Zeitfensters"),
    "news_allowed": (
        "The table allowed {words} ({yes}:{no}).",
        "Der Tisch hat {words} erlaubt ({yes}:{no}).",
    ),
    "news_refused": (
        "The table refused {words} ({yes}:{no}).",
        "Der Tisch hat {words} abgelehnt ({yes}:{no}).",
    ),
    "news_tie_allowed": (
        "Tie on {words} ({yes}:{no}): the dictionary decides — allowed.",
        "Gleichstand bei {words} ({yes}:{no}): das Wörterbuch entscheidet — erlaubt.",
    ),
    "news_tie_refused": (
        "Tie on {words} ({yes}:{no}): the dictionary decides — not allowed.",
        "Gleichstand bei {words} ({yes}:{no}): das Wörterbuch entscheidet — nicht erlaubt.",
    ),
    "news_end_refused": (
        "Not everyone agreed: the game goes on.",
        "Nicht alle sind einverstanden: es geht weiter.",
    ),
    "end_out": (
        "**{name}** has no tiles left and the bag is empty.",
        "**{name}** hat keine Buchstaben mehr und der Beutel ist leer.",
    ),
    "end_passes": ("Every player passed, one after another.", "Alle Spieler haben hintereinander gepasst."),
    "end_no_words": (
        "The players agreed that no new word can be formed.",
        "Die Spieler sind sich einig: kein neues Wort ist mehr möglich.",
    ),
    "winner": ("🏆 {names} wins!", "🏆 {names} gewinnt!"),
    "winners": ("🏆 {names} share the win!", "🏆 {names} gewinnen gemeinsam!"),
    "and": (" and ", " und "),
    "field_last_move": ("Last move", "Letzter Zug"),
    "field_vote": ("🗳️ Vote", "🗳️ Abstimmung"),
    "field_scores": ("Scores", "Punkte"),
    "field_final": ("Final scores", "Endstand"),
    "move": (
        "**{name}**: {words} → **{points}** points{extras}",
        "**{name}**: {words} → **{points}** Punkte{extras}",
    ),
    "move_mine": ("{words} → **{points}** points{extras}", "{words} → **{points}** Punkte{extras}"),
    "doubled": ("doubled", "verdoppelt"),
    "bonus": ("+{bonus} bonus", "+{bonus} Bonus"),
    "score_line": ("**{score}** {name} · {tiles} tiles", "**{score}** {name} · {tiles} Buchstaben"),
    "final_line": ("**{score}** {name}", "**{score}** {name}"),
    "penalty": (" (−{penalty}: {tiles} tiles left)", " (−{penalty}: {tiles} Buchstaben übrig)"),
    "vote_allow_move": (
        "**{by}** asks the table to allow {words}. Allowed?",
        "**{by}** bittet den Tisch, {words} zu erlauben. Erlaubt?",
    ),
    "vote_restore": (
        "**{by}** asks the table to restore the move taken back: {words}. Allowed?",
        "**{by}** bittet den Tisch, den zurückgenommenen Zug zu erlauben: {words}. Erlaubt?",
    ),
    "vote_take_back": (
        "**{by}** disputes {words} by **{of}**. Allowed?",
        "**{by}** zweifelt {words} von **{of}** an. Erlaubt?",
    ),
    "vote_end": (
        "**{by}** proposes to end the game: nobody can form a new word. Everyone else must agree.",
        "**{by}** schlägt vor, das Spiel zu beenden: niemand kann ein neues Wort bilden. "
        "Alle anderen müssen zustimmen.",
    ),
    "vote_majority": (
        "The majority of votes cast decides; on a tie the dictionary decides.",
        "Die Mehrheit der abgegebenen Stimmen entscheidet; bei Gleichstand gilt das Wörterbuch.",
    ),
    "vote_count": ("{voted} of {voters} voted", "{voted} von {voters} haben abgestimmt"),
    "vote_closes": ("closes {time}", "endet {time}"),
    "footer": ("Bag: {bag} tiles · {mode} · game #{id}", "Beutel: {bag} Buchstaben · {mode} · Spiel #{id}"),
    "mode_strict": ("strict mode", "strenger Modus"),
    "mode_challenge": ("challenge mode", "Anzweifel-Modus"),
    "board_picture": ("The TopWords board", "Das TopWords-Spielbrett"),
    "channel_ended": (
        "TopWords game #{id} was ended early; no result is recorded.",
        "Das TopWords-Spiel #{id} wurde vorzeitig beendet; es wird nicht gewertet.",
    ),
    # -- buttons ----------------------------------------------------------------------------------
    "button_rack": ("My rack", "Mein Stellbrett"),
    "button_challenge": ("Challenge", "Anzweifeln"),
    "button_dispute": ("Dispute", "Einspruch"),
    "button_allowed": ("Allowed", "Erlaubt"),
    "button_not_allowed": ("Not allowed", "Nicht erlaubt"),
    "button_end": ("End the game", "Spiel beenden"),
    "button_play_on": ("Play on", "Weiterspielen"),
    "button_ask_table": ("Ask the table to allow it", "Den Tisch abstimmen lassen"),
}

# The /topwords command tree in German, for the bot's app_commands.Translator: keys are the exact English
# texts of cog.py's decorators (group and command descriptions, option descriptions, choice names);
# command and option names stay as they are. Discord allows 100 characters for each.
COMMAND_TRANSLATIONS: dict[str, dict[str, str]] = {
    "de": {
        "TopWords: German 3-D Scrabble": "TopWords: deutsches 3-D-Scrabble",
        "Open a TopWords lobby in this channel (2–4 players)": (
            "Eine TopWords-Lobby in diesem Kanal öffnen (2–4 Spieler)"
        ),
        "strict (the dictionary checks every move) or challenge (players challenge)": (
            "streng (das Wörterbuch prüft jeden Zug) oder Anzweifeln (die Spieler zweifeln an)"
        ),
        "strict: the dictionary checks every move (default)": (
            "streng: das Wörterbuch prüft jeden Zug (Standard)"
        ),
        "challenge: moves are placed unchecked, players challenge them": (
            "Anzweifeln: Züge werden ungeprüft gelegt, die Spieler zweifeln sie an"
        ),
        "Place a word as it will read on the board, from a square, across or down": (
            "Ein Wort so legen, wie es auf dem Brett steht: ab einem Feld, waagrecht oder senkrecht"
        ),
        "The whole word as it will read; letters already lying there are reused": (
            "Das ganze Wort, wie es dann dasteht; dort liegende Buchstaben werden mitbenutzt"
        ),
        "The word's first square: column A–J and row 1–10, like E5": (
            "Das erste Feld des Wortes: Spalte A–J und Reihe 1–10, z. B. E5"
        ),
        "across (to the right) or down": "waagrecht (nach rechts) oder senkrecht (nach unten)",
        "across → (waagrecht)": "waagrecht → (across)",
        "down ↓ (senkrecht)": "senkrecht ↓ (down)",
        "Pass your turn; you may put one tile back into the bag and draw one": (
            "Passen; du darfst einen Buchstaben in den Beutel zurücklegen und einen ziehen"
        ),
        "A tile from your rack to swap with one from the bag (optional)": (
            "Ein Buchstabe von deinem Stellbrett zum Tauschen mit einem aus dem Beutel (optional)"
        ),
        "Your tiles (only you see them)": "Deine Buchstaben (nur du siehst sie)",
        "Nobody can form a new word? Propose to end (all must agree)": (
            "Niemand kann mehr ein Wort bilden? Spielende vorschlagen (alle müssen zustimmen)"
        ),
    }
}

# German for the engine's and the rules' own refusals that carry no German text (RuleBroken does).
ENGINE_DE: dict[str, str] = {
    "The game has not started yet.": "Das Spiel hat noch nicht begonnen.",
    "This game is over.": "Dieses Spiel ist vorbei.",
    "The game is over.": "Das Spiel ist vorbei.",
    "This game is already over.": "Dieses Spiel ist schon vorbei.",
    "This game no longer exists.": "Dieses Spiel gibt es nicht mehr.",
    "You are not playing in this game.": "Du spielst in dieser Partie nicht mit.",
    "The table changed since you looked at it; try again on the latest message.": (
        "Der Tisch hat sich inzwischen geändert; versuche es an der neuesten Nachricht."
    ),
    "The table has moved on since that message: use the latest one.": (
        "Das Spiel ist seit dieser Nachricht weitergegangen: nimm die neueste."
    ),
    "A game is already open in this channel: finish or end it first.": (
        "In diesem Kanal läuft schon ein Spiel: beende es zuerst."
    ),
    "A vote is open: wait for its result.": "Eine Abstimmung läuft: warte ihr Ergebnis ab.",
    "The last move may still be challenged before the game ends.": (
        "Der letzte Zug kann noch angezweifelt werden, bevor das Spiel endet."
    ),
    "You cannot do that now.": "Das geht gerade nicht.",
}

_WORD = re.compile(r"[A-Za-zÄÖÜäöüßẞ]+")
_SWAP = re.compile(r"[A-Za-zÄÖÜäöü]")


def lang_of(locale: object) -> Lang:
    """German for a German Discord locale (`de`), English for every other."""
    return "de" if str(locale).lower().startswith("de") else "en"


def text(lang: Lang, key: str, **fields: object) -> str:
    en, de = TEXTS[key]
    return (de if lang == "de" else en).format(**fields)


class Refusal(BadAction):
    """A refusal of the cog's own, with its text in both languages (as the rules' RuleBroken)."""

    def __init__(self, key: str, **fields: object) -> None:
        super().__init__(text("en", key, **fields), key)
        self.message_de = text("de", key, **fields)


def error_text(error: GameError, lang: Lang) -> str:
    """The refusal in the reader's language; English where no German is known."""
    if lang == "de":
        german = getattr(error, "message_de", None)
        return german if isinstance(german, str) else ENGINE_DE.get(error.message, error.message)
    return error.message


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
