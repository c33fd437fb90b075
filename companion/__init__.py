"""Table Companion: the rules engine in ``companion.games`` (no web dependency) and a
Flask app made by :func:`create_app`.

Nothing web-related is imported here: ``import companion.games`` must work where
Flask is not installed. ``flask --app companion run`` finds ``create_app`` below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:  # pragma: no cover
    from flask import Flask


def create_app(config: Mapping[str, Any] | None = None) -> "Flask":
    from .app import create_app as factory
    return factory(config)
