# test_serve_reuse.py — `folio serve --reuse-workers N`: a render worker
# serves up to N requests of one tenant (one bearer token) and proves itself
# clean between them, or is replaced. Which worker rendered a request is in
# its X-Folio-Worker header; the counts are in /metrics. Every server is on
# a free loopback port and stopped by the test.
import json
import os
import re
import signal
import time

import pytest

from test_serve import SPEC, Server, _children, errors_of, render, request, xlsx_rows

TOKENS = "alpha-token\nbeta-token\n"


def metric(srv, name, reason=None):
    st, _, body = request(srv.url + "/metrics", token="alpha-token")
    assert st == 200, body
    label = '{reason="%s"}' % reason if reason else ""
    m = re.search(r"^%s%s (\d+)$" % (re.escape(name), re.escape(label)), body.decode(), re.M)
    assert m, f"{name}{label} not in /metrics"
    return int(m.group(1))


def worker_of(srv, formats=("xlsx",), spec=SPEC, files=(), token="alpha-token", status=200):
    st, h, body = render(srv, list(formats), spec, files, token)
    assert st == status, body[:500]
    assert re.fullmatch(r"[0-9a-f]{16}", h["X-Folio-Worker"] or ""), "every render of --reuse-workers names its worker"
    return h["X-Folio-Worker"], body


@pytest.fixture
def tokens(tmp_path):
    t = tmp_path / "tokens"
    t.write_text(TOKENS)
    return t


@pytest.fixture
def reuse(tokens):
    s = Server("--token-file", tokens, "--reuse-workers", 3)
    yield s
    s.stop()


def test_one_tokens_requests_share_a_worker_up_to_n(reuse):
    ids = [worker_of(reuse)[0] for _ in range(7)]
    # three requests per worker, then a new one
    assert ids[0] == ids[1] == ids[2] != ids[3] == ids[4] == ids[5] != ids[6], ids
    assert metric(reuse, "folio_workers_started_total") == 3
    assert metric(reuse, "folio_renders_reused_total") == 4
    assert metric(reuse, "folio_workers_replaced_total", "count") == 2
    assert metric(reuse, "folio_workers_replaced_total", "unclean") == 0


def test_two_tokens_never_share_a_worker(reuse):
    seen = {"alpha-token": [], "beta-token": []}
    for i in range(6):
        tok = "alpha-token" if i % 2 == 0 else "beta-token"
        seen[tok].append(worker_of(reuse, token=tok)[0])
    assert len(set(seen["alpha-token"])) == 1 and len(set(seen["beta-token"])) == 1, seen
    assert not set(seen["alpha-token"]) & set(seen["beta-token"]), seen
    assert metric(reuse, "folio_renders_reused_total") == 4


def test_a_file_of_one_request_is_not_there_for_the_next_in_the_same_worker(reuse):
    spec = {"folio": 1, "data": {"d": {"csv": "secret.csv"}}, "blocks": [{"type": "table", "data": "d"}]}
    w1, body = worker_of(reuse, spec=spec, files=[("secret.csv", b"k\nTOPSECRET\n")])
    assert ["TOPSECRET"] in [r[:1] for r in xlsx_rows(body)]
    w2, out = worker_of(reuse, spec=spec, status=400)
    assert w2 == w1, "the same worker, so the folder it had is what is checked"
    assert "not found" in errors_of(out)[0]["message"]
    # a bad spec is a plain refusal: the worker is kept and serves on
    w3, _ = worker_of(reuse)
    assert w3 == w1


def test_outputs_are_byte_identical_to_the_default_mode(tokens):
    fresh = Server("--token-file", tokens)
    reused = Server("--token-file", tokens, "--reuse-workers", 100)
    try:
        for fmt in ("xlsx", "docx", "pptx", "pdf", "png"):
            st, h, want = render(fresh, [fmt], token="alpha-token")
            assert st == 200 and "X-Folio-Worker" not in h, "the default mode has no workers"
            got = [worker_of(reused, [fmt]) for _ in range(3)]
            assert len({w for w, _ in got}) == 1, "one worker rendered all three"
            for _, body in got:
                assert body == want, fmt
        assert metric(reused, "folio_renders_reused_total") == 14
    finally:
        fresh.stop()
        reused.stop()


