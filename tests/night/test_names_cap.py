"""The list's cap refuses strangers before known players (issue 44 item 3): 50 addresses x 4
names filled tonight's list (200) and a real player got "Tonight's list is full". Names phones
make up fill it only to MAX_ROSTER - KEPT_FOR_KNOWN; a player the season knows, and the
organiser, still get the last places."""

from __future__ import annotations

from companion.night import claims
from companion.night import service as night
from companion.players import service as players
from table_writes import done, finished_match


def test_made_up_names_leave_the_last_places_to_known_players(conn):
    finished_match(conn, ["Ann", "Bo", "Cy", "Di"])  # an earlier night's players
    players.refresh(conn)
    done(night.start_night(conn))
    strangers = night.MAX_ROSTER - claims.KEPT_FOR_KNOWN
    for n in range(strangers):
        address = f"10.0.{n // 4 // 250}.{n // 4 % 250 + 1}"  # four names an address, its share
        done(claims.join_as(conn, f"device-{n}", address, name=f"Zz{n}"))
    refused = claims.join_as(conn, "device-x", "10.9.9.9", name="Stranger")
    assert not refused.saved and "its last 40 places are kept" in str(refused.errors[0].message)
    assert claims.join_as(conn, "device-ann", "10.9.9.10", name="ann").saved  # Ann, known
    for n in range(claims.KEPT_FOR_KNOWN - 1):  # the organiser fills the rest
        done(night.join(conn, f"Guest {n}"))
    assert len(night.roster(conn)) == night.MAX_ROSTER
    full = claims.join_as(conn, "device-bo", "10.9.9.11", name="Bo")
    assert not full.saved and "Tonight's list is full" in str(full.errors[0].message)
