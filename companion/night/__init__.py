"""A meetup night (issues 25, 26): prepared tables, the roster, drawn rounds, the round clock
and the leaderboard of place points (the feature's one home).

- :mod:`.service`: what may be written and what is derived; the pure algorithms (seating
  draws, place points) are :mod:`companion.meetup`'s.
- :mod:`.views`: the blueprint ``hall`` (/hall on the laptop, /night and a prepared table's
  seating on the phones); :mod:`.phone` remembers which player a phone is.
- :mod:`.exports`: what the night calls its tables, its JSON document and CSV rows.
"""
