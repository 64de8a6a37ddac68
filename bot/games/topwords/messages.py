"""Player-facing texts for broken TopWords rules, in English (the message) and German (`message_de`)."""

from __future__ import annotations

from typing import Any

from bot.engine.errors import IllegalMove

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
        "{word} ab {square} {direction} passt nicht auf das Spielbrett.",
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
