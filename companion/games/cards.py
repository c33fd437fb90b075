"""Cards for the in-game helpers: parsing "QS", "10h", "A♠" and comparing them."""

from __future__ import annotations

from dataclasses import dataclass

from .text import T, Text

RANK_NAMES = {11: "J", 12: "Q", 13: "K", 14: "A"}
RANK_CODES = {"J": 11, "Q": 12, "K": 13, "A": 14, "T": 10}

# Standard suits plus Twin Shoot's Leaf and Cross.
SUIT_CODES = {"S": "S", "H": "H", "D": "D", "C": "C", "L": "L", "X": "X",
              "♠": "S", "♥": "H", "♦": "D", "♣": "C"}
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣", "L": "Leaf", "X": "Cross"}
# One name per suit everywhere, singular as on Twin Shoot's card ("Heart", not "Hearts").
SUIT_NAMES = {"S": T("Spade"), "H": T("Heart"), "D": T("Diamond"), "C": T("Club"),
              "L": T("Leaf"), "X": T("Cross")}


@dataclass(frozen=True, order=True)
class Card:
    rank: int  # 2..14 (ace high)
    suit: str  # one of S H D C L X

    @property
    def code(self) -> str:
        return f"{RANK_NAMES.get(self.rank, str(self.rank))}{self.suit}"

    def __str__(self) -> str:
        return self.code


class CardError(ValueError):
    def __init__(self, message: Text):
        self.message = message
        super().__init__(str(message))


def parse_card(text: str, suits: str = "SHDC", ranks: range = range(2, 15)) -> Card:
    """Parse "QS", "10h", "tc", "A♠" into a Card, refusing suits/ranks not in the deck."""
    raw = (text or "").strip().upper()
    if len(raw) < 2 or len(raw) > 3:
        raise CardError(T("“{card}” is not a card (write rank then suit, e.g. QS or 10H).", card=text[:8]))
    rank_part, suit_part = raw[:-1], raw[-1]
    suit = SUIT_CODES.get(suit_part)
    if suit is None or suit not in suits:
        raise CardError(T("“{card}”: unknown suit.", card=text[:8]))
    if rank_part in RANK_CODES:
        rank = RANK_CODES[rank_part]
    elif rank_part.isascii() and rank_part.isdigit():
        rank = int(rank_part)
    else:
        raise CardError(T("“{card}”: unknown rank.", card=text[:8]))
    if rank not in ranks:
        raise CardError(T("“{card}” is not in this game's deck.", card=text[:8]))
    return Card(rank, suit)
