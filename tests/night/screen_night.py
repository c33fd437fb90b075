"""A meetup night for the screen for the room's tests (tests/night/test_projector.py and
tests/browser/test_projector_browser.py): 24 players on tonight's list, rounds of six RWD
tables of four, each match one deal long, played through the night service."""

from __future__ import annotations

from companion.night import service as night
from companion.tables import service as store
import table_writes
from table_writes import done

# Long names, Japanese names and a plain one: the screen must wrap, never scroll.
NAMES = ["Aiko", "Bartholomew Featherstone", "千代子", "Daisuke", "Emi", "Fumi", "Gen", "Hana", "Ichiro",
         "Jun", "Kaori", "Leonardo Montgomery", "Mika", "Noboru", "さくら", "Pia", "Quinn", "Ren", "Sora",
         "Taro", "Umi", "Vera", "渡辺まゆみ", "Yuki"]
ONE_DEAL = {"rwd": {"length": 1}}  # RWD "One deal": a table's first deal ends its match


def rwd_deal(winner: int) -> dict:
    """A deal of RWD at four that ``winner`` wins (three tricks more than chips taken)."""
    chips, tricks = [4, 3, 3, 3], [2, 3, 3, 5]
    chips[winner], chips[0] = chips[0], chips[winner]
    tricks[winner], tricks[3] = tricks[3], tricks[winner]
    return {"chips": chips, "tricks": tricks}


def join_everyone(conn, names: list[str] = NAMES) -> None:
    for name in names:
        done(night.join(conn, name))


def draw(conn, tables: int = 6, minutes: int | None = None) -> night.Round:
    return done(night.draw_round(conn, chosen=["rwd"] * tables, minutes=minutes, seed="screen", formats=ONE_DEAL))


def play(conn, rt: night.RoundTable, winner: int = 0) -> None:
    table_writes.add_deal(conn, rt.table.token, 1, rwd_deal(winner))


def played_round(conn, minutes: int | None = None) -> night.Round:
    """Draw a round and finish every table of it (a different seat wins at each)."""
    drawn = draw(conn, minutes=minutes)
    for number, rt in enumerate(drawn.tables):
        play(conn, rt, winner=number % 4)
    return drawn
