"""The catalogue's API: lookup, fallback, formatting, Discord locales, and .mo files compiled from .po."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import discord
import pytest

from bot import i18n
from bot.i18n import LANGUAGES, LOCALE_DIR, N_, Text, compile_po, language_of, load, t


def test_a_key_in_each_language():
    assert t("engine.stale") == "The table has moved on since that message: use the latest one."
    assert t("engine.stale", "fr").startswith("La partie a avancé")
    assert t("engine.stale", "de").startswith("Das Spiel ist seit dieser Nachricht")


def test_an_unknown_language_falls_back_to_english():
    assert t("engine.stale", "es") == t("engine.stale", "en")


def test_an_unknown_key_comes_back_as_it_is():
    assert t("no.such.key", "fr") == "no.such.key"
    assert not i18n.has("no.such.key") and i18n.has("engine.stale")


def test_n_marks_without_translating():
    assert N_("engine.stale") == "engine.stale"


def test_params_are_formatted_and_a_text_param_speaks_the_same_language(tmp_path):
    # A catalogue of its own, so that the test does not depend on the bot's wording.
    _write_po(tmp_path, "en", {"x.outer": "Refused: {why} ({n})", "x.inner": "too late"})
    _write_po(tmp_path, "fr", {"x.outer": "Refusé : {why} ({n})", "x.inner": "trop tard"})
    _write_po(tmp_path, "de", {"x.outer": "Abgelehnt: {why} ({n})"})
    catalogues = load(tmp_path)
    original = i18n._CATALOGUES
    i18n._CATALOGUES = catalogues
    try:
        assert t("x.outer", "fr", why=Text("x.inner"), n=3) == "Refusé : trop tard (3)"
        # German lacks x.inner: English fills the gap, inside a German sentence.
        assert t("x.outer", "de", why=Text("x.inner"), n=3) == "Abgelehnt: too late (3)"
        assert Text("x.inner").render("fr") == "trop tard"
    finally:
        i18n._CATALOGUES = original


@pytest.mark.parametrize(
    ("locale", "lang"),
    [
        ("fr", "fr"),
        ("de", "de"),
        ("en-US", "en"),
        ("en-GB", "en"),
        ("es-ES", "en"),
        ("pt-BR", "en"),
        (None, "en"),
        ("", "en"),
        (discord.Locale.french, "fr"),
        (discord.Locale.german, "de"),
        (discord.Locale.american_english, "en"),
        (discord.Locale.japanese, "en"),
    ],
)
def test_language_of_a_discord_locale(locale, lang):
    assert language_of(locale) == lang


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_mo_files_are_compiled_from_the_current_po_files(lang):
    """Importing bot.i18n compiles a stale .mo; what is on disk must be exactly the current .po compiled."""
    po = LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po"
    mo = po.with_suffix(".mo")
    assert mo.is_file(), f"{mo} was not compiled"
    assert mo.read_bytes() == compile_po(po, lang), f"{mo} is stale: it differs from {po.name} compiled"


def test_a_missing_or_stale_mo_is_compiled_on_load(tmp_path):
    shutil.copytree(LOCALE_DIR, tmp_path, dirs_exist_ok=True)
    fr_po = tmp_path / "fr" / "LC_MESSAGES" / "messages.po"
    (tmp_path / "de" / "LC_MESSAGES" / "messages.mo").unlink(missing_ok=True)
    fr_mo = fr_po.with_suffix(".mo")
    fr_mo.write_bytes(compile_po(fr_po, "fr"))
    # Edit the French .po after its .mo was compiled: the next load must see the edit.
    fr_po.write_text(
        fr_po.read_text(encoding="utf-8").replace("La partie a avancé", "Le jeu a avancé"), encoding="utf-8"
    )
    old = fr_mo.stat().st_mtime - 10
    os.utime(fr_mo, (old, old))
    catalogues = load(tmp_path)
    assert catalogues["fr"].gettext("engine.stale").startswith("Le jeu a avancé")
    assert (tmp_path / "de" / "LC_MESSAGES" / "messages.mo").is_file()
    assert fr_mo.read_bytes() == compile_po(fr_po, "fr")


def test_a_read_only_package_still_loads(tmp_path, monkeypatch):
    shutil.copytree(LOCALE_DIR, tmp_path, dirs_exist_ok=True)
    for mo in tmp_path.glob("*/LC_MESSAGES/*.mo"):
        mo.unlink()

    def read_only(path: Path, data: bytes) -> None:
        raise PermissionError(13, "Read-only file system", str(path))

    # As in a package installed read-only (the tests may run as root, who can write anywhere).
    monkeypatch.setattr(i18n, "_write_atomically", read_only)
    catalogues = load(tmp_path)
    assert catalogues["de"].gettext("engine.stale").startswith("Das Spiel")
    assert not list(tmp_path.glob("*/LC_MESSAGES/*.mo"))


def _write_po(root: Path, lang: str, texts: dict[str, str]) -> None:
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    catalog = Catalog(locale=lang, domain="messages")
    for key, text in texts.items():
        catalog.add(key, text)
    folder = root / lang / "LC_MESSAGES"
    folder.mkdir(parents=True)
    with (folder / "messages.po").open("wb") as out:
        write_po(out, catalog)
