"""Hunspell dictionaries through pyenchant, with the hunspell provider pinned."""

from __future__ import annotations

import logging
import threading
from typing import Any

log = logging.getLogger(__name__)

_broker_lock = threading.Lock()
_broker: Any = None


def _get_broker() -> Any:
    global _broker
    with _broker_lock:
        if _broker is None:
            import enchant

            broker = enchant.Broker()
            # Without this, an installed aspell takes over en_* and the verdicts change (WORDS-FACTS).
            broker.set_ordering("*", "hunspell")
            _broker = broker
        return _broker


class Speller:
    """One or more hunspell dictionaries; a word passes when any of them accepts it exactly as given."""

    def __init__(self, tags: tuple[str, ...]) -> None:
        broker = _get_broker()
        self.tags = tags
        self._dicts = []
        for tag in tags:
            d = broker.request_dict(tag)
            provider = d.provider.name
            if provider != "hunspell":
                # Another provider gives other verdicts (WORDS-FACTS): refuse rather than judge differently.
                raise RuntimeError(
                    f"the {tag} dictionary comes from {provider}, not hunspell: install the hunspell "
                    "dictionaries (make setup does it)"
                )
            self._dicts.append(d)
        # enchant dictionaries are not documented as thread-safe and ctypes releases the GIL.
        self._lock = threading.Lock()

    def check(self, word: str) -> bool:
        """True when a dictionary accepts the word as spelled (case included)."""
        with self._lock:
            return any(bool(d.check(word)) for d in self._dicts)

    def stored_upper(self, word: str) -> bool:
        """True when a dictionary holds the word only in capitals (NASA), not lower-case or Capitalised."""
        low = word.lower()
        forms = (low.upper(), low[:1].upper() + low[1:], low)
        with self._lock:
            for d in self._dicts:
                upper, title, lower = (bool(d.check(f)) for f in forms)
                if upper and not title and not lower:
                    return True
        return False
