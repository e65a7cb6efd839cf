#!/usr/bin/env python3
"""The control API live, over loopback sockets, against a running `fcm-device serve`:
how soon a long poll waiting for an event returns, measured from sending the action
that causes it (an upper bound: the event happens while the action is handled) and
from the action's own reply,
and how long `POST reset` takes. Usage: control-live.py HTTP_PORT [ROUNDS]
Prints medians and p90 in milliseconds. Python's http.client, one keep-alive
connection each for the action and the poll."""
import http.client
import json
import statistics
import sys
import threading
import time

port, rounds = int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 1000
base = "/emulator/v1/projects/demo-project"


def call(connection, method, path, body=None):
    connection.request(method, base + path, body=body and json.dumps(body))
    reply = connection.getresponse()
    data = reply.read()
    assert reply.status == 200, (reply.status, data)
    return json.loads(data)


actions = http.client.HTTPConnection("127.0.0.1", port)
poll = http.client.HTTPConnection("127.0.0.1", port)
after = call(actions, "GET", "/events?limit=1")["last"]
lags, resets = [], []
for n in range(rounds):
    state = "background" if n % 2 == 0 else "foreground"
    woke = {}

    def wait():
        result = call(poll, "GET", "/events?after=%d&type=appStateChanged&wait=5s" % after)
        woke["at"] = time.perf_counter()
        woke["events"] = result["events"]

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.002)  # the poll is parked before the action
    sent = time.perf_counter()
    call(actions, "POST", "/devices/default/actions", {"state": state})
    answered = time.perf_counter()
    waiter.join()
    assert woke["events"], "the wait ran out"
    after = woke["events"][-1]["seq"]
    lags.append(((woke["at"] - sent) * 1000, (woke["at"] - answered) * 1000))
for _ in range(100):
    start = time.perf_counter()
    call(actions, "POST", "/reset")
    resets.append((time.perf_counter() - start) * 1000)
q = lambda values, p: sorted(values)[int(p * (len(values) - 1))]
since_sent = [lag for lag, _ in lags]
since_answered = [lag for _, lag in lags]
print("wake, from sending the action that causes the event (ms, %d waits): p50 %.2f  p90 %.2f  max %.2f" % (
    rounds, statistics.median(since_sent), q(since_sent, 0.9), max(since_sent)))
print("wake, from the action's own reply (ms; below 0: the poll woke first): p50 %.2f  p90 %.2f  max %.2f" % (
    statistics.median(since_answered), q(since_answered, 0.9), max(since_answered)))
print("reset (ms, 100 calls): p50 %.2f  p90 %.2f  max %.2f" % (statistics.median(resets), q(resets, 0.9), max(resets)))
