"""Player-facing texts for broken TopWords rules, in English (the message) and German (`message_de`)."""

from __future__ import annotations

from typing import Any

from bot.engine.errors import GameError, IllegalMove

# code: (English, German); each names the rule broken, and the square or word at fault where there is one.
TEXTS: dict[str, tuple[str, str]] = {
    "no_tiles": ("Place at least one tile.", "Setze mindestens einen Buchstaben."),
    "not_a_letter": (
        "{letter} is not a tile: tiles are A–Z, Ä, Ö and Ü (there is no ß tile, write SS).",
        "{letter} ist kein Buchstabenchip: es gibt A–Z, Ä, Ö und Ü (kein ß, dafür SS).",
    ),
    "off_board": (
        "Square {square} is off the board (columns A–J, rows 1–10).",
        "Feld {square} liegt nicht auf dem Spielbrett (Spalten A–J, Reihen 1–10).",
    ),
    "not_on_rack": (
        "You do not have {letters} on your rack.",
        "Du hast {letters} nicht auf deinem Stellbrett.",
    ),
    "square_twice": (
        "One tile per square per move: {square} is used twice.",
        "Pro Zug nur ein Buchstabe je Feld: {square} ist doppelt belegt.",
    ),
    "not_in_line": (
        "Words run in one straight line: all tiles of a move go in one row or one column.",
        "Wörter nur in gerader Linie: alle Buchstaben eines Zuges in eine Reihe oder eine Spalte.",
    ),
    "stack_too_high": (
        "At most 5 tiles may be stacked: {square} is already {height} high.",
        "Maximal 5 Buchstaben übereinander: {square} ist schon {height} hoch.",
    ),
    "same_letter": (
        "Never the same letter on the same letter: {letter} on {letter} at {square}.",
        "Niemals 2 gleiche Buchstaben aufeinander: {letter} auf {letter} auf {square}.",
    ),
    "gap": (
        "The tiles must make one unbroken word: {square} is empty.",
        "Die Buchstaben müssen ein lückenloses Wort bilden: {square} ist leer.",
    ),
    "not_centre": (
        "The first word must cover a centre square (E5, F5, E6 or F6).",
        "Das erste Wort muss eines der vier zentralen Felder belegen (E5, F5, E6, F6).",
    ),
    "not_connected": (
        "The word must join the tiles on the board: touch them or stack on them.",
        "Das Wort muss an die Buchstaben auf dem Brett anschließen oder auf sie gesetzt werden.",
    ),
    "too_short": ("A word has at least two letters.", "Ein Wort hat mindestens zwei Buchstaben."),
    "invalid_word": (
        "{word} is not allowed: {reason}.",
        "{word} ist nicht erlaubt: {reason_de}.",
    ),
    "word_off_board": (
        "{word} from {square} {direction} runs off the board.",
        "{word} ab {square} {direction_de} passt nicht auf das Spielbrett.",
    ),
    "bad_square": (
        "{square} is not a square: write a column A–J and a row 1–10, like E5.",
        "{square} ist kein Feld: Spalte A–J und Reihe 1–10, z. B. E5.",
    ),
    "bad_direction": (
        "The direction is across or down, not {direction}.",
        "Die Richtung ist waagrecht (across) oder senkrecht (down), nicht {direction}.",
    ),
    "bag_empty": (
        "The bag is empty: there is no tile to swap with.",
        "Der Beutel ist leer: es gibt keinen Buchstaben zum Tauschen.",
    ),
    "nothing_to_challenge": (
        "There is no move to challenge: {why}.",
        "Es gibt keinen Zug zum Anzweifeln: {why_de}.",
    ),
    "nothing_to_dispute": (
        "There is nothing to dispute: {why}.",
        "Es gibt nichts zum Abstimmen: {why_de}.",
    ),
    "not_a_voter": (
        "You do not vote on this dispute: {why}.",
        "Du stimmst hier nicht ab: {why_de}.",
    ),
    "already_there": (
        "{word} is already on the board there: nothing to place.",
        "{word} liegt dort schon: es gibt nichts zu setzen.",
    ),
    "word_not_in_move": (
        "The last move made {words}, not {word}: dispute one of them.",
        "Der letzte Zug hat {words} gebildet, nicht {word}: stimme über eines davon ab.",
    ),
}

