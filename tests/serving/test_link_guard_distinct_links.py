"""The link guard counts distinct unknown links, not requests (issue 11 item 14): a phone polling
its removed table is never locked out; guessing still is. Moved from test_hardening.py."""

from __future__ import annotations

from helpers import create_table as create_via_form


def test_a_phone_polling_its_removed_table_is_never_locked_out(app, client):
    import secrets
    from companion.serving.limits import DeviceLimits

    guard = app.extensions["link_guard"]
    now = [0.0]
    app.extensions["live_answers"].limits = DeviceLimits(clock=lambda: now[0])  # the poll's time, not the test's
    phone = {"REMOTE_ADDR": "192.168.1.23"}
    gone = secrets.token_urlsafe(16)
    for _ in range(guard.limit * 5):  # its live poll, every 0.7 s for a minute and more
        now[0] += 0.7
        assert client.get(f"/t/{gone}/live?rev=3", environ_base=phone).status_code == 404
    token = create_via_form(client, "rwd", ["Ann", "Bo", "Cy", "Di"])
    assert client.get(f"/t/{token}", environ_base=phone).status_code == 200  # a freshly scanned table
    for _ in range(guard.limit):
        client.get(f"/t/{secrets.token_urlsafe(16)}", environ_base=phone)
    assert client.get(f"/t/{token}", environ_base=phone).status_code == 429  # guessing still is cut off
    assert len(guard.limits.seen["192.168.1.23"]["links"]) <= guard.limit  # memory per device stays bounded
