"""A table: one match, stored as raw facts per deal (issue 30: the feature's one home).

- :mod:`.service`: what may be written and what is derived (replays, checks, corrections);
  each write returns what happened. No Flask, no SQL (that is :mod:`companion.store`).
- :mod:`.views`: the blueprint ``tables`` (/tables, /t/<token>…); :mod:`.forms` reads its forms,
  :mod:`.links` finds a table by its link; :mod:`.chart` draws the progression chart.
- :mod:`.exports`: the table's facts for reading, its CSV rows and JSON document.
"""
