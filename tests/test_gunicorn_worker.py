"""The API worker class's graceful close, away from gunicorn's main loop
(service/http/gunicorn_worker.py, ``close_graceful_aside``); under gunicorn it is tested in
tests/test_hostile_input.py."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from service.http import gunicorn_worker


def _lingering_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "linger"]


def _wait_for_no_lingering(seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while _lingering_threads() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not _lingering_threads()


def test_the_close_lingers_until_the_client_closes_then_closes_the_socket() -> None:
    server, client = socket.socketpair()
    gunicorn_worker.close_graceful_aside(server, timeout=5.0)
    assert len(_lingering_threads()) == 1
    assert client.recv(1) == b""  # the FIN: the answer is complete
    client.close()
    _wait_for_no_lingering()
    assert server.fileno() == -1


def test_a_socket_closed_twice_lingers_once() -> None:
    """After an error in a started answer gunicorn closes a connection twice."""
    server, client = socket.socketpair()
    gunicorn_worker.close_graceful_aside(server, timeout=5.0)
    gunicorn_worker.close_graceful_aside(server, timeout=5.0)
    assert len(_lingering_threads()) == 1
    client.close()
    _wait_for_no_lingering()


def test_past_the_cap_a_connection_closes_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gunicorn_worker, "LINGERING_CLOSES", 1)
    first, first_client = socket.socketpair()
    second, second_client = socket.socketpair()
    gunicorn_worker.close_graceful_aside(first, timeout=5.0)
    gunicorn_worker.close_graceful_aside(second, timeout=5.0)
    assert second.fileno() == -1 and len(_lingering_threads()) == 1
    for sock in (first_client, second_client):
        sock.close()
    _wait_for_no_lingering()
