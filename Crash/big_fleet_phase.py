"""The crash test's big-fleet rounds: `serve --profile` on 10,000 phones of one sender,
checkpoints every 50 journaled calls (so kills land before, during and after the writes
of changed phones), a topic's copies going out 1,000 an input (`fan_out_batch`, so a
topic of the whole fleet is answered with its first 1,000 copies and the rest follow in
inputs of their own), killed with SIGKILL at a random moment while:
- an app server sends with the HTTP legacy API to `registration_ids` of random phones;
- it subscribes random phones to a topic of the round (IID batchAdd) and, once
  acknowledged, sends to that topic;
- it sends to `big-all`, a topic every phone subscribed to (1,000 a call) before the
  first round's load, so kills land between a topic message's batches;
- the control API takes random phones offline (so what they are sent is held for them).
After each kill, `fcm-device state --json --profile P` must show every acknowledged copy
in its phone's inbox, held for it, or still waiting in a topic message's fan-out (which
the next start sends on), every acknowledged subscription, every phone the control API
answered offline still offline, and every phone's first token. A last start then runs
until no copy is waiting: every acknowledged copy must be delivered or held.
Used by crash_test.py.
"""

import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request

SENDER = "123456789012"
KEY = "big-fleet-key"
PHONES = 10_000
CHECKPOINT_EVERY = 50
PROFILE = """version: 1
description: The crash test's big fleet.
devices: { count: %d, like: { name: phone, seed: %d } }
senders: [ { id: "%s", key: %s, project: big-project } ]
server:
  store_limit: 100000
  fan_out_batch: 1000
"""
EVERYONE = "big-all"


def post(port, path, body, headers):
    request = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=json.dumps(body).encode(),
                                     headers=dict(headers, **{"Content-Type": "application/json"}))
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


