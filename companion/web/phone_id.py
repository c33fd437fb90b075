"""A phone's own id, kept in its signed session cookie: what a name it claims tonight belongs to
(night.claims), and who saved or confirmed a deal at a table (tables, issue 45). One place for
both, so the night and the tables name a phone alike."""

from __future__ import annotations

import secrets

from flask import session

DEVICE_KEY = "device"  # this phone's id in its (signed) session cookie


def new_device_id() -> str:
    return secrets.token_urlsafe(12)


def device_id(create: bool = False) -> str | None:
    """This phone's device id (made on its first join or save; None before, unless ``create``)."""
    found = session.get(DEVICE_KEY)
    if not isinstance(found, str) and create:
        found = session[DEVICE_KEY] = new_device_id()
    return found if isinstance(found, str) else None
