"""Player-facing text that stays untranslated until it is shown.

The rules engine has no idea which language a phone reads, so every sentence it
produces is a :class:`Text`: an English message id plus parameters. ``str()``
gives English; the web layer calls :meth:`Text.render` with its own gettext.
Babel extracts message ids from calls to :func:`T` (see ``babel.cfg``).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

Gettext = Callable[[str], str]
Ngettext = Callable[[str, str, int], str]


class Text:
    __slots__ = ("msgid", "params")

    def __init__(self, msgid: str, **params: Any) -> None:
        self.msgid = msgid
        self.params = params

    def render(self, gettext: Gettext | None = None, ngettext: Ngettext | None = None) -> str:
        if not self.msgid:  # gettext("") is the catalog header, never a message
            return ""
        return self._template(gettext, ngettext).format(**self._values(gettext, ngettext))

    def _template(self, gettext: Gettext | None, ngettext: Ngettext | None) -> str:
        return gettext(self.msgid) if gettext else self.msgid

    def _values(self, gettext: Gettext | None, ngettext: Ngettext | None) -> dict[str, Any]:
        return {key: value.render(gettext, ngettext) if isinstance(value, Text) else value
                for key, value in self.params.items()}

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        return f"T({self.render()!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Text):
            return self.msgid == other.msgid and self.params == other.params
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.msgid, tuple(sorted((k, str(v)) for k, v in self.params.items()))))


def T(msgid: str, **params: Any) -> Text:
    """Mark ``msgid`` for translation; ``{name}`` fields are filled from ``params``."""
    return Text(msgid, **params)


class Plural(Text):
    """A message whose wording depends on a count: "1 chip" / "2 chips".

    ``count`` picks the form (English: singular for 1, plural otherwise; other
    languages by their catalog's plural rule) and fills ``{n}``.
    """

    __slots__ = ("plural", "count")

    def __init__(self, singular: str, plural: str, count: int, **params: Any) -> None:
        super().__init__(singular, n=count, **params)
        self.plural = plural
        self.count = count

    def _template(self, gettext: Gettext | None, ngettext: Ngettext | None) -> str:
        if ngettext:
            return ngettext(self.msgid, self.plural, self.count)
        return self.msgid if self.count == 1 else self.plural

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Plural):
            return (self.msgid, self.plural, self.params) == (other.msgid, other.plural, other.params)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((super().__hash__(), self.plural))


def Tn(singular: str, plural: str, count: int, **params: Any) -> Plural:
    """Mark a message with a plural form; ``{n}`` is the count (extracted like ``ngettext``)."""
    return Plural(singular, plural, count, **params)


class NameList(Text):
    """Names joined the way the reader's language joins them ("A, B" / 「A、B」).

    The separator is itself a message, so each catalog chooses its own punctuation.
    """

    __slots__ = ("names",)
    SEPARATOR = "{first}, {second}"  # extracted below as _LIST_SEPARATOR

    def __init__(self, names: Sequence[str | Text]) -> None:
        super().__init__(self.SEPARATOR)
        self.names = tuple(name if isinstance(name, Text) else str(name) for name in names)

    def render(self, gettext: Gettext | None = None, ngettext: Ngettext | None = None) -> str:
        pattern = gettext(self.SEPARATOR) if gettext else self.SEPARATOR
        shown = [name.render(gettext, ngettext) if isinstance(name, Text) else name
                 for name in self.names]
        if not shown:
            return ""
        joined = shown[0]
        for name in shown[1:]:
            joined = pattern.format(first=joined, second=name)
        return joined

    def __eq__(self, other: object) -> bool:
        if isinstance(other, NameList):
            return type(self) is type(other) and self.names == other.names
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.names)


def join_names(names: Sequence[str | Text]) -> NameList:
    """``names`` (or short phrases) as one list for a sentence, joined the reader's way."""
    return NameList(names)


# TRANSLATORS: joins two names in a list of players or teams (Japanese: 「{first}、{second}」).
_LIST_SEPARATOR = T("{first}, {second}", first="", second="")


class Sentences(NameList):
    """Whole sentences one after another, spaced the reader's way ("A. B." / 「A。B。」)."""

    __slots__ = ()
    SEPARATOR = "{first} {second}"  # extracted below as _SENTENCE_SEPARATOR


def join_sentences(sentences: Sequence[str | Text]) -> Sentences:
    """``sentences`` as one text, each translated when shown (never frozen in English)."""
    return Sentences(sentences)


# TRANSLATORS: puts one whole sentence after another (Japanese, no space: 「{first}{second}」).
_SENTENCE_SEPARATOR = T("{first} {second}", first="", second="")
