# test_deploy.py — deploy/ as shipped: the Kubernetes manifests validated
# against the Kubernetes API's schemas (kubernetes-models 5.1.0, generated
# from Kubernetes' OpenAPI, pinned in package-lock.json; `npm ci` here once),
# with what sessions across machines need (a StatefulSet whose pods are
# instances s0.., a ReadWriteMany state volume, probes, a
# PodDisruptionBudget, limits, the jail's security context); haproxy.cfg
# accepted by haproxy -c; and the two agreeing on the instances' names.
import json
import os
import pathlib
import re
import shutil
import subprocess

import pytest

yaml = pytest.importorskip("yaml")

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
MANIFEST = ROOT / "deploy" / "kubernetes" / "folio.yaml"
HAPROXY = ROOT / "deploy" / "haproxy.cfg"


def docs():
    return [d for d in yaml.safe_load_all(MANIFEST.read_text()) if d]


def one(kind, name=None):
    found = [d for d in docs() if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    assert len(found) == 1, f"{kind} {name}: {len(found)} found"
    return found[0]


@pytest.fixture(scope="module")
def validator():
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not installed (make deps-test)")
    if not (HERE / "node_modules" / "kubernetes-models").is_dir():
        p = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=HERE, capture_output=True,
                           text=True, timeout=600)
        assert p.returncode == 0, p.stderr

    def run(objs):
        p = subprocess.run(["node", "validate.mjs"], cwd=HERE, input=json.dumps(objs), capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        return [json.loads(line) for line in p.stdout.splitlines()]
    return run


def test_manifests_validate_against_the_kubernetes_schemas(validator):
    got = validator(docs())
    assert len(got) == len(docs()) >= 8
    assert [r for r in got if not r["ok"]] == []
    # the validator is not a rubber stamp: a wrong type and a missing field are caught
    sts = one("StatefulSet")
    bad = json.loads(json.dumps(sts))
    bad["spec"]["replicas"] = "two"
    bad2 = json.loads(json.dumps(sts))
    del bad2["spec"]["template"]["spec"]["containers"][0]["name"]
    got = validator([bad, bad2])
    assert not got[0]["ok"] and "replicas must be integer" in got[0]["error"], got[0]
    assert not got[1]["ok"] and "name" in got[1]["error"], got[1]


def test_statefulset_has_what_sessions_across_machines_need():
    sts = one("StatefulSet", "folio-sessions")
    pod = sts["spec"]["template"]["spec"]
    c = pod["containers"][0]
    args = " ".join(c["args"])
    assert '--instance "s${HOSTNAME##*-}"' in args
    state = re.search(r"--state-dir (\S+)", args).group(1)
    mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
    vols = {v["name"]: v for v in pod["volumes"]}
    claim = vols[mounts[state]]["persistentVolumeClaim"]["claimName"]
    assert one("PersistentVolumeClaim", claim)["spec"]["accessModes"] == ["ReadWriteMany"]
    assert "--checkpoint-idle" in args
    for probe in ("readinessProbe", "livenessProbe"):
        assert c[probe]["httpGet"]["path"] == "/healthz"
    assert c["resources"]["limits"]["memory"] and c["resources"]["limits"]["cpu"]
    sc = c["securityContext"]
    assert sc["seccompProfile"]["type"] == "Unconfined" and sc["appArmorProfile"]["type"] == "Unconfined"
    pdb = one("PodDisruptionBudget", "folio-sessions")
    assert pdb["spec"]["selector"]["matchLabels"] == sts["spec"]["selector"]["matchLabels"]
    assert one("Service", sts["spec"]["serviceName"])["spec"]["clusterIP"] == "None"


def haproxy_names():
    """Server names of each backend, and the instance ACLs of the frontend."""
    backends, acls, current = {}, set(), None
    for line in HAPROXY.read_text().splitlines():
        words = line.split("#")[0].split()
        if not words:
            continue
        if words[0] in ("backend", "frontend", "defaults", "global"):
            current = words[1] if words[0] == "backend" else None
            if current:
                backends[current] = []
        elif words[0] == "server" and current:
            backends[current].append((words[1], words[2].strip('"'), "backup" in words))
        elif words[0] == "acl" and "var(req.instance)" in words:
            acls.add(words[1])
    return backends, acls


def test_haproxy_and_the_statefulset_name_the_same_instances():
    """deploy/kubernetes named the instances s0/s1 while haproxy.cfg routed
    s1/s2: half the sessions were unroutable."""
    sts = one("StatefulSet", "folio-sessions")
    pods = {f"s{k}" for k in range(sts["spec"]["replicas"])}
    backends, acls = haproxy_names()
    assert {name for name, _, _ in backends["folio_all"]} == pods
    assert acls == pods
    for name in pods:
        servers = backends[f"folio_{name}"]
        assert servers[0][:2] == (name, "${FOLIO_%s}" % name.upper()) and not servers[0][2]
        assert {s[0] for s in servers[1:]} == pods - {name} and all(s[2] for s in servers[1:]), \
            f"folio_{name} fails over to the other instances (backup servers)"


@pytest.mark.skipif(shutil.which("haproxy") is None, reason="haproxy is not installed (make deps-test)")
def test_haproxy_accepts_the_configuration():
    env = dict(os.environ, FOLIO_LB_BIND="127.0.0.1:1", FOLIO_S0="127.0.0.1:2", FOLIO_S1="127.0.0.1:3")
    p = subprocess.run(["haproxy", "-c", "-f", str(HAPROXY)], env=env, capture_output=True, text=True,
                       timeout=30)
    assert p.returncode == 0, p.stdout + p.stderr


def test_the_haproxy_deployment_reaches_every_session_pod_by_name():
    """HAProxy runs in the cluster with deploy/haproxy.cfg (a ConfigMap made
    from it) and one FOLIO_Sn per StatefulSet pod, each the pod's stable DNS
    name, on the port the pods listen on."""
    sts = one("StatefulSet", "folio-sessions")
    lb = one("Deployment", "folio-haproxy")
    c = lb["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e["value"] for e in c["env"]}
    port = [p for p in sts["spec"]["template"]["spec"]["containers"][0]["ports"] if p["name"] == "http"][0]
    for k in range(sts["spec"]["replicas"]):
        assert env[f"FOLIO_S{k}"] == f"folio-sessions-{k}.{sts['spec']['serviceName']}:{port['containerPort']}"
    assert env["FOLIO_LB_BIND"] == ":%d" % c["ports"][0]["containerPort"]
    config = c["args"][c["args"].index("-f") + 1]
    mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
    vols = {v["name"]: v for v in lb["spec"]["template"]["spec"]["volumes"]}
    (name,) = [n for n, path in mounts.items() if config == path + "/haproxy.cfg"]
    assert vols[name]["configMap"]["name"] == "folio-haproxy"
    assert "kubectl create configmap folio-haproxy --from-file=haproxy.cfg=deploy/haproxy.cfg" in \
        (ROOT / "docs" / "deploy.md").read_text()
    svc = one("Service", "folio-lb")
    assert svc["spec"]["selector"] == lb["spec"]["selector"]["matchLabels"]


@pytest.mark.skipif(shutil.which("haproxy") is None, reason="haproxy is not installed (make deps-test)")
def test_haproxy_starts_with_instances_not_yet_resolvable():
    """In a cluster the pods' names resolve only once they run: HAProxy must
    start anyway (init-addr none) and look them up again later (resolvers)."""
    env = dict(os.environ, FOLIO_LB_BIND="127.0.0.1:1", FOLIO_S0="folio-sessions-0.folio-sessions.invalid:8080",
               FOLIO_S1="folio-sessions-1.folio-sessions.invalid:8080")
    p = subprocess.run(["haproxy", "-c", "-f", str(HAPROXY)], env=env, capture_output=True, text=True,
                       timeout=30)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "could not resolve address" in p.stdout + p.stderr
