"""Maintain the Japanese message catalog.

Run from the repository root (a development checkout, not an installed wheel)::

    python -m companion.catalog update   # extract -> messages.pot, merge into ja .po, compile .mo
    python -m companion.catalog check    # exit 1 on untranslated/fuzzy/missing msgids or a stale .mo

Messages come from ``companion/**.py`` (keywords ``T``, ``_``, ``gettext``, ``ngettext``,
``lazy_gettext``...) and ``templates/**.html`` (Jinja's i18n extension, trimmed like the
app's environment), as configured in ``babel.cfg``. The rules engine's ``T()`` messages
use ``str.format`` fields (``{name}``); templates and web code use ``%(name)s``. Both
live in one catalog and a translation must keep exactly the same placeholders.

Output is stable: messages are sorted by msgid, locations carry no line numbers and
files are only rewritten when something other than their dates changed.
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path
from typing import Iterable

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po, write_po

PACKAGE_DIR = Path(__file__).resolve().parent
ROOT = PACKAGE_DIR.parent
MAPPING = ROOT / "babel.cfg"
TRANSLATIONS = PACKAGE_DIR / "translations"
POT = TRANSLATIONS / "messages.pot"
LOCALES = ("ja",)

KEYWORDS = {
    "T": None,  # companion.games.text.T("... {name} ...", name=...)
    "Tn": (1, 2),  # companion.games.text.Tn("{n} chip", "{n} chips", count)
    "_": None,
    "gettext": None,
    "ngettext": (1, 2),
    "lazy_gettext": None,
    "lazy_ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
    "npgettext": ((1, "c"), 2, 3),
}
COMMENT_TAGS = ("TRANSLATORS:",)
PROJECT = "table-companion"
COPYRIGHT = "Table Companion contributors"
HEADER = ("# {kind} for Table Companion.\n"
          "# Maintained with `python -m companion.catalog update` (see companion/catalog.py);\n"
          "# translate entries in this file, then run the update again to compile the .mo.\n"
          "# Keep every {{placeholder}} and %(placeholder)s of the msgid in the msgstr.\n#")

# Placeholders a translation must keep: %(name)s / %s / %% and {name} / {0} / {}.
PERCENT = re.compile(r"%(?:\([A-Za-z_][A-Za-z0-9_]*\))?[-#0 +]*\d*(?:\.\d+)?[sdifrx%]")
BRACE = re.compile(r"(?<!\{)\{([A-Za-z_0-9][^{}]*)?\}(?!\})")


def po_path(locale: str) -> Path:
    return TRANSLATIONS / locale / "LC_MESSAGES" / "messages.po"


def mo_path(locale: str) -> Path:
    return TRANSLATIONS / locale / "LC_MESSAGES" / "messages.mo"


# --- extraction ------------------------------------------------------------------------------

def _mapping() -> tuple[list[tuple[str, str]], dict[str, dict[str, str]]]:
    with MAPPING.open(encoding="utf-8") as fh:
        return parse_mapping_cfg(fh, filename=str(MAPPING))


def extract(root: Path = ROOT) -> Catalog:
    """A fresh template catalog (the .pot) of every message in the source, in memory."""
    method_map, options_map = _mapping()
    catalog = Catalog(project=PROJECT, version=None, copyright_holder=COPYRIGHT,
                      msgid_bugs_address=None, charset="utf-8", fuzzy=False,
                      header_comment=HEADER.format(kind="Message template"))
    for filename, lineno, message, comments, context in extract_from_dir(
            str(root), method_map, options_map, keywords=KEYWORDS, comment_tags=COMMENT_TAGS,
            strip_comment_tags=True):
        if not message or (isinstance(message, tuple) and not message[0]):
            continue
        path = filename.replace("\\", "/")
        catalog.add(message, None, [(path, lineno)], auto_comments=comments, context=context)
    return catalog


def msgids(catalog: Catalog) -> set:
    return {_key(m.id, m.context) for m in catalog if m.id}


# --- reading/writing -------------------------------------------------------------------------

def load_po(locale: str) -> Catalog:
    with po_path(locale).open("rb") as fh:
        return read_po(fh, locale=locale)


def load_mo(locale: str) -> Catalog:
    with mo_path(locale).open("rb") as fh:
        return read_mo(fh)


def po_bytes(catalog: Catalog, *, template: bool = False) -> bytes:
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=100, sort_output=True, include_lineno=False,
             ignore_obsolete=True, omit_header=False)
    return buffer.getvalue()


def mo_bytes(catalog: Catalog) -> bytes:
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


_DATES = re.compile(rb'^"(?:POT-Creation-Date|PO-Revision-Date): .*\\n"$', re.M)


def _write_if_changed(path: Path, data: bytes) -> bool:
    """Write unless only the date headers differ, so reruns give no diff."""
    if path.exists() and _DATES.sub(b"", path.read_bytes()) == _DATES.sub(b"", data):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


def translations(catalog: Catalog) -> dict:
    """{(msgid, context): msgstr} of the messages a compiled catalog would carry."""
    out = {}
    for message in catalog:
        if not message.id or message.fuzzy or not _translated(message):
            continue
        context = message.context
        if isinstance(context, bytes):  # read_mo gives a msgctxt as bytes, read_po as str
            context = context.decode("utf-8")
        out[_key(message.id, context)] = _freeze(message.string)
    return out


def _freeze(value):
    return tuple(value) if isinstance(value, (tuple, list)) else value


def _key(msgid, context) -> tuple:
    """read_mo gives plural msgids as lists, read_po as tuples: compare them alike."""
    return (_freeze(msgid), context)


def _translated(message: Message) -> bool:
    if isinstance(message.string, (tuple, list)):
        return all(message.string)
    return bool(message.string)


# --- checks ----------------------------------------------------------------------------------

def placeholders(text: str) -> tuple[list[str], list[str]]:
    """Sorted %-style and {}-style placeholders of ``text``."""
    percent = sorted(PERCENT.findall(text))
    brace = sorted(match.group(0) for match in BRACE.finditer(text))
    return percent, brace


def placeholder_problems(message: Message) -> list[str]:
    ids = message.id if isinstance(message.id, (tuple, list)) else (message.id,)
    strings = message.string if isinstance(message.string, (tuple, list)) else (message.string,)
    problems = []
    wanted_percent = set().union(*(placeholders(i)[0] for i in ids))
    wanted_brace = set().union(*(placeholders(i)[1] for i in ids))
    for string in strings:
        if not string:
            continue
        percent, brace = placeholders(string)
        # Plural forms may drop the count, everything else must stay.
        if set(percent) != wanted_percent or set(brace) != wanted_brace:
            problems.append(f"placeholders differ: {ids[0]!r} -> {string!r}")
    return problems


def problems(locale: str, source: Catalog | None = None) -> list[str]:
    """Everything that makes the catalog for ``locale`` incomplete or stale."""
    source = source if source is not None else extract()
    found: list[str] = []
    if not po_path(locale).exists():
        return [f"{po_path(locale)} is missing: run `python -m companion.catalog update`"]
    po = load_po(locale)
    in_po = msgids(po)
    for key in sorted(msgids(source) - in_po, key=str):
        found.append(f"missing (in the source, not in {locale} .po): {_show(key)}")
    for message in po:
        if not message.id:
            continue
        if message.fuzzy:
            found.append(f"fuzzy: {_show((message.id, message.context))}")
        elif not _translated(message):
            found.append(f"untranslated: {_show((message.id, message.context))}")
        found.extend(placeholder_problems(message))
    if not mo_path(locale).exists():
        found.append(f"{mo_path(locale)} is missing: run `python -m companion.catalog update`")
    elif translations(load_mo(locale)) != translations(po):
        found.append(f"{mo_path(locale)} is stale (does not match the .po): run "
                     "`python -m companion.catalog update`")
    return found


def unused(locale: str, source: Catalog | None = None) -> list:
    source = source if source is not None else extract()
    return sorted(msgids(load_po(locale)) - msgids(source), key=str)


def _show(key) -> str:
    msgid, context = key
    text = msgid[0] if isinstance(msgid, (tuple, list)) else msgid
    return repr(text) + (f" (context {context!r})" if context else "")


# --- commands --------------------------------------------------------------------------------

def update(locales: Iterable[str] = LOCALES) -> list[str]:
    """Extract, write the .pot, merge into each .po (keeping translations), compile the .mo."""
    template = extract()
    report = []
    if _write_if_changed(POT, po_bytes(template)):
        report.append(f"wrote {POT.relative_to(ROOT)} ({len(template)} messages)")
    for locale in locales:
        path = po_path(locale)
        if path.exists():
            catalog = load_po(locale)
        else:
            catalog = Catalog(locale=locale, project=PROJECT, copyright_holder=COPYRIGHT,
                              charset="utf-8", fuzzy=False)
        before = msgids(catalog)
        catalog.update(template, no_fuzzy_matching=False, update_header_comment=False)
        catalog.fuzzy = False
        catalog.language_team = f"{locale}"
        catalog.last_translator = COPYRIGHT
        catalog.header_comment = HEADER.format(kind=f"{locale} messages")
        if _write_if_changed(path, po_bytes(catalog)):
            report.append(f"wrote {path.relative_to(ROOT)}")
        catalog = load_po(locale)  # exactly what is on disk
        if _write_if_changed(mo_path(locale), mo_bytes(catalog)):
            report.append(f"wrote {mo_path(locale).relative_to(ROOT)}")
        added = msgids(catalog) - before
        todo = [m for m in catalog if m.id and (m.fuzzy or not _translated(m))]
        report.append(f"{locale}: {len(catalog)} messages, {len(added)} new, {len(todo)} to translate")
    return report


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    command = args[0] if args else "check"
    if command == "update":
        for line in update():
            print(line)
        return 0
    if command == "check":
        source = extract()
        status = 0
        for locale in LOCALES:
            found = problems(locale, source)
            for line in found:
                print(f"{locale}: {line}")
            for key in unused(locale, source):
                print(f"{locale}: note: not in the source any more: {_show(key)}")
            if found:
                status = 1
            else:
                print(f"{locale}: complete ({len(source)} messages)")
        return status
    if command == "todo":  # print what still needs a translation, as msgids
        for locale in LOCALES:
            for message in load_po(locale):
                if message.id and (message.fuzzy or not _translated(message)):
                    print(repr(message.id))
        return 0
    print("usage: python -m companion.catalog [update|check|todo]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
