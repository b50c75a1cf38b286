# test_serve_zygote_restart.py — a render zygote restarted by a request
# lives as long as the server, not as long as the request's thread, and
# still dies with the server. The zygote's child asks for SIGKILL when its
# parent dies (PR_SET_PDEATHSIG), and Linux sends that when the *thread*
# that forked it ends; a request's thread ends PARK_S (10 s, serve/http.c)
# after its last request. Every server is on a free loopback port and
# stopped by the test.
import os
import pathlib
import re
import signal
import time

import pytest

from test_serve import Server, _children, render, request

PARK_S = 10  # serve/http.c: a request's thread waits this long for another


def restarts(srv):
    st, _, body = request(srv.url + "/metrics")
    assert st == 200, body
    m = re.search(r"^folio_zygote_restarts_total (\d+)$", body.decode(), re.M)
    assert m, body
    return int(m.group(1))


def alive(pid):
    """pid exists and is not a zombie."""
    try:
        st = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return st.rsplit(")", 1)[1].split()[0] != "Z"


def wait_until(cond, seconds):
    end = time.monotonic() + seconds
    while not cond():
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


def kill_zygote_and_render(srv):
    """SIGKILLs the zygote (the jail's init when jailed), lets the server
    notice, renders (the request restarts it); the new zygote's pid."""
    (old,) = _children(srv.p.pid)
    os.kill(old, signal.SIGKILL)
    assert wait_until(lambda: old not in _children(srv.p.pid), 10)
    st, _, body = render(srv, ["xlsx"])
    assert st == 200, body[:500]
    assert restarts(srv) == 1
    (new,) = _children(srv.p.pid)
    assert new != old
    return new


MODES = [pytest.param([], id="jail"), pytest.param(["--no-jail"], id="plain")]


@pytest.mark.parametrize("mode", MODES)
def test_a_restarted_zygote_outlives_the_requests_thread(tmp_path, mode):
    srv = Server("--workers", 2, *mode, scratch=tmp_path)
    try:
        z = kill_zygote_and_render(srv)
        # no request meanwhile: the restarting request's thread ends
        time.sleep(PARK_S + 3)
        assert alive(z), "the restarted zygote died with the request thread that started it"
        assert _children(srv.p.pid) == [z]
        for _ in range(3):
            st, _, body = render(srv, ["xlsx"])
            assert st == 200, body[:500]
        assert restarts(srv) == 1
        assert _children(srv.p.pid) == [z]
    finally:
        assert srv.stop() == 0


@pytest.mark.parametrize("mode", MODES)
def test_a_restarted_zygote_dies_with_the_server(tmp_path, mode):
    srv = Server("--workers", 2, *mode, scratch=tmp_path)
    z = None
    try:
        z = kill_zygote_and_render(srv)
        srv.p.kill()
        srv.p.wait(30)
        assert wait_until(lambda: not alive(z), 20), "the restarted zygote outlived a SIGKILLed server"
    finally:
        srv.stop()
        if z and alive(z):
            os.kill(z, signal.SIGKILL)