def test_a_failed_render_replaces_the_worker(tokens):
    """An output over --max-bytes is a render that failed half way: its
    worker is ended, and the next request gets a new one."""
    s = Server("--token-file", tokens, "--reuse-workers", 10, "--max-bytes", 20000)
    big = dict(SPEC, data={"s": dict(SPEC["data"]["s"], rows=[[f"m{i:05d}", i] for i in range(5000)])})
    try:
        w1, _ = worker_of(s)
        w2, _ = worker_of(s, spec=big, status=413)
        assert w2 == w1
        w3, _ = worker_of(s)
        assert w3 != w1
        assert metric(s, "folio_workers_replaced_total", "failure") == 1
    finally:
        s.stop()


def test_a_killed_worker_is_replaced(tokens):
    s = Server("--token-file", tokens, "--reuse-workers", 10, "--no-jail")
    try:
        w1, _ = worker_of(s)
        zygote = _children(s.p.pid)[0]
        for pid in _children(zygote):       # the idle worker (and the spare child)
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.3)
        w2, _ = worker_of(s)
        assert w2 != w1
        assert metric(s, "folio_workers_replaced_total", "gone") == 1
    finally:
        s.stop()


def test_a_worker_over_its_memory_bound_is_replaced(tokens):
    s = Server("--token-file", tokens, "--reuse-workers", 10, "--worker-memory", 1)
    try:
        ids = [worker_of(s)[0] for _ in range(3)]
        assert len(set(ids)) == 3, ids
        assert metric(s, "folio_workers_replaced_total", "memory") == 2
        assert metric(s, "folio_renders_reused_total") == 0
    finally:
        s.stop()


def test_an_idle_worker_is_ended(tokens):
    s = Server("--token-file", tokens, "--reuse-workers", 10, "--worker-idle", 1)
    try:
        w1, _ = worker_of(s)
        time.sleep(1.5)
        w2, _ = worker_of(s)
        assert w2 != w1
        assert metric(s, "folio_workers_replaced_total", "idle") == 1
    finally:
        s.stop()


def test_without_tokens_every_client_is_one_tenant():
    s = Server("--reuse-workers", 5)
    try:
        ids = [worker_of(s, token=t)[0] for t in (None, "x", None, "y")]
        assert len(set(ids)) == 1, ids
    finally:
        s.stop()


# What a compromised render might leave behind (FOLIO_SERVE_TEST_LEAK, read
# by the server for tests): an open descriptor, a file in the worker's
# folder, a child process, a signal handler, an armed timer, a blocked signal.
@pytest.mark.parametrize("leak", [1, 2, 3, 4, 5, 6], ids=["fd", "file", "child", "handler", "timer", "mask"])
def test_a_worker_that_is_not_clean_refuses_to_serve_again(tokens, leak, monkeypatch):
    monkeypatch.setenv("FOLIO_SERVE_TEST_LEAK", str(leak))
    s = Server("--token-file", tokens, "--reuse-workers", 10)
    try:
        ids = [worker_of(s)[0] for _ in range(3)]
        assert len(set(ids)) == 3, ids
        assert metric(s, "folio_workers_replaced_total", "unclean") == 2
        assert metric(s, "folio_renders_reused_total") == 0
    finally:
        s.stop()


def test_the_options_are_checked():
    import subprocess
    from test_serve import FOLIO
    p = subprocess.run([FOLIO, "serve", "--reuse-workers", "many"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 1 and "--reuse-workers needs a number" in p.stderr
    p = subprocess.run([FOLIO, "serve", "--worker-memory", "0"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 1 and "--worker-memory needs a number from 1" in p.stderr
