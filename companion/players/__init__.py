"""Players across nights and the season (issue 26; the feature's one home).

- :mod:`.service`: who is who (merge, rename, keep apart), each table's stored result and the
  season's statistics (computed by :mod:`companion.meetup.season`).
- :mod:`.views`: the blueprint ``players`` (/players, /season).
- :mod:`.exports`: a player's history and the season as JSON documents and CSV rows.
"""
