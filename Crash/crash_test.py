#!/usr/bin/env python3
"""Kills `fcm-device serve` with SIGKILL at random moments under load (a load test, so
production's per-device limits are off: --no-device-limits) and checks,
after each restart, that nothing it acknowledged is missing or duplicated.

Usage: python3 Crash/crash_test.py PATH/TO/fcm-device [ROUNDS] [SEED]

Runs ROUNDS single-phone rounds (default 20), then max(3, ROUNDS // 4) fleet rounds,
then 3 rounds with a fleet of 10,000 phones (big_fleet_phase.py, described there), then
3 rounds of Web Push to a browser's subscription (webpush_phase.py, described there).

Each single-phone round starts `serve` on one state folder, sends downstream messages
to the device over XMPP (CCS, plain port) and over the HTTP legacy API at once, and
kills the process at a random moment. Then `fcm-device state --json` reads what the
device holds, and:
- every message acknowledged (a CCS ack, an HTTP 200 with its message_id) was
  delivered, once; messages sent but not acknowledged were delivered at most once;
- the XMPP messages left without an ack are sent again first in the next round
  (as an app server does); they may then be delivered twice, and no others are;
- every topic subscription acknowledged (an IID batchAdd answered 200 with success)
  is still there;
- the token is the one issued in the first round.

The fleet rounds run `serve --profile` on a profile written to a temporary file:
three phones (pixel and tablet on Android, iphone on iOS), two senders, the second
registered on pixel and iphone only. Each round, at once: both senders' app servers
send over CCS (one connection each, to their phones' tokens in turn) and over the
HTTP legacy API (`registration_ids`: several of their phones' tokens a request);
IID batchAdd subscribes some of a sender's phones to a new topic, and legacy sends go
to `/topics/NAME` of topics whose subscriptions were acknowledged (this round or an
earlier one); each sender creates a legacy device group (`/fcm/notification` with
`project_id`), then sends to the notification keys of this round's and earlier
groups; and the control API moves phones to the background and back, offline and
back (so copies are held: an iPhone in the background holds data messages, an
offline phone holds everything; an Android app in the background still receives
them). After the kill, `fcm-device state --json --profile P` (the state file is the
profile's) must show:
- every acknowledged copy (a CCS ack, a message_id in a legacy result, the message_id
  of a topic send for each phone whose subscription was acknowledged) in the right
  phone's inbox or held for it, from the right sender or topic, on no other phone,
  and once unless it was sent again;
- for a group send answered with every member a success, a copy for each member:
  found by the unique marker in its data in the inbox, or, since legacy HTTP never
  tells a group copy's id and a held entry has no data, counted among the entries
  held for that phone from that sender whose ids the test never learned; no group
  copy on a phone outside the group;
- every acknowledged subscription and group (key and members) still there, every
  phone's app state and network as the control API last answered (or as the one call
  cut off asked), no stored message deleted, the tokens of the first round resumed.
A copy is followed from round to round until it is seen in its phone's inbox: `state`
keeps a phone's newest 500 to 999 deliveries, so a copy seen delivered is not looked
for again. Where a phone's inbox was trimmed past the round's start (the newest entry
of the round before gone), a copy missing from it counts as delivered if a control API
answer listed its delivery (an action that ends a hold answers with what it delivered),
and as not verifiable otherwise, not as lost.
An answer other than 200, or a failed result, where none is expected fails the round.
A last start brings every phone online to the foreground: nothing may stay held, and
every copy held until then must be delivered (seen in the control API's answers, which
list the deliveries an action caused, or in the inbox).

Prints one line per round (and one for the settle start), then `crash: N rounds
passed …` or what went wrong; exit 1 on the first failure. Standard library only, but for
the Web Push rounds (webpush_phase.py), which encrypt and sign with `cryptography`.
"""
import base64
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

from big_fleet_phase import big_fleet_phase
from webpush_phase import webpush_phase

SENDER = "123456789012"
KEY = "demo-server-key"
HEADER = ("<stream:stream to='fcm.googleapis.com' xmlns:stream='http://etherx.jabber.org/streams' "
          "xmlns='jabber:client' version='1.0'>")
ACK = re.compile(r'"message_id":"([^"]+)","message_type":"ack"')
PER_ROUND = 180
# A slow disk: every commit of the device's state starts 5 ms late, so that an ack sent
# before its commit (a broken write-ahead) would be caught by a kill most rounds.
COMMIT_DELAY_MS = 5


