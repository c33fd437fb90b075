"""Exports as files: CSV for spreadsheets and JSON, every export's one way (a table's, the
night's, a player's, the season's)."""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Sequence

from flask import Response


# What a spreadsheet runs as a formula when a cell starts with it (=HYPERLINK(…) in a name).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


PLAIN_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def csv_cell(value) -> str:
    """A cell a spreadsheet shows as text: one that would start a formula gets a leading
    single quote (OWASP's advice), so a player's name can never run as one. A plain negative
    number (points "-10") is a number to a spreadsheet, never a formula: it stays as it is."""
    text = "" if value is None else str(value)
    if text.startswith(FORMULA_STARTS) and not PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


def csv_download(rows: list[dict], first_columns: Sequence[str], filename: str, **headers) -> Response:
    """Rows as a CSV file for spreadsheets (every export's one way): columns in the order
    they first appear after ``first_columns``, a BOM for UTF-8, every cell formula-safe."""
    columns: list[str] = list(first_columns)
    for row in rows:
        columns.extend(c for c in row if c not in columns)
    out = io.StringIO()
    out.write("\ufeff")  # BOM: spreadsheet software then reads the names as UTF-8
    writer = csv.writer(out)
    writer.writerow([csv_cell(c) for c in columns])
    writer.writerows([csv_cell(row.get(c, "")) for c in columns] for row in rows)
    return Response(out.getvalue(), mimetype="text/csv", headers={
        "Content-Disposition": f"attachment; filename={filename}", **headers})


def json_download(doc, filename: str, indent: int = 2, **headers) -> Response:
    """A JSON document as a file to keep (every export's JSON), readable as it is."""
    return Response(json.dumps(doc, ensure_ascii=False, indent=indent), mimetype="application/json", headers={
        "Content-Disposition": f"attachment; filename={filename}", **headers})
