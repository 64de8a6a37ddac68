"""Command line: `python -m bot.words check|same|category --lang LANG WORD…`, one JSON object per line;
`python -m bot.words build` builds the precomputed word tables."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import NoReturn

from bot.words.data import CATEGORIES, LANGUAGES, NAME_COUNTRIES
from bot.words.service import WordService


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _parser() -> _Parser:
    parser = _Parser(prog="python -m bot.words", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    check = sub.add_parser("check", help="is each word valid, and if not why")
    check.add_argument("--tiles", action="store_true", help="read words as TopWords tiles (SS may be ß)")
    same = sub.add_parser("same", help="are the words of each pair forms of one word (variants)")
    build = sub.add_parser("build", help="build the precomputed word tables (skips those up to date)")
    build.add_argument("--lang", action="append", choices=LANGUAGES, help="only these languages")
    build.add_argument("--force", action="store_true", help="rebuild even if up to date")
    category = sub.add_parser("category", help="is each word in a Level VII category list")
    category.add_argument("--category", required=True, choices=CATEGORIES)
    category.add_argument("--country", choices=NAME_COUNTRIES, help="table country for first_names")
    for p in (check, same, category):
        p.add_argument("--lang", required=True, choices=LANGUAGES)
        p.add_argument("words", nargs="+", metavar="WORD")
    return parser


def _build_table(lang: str) -> tuple[str, int, float]:
    started = time.perf_counter()
    count = WordService().build_table(lang)
    return lang, count, time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    """Run the command line and return the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "same" and len(args.words) % 2:
        parser.error("same needs pairs of words: an even number of WORD")
    ws = WordService()
    out = sys.stdout
    if args.command == "build":
        missing = []
        for lang in args.lang or LANGUAGES:
            if ws.table(lang) is not None and not args.force:
                out.write(f"{lang}: up to date ({ws.tables_dir / lang}.sqlite)\n")
            else:
                missing.append(lang)
        # Each language's table is its own file, built from its own dictionaries: one process per core
        # (a fresh machine builds all three, minutes of CPU each).
        if missing:
            with ProcessPoolExecutor(max_workers=min(len(missing), os.cpu_count() or 1)) as pool:
                for lang, count, seconds in pool.map(_build_table, missing):
                    out.write(f"{lang}: {count:,} forms in {seconds:.1f} s\n")
        return 0
    if args.command == "check":
        for word in args.words:
            v = ws.check_tiles(word, args.lang) if args.tiles else ws.check(word, args.lang)
            out.write(
                json.dumps({"word": v.word, "valid": v.valid, "reason": v.reason}, ensure_ascii=False) + "\n"
            )
    elif args.command == "same":
        pairs = zip(args.words[::2], args.words[1::2], strict=True)
        for a, b in pairs:
            out.write(
                json.dumps({"a": a, "b": b, "same": ws.same_word(a, b, args.lang)}, ensure_ascii=False) + "\n"
            )
    else:
        for word in args.words:
            member = ws.in_category(word, args.lang, args.category, country=args.country)
            row = {"word": word, "category": args.category, "member": member}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
