"""Temporary English texts of the table layer until the gettext catalogue lands (same API)."""

from __future__ import annotations

from typing import Any

LANGUAGES = ("en", "fr", "de")

_EN = {
    "ui.no_game": "No {game} game is open in this channel. Start one with `{command}`.",
    "ui.not_this_game": "This button belongs to another game.",
    "ui.not_a_player": "You are not playing in this game; you can watch.",
    "ui.table_failed": (
        "⚠️ The {game} table could not be posted in this channel (Discord said: {error}), so the game is "
        "closed. The bot needs to send messages, embed links and attach files here; then start a new game."
    ),
    "ui.only_you": "Only you see this",
    "ui.left_lobby": "You left the lobby.",
    "ui.left_game": "You left the game.",
    "ui.only_host_lobby": "Only the host or a member with Manage Server can close this lobby.",
    "ui.only_host_end": "Only the host or a member with Manage Server can end this game; players may ask the table.",
    "ui.only_host_cancel": "Only the host or a member with Manage Server can cancel this game.",
    "ui.lobby_closed": "The lobby is closed.",
    "ui.game_ended": "The game is over.",
    "ui.game_cancelled": "The game was cancelled.",
    "ui.game_ended_no_result": "The game is ended; no result is recorded.",
    "ui.cancelled_by": "Cancelled by {who}.",
    "ui.ended_no_result": "The {game} game #{id} was ended early: no result counts.",
    "ui.end_vote_open": "A vote to end this game is already open.",
    "ui.end_asked_already": "You have already asked to end the game in this round or move.",
    "ui.end_asked": "The other players are asked whether to end the game now.",
    "ui.end_question": "**{name}** asks to end this {game} game now. End it?",
    "ui.lobby_title": "{game} — lobby",
    "ui.lobby_host": "Host",
    "ui.lobby_players": "Players",
    "ui.lobby_options": "Options",
    "ui.lobby_seated": "Seated ({n})",
    "ui.lobby_how": "Press **Join** to take a seat; the host presses **Start**.",
    "ui.lobby_closes": "The lobby closes {when}.",
    "ui.lobby_join": "Join",
    "ui.lobby_leave": "Leave",
    "ui.lobby_start": "Start",
    "ui.lobby_cancel": "Cancel",
    "ui.lobby_started": "The game has started with {n} players.",
    "ui.lobby_expired": "This lobby closed: the game was not started in time.",
    "ui.button_mine": "Only for me",
    "ui.vote_title": "🗳️ Vote",
    "ui.vote_votes": "Votes",
    "ui.vote_count": "✅ {yes} · ❌ {no} of {eligible}",
    "ui.vote_closes": "Closes",
    "ui.vote_result": "Result",
    "ui.vote_yes": "Accepted",
    "ui.vote_no": "Rejected",
    "ui.vote_tie": "Tie: the verdict stands",
    "ui.vote_button_yes": "Yes",
    "ui.vote_button_no": "No",
    "ui.vote_closed": "This vote is closed.",
    "ui.vote_not_yours": "You cannot vote on this one.",
    "ui.vote_cast_yes": "Your vote: yes. You may change it until it closes.",
    "ui.vote_cast_no": "Your vote: no. You may change it until it closes.",
    "ui.vote_last_ballot": "Your vote is in. That was the last ballot.",
}


_OTHER = {
    "fr": {
        "ui.lobby_title": "{game} — salon",
        "ui.lobby_host": "Hôte",
        "ui.lobby_players": "Joueurs",
        "ui.lobby_options": "Options",
        "ui.lobby_seated": "Assis ({n})",
        "ui.lobby_how": "Appuyez sur **Rejoindre** pour prendre place ; l'hôte appuie sur **Lancer**.",
        "ui.lobby_closes": "Le salon ferme {when}.",
        "ui.lobby_join": "Rejoindre",
        "ui.lobby_leave": "Quitter",
        "ui.lobby_start": "Lancer",
        "ui.lobby_cancel": "Annuler",
        "ui.lobby_started": "La partie a commencé avec {n} joueurs.",
        "ui.cancelled_by": "Annulé par {who}.",
        "ui.lobby_expired": "Ce salon est fermé : la partie n'a pas été lancée à temps.",
    },
    "de": {
        "ui.lobby_title": "{game} — Lobby",
        "ui.lobby_host": "Gastgeber",
        "ui.lobby_players": "Spieler",
        "ui.lobby_options": "Optionen",
        "ui.lobby_seated": "Am Tisch ({n})",
        "ui.lobby_how": "Drücke **Mitspielen**, um Platz zu nehmen; der Gastgeber drückt **Starten**.",
        "ui.lobby_closes": "Die Lobby schließt {when}.",
        "ui.lobby_join": "Mitspielen",
        "ui.lobby_leave": "Verlassen",
        "ui.lobby_start": "Starten",
        "ui.lobby_cancel": "Abbrechen",
        "ui.lobby_started": "Das Spiel hat mit {n} Spielern begonnen.",
        "ui.cancelled_by": "Abgebrochen von {who}.",
        "ui.lobby_expired": "Diese Lobby ist geschlossen: Das Spiel wurde nicht rechtzeitig gestartet.",
    },
}


def t(key: str, lang: str = "en", /, **params: Any) -> str:
    return _OTHER.get(lang, {}).get(key, _EN[key]).format(**params)


def N_(key: str) -> str:
    return key


def language_of(locale: str | None) -> str:
    language = (locale or "").split("-")[0].lower()
    return language if language in LANGUAGES else "en"
