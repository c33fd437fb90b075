"""Player-facing text that stays untranslated until it is shown.

The rules engine has no idea which language a phone reads, so every sentence it
produces is a :class:`Text`: an English message id plus parameters. ``str()``
gives English; the web layer calls :meth:`Text.render` with its own gettext.
Babel extracts message ids from calls to :func:`T` (see ``babel.cfg``).
"""

from __future__ import annotations

from typing import Any, Callable

Gettext = Callable[[str], str]


class Text:
    __slots__ = ("msgid", "params")

    def __init__(self, msgid: str, **params: Any) -> None:
        self.msgid = msgid
        self.params = params

    def render(self, gettext: Gettext | None = None) -> str:
        if not self.msgid:  # gettext("") is the catalog header, never a message
            return ""
        translate = gettext or (lambda s: s)
        values = {
            key: value.render(gettext) if isinstance(value, Text) else value
            for key, value in self.params.items()
        }
        return translate(self.msgid).format(**values)

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