class BigServe:
    def __init__(self, binary, state, profile, commit_delay_ms):
        self.proc = subprocess.Popen(
            [binary, "serve", "--profile", profile, "--state", state, "--ccs-port", "0", "--ccs-plain-port", "0",
             "--http-port", "0", "--commit-delay-ms", str(commit_delay_ms), "--checkpoint-every",
             str(CHECKPOINT_EVERY)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError("serve did not start on the big fleet: " + self.proc.stderr.read())
        self.port = json.loads(line)["http"]
        self.tokens, self.resumed = {}, True
        for line in self.proc.stdout:
            event = json.loads(line)
            if event.get("event") in ("onNewToken", "tokenResumed"):
                self.tokens[event["device"]] = event["token"]
                self.resumed = self.resumed and event["event"] == "tokenResumed"
                if len(self.tokens) == PHONES:
                    break
        else:
            raise AssertionError("serve stopped before every phone of the big fleet had its token")
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()

    def kill(self):
        self.proc.kill()
        self.proc.wait(timeout=30)


class Worker(threading.Thread):
    """Runs `work` until the server dies; what it records is only what was answered."""

    def __init__(self, work):
        super().__init__(daemon=True)
        self.work = work

    def run(self):
        try:
            self.work()
        except (OSError, urllib.error.URLError, ValueError, KeyError):
            return


def read_state(binary, state, profile):
    return json.loads(subprocess.run([binary, "state", "--state", state, "--json", "--profile", profile],
                                     capture_output=True, text=True, timeout=120, check=True).stdout)


def check_copies(where, saved, copies, first_tokens, waiting_allowed=True):
    """Every acknowledged copy in its phone's inbox, held for it or (when allowed) still
    waiting in a topic message's fan-out; answers how many were waiting. Copies found
    are dropped from `copies`."""
    seen, in_inbox = {}, set()
    for phone in saved["devices"]:
        name = phone["name"]
        if phone["tokens"].get(SENDER) != first_tokens[name]:
            raise AssertionError("%s: %s's token changed" % (where, name))
        for message_id in [m["id"] for m in phone["inbox"]] + [h["id"] for h in phone["held"]]:
            seen.setdefault(message_id, set()).add(name)
        in_inbox.update((name, m["id"]) for m in phone["inbox"])
    pending = {(name, fan_out["id"]) for fan_out in saved.get("fanOuts", []) for name in fan_out["waiting"]}
    if pending and not waiting_allowed:
        raise AssertionError("%s: %d copies still waiting in a topic's fan-out" % (where, len(pending)))
    waiting, delivered = 0, []
    for (name, message_id) in copies:
        if name in seen.get(message_id, ()):
            if (name, message_id) in in_inbox:
                delivered.append((name, message_id))
            continue
        if (name, message_id) not in pending:
            raise AssertionError("%s: %s acknowledged for %s but neither delivered nor held%s"
                                 % (where, message_id, name, " nor waiting" if waiting_allowed else ""))
        waiting += 1
    # A copy seen delivered is not looked for again: a phone keeps its newest 500 to 999
    # deliveries. A held one is followed until then.
    for key in delivered:
        del copies[key]
    return waiting


def settle(binary, state, profile, copies, first_tokens):
    """A last start, run until the state file shows no copy waiting in a fan-out."""
    serve = BigServe(binary, state, profile, 0)
    try:
        deadline = time.monotonic() + 180
        while read_state(binary, state, profile).get("fanOuts"):
            if time.monotonic() > deadline:
                raise AssertionError("big fleet settle: copies still waiting in a topic's fan-out after 180 s")
            time.sleep(0.5)
    finally:
        serve.kill()
    check_copies("big fleet settle", read_state(binary, state, profile), copies, first_tokens, False)


def big_fleet_phase(binary, rounds, rng, commit_delay_ms):
    """Returns (rounds, acknowledged copies, subscriptions, phones taken offline) checked."""
    folder = tempfile.mkdtemp(prefix="fcm-crash-big-")
    profile = os.path.join(folder, "big.yaml")
    with open(profile, "w") as text:
        text.write(PROFILE % (PHONES, rng.randrange(1, 2 ** 62), SENDER, KEY))
    state = os.path.join(folder, "state")
    names = ["phone-%d" % n for n in range(1, PHONES + 1)]
    first_tokens, copies, subscribed, offline, fan_outs = None, {}, set(), set(), 0
    headers = {"Authorization": "key=" + KEY}
    totals, acknowledged = [0, 0, 0], 0
    try:
        for number in range(1, rounds + 1):
            serve = BigServe(binary, state, profile, commit_delay_ms)
            if first_tokens is None:
                first_tokens = dict(serve.tokens)
            elif serve.tokens != first_tokens or not serve.resumed:
                raise AssertionError("big fleet round %d: the tokens changed or were not resumed" % number)
            by_token = {token: name for name, token in serve.tokens.items()}
            acked, subs, downs = [], [], []
            topic = "big-r%d" % number

            def unicast(serial=[0]):
                while True:
                    targets = rng.sample(names, rng.randint(1, 40))
                    serial[0] += 1
                    marker = "r%d-u%d" % (number, serial[0])
                    reply = post(serve.port, "/fcm/send", {"registration_ids": [serve.tokens[n] for n in targets],
                                                           "data": {"m": marker}}, headers)
                    for name, result in zip(targets, reply["results"]):
                        if "message_id" in result:
                            acked.append((name, result["message_id"]))

            def topics():
                for chunk in range(3):
                    members = rng.sample(names, 500)
                    reply = post(serve.port, "/iid/v1:batchAdd", {"to": "/topics/" + topic, "registration_tokens":
                                                                 [serve.tokens[n] for n in members]}, headers)
                    subs.extend((n, topic) for n, r in zip(members, reply["results"]) if r == {})
                known = [name for name, t in list(subs) if t == topic]
                while True:
                    reply = post(serve.port, "/fcm/send", {"to": "/topics/" + topic, "data": {"t": topic}}, headers)
                    if "message_id" in reply:
                        acked.extend((name, str(reply["message_id"])) for name in known)

            # Every phone subscribes to `big-all` before the round's load starts (the
            # first round; a later one only tops up), so the kill falls while its
            # messages' copies go out 1,000 an input.
            everyone_known = {name for name, topic in subscribed if topic == EVERYONE}
            for start in range(0, PHONES, 1000):
                members = [n for n in names[start:start + 1000] if n not in everyone_known]
                if members:
                    reply = post(serve.port, "/iid/v1:batchAdd", {"to": "/topics/" + EVERYONE, "registration_tokens":
                                                                 [serve.tokens[n] for n in members]}, headers)
                    for name, result in zip(members, reply["results"]):
                        if result == {}:
                            subs.append((name, EVERYONE))
                            everyone_known.add(name)

            def everyone():
                members = sorted(everyone_known)
                while True:
                    reply = post(serve.port, "/fcm/send", {"to": "/topics/" + EVERYONE, "data": {"t": EVERYONE}},
                                 headers)
                    if "message_id" in reply:
                        acked.extend((name, str(reply["message_id"])) for name in members)

            def control():
                while True:
                    name = rng.choice(names)
                    post(serve.port, "/emulator/v1/projects/%s/devices/%s/actions" % (SENDER, name),
                         {"network": "offline"}, {})
                    downs.append(name)

            workers = [Worker(unicast), Worker(unicast), Worker(topics), Worker(everyone), Worker(control)]
            for worker in workers:
                worker.start()
            # A resumed fleet is slow to answer at first in a debug build: long enough that
            # later rounds see load too.
            time.sleep(rng.uniform(0.5, 3.0))
            serve.kill()
            for worker in workers:
                worker.join(15)
            subscribed.update(subs)
            offline.update(downs)
            saved = read_state(binary, state, profile)
            phones = {phone["name"]: phone for phone in saved["devices"]}
            for name, message_id in acked:
                copies[(name, message_id)] = None
            waiting = check_copies("big fleet round %d" % number, saved, copies, first_tokens)
            fan_outs += waiting
            lost = sorted(n for n, t in subscribed if t not in phones[n]["topics"].get(SENDER, []))
            if lost:
                raise AssertionError("big fleet round %d: subscriptions acknowledged but lost: %s" % (number, lost[:5]))
            online = sorted(n for n in offline if phones[n]["network"] != "offline")
            if online:
                raise AssertionError("big fleet round %d: phones answered offline came back online: %s"
                                     % (number, online[:5]))
            acknowledged += len(acked)
            totals = [acknowledged, len(subscribed), len(offline)]
            print("big fleet round %d: %d phones, killed after %d acknowledged copies (%d still waiting in a topic's "
                  "fan-out), %d subscriptions and %d phones taken offline; all kept"
                  % (number, PHONES, len(acked), waiting, len(subs), len(downs)), flush=True)
        settle(binary, state, profile, copies, first_tokens)
        print("big fleet settle: a last start sent every copy still waiting (%d over the rounds); each acknowledged "
              "copy delivered or held" % fan_outs, flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return (rounds,) + tuple(totals)
