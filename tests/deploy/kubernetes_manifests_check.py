"""What the Kubernetes API's schemas cannot see in deploy/kubernetes/: that
the manifests agree with each other and with the configuration they ship.

  kubernetes_manifests_check.py <manifests dir>

Each check prints "ok <what>" or "FAIL <what>: <why>"; the last line counts
them, and the exit code is 1 when any failed. Run by
kubernetes_manifests_test.sh, with the Python that has PyYAML (the
kubernetes-validate environment's).
"""

import json
import math
import pathlib
import re
import sys

import yaml

CONFIG_MAP = "rtb-bidder-config"
CONFIG_KEY = "bidder.json"
SECRET = "rtb-bidder-secrets"
# Seconds a bidder's stop is allowed beyond the waits the manifests and the
# configuration name (preStop, drain, last spend flush): the background
# loops' last store calls and the exit.
MIN_MARGIN_S = 5


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, what, problem):
        """problem: None when the check passed, else why it failed."""
        if problem is None:
            self.passed += 1
            print(f"ok {what}")
        else:
            self.failed += 1
            print(f"FAIL {what}: {problem}")


def load(directory):
    resources = []
    for path in sorted(directory.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        for doc in yaml.safe_load_all(path.read_text()):
            if doc:
                resources.append((path.name, doc))
    return resources


def find(resources, kind, name):
    for _, doc in resources:
        if doc.get("kind") == kind and doc.get("metadata", {}).get("name") == name:
            return doc
    return None


def workloads(resources):
    return [doc for _, doc in resources if doc.get("kind") in ("Deployment", "StatefulSet")]


def containers(workload):
    return workload["spec"]["template"]["spec"].get("containers", [])


def selects(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def port_number(container, port):
    """A probe's port (a number or a container port's name) as a number."""
    if isinstance(port, int):
        return port
    for p in container.get("ports", []):
        if p.get("name") == port:
            return p["containerPort"]
    return None


def pre_stop_seconds(container):
    handler = container.get("lifecycle", {}).get("preStop", {})
    if "sleep" in handler:
        return handler["sleep"].get("seconds")
    command = handler.get("exec", {}).get("command", [])
    if len(command) == 2 and command[0].endswith("sleep") and command[1].isdigit():
        return int(command[1])
    return None


def check_kustomization(c, directory):
    listed = yaml.safe_load((directory / "kustomization.yaml").read_text()).get("resources", [])
    present = sorted(p.name for p in directory.glob("*.yaml") if p.name != "kustomization.yaml")
    c.check("kustomization.yaml lists every manifest",
            None if sorted(listed) == present else f"lists {sorted(listed)}, the folder has {present}")


def check_no_secret_values(c, resources, config):
    problems = []
    for name, doc in resources:
        if doc.get("kind") == "Secret":
            for field in ("data", "stringData"):
                filled = [k for k, v in (doc.get(field) or {}).items() if v]
                if filled:
                    problems.append(f"{name}: Secret {doc['metadata']['name']} holds values for {filled}")
        if doc.get("kind") in ("Deployment", "StatefulSet"):
            for container in containers(doc):
                for env in container.get("env", []):
                    if "SECRET" in env["name"].upper() and "value" in env:
                        problems.append(f"{name}: {container['name']} sets {env['name']} inline")
    for key in ("device_key_secret", "beacon_secret"):
        if config.get("bid", {}).get(key):
            problems.append(f"{CONFIG_MAP}: bid.{key} is inline; name its variable in bid.{key}_env")
    c.check("no secret value in any manifest", "; ".join(problems) or None)


def check_images(c, resources):
    problems = []
    for doc in workloads(resources):
        for container in containers(doc):
            image = container.get("image", "")
            # A bare name: no registry host, no repository path, in the repo.
            if not re.fullmatch(r"[a-z0-9][a-z0-9._-]*(:[A-Za-z0-9._-]+)?", image):
                problems.append(f"{doc['metadata']['name']}/{container['name']}: {image!r}")
    c.check("images are bare placeholder names, no registry host", ", ".join(problems) or None)


def check_no_namespace(c, resources):
    named = [f"{n}: {d['kind']} {d['metadata']['name']}" for n, d in resources if "namespace" in d.get("metadata", {})]
    c.check("no manifest names a namespace", ", ".join(named) or None)


def check_config(c, resources, config):
    storage = config.get("storage", {})
    problems = []
    if config.get("pacing", {}).get("worker_id") != "auto":
        problems.append(f"pacing.worker_id is {config.get('pacing', {}).get('worker_id')!r}, not \"auto\"")
    if storage.get("backend") not in ("storage-server", "hbase"):
        problems.append(f"storage.backend {storage.get('backend')!r} is not a shared store")
    for endpoint in storage.get("hbase", {}).get("endpoints", []):
        host, _, port = endpoint.rpartition(":")
        service = find(resources, "Service", host)
        ports = [p["port"] for p in service["spec"]["ports"]] if service else []
        if not port.isdigit() or int(port) not in ports:
            problems.append(f"endpoint {endpoint} is no Service's port here")
    if config.get("server", {}).get("listen_address", "127.0.0.1").startswith("127."):
        problems.append("server.listen_address is loopback: neither the Service nor the probes reach it")
    for key in ("device_key_secret_env", "beacon_secret_env"):
        if not config.get("bid", {}).get(key):
            problems.append(f"bid.{key} is not set")
    c.check(f"{CONFIG_MAP}: a fleet's config (worker_id auto, the storage-server Service, secrets by name)",
            "; ".join(problems) or None)


def check_secrets_reach_config_readers(c, resources, config):
    needed = {config["bid"][k] for k in ("device_key_secret_env", "beacon_secret_env") if config.get("bid", {}).get(k)}
    for doc in workloads(resources):
        volumes = doc["spec"]["template"]["spec"].get("volumes", [])
        if not any(v.get("configMap", {}).get("name") == CONFIG_MAP for v in volumes):
            continue
        for container in containers(doc):
            from_secret = {e["name"] for e in container.get("env", [])
                           if e.get("valueFrom", {}).get("secretKeyRef", {}).get("name") == SECRET}
            whole = any(e.get("secretRef", {}).get("name") == SECRET for e in container.get("envFrom", []))
            missing = set() if whole else needed - from_secret
            c.check(f"{doc['metadata']['name']}/{container['name']} gets {sorted(needed)} from Secret {SECRET}",
                    f"missing {sorted(missing)}" if missing else None)


def check_bidder(c, resources, config):
    deployment = find(resources, "Deployment", "rtb-bidder")
    if deployment is None:
        c.check("the bidder Deployment", "no Deployment rtb-bidder")
        return
    pod = deployment["spec"]["template"]
    container = containers(deployment)[0]
    port = config.get("server", {}).get("port", 8080)
    for probe, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")):
        get = container.get(probe, {}).get("httpGet", {})
        got = (get.get("path"), port_number(container, get.get("port")))
        c.check(f"rtb-bidder {probe}: GET {path} on server.port {port}",
                None if got == (path, port) else f"GET {got[0]} on port {got[1]}")
    annotations = pod["metadata"].get("annotations", {})
    scrape = (annotations.get("prometheus.io/path"), annotations.get("prometheus.io/port"))
    metrics = (config.get("metrics", {}).get("path", "/metrics"), str(port))
    c.check("rtb-bidder scrape annotations: metrics.path on server.port",
            None if scrape == metrics else f"{scrape} against {metrics}")

    pre_stop = pre_stop_seconds(container)
    c.check("rtb-bidder waits in preStop for the Service to stop routing to it",
            None if pre_stop and pre_stop > 0 else "no preStop sleep")
    drain_s = config.get("server", {}).get("graceful_shutdown_timeout_ms", 5000) / 1000
    flush_s = config.get("storage", {}).get("hbase", {}).get("call_timeout_ms", 5000) / 1000
    need = (pre_stop or 0) + math.ceil(drain_s) + math.ceil(flush_s) + MIN_MARGIN_S
    grace = pod["spec"].get("terminationGracePeriodSeconds", 30)
    c.check(f"rtb-bidder terminationGracePeriodSeconds {grace} covers preStop {pre_stop} s + drain "
            f"{drain_s:g} s + spend flush {flush_s:g} s + {MIN_MARGIN_S} s",
            None if grace >= need else f"needs at least {need}")

    labels = pod["metadata"]["labels"]
    pdbs = [d for _, d in resources if d.get("kind") == "PodDisruptionBudget"
            and selects(d["spec"].get("selector", {}).get("matchLabels"), labels)]
    c.check("a PodDisruptionBudget covers the bidders",
            None if pdbs and any({"maxUnavailable", "minAvailable"} & set(p["spec"]) for p in pdbs)
            else "none selects the bidder pods with a budget")


def check_pacer_stream_store(c, resources):
    pacer = find(resources, "Deployment", "rtb-pacer")
    got = pacer and (pacer["spec"].get("replicas"), pacer["spec"].get("strategy", {}).get("type"))
    c.check("rtb-pacer: one replica, Recreate", None if got == (1, "Recreate") else f"got {got}")

    stream = find(resources, "Deployment", "rtb-stream")
    args = [a for ct in (containers(stream) if stream else []) for a in ct.get("command", []) + ct.get("args", [])]
    c.check("rtb-stream: no --worker-id (leased)",
            "no Deployment rtb-stream" if stream is None else ("passes --worker-id" if "--worker-id" in args else None))

    store = find(resources, "StatefulSet", "rtb-storage-server")
    problems = []
    if store is None:
        problems.append("no StatefulSet rtb-storage-server")
    else:
        claims = {t["metadata"]["name"] for t in store["spec"].get("volumeClaimTemplates", [])}
        mounted = {m["name"] for ct in containers(store) for m in ct.get("volumeMounts", [])}
        if not claims or not claims <= mounted:
            problems.append(f"claims {sorted(claims)}, mounted {sorted(mounted)}")
        if find(resources, "Service", store["spec"].get("serviceName")) is None:
            problems.append(f"serviceName {store['spec'].get('serviceName')!r} is no Service here")
    c.check("rtb-storage-server: a StatefulSet with its volume claim and Service", "; ".join(problems) or None)


def check_services_and_resources(c, resources):
    pod_labels = [d["spec"]["template"]["metadata"]["labels"] for d in workloads(resources)]
    for _, doc in resources:
        if doc.get("kind") == "Service":
            selector = doc["spec"].get("selector")
            c.check(f"Service {doc['metadata']['name']} selects pods",
                    None if any(selects(selector, labels) for labels in pod_labels) else f"nothing matches {selector}")
    for doc in workloads(resources):
        for container in containers(doc):
            res = container.get("resources", {})
            missing = [k for k, part in (("cpu", "requests"), ("memory", "requests"), ("memory", "limits"))
                       if k not in res.get(part, {})]
            c.check(f"{doc['metadata']['name']}/{container['name']} requests CPU and memory, limits memory",
                    f"missing {missing}" if missing else None)


def main():
    directory = pathlib.Path(sys.argv[1])
    c = Checks()
    resources = load(directory)
    check_kustomization(c, directory)
    config_map = find(resources, "ConfigMap", CONFIG_MAP)
    try:
        config = json.loads(config_map["data"][CONFIG_KEY])
    except (TypeError, KeyError, json.JSONDecodeError) as e:
        c.check(f"ConfigMap {CONFIG_MAP} holds {CONFIG_KEY} as JSON", str(e) or type(e).__name__)
        config = {}
    check_no_secret_values(c, resources, config)
    check_images(c, resources)
    check_no_namespace(c, resources)
    check_config(c, resources, config)
    check_secrets_reach_config_readers(c, resources, config)
    check_bidder(c, resources, config)
    check_pacer_stream_store(c, resources)
    check_services_and_resources(c, resources)
    print(f"kubernetes_manifests: {c.passed} passed, {c.failed} failed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
