"""companion/serving/server.py overrides five gevent internals (see there). gevent is pinned to
the versions they were written against; this fails first if an upgrade renames one."""

from __future__ import annotations

import inspect

import pytest

gevent = pytest.importorskip("gevent")


def test_the_gevent_internals_the_server_overrides_still_exist():
    from gevent.hub import Hub
    from gevent.pywsgi import Input, WSGIHandler

    # 1. the body's drain after the answer; 2. the handler builds self.wsgi_input itself
    assert callable(Input._discard)
    assert "wsgi_input" in inspect.getsource(WSGIHandler.handle_one_response)
    # 3. the traceback printed for an error while handling a connection
    assert list(inspect.signature(WSGIHandler._log_error).parameters) == ["self", "t", "v", "tb"]
    # 4. the hub's printing of a greenlet's (and accept()'s) error
    assert list(inspect.signature(Hub.print_exception).parameters)[:4] == ["self", "context", "t", "v"]
    # 5. the traceback printed for a request gevent can't parse, and gevent's 400 answer to it
    assert list(inspect.signature(WSGIHandler._handle_client_error).parameters) == ["self", "ex"]
    assert "print_exc" in inspect.getsource(WSGIHandler._handle_client_error)
    from gevent.pywsgi import _BAD_REQUEST_RESPONSE
    assert _BAD_REQUEST_RESPONSE.startswith(b"HTTP/1.1 400 ")


def test_the_server_classes_are_at_module_level_and_override_only_these():
    from gevent.pywsgi import Input, WSGIHandler

    from companion.serving import server

    assert issubclass(server.KeptBody, Input) and server.KeptBody.__slots__ == ()
    overridden = {name for name in vars(server.Handler) if name in vars(WSGIHandler)} - {"__doc__", "__module__"}
    assert overridden == {"__init__", "get_environ", "handle", "read_requestline", "read_request",
                          "handle_one_response", "log_request", "log_error", "_log_error",
                          "_handle_client_error"}
    hub = gevent.get_hub()
    before = hub.print_exception
    try:
        server.quiet_accept_errors(server.FloodLog())
        server.quiet_accept_errors(server.FloodLog())  # twice: still one layer over gevent's own
        assert hub.print_exception.companion_original == before
    finally:
        hub.print_exception = before
