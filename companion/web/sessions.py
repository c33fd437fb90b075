"""Sessions that don't depend on the laptop's wall clock staying steady (issue 23, item 7).

Flask's signed-cookie session refuses a cookie whose signature time is in the future or older
than PERMANENT_SESSION_LIFETIME (31 days) by the laptop's clock. When that clock jumps back D
seconds (a laptop syncing its time at the venue), every phone whose session began in the last
D seconds lost it, and with it the CSRF token its open form carries: "security check failed",
the typed deal thrown away; a jump forward of 32 days did it to every phone.

Here the cookie is still signed with the server's secret (it can't be forged or edited), and the
CSRF token is still tied to the session (Flask-WTF compares the form's token with the one kept
in it; WTF_CSRF_TIME_LIMIT is None, so no time is checked there either), but no age is checked:
how long a session lasts is the phone's business, told as Max-Age (seconds from when the phone
receives it, so a laptop whose clock is off can't make the phone drop it at once either).
"""

from __future__ import annotations

from flask import Flask
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface
from itsdangerous import BadSignature


class ClockFreeSessions(SecureCookieSessionInterface):
    def open_session(self, app: Flask, request) -> SecureCookieSession | None:
        signer = self.get_signing_serializer(app)
        if signer is None:
            return None
        value = request.cookies.get(self.get_cookie_name(app))
        if not value:
            return self.session_class()
        try:
            return self.session_class(signer.loads(value))  # no max_age: the signature is checked, not the clock
        except BadSignature:
            return self.session_class()

    def save_session(self, app: Flask, session, response) -> None:
        name = self.get_cookie_name(app)
        set_cookie = response.set_cookie
        lifetime = int(app.permanent_session_lifetime.total_seconds())

        def with_max_age(key, value="", *args, **kwargs):
            if key == name and kwargs.get("expires") is not None:
                kwargs["max_age"] = lifetime  # relative: the phone's clock counts it, not the laptop's
            return set_cookie(key, value, *args, **kwargs)

        response.set_cookie = with_max_age
        try:
            super().save_session(app, session, response)
        finally:
            del response.set_cookie  # the instance attribute; the class's method again