class Serve:
    def __init__(self, binary, state):
        self.proc = subprocess.Popen(
            [binary, "serve", "--no-device-limits", "--state", state, "--ccs-port", "0", "--ccs-plain-port", "0", "--http-port", "0",
             "--commit-delay-ms", str(COMMIT_DELAY_MS)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError("serve did not start: " + self.proc.stderr.read())
        self.listening = json.loads(line)
        self.token = None
        for line in self.proc.stdout:
            event = json.loads(line)
            if event.get("event") in ("onNewToken", "tokenResumed"):
                self.token = event["token"]
                self.resumed = event["event"] == "tokenResumed"
                break
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)


class XMPPSender(threading.Thread):
    """An app server on one CCS connection: sends ids in order, at most 20 unacked."""

    def __init__(self, port, token, ids, sender=SENDER, key=KEY):
        super().__init__(daemon=True)
        # token: one token for every id, or a dict from each id to its target's token
        self.port, self.token, self.ids = port, token, ids
        self.sender, self.key = sender, key
        self.sent, self.acked = [], []
        self.error = None

    def read_until(self, sock, marker, text=""):
        while marker not in text:
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed during the handshake")
            text += chunk.decode()
        return text

    def run(self):
        try:
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
            sock.sendall(HEADER.encode())
            self.read_until(sock, "</stream:features>")
            plain = base64.b64encode(("\0%s@fcm.googleapis.com\0%s" % (self.sender, self.key)).encode()).decode()
            sock.sendall(("<auth mechanism='PLAIN' xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>%s</auth>"
                          % plain).encode())
            self.read_until(sock, "<success")
            sock.sendall(HEADER.encode())
            self.read_until(sock, "</stream:features>")
            sock.sendall(b"<iq type='set' id='b'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/></iq>")
            self.read_until(sock, "</iq>")
            pending, tail = list(self.ids), ""
            while pending or len(self.acked) < len(self.sent):
                while pending and len(self.sent) - len(self.acked) < 20:
                    mid = pending.pop(0)
                    to = self.token[mid] if isinstance(self.token, dict) else self.token
                    body = json.dumps({"to": to, "message_id": mid, "data": {"n": mid}})
                    sock.sendall(('<message id=""><gcm xmlns="google:mobile:data">%s</gcm></message>' % body).encode())
                    self.sent.append(mid)
                    time.sleep(0.002)
                chunk = sock.recv(65536)
                if not chunk:
                    return
                text = tail + chunk.decode(errors="replace")
                self.acked += ACK.findall(text)
                tail = text[text.rfind("</message>") + len("</message>"):] if "</message>" in text else text
        except (OSError, ConnectionError) as error:
            self.error = error


class HTTPSender(threading.Thread):
    """An app server on the HTTP legacy API: one request at a time."""

    def __init__(self, port, token, count):
        super().__init__(daemon=True)
        self.port, self.token, self.count = port, token, count
        self.accepted = []

    def run(self):
        for n in range(self.count):
            request = urllib.request.Request(
                "http://127.0.0.1:%d/fcm/send" % self.port,
                data=json.dumps({"to": self.token, "data": {"n": str(n)}}).encode(),
                headers={"Authorization": "key=" + KEY, "Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=5) as response:
                    reply = json.loads(response.read())
                self.accepted.append(reply["results"][0]["message_id"])
            except (OSError, urllib.error.URLError, ValueError):
                return


class TopicSender(threading.Thread):
    """An app server subscribing the token to one new topic per IID batchAdd call."""

    def __init__(self, port, token, prefix, count):
        super().__init__(daemon=True)
        self.port, self.token, self.prefix, self.count = port, token, prefix, count
        self.acknowledged = []

    def run(self):
        for n in range(self.count):
            topic = "%s-%d" % (self.prefix, n)
            request = urllib.request.Request(
                "http://127.0.0.1:%d/iid/v1:batchAdd" % self.port,
                data=json.dumps({"to": "/topics/" + topic, "registration_tokens": [self.token]}).encode(),
                headers={"Authorization": "key=" + KEY, "Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=5) as response:
                    reply = json.loads(response.read())
                if reply.get("results") == [{}]:
                    self.acknowledged.append(topic)
            except (OSError, urllib.error.URLError, ValueError):
                return


def saved(binary, state, profile=None):
    command = [binary, "state", "--state", state, "--json"] + (["--profile", profile] if profile else [])
    out = subprocess.run(command, capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        raise AssertionError("fcm-device state failed: " + out.stderr)
    return json.loads(out.stdout)


def single_phase(binary, rounds, rng):
    """The single-phone rounds: returns (acknowledged messages, subscriptions) checked."""
    state = tempfile.mkdtemp(prefix="fcm-crash-")
    first_token, unacked, resent, total_acked, subscribed_total = None, [], set(), 0, 0
    try:
        for number in range(1, rounds + 1):
            serve = Serve(binary, state)
            if first_token is None:
                first_token = serve.token
            elif serve.token != first_token or not serve.resumed:
                raise AssertionError("round %d: the token changed or was not resumed: %s" % (number, serve.token))
            ids = unacked + ["r%d-x%d" % (number, i) for i in range(PER_ROUND)]
            resent.update(unacked)
            xmpp = XMPPSender(serve.listening["ccsPlain"], serve.token, ids)
            http = HTTPSender(serve.listening["http"], serve.token, PER_ROUND)
            topics = TopicSender(serve.listening["http"], serve.token, "r%d" % number, 40)
            xmpp.start()
            http.start()
            topics.start()
            time.sleep(rng.uniform(0.03, 0.4))
            serve.kill()
            xmpp.join(10)
            http.join(10)
            topics.join(10)
            subscribed_total += len(topics.acknowledged)
            acked = set(xmpp.acked) | set(http.accepted)
            unacked = [mid for mid in xmpp.sent if mid not in set(xmpp.acked)]
            device = saved(binary, state)["devices"][0]
            lost_topics = sorted(set(topics.acknowledged) - set(device["topics"][SENDER]))
            if lost_topics:
                raise AssertionError("round %d: subscriptions acknowledged but lost: %s" % (number, lost_topics[:5]))
            inbox = [message["id"] for message in device["inbox"]]
            missing = sorted(acked - set(inbox))
            if missing:
                raise AssertionError("round %d: acknowledged but not delivered after the restart: %s"
                                     % (number, missing[:5]))
            counts = {}
            for mid in inbox:
                counts[mid] = counts.get(mid, 0) + 1
            doubled = sorted(mid for mid, n in counts.items() if n > 1 and mid not in resent)
            if doubled:
                raise AssertionError("round %d: delivered twice without a retry: %s" % (number, doubled[:5]))
            total_acked += len(acked)
            print("round %2d: killed after %3d CCS acks, %3d HTTP 200s (%d sent unacked) and %2d topic "
                  "subscriptions; all %d delivered, every subscription kept"
                  % (number, len(xmpp.acked), len(http.accepted), len(unacked), len(topics.acknowledged), len(acked)),
                  flush=True)
    finally:
        shutil.rmtree(state, ignore_errors=True)
    return total_acked, subscribed_total


# The fleet phase: three phones on one connection server, two senders, the second
# registered on two of the phones only.
SENDER2 = "987654321098"
KEY2 = "second-server-key"
KEYS = {SENDER: KEY, SENDER2: KEY2}
PHONES = {SENDER: ["pixel", "iphone", "tablet"], SENDER2: ["pixel", "iphone"]}
# The control API takes a sender's project or its sender ID, for any phone.
PROJECTS = ["demo-project", SENDER, "second-project", SENDER2]
FLEET_PER_ROUND = 200
# Each phone names a seed, drawn anew for every run of the test, so a failure can be
# replayed with the same tokens (the SEED argument). An offline phone, and
# an iPhone in the background, hold every data message; the store limit is raised so that
# an overflow (FCM then deletes them all, by rule, not a loss) cannot happen.
FLEET_PROFILE = """version: 1
description: The crash test's fleet; three phones, two senders, the second on two phones only.
devices:
  - { name: pixel, platform: android, seed: %d }
  - { name: iphone, platform: ios, seed: %d }
  - { name: tablet, platform: android, seed: %d, senders: ["%s"] }
senders:
  - id: "%s"
    key: %s
    project: demo-project
  - id: "%s"
    key: %s
    project: second-project
server:
  store_limit: 100000
"""


def fleet_profile(rng):
    return FLEET_PROFILE % (rng.randrange(1, 2 ** 62), rng.randrange(1, 2 ** 62), rng.randrange(1, 2 ** 62),
                            SENDER, SENDER, KEY, SENDER2, KEY2)


class FleetServe(Serve):
    """`serve --profile` on the fleet: waits for every phone's token for every sender it has."""

    def __init__(self, binary, state, profile):
        self.proc = subprocess.Popen(
            [binary, "serve", "--no-device-limits", "--profile", profile, "--state", state, "--ccs-port", "0", "--ccs-plain-port", "0",
             "--http-port", "0", "--commit-delay-ms", str(COMMIT_DELAY_MS)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError("serve --profile did not start: " + self.proc.stderr.read())
        self.listening = json.loads(line)
        self.tokens, self.resumed, wanted = {}, True, sum(len(phones) for phones in PHONES.values())
        for line in self.proc.stdout:
            event = json.loads(line)
            if event.get("event") in ("onNewToken", "didReceiveRegistrationToken", "tokenResumed"):
                self.tokens.setdefault(event["device"], {})[event["sender"]] = event["token"]
                self.resumed = self.resumed and event["event"] == "tokenResumed"
                if sum(len(tokens) for tokens in self.tokens.values()) == wanted:
                    break
        else:
            self.proc.wait(timeout=10)
            raise AssertionError("serve --profile stopped before every phone had its tokens: "
                                 + self.proc.stderr.read())
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()


def post(port, path, body, headers=None):
    request = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=json.dumps(body).encode(),
                                     headers=dict(headers or {}, **{"Content-Type": "application/json"}))
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())


def legacy(sender):
    return {"Authorization": "key=" + KEYS[sender]}


class FleetThread(threading.Thread):
    """An app server or a test suite on the HTTP port, one request at a time, until serve is gone.
    `refused` collects what no request here should get: a status other than 200, a failed result."""

    def __init__(self, port, rng, tokens):
        super().__init__(daemon=True)
        self.port, self.rng, self.tokens = port, rng, tokens
        self.refused = []
        self.inflight = None

    def call(self, path, body, headers=None, inflight=None):
        """The answer, or None once serve is gone; `inflight` is what a request cut off by the
        kill might still have done."""
        self.inflight = inflight
        try:
            answer = post(self.port, path, body, headers)
        except urllib.error.HTTPError as error:
            self.refused.append("%s answered %d" % (path, error.code))
            return None
        except (OSError, ValueError, http.client.HTTPException):
            return None
        self.inflight = None
        return answer

    def run(self):
        try:
            self.work()
        except Exception as error:  # a malformed answer, or a bug here: either way the round fails
            self.refused.append("%s: %r" % (type(self).__name__, error))


class FleetHTTP(FleetThread):
    """One sender's app server on the HTTP legacy API: each request to several of its phones' tokens."""

    def __init__(self, port, rng, tokens, sender, count):
        super().__init__(port, rng, tokens)
        self.sender, self.count = sender, count
        self.accepted = []  # (phone, message_id)

    def work(self):
        phones = PHONES[self.sender]
        for n in range(self.count):
            targets = self.rng.sample(phones, self.rng.randint(2, len(phones)))
            reply = self.call("/fcm/send", {"registration_ids": [self.tokens[phone][self.sender] for phone in targets],
                                            "data": {"h": str(n)}}, legacy(self.sender))
            if reply is None:
                return
            for phone, result in zip(targets, reply["results"]):
                if "message_id" in result:
                    self.accepted.append((phone, result["message_id"]))
                else:
                    self.refused.append("a send to %s's token: %s" % (phone, result))


class FleetTopics(FleetThread):
    """Both senders' app servers on topics: an IID batchAdd of some of the sender's phones to a new
    topic every fourth call, in between legacy sends to a topic acknowledged before (this round
    or an earlier one)."""

    def __init__(self, port, rng, tokens, prefix, count, earlier):
        super().__init__(port, rng, tokens)
        self.prefix, self.count, self.topics = prefix, count, {key: set(phones) for key, phones in earlier.items()}
        self.subscribed = []  # (phone, sender, topic)
        self.sent = []  # (sender, topic, message_id, the phones subscribed when it was sent)

    def work(self):
        for n in range(self.count):
            if n % 4 == 0 or not self.topics:
                sender, topic = (SENDER, SENDER2)[n // 4 % 2], "%s-%d" % (self.prefix, n)
                phones = self.rng.sample(PHONES[sender], self.rng.randint(1, len(PHONES[sender])))
                body = {"to": "/topics/" + topic, "registration_tokens": [self.tokens[p][sender] for p in phones]}
                reply = self.call("/iid/v1:batchAdd", body, legacy(sender))
                if reply is None:
                    return
                for phone, result in zip(phones, reply["results"]):
                    if result == {}:
                        self.subscribed.append((phone, sender, topic))
                        self.topics.setdefault((sender, topic), set()).add(phone)
                    else:
                        self.refused.append("subscribing %s to %s: %s" % (phone, topic, result))
            else:
                sender, topic = self.rng.choice(sorted(self.topics))
                reply = self.call("/fcm/send", {"to": "/topics/" + topic, "data": {"t": "%s-%d" % (self.prefix, n)}},
                                  legacy(sender))
                if reply is None:
                    return
                if "message_id" not in reply:
                    self.refused.append("a send to /topics/%s: %s" % (topic, reply))
                    continue
                self.sent.append((sender, topic, str(reply["message_id"]), frozenset(self.topics[(sender, topic)])))


class FleetGroups(FleetThread):
    """Both senders' app servers on legacy device groups: a new group each (of two or three of its
    phones), then sends to the notification keys of groups made this round or before, each with
    a unique marker in its data (legacy HTTP cannot choose the ids of a group's copies)."""

    def __init__(self, port, rng, tokens, prefix, count, earlier):
        super().__init__(port, rng, tokens)
        self.prefix, self.count, self.groups = prefix, count, dict(earlier)
        self.created = {}  # (sender, name) -> (notification_key, phones)
        self.attempted = {}  # marker -> (sender, phones): every send, answered or not
        self.sent = []  # (sender, marker, phones): the sends answered with a success for every member

    def work(self):
        for sender in (SENDER, SENDER2):
            name = "%s-%s" % (self.prefix, sender)
            phones = frozenset(self.rng.sample(PHONES[sender], self.rng.randint(2, len(PHONES[sender]))))
            reply = self.call("/fcm/notification", {"operation": "create", "notification_key_name": name,
                                                    "registration_ids": [self.tokens[p][sender] for p in phones]},
                              dict(legacy(sender), project_id=sender))
            if reply is None:
                return
            if "notification_key" not in reply:
                self.refused.append("creating group %s: %s" % (name, reply))
                continue
            self.created[(sender, name)] = self.groups[(sender, name)] = (reply["notification_key"], phones)
        for n in range(self.count):
            if not self.groups:
                return
            (sender, name), (key, phones) = self.rng.choice(sorted(self.groups.items()))
            marker = "%s-%d" % (self.prefix, n)
            self.attempted[marker] = (sender, phones)
            reply = self.call("/fcm/send", {"to": key, "data": {"g": marker}}, legacy(sender))
            if reply is None:
                return
            if reply.get("success") != len(phones) or reply.get("failure") != 0:
                self.refused.append("a send to group %s of %d: %s" % (name, len(phones), reply))
                continue
            self.sent.append((sender, marker, phones))


class FleetControl(FleetThread):
    """A test suite on the control API: phones to the background and back, offline and back."""

    ACTIONS = [("state", "background"), ("state", "foreground"), ("network", "offline"), ("network", "online")]

    def __init__(self, port, rng, count):
        super().__init__(port, rng, None)
        self.count = count
        self.answered = []  # (phone, key, value), in order
        self.deliveries = {}  # phone -> the deliveries the answers listed (what was held, delivered)

    def work(self):
        for _ in range(self.count):
            phone, (key, value) = self.rng.choice(PHONES[SENDER]), self.rng.choice(self.ACTIONS)
            path = "/emulator/v1/projects/%s/devices/%s/actions" % (self.rng.choice(PROJECTS), phone)
            reply = self.call(path, {key: value}, inflight=(phone, key, value))
            if reply is None:
                return
            self.answered.append((phone, key, value))
            for event in reply["events"]:
                if event.get("event") in DELIVERIES:
                    self.deliveries.setdefault(event["device"], []).append(event)
            time.sleep(self.rng.uniform(0.002, 0.015))


# A phone's inbox, as `state` shows it, is bounded: at 1,000 deliveries it keeps the newest
# 500 (DeviceEngine.inboxLimit). A copy is therefore checked until it is seen in its
# phone's inbox, not in every later round.
INBOX_KEPT = 500
DELIVERIES = ("onMessageReceived", "didReceiveRemoteNotification")


class Fleet:
    """What was acknowledged to the fleet's app servers and test suite and is not yet seen in
    its phone's inbox (a copy seen there is delivered, and no longer followed), and the
    checks against `state`."""

    def __init__(self):
        self.tokens = None
        self.ccs = {}  # every CCS message id sent -> (phone, sender), acknowledged or not
        self.target = {}  # every id sent to one phone's token (CCS, or a legacy result) -> phone
        self.known = set()  # every message id the test learned: CCS ids, legacy results, topic sends
        self.resent = set()
        self.direct = {}  # message id -> (phone, sender): a CCS ack or a legacy result, not yet seen delivered
        self.topic_copies = set()  # (phone, message id, sender, topic): a topic send, not yet seen delivered
        self.group_copies = []  # (phone, sender, marker): a group send, not yet seen delivered
        self.group_sends = {}  # marker -> (sender, phones) of every group send, answered or not
        self.topics = {}  # (sender, topic) -> phones whose subscription was acknowledged
        self.groups = {}  # (sender, name) -> (notification_key, phones)
        self.conditions = {phone: {"state": "foreground", "network": "online"} for phone in PHONES[SENDER]}
        self.newest = {}  # phone -> (id, at) of the newest entry in its inbox at the last check
        self.delivered = 0  # copies seen delivered
        self.trimmed = 0  # copies not seen before their phone's inbox was trimmed past this round's start

    def check(self, label, saved_state, answered=None, settled=False):
        """Fails unless every acknowledged copy not yet seen delivered is in its phone's inbox or
        held for it. `answered`: the deliveries the control API's answers listed, by phone; they
        stand for the inbox where it was trimmed past them, and at the settle start (`settled`),
        after which nothing may stay held. Returns how many entries are held."""
        devices = {device["name"]: device for device in saved_state["devices"]}
        if sorted(devices) != sorted(PHONES[SENDER]):
            raise AssertionError("%s: the state file has the phones %s" % (label, sorted(devices)))
        found, where, markers, unknown_held, held, strict, strays = {}, {}, {}, {}, 0, {}, []
        for name, device in devices.items():
            if device["tokens"] != self.tokens[name]:
                raise AssertionError("%s: %s's tokens changed in the state file: %s" % (label, name, device["tokens"]))
            if device.get("deleted"):
                raise AssertionError("%s: %s's stored messages were deleted (%d)" % (label, name, device["deleted"]))
            inbox, markers[name] = device["inbox"], {}
            # Nothing delivered since the last check was trimmed away while the newest entry
            # of then is still there (or the inbox was never trimmed).
            strict[name] = (settled or len(inbox) < INBOX_KEPT
                            or self.newest.get(name) in {(message["id"], message["at"]) for message in inbox})
            self.newest[name] = (inbox[-1]["id"], inbox[-1]["at"]) if inbox else None
            for message in inbox:
                found.setdefault((name, message["id"]), []).append(("inbox", message["from"]))
                where.setdefault(message["id"], set()).add(name)
                marker = (message.get("data") or {}).get("g")
                if marker is not None:
                    markers[name][marker] = markers[name].get(marker, 0) + 1
                    sender, members = self.group_sends.get(marker, (None, ()))
                    if name not in members or message["from"] != sender:
                        strays.append("%s (%s) on %s from %s" % (marker, message["id"], name, message["from"]))
            for message in device["held"]:
                held += 1
                found.setdefault((name, message["id"]), []).append(("held", message["sender"]))
                where.setdefault(message["id"], set()).add(name)
                if message["id"] not in self.known:
                    unknown_held[(name, message["sender"])] = unknown_held.get((name, message["sender"]), 0) + 1
        if settled and held:
            raise AssertionError("%s: %d messages still held with every phone online in the foreground" % (label, held))
        seen = {phone: {event["id"] for event in events} for phone, events in (answered or {}).items()}
        seen_markers = {phone: {(event.get("data") or {}).get("g") for event in events}
                        for phone, events in (answered or {}).items()}
        problems, trimmed = [], 0
        if strays:
            problems.append("group copies on a phone not in the group, or from another sender: "
                            + ", ".join(strays[:5]))

        def follow(phone, mid, origins):
            """True while the copy is still to be followed (held); a problem when it is lost."""
            nonlocal trimmed
            entries = found.get((phone, mid), [])
            if any(origin not in origins for _, origin in entries):
                problems.append("%s on %s comes from %s, not %s" % (mid, phone, entries, sorted(origins)))
            if entries:
                if all(box == "held" for box, _ in entries):
                    return True
            elif mid in seen.get(phone, ()) and (settled or not strict[phone]):
                pass
            elif strict[phone]:
                problems.append("%s to %s (from %s) acknowledged but neither delivered nor held"
                                % (mid, phone, sorted(origins)))
                return False
            else:
                trimmed += 1
                return False
            self.delivered += 1
            return False

        for mid, (phone, sender) in sorted(self.direct.items()):
            if not follow(phone, mid, {sender}):
                del self.direct[mid]
        for phone, mid, sender, topic in sorted(self.topic_copies):
            if not follow(phone, mid, {sender, "/topics/" + topic}):
                self.topic_copies.discard((phone, mid, sender, topic))
        # A group's copies have ids the app server never learns, and a held entry has no data:
        # a copy not in its member's inbox (by the marker in its data) must be one of the held
        # entries from its sender whose ids the test does not know.
        missing, still = {}, []
        for phone, sender, marker in self.group_copies:
            if markers[phone].get(marker, 0) or (
                    marker in seen_markers.get(phone, ()) and (settled or not strict[phone])):
                self.delivered += 1
            else:
                missing.setdefault((phone, sender), []).append(marker)
        for (phone, sender), lost in sorted(missing.items()):
            if len(lost) <= unknown_held.get((phone, sender), 0):
                still += [(phone, sender, marker) for marker in lost]
            elif strict[phone]:
                problems.append("%d acknowledged copies of group sends by %s are not in %s's inbox and only %d "
                                "entries with ids the test never learned are held for it: at least %d lost, among %s"
                                % (len(lost), sender, phone, unknown_held.get((phone, sender), 0),
                                   len(lost) - unknown_held.get((phone, sender), 0), lost[:5]))
            else:
                trimmed += len(lost)
        self.group_copies = still
        for mid, phone in sorted(self.target.items()):
            if where.get(mid, {phone}) != {phone}:
                problems.append("%s, sent to %s, reached %s" % (mid, phone, sorted(where[mid])))
        doubled = sorted("%s on %s" % (mid, phone) for (phone, mid), entries in found.items()
                         if len(entries) > 1 and mid not in self.resent)
        doubled += sorted("group copy %s on %s" % (marker, phone) for phone in markers
                          for marker, n in markers[phone].items() if n > 1)
        if doubled:
            problems.append("delivered or held twice without a retry: " + ", ".join(doubled[:5]))
        for (phone, sender, topic) in sorted((p, s, t) for (s, t), phones in self.topics.items() for p in phones):
            if topic not in devices[phone]["topics"].get(sender, []):
                problems.append("%s's subscription to %s (sender %s) acknowledged but lost" % (phone, topic, sender))
        for (sender, name), (key, phones) in sorted(self.groups.items()):
            members = sorted(self.tokens[phone][sender] for phone in phones)
            for phone in sorted(phones):
                entries = [group for group in devices[phone].get("groups", [])
                           if group.get("sender") == sender and group.get("name") == name]
                if (not entries or entries[0].get("notification_key") != key
                        or sorted(entries[0].get("members", [])) != members):
                    problems.append("group %s of %s (members %s) acknowledged but not kept on %s: %s"
                                    % (name, sender, sorted(phones), phone, entries))
        if problems:
            raise AssertionError("%s: %s" % (label, "; ".join(problems[:6])))
        self.trimmed += trimmed
        return held


def fleet_phase(binary, rounds, rng, profile):
    """The fleet rounds, then a last start that brings every phone online to the foreground and
    checks that what was held arrives. Returns (copies, subscriptions, groups, control actions)."""
    state = tempfile.mkdtemp(prefix="fcm-crash-fleet-")
    fleet, unacked, copies_total, controls_total = Fleet(), {SENDER: [], SENDER2: []}, 0, 0
    try:
        for number in range(1, rounds + 1):
            label = "fleet round %d" % number
            serve = FleetServe(binary, state, profile)
            try:
                if fleet.tokens is None:
                    fleet.tokens = serve.tokens
                    shape = {phone: sorted(tokens) for phone, tokens in serve.tokens.items()}
                    wanted = {phone: sorted(s for s in PHONES if phone in PHONES[s]) for phone in PHONES[SENDER]}
                    if shape != wanted:
                        raise AssertionError("%s: the phones registered with %s, not %s" % (label, shape, wanted))
                elif serve.tokens != fleet.tokens or not serve.resumed:
                    raise AssertionError("%s: tokens changed or not resumed: %s" % (label, serve.tokens))
                port, seed = serve.listening["http"], rng.random
                xmpps = {}
                for sender in (SENDER, SENDER2):
                    fresh = ["f%d-%s-x%d" % (number, sender[-4:], i) for i in range(FLEET_PER_ROUND)]
                    for mid in fresh:
                        fleet.ccs[mid] = (rng.choice(PHONES[sender]), sender)
                        fleet.target[mid] = fleet.ccs[mid][0]
                        fleet.known.add(mid)
                    ids = unacked[sender] + fresh
                    fleet.resent.update(unacked[sender])
                    targets = {mid: fleet.tokens[fleet.ccs[mid][0]][sender] for mid in ids}
                    xmpps[sender] = XMPPSender(serve.listening["ccsPlain"], targets, ids, sender, KEYS[sender])
                https = [FleetHTTP(port, random.Random(seed()), fleet.tokens, sender, FLEET_PER_ROUND)
                         for sender in (SENDER, SENDER2)]
                topics = FleetTopics(port, random.Random(seed()), fleet.tokens, "f%d" % number, 60, fleet.topics)
                groups = FleetGroups(port, random.Random(seed()), fleet.tokens, "g%d" % number, 40, fleet.groups)
                control = FleetControl(port, random.Random(seed()), 400)
                threads = list(xmpps.values()) + https + [topics, groups, control]
                for thread in threads:
                    thread.start()
                time.sleep(rng.uniform(0.05, 0.5))
            finally:
                serve.kill()  # SIGKILL
            for thread in threads:
                thread.join(10)
            if any(thread.is_alive() for thread in threads):
                raise AssertionError("%s: an app server still waits 10 s after the kill" % label)
            refused = [line for thread in threads[2:] for line in thread.refused]
            if refused:
                raise AssertionError("%s: refused: %s" % (label, "; ".join(refused[:5])))
            acks = 0
            for sender, xmpp in xmpps.items():
                acked = set(xmpp.acked)
                acks += len(acked)
                for mid in acked:
                    fleet.direct[mid] = fleet.ccs[mid]
                unacked[sender] = [mid for mid in xmpp.sent if mid not in acked]
            for http_sender in https:
                for phone, mid in http_sender.accepted:
                    fleet.direct[mid] = (phone, http_sender.sender)
                    fleet.target[mid] = phone
                    fleet.known.add(mid)
            for phone, sender, topic in topics.subscribed:
                fleet.topics.setdefault((sender, topic), set()).add(phone)
            topic_copies = {(phone, mid, sender, topic)
                            for sender, topic, mid, phones in topics.sent for phone in phones}
            fleet.topic_copies |= topic_copies
            fleet.known |= {mid for _, mid, _, _ in topic_copies}
            fleet.groups.update(groups.created)
            fleet.group_sends.update(groups.attempted)
            group_copies = [(phone, sender, marker) for sender, marker, phones in groups.sent for phone in phones]
            fleet.group_copies += group_copies
            saved_state = saved(binary, state, profile)
            trimmed = fleet.trimmed
            held = fleet.check(label, saved_state, control.deliveries)
            # What the control API answered is kept; the one action the kill cut off may be too.
            possible = {phone: {key: {value} for key, value in conditions.items()}
                        for phone, conditions in fleet.conditions.items()}
            for phone, key, value in control.answered:
                possible[phone][key] = {value}
            if control.inflight:
                phone, key, value = control.inflight
                possible[phone][key].add(value)
            for device in saved_state["devices"]:
                now = {"state": device["appState"], "network": device["network"]}
                for key, value in now.items():
                    if value not in possible[device["name"]][key]:
                        raise AssertionError("%s: %s's %s is %s, the control API last answered %s" % (
                            label, device["name"], key, value, sorted(possible[device["name"]][key])))
                fleet.conditions[device["name"]] = now
            copies = acks + sum(len(h.accepted) for h in https) + len(topic_copies) + len(group_copies)
            copies_total += copies
            controls_total += len(control.answered)
            unseen = (", %d copies not verifiable (their inbox trimmed past them)" % (fleet.trimmed - trimmed)
                      if fleet.trimmed > trimmed else "")
            print("fleet round %d: killed after %3d CCS acks, %3d legacy results, %2d topic sends, %2d group sends "
                  "and %2d control actions; all %d copies delivered or held (%d held)%s, %d subscriptions and "
                  "%d groups kept"
                  % (number, acks, sum(len(h.accepted) for h in https), len(topics.sent), len(groups.sent),
                     len(control.answered), copies, held, unseen, sum(len(p) for p in fleet.topics.values()),
                     len(fleet.groups)), flush=True)
        # The settle start: every phone online, in the foreground; what was held is delivered,
        # each delivery answered as an event (the inbox could be trimmed past a long backlog).
        serve, answered, waiting = FleetServe(binary, state, profile), {}, len(fleet.group_copies)
        try:
            if serve.tokens != fleet.tokens or not serve.resumed:
                raise AssertionError("fleet settle: tokens changed or not resumed: %s" % serve.tokens)
            for phone in PHONES[SENDER]:
                for action in ({"network": "online"}, {"state": "foreground"}):
                    try:
                        reply = post(serve.listening["http"], "/emulator/v1/projects/%s/devices/%s/actions"
                                     % (SENDER, phone), action)
                    except (OSError, ValueError, http.client.HTTPException) as error:
                        raise AssertionError("fleet settle: %s for %s failed: %s" % (action, phone, error))
                    answered.setdefault(phone, []).extend(
                        event for event in reply["events"] if event.get("event") in DELIVERIES)
        finally:
            serve.kill()
        fleet.check("fleet settle", saved(binary, state, profile), answered, settled=True)
        print("fleet settle: every phone online in the foreground, %d deliveries; nothing held, the %d group "
              "copies held until then delivered; %d copies seen delivered in all, %d not verifiable"
              % (sum(len(events) for events in answered.values()), waiting, fleet.delivered, fleet.trimmed),
              flush=True)
    finally:
        shutil.rmtree(state, ignore_errors=True)
    return copies_total, sum(len(p) for p in fleet.topics.values()), len(fleet.groups), controls_total


def main():
    binary = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else time.time_ns()
    rng = random.Random(seed)
    fleet_rounds = max(3, rounds // 4)
    folder = tempfile.mkdtemp(prefix="fcm-crash-profile-")
    profile = os.path.join(folder, "fleet.yaml")
    with open(profile, "w") as file:
        file.write(fleet_profile(random.Random("fleet-%d" % seed)))  # leaves the rounds' draws as they were
    try:
        total_acked, subscribed_total = single_phase(binary, rounds, rng)
        fleet = fleet_phase(binary, fleet_rounds, rng, profile)
        big = big_fleet_phase(binary, 3, rng, COMMIT_DELAY_MS)
        webpush = webpush_phase(binary, 3, rng, COMMIT_DELAY_MS)
    except AssertionError as failure:
        print("crash: FAIL %s (seed %d)" % (failure, seed))
        return 1
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print("crash: %d rounds passed (%d acknowledged messages and %d subscriptions checked), then %d fleet rounds "
          "(%d acknowledged copies, %d subscriptions, %d groups and %d control actions checked)"
          % ((rounds, total_acked, subscribed_total, fleet_rounds) + fleet))
    print("crash: then %d rounds with 10,000 phones (%d acknowledged copies, %d subscriptions and %d phones taken "
          "offline checked)" % big)
    print("crash: then 3 Web Push rounds (%d messages answered 201 checked)" % webpush)
    return 0


if __name__ == "__main__":
    sys.exit(main())
