#!/usr/bin/env python3
"""Kills `fcm-device serve` with SIGKILL at random moments under load and checks,
after each restart, that nothing it acknowledged is missing or duplicated.

Usage: python3 Crash/crash_test.py PATH/TO/fcm-device [ROUNDS] [SEED]

Each round starts `serve` on one state folder, sends downstream messages to the
device over XMPP (CCS, plain port) and over the HTTP legacy API at once, and kills
the process at a random moment. Then `fcm-device state --json` reads what the
device holds, and:
- every message acknowledged (a CCS ack, an HTTP 200 with its message_id) was
  delivered, once; messages sent but not acknowledged were delivered at most once;
- the XMPP messages left without an ack are sent again first in the next round
  (as an app server does); they may then be delivered twice, and no others are;
- every topic subscription acknowledged (an IID batchAdd answered 200 with success)
  is still there;
- the token is the one issued in the first round.
Prints one line per round, then `crash: N rounds passed` or what went wrong; exit 1
on the first failure. Standard library only.
"""
import base64
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
            [binary, "serve", "--state", state, "--ccs-port", "0", "--ccs-plain-port", "0", "--http-port", "0",
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
            sock.sendall(("<auth mechanism='PLAIN' xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>%s</auth>" % plain).encode())
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


def main():
    binary = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else time.time_ns())
    fleet_rounds = max(3, rounds // 4)
    try:
        total_acked, subscribed_total = single_phase(binary, rounds, rng)
        fleet = fleet_phase(binary, fleet_rounds, rng)
    except AssertionError as failure:
        print("crash: FAIL " + str(failure))
        return 1
    print("crash: %d rounds passed (%d acknowledged messages and %d subscriptions checked), then %d fleet rounds "
          "(%d acknowledged copies, %d subscriptions, %d groups and %d control actions checked)"
          % ((rounds, total_acked, subscribed_total, fleet_rounds) + fleet))
    return 0


if __name__ == "__main__":
    sys.exit(main())