# Refusals that are not a broken rule keep their engine class and code (not_your_turn, wrong_phase,
# stale_action, bad_action, …); the key only picks the texts. Setup and option errors reach scenario
# writers and hosts rather than players, but they too are said in both languages.
OTHER_TEXTS: dict[str, tuple[str, str]] = {
    # -- turn, phase, players
    "not_your_turn": ("It is {player}'s turn.", "{player} ist am Zug."),
    "not_a_player": ("{player} does not play in this game.", "{player} spielt in dieser Partie nicht mit."),
    "game_over": ("The game is over.", "Das Spiel ist vorbei."),
    "phase_vote": ("A vote is open: wait for its result.", "Eine Abstimmung läuft: warte ihr Ergebnis ab."),
    "phase_final": (
        "The last move may still be challenged before the game ends.",
        "Der letzte Zug kann noch angezweifelt werden, bevor das Spiel endet.",
    ),
    "phase_other": ("You cannot do that now.", "Das geht gerade nicht."),
    "no_window": ("No challenge window is open.", "Es ist kein Zeitfenster zum Anzweifeln offen."),
    "no_vote": ("No vote is open.", "Es läuft keine Abstimmung."),
    # -- a vote button clicked after its vote closed (the engine refuses other stale clicks)
    "vote_closed": (
        "Vote {asked} is closed: your vote no longer counts.",
        "Abstimmung {asked} ist geschlossen: deine Stimme zählt nicht mehr.",
    ),
    # -- malformed actions
    "unknown_action": ("Unknown TopWords action {do}.", "Unbekannte TopWords-Aktion {do}."),
    "system_action": (
        "{do} is done by the system, not by a player.",
        "{do} macht das System, nicht ein Spieler.",
    ),
    "needs_player": ("{do} needs a player.", "{do} braucht einen Spieler."),
    "not_a_list": ("{what} must be a list.", "{what} muss eine Liste sein."),
    "not_a_number": ("{what} must be a whole number.", "{what} muss eine ganze Zahl sein."),
    "bad_tile": ("Each tile is [row, col, letter].", "Jeder Buchstabe ist [Reihe, Spalte, Buchstabe]."),
    "bad_accept": (
        "accept is true (the word is allowed) or false.",
        "accept ist true (das Wort ist erlaubt) oder false.",
    ),
    "bad_at": (
        "at is where the tile goes back into the bag: 0 to {size}.",
        "at ist die Stelle, an der der Buchstabe in den Beutel zurückgeht: 0 bis {size}.",
    ),
    # -- setup and options
    "player_count": (
        "TopWords is for {low}–{high} different players.",
        "TopWords ist für {low}–{high} verschiedene Spieler.",
    ),
    "setup_keys": ("Unknown setup keys: {keys}.", "Unbekannte Setup-Schlüssel: {keys}."),
    "setup_board": (
        "setup.board holds [row, col, stack] with the stack written bottom to top.",
        "setup.board enthält [Reihe, Spalte, Stapel], der Stapel von unten nach oben geschrieben.",
    ),
    "setup_square": (
        "setup.board: bad square or stack {entry}.",
        "setup.board: falsches Feld oder falscher Stapel {entry}.",
    ),
    "setup_same_letter": (
        "setup.board: the same letter on the same letter in {stack}.",
        "setup.board: derselbe Buchstabe auf demselben Buchstaben in {stack}.",
    ),
    "setup_twice": ("setup.board: {square} is given twice.", "setup.board: {square} ist doppelt angegeben."),
    "setup_racks": (
        "setup.racks maps players to their tiles.",
        "setup.racks ordnet Spielern ihre Buchstaben zu.",
    ),
    "setup_rack": (
        "setup.racks: {player} needs a player and at most {size} tiles.",
        "setup.racks: {player} muss ein Spieler sein, mit höchstens {size} Buchstaben.",
    ),
    "setup_bag": (
        "setup.bag is a string of tiles in the order they are drawn.",
        "setup.bag ist eine Zeichenkette der Buchstaben in der Reihenfolge, in der sie gezogen werden.",
    ),
    "setup_too_many": (
        "The setup uses more tiles than the game has: {letters}.",
        "Das Setup braucht mehr Buchstaben, als das Spiel hat: {letters}.",
    ),
    "setup_first": (
        "setup.first_player {player} is not a player.",
        "setup.first_player {player} spielt nicht mit.",
    ),
    "unknown_options": ("Unknown TopWords options: {names}.", "Unbekannte TopWords-Optionen: {names}."),
    "option_language": (
        "TopWords is played in German: language must be 'de'.",
        "TopWords wird auf Deutsch gespielt: language muss 'de' sein.",
    ),
    "option_mode": ("mode is one of {modes}.", "mode ist eines von {modes}."),
    "option_check_words": ("check_words is true or false.", "check_words ist true oder false."),
    "option_seconds": (
        "{name} is a whole number of seconds above 0.",
        "{name} ist eine ganze Zahl von Sekunden über 0.",
    ),
    "option_words_service": (
        "Checking words needs the words service.",
        "Wörter prüfen braucht den Wörterdienst.",
    ),
}

REASONS: dict[str, tuple[str, str]] = {
    "not_a_word": ("not in the dictionary", "nicht im Wörterbuch"),
    "proper_noun": ("a proper noun", "ein Eigenname"),
    "abbreviation": ("an abbreviation", "eine Abkürzung"),
    "voted_out": ("voted out by the players", "von den Mitspielern abgelehnt"),
}


def reason_text(reason: str | None, german: bool = False) -> str:
    """A short text for a words-service reason code."""
    en, de = REASONS.get(reason or "not_a_word", (reason or "not allowed", reason or "nicht erlaubt"))
    return de if german else en


class RuleBroken(IllegalMove):
    """An illegal TopWords move: `code` names the rule, `message` and `message_de` say it to the player."""

    def __init__(self, code: str, **fields: Any) -> None:
        en, de = TEXTS[code]
        if "reason" in fields:
            fields.setdefault("reason_de", reason_text(fields["reason"], german=True))
            fields["reason"] = reason_text(fields["reason"])
        super().__init__(en.format(**fields), code)
        self.message_de = de.format(**fields)
        self.fields = fields


def refusal(kind: type[GameError], key: str, **fields: Any) -> GameError:
    """A refusal of the engine class `kind` (its code kept) with the texts of OTHER_TEXTS[key] in both
    languages: `message` in English, `message_de` in German."""
    en, de = OTHER_TEXTS[key]
    error = kind(en.format(**fields))
    error.message_de = de.format(**fields)  # type: ignore[attr-defined]
    return error
