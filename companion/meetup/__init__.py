"""A meetup night's organiser tools as pure Python (no web framework, no storage).

- :mod:`.seating`: the seating draw of a round (who sits at which table, in which seat),
  mixing players over the night, by standings, or with the room's wishes.
- :mod:`.points`: place points that compare results across different games, a match's
  ranking replayed through the rules, and the night's leaderboard.
- :mod:`.season`: a player's statistics over many nights and the season table.
- :mod:`.ratings`: a rating per player, per game and overall (openskill's Plackett-Luce),
  replayed from the season's records.

Each takes plain data (names, ids, facts, records) and returns frozen dataclasses, so the
storage and web layers wire them up without this package knowing either.
"""
