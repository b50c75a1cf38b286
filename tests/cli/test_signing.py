# test_signing.py — `folio run --sign KEY` writes an in-toto Statement v1 in
# a DSSE envelope beside the manifest (PRODUCT.md §9, docs/provenance.md).
# The envelope is checked here by an independent implementation: Python's
# `cryptography` for Ed25519 and DSSE's pre-authentication encoding written
# from the spec; and `folio verify` refuses a tampered file or envelope.
import base64
import hashlib
import json
import shutil
import subprocess

import pytest

from conftest import FOLIO, SAMPLES, run_folio

crypto = pytest.importorskip("cryptography.hazmat.primitives.serialization")


def pae(payload_type: bytes, body: bytes) -> bytes:
    """DSSE v1: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body."""
    return b"DSSEv1 %d %s %d %s" % (len(payload_type), payload_type, len(body), body)


def keypair(tmp_path, name="key"):
    key, pub = tmp_path / f"{name}.pem", tmp_path / f"{name}.pub"
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", str(key)], check=True,
                   capture_output=True)
    subprocess.run(["openssl", "pkey", "-in", str(key), "-pubout", "-out", str(pub)], check=True,
                   capture_output=True)
    return key, pub


@pytest.fixture
def signed_run(tmp_path):
    key, pub = keypair(tmp_path)
    for f in (SAMPLES / "sales").iterdir():
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "mk.py").write_text(
        "import shutil\n"
        "for f in ('sales.csv', 'monthly.csv', 'logo.png'): shutil.copy('/work/' + f, '/out/' + f)\n"
        "shutil.copy('/work/sales.json', '/out/result.json')\n")
    out = tmp_path / "out"
    args = ["run", "--sign", key, "--out", out, "--render", "pdf,xlsx", "--quiet"]
    for n in ("sales.csv", "monthly.csv", "logo.png", "sales.json", "mk.py"):
        args += ["--in", tmp_path / n]
    p = subprocess.run([FOLIO, *map(str, args), "--", "python3", "/work/mk.py"], capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return out, key, pub


def test_the_envelope_verifies_with_an_independent_dsse_implementation(signed_run):
    out, key, pub = signed_run
    env = json.loads((out / "manifest.dsse.json").read_text())
    assert env["payloadType"] == "application/vnd.in-toto+json" and len(env["signatures"]) == 1
    body = base64.b64decode(env["payload"])
    pk = crypto.load_pem_public_key(pub.read_bytes())
    pk.verify(base64.b64decode(env["signatures"][0]["sig"]), pae(env["payloadType"].encode(), body))
    raw = pk.public_bytes(crypto.Encoding.Raw, crypto.PublicFormat.Raw)
    assert env["signatures"][0]["keyid"] == hashlib.sha256(raw).hexdigest()
    st = json.loads(body)
    assert st["_type"] == "https://in-toto.io/Statement/v1"
    assert st["predicateType"] == "https://folio.invalid/run/v1"
    assert st["predicate"] == json.loads((out / "manifest.json").read_text())   # the manifest itself
    subjects = {s["name"]: s["digest"]["sha256"] for s in st["subject"]}
    on_disk = {p.name for p in out.iterdir() if p.name not in ("manifest.json", "manifest.dsse.json")}
    assert set(subjects) == on_disk and {"result.pdf", "result.xlsx", "sales.csv"} <= on_disk
    for name, sha in subjects.items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == sha


def test_verify_accepts_the_files_and_refuses_a_tampered_one(signed_run, tmp_path):
    out, key, pub = signed_run
    env = out / "manifest.dsse.json"
    p = run_folio("verify", env, out / "result.pdf", out / "result.xlsx", "--key", pub, check=0)
    assert "signature good" in p.stdout and "result.pdf: ok" in p.stdout
    bad = tmp_path / "result.pdf"
    bad.write_bytes((out / "result.pdf").read_bytes() + b"%tampered\n")
    p = run_folio("verify", env, out / "result.xlsx", bad, "--key", pub, check=2)
    assert "NOT in the record" in p.stderr and str(bad) in p.stderr


def test_verify_refuses_a_tampered_envelope_or_another_key(signed_run, tmp_path):
    out, key, pub = signed_run
    env = json.loads((out / "manifest.dsse.json").read_text())
    st = json.loads(base64.b64decode(env["payload"]))
    st["subject"].append({"name": "evil.pdf", "digest": {"sha256": "0" * 64}})
    forged = dict(env, payload=base64.b64encode(json.dumps(st).encode()).decode())
    fp = tmp_path / "forged.json"
    fp.write_text(json.dumps(forged))
    p = run_folio("verify", fp, "--key", pub, check=2)
    assert "BAD signature" in p.stderr
    typed = tmp_path / "typed.json"                          # the type is signed too (PAE)
    typed.write_text(json.dumps(dict(env, payloadType="application/json")))
    run_folio("verify", typed, "--key", pub, check=2)
    _, other = keypair(tmp_path, "other")
    p = run_folio("verify", out / "manifest.dsse.json", "--key", other, check=2)
    assert "BAD signature" in p.stderr


def test_sign_refuses_a_changed_file_and_run_refuses_a_missing_key(signed_run, tmp_path):
    out, key, pub = signed_run
    (out / "sales.csv").write_text("changed\n")
    before = (out / "manifest.dsse.json").read_bytes()
    p = run_folio("sign", out / "manifest.json", "--key", key, check=2)
    assert "sales.csv: changed since the manifest was written" in p.stderr
    assert (out / "manifest.dsse.json").read_bytes() == before
    p = run_folio("sign", out / "manifest.json", "--key", pub, check=2)     # a public key can't sign
    assert "not an Ed25519 private key" in p.stderr
    p = subprocess.run([FOLIO, "run", "--sign", tmp_path / "nokey.pem", "--out", tmp_path / "x", "--",
                        "true"], capture_output=True, text=True)
    assert p.returncode == 1 and "nokey.pem" in p.stderr and not (tmp_path / "x").exists()
    p = subprocess.run([FOLIO, "run", "--sign", key, "--", "true"], capture_output=True, text=True)
    assert p.returncode == 1 and "--sign needs --out" in p.stderr
