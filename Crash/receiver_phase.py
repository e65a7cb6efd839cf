"""The crash test's real-client rounds: firebase-messaging 0.4.5 registers with `serve`
and receives over MCS while an app server sends it legacy messages, each with a number
of its own; serve is killed with SIGKILL at a random moment, then started again on the
same state, and the client logs in again with its saved credentials and the persistent
ids it received (as a client that keeps them does). Every message answered `success`
must reach the client: before the kill, or after it (held for it, or not acked and sent
again). Its token must stay the same.

Runs in Interop/.receiver (made by Interop/setup.sh):
  Interop/.receiver/bin/python Crash/receiver_phase.py .build/debug/fcm-device [ROUNDS]"""
import json
import logging
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Interop"))
from test_receiver import KEY, PROFILE, Receiver  # noqa: E402


class Serve:
    def __init__(self, binary, state):
        self.proc = subprocess.Popen(
            [binary, "serve", "--profile", PROFILE, "--state", state, "--ccs-port", "0", "--ccs-plain-port", "0",
             "--http-port", "0", "--mcs-port", "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.listening = json.loads(self.proc.stdout.readline())
        threading.Thread(target=lambda: [None for _ in self.proc.stdout], daemon=True).start()
        self.base = "http://127.0.0.1:%d" % self.listening["http"]


def start_client(serve, credentials, received):
    """The real client, logged in on `serve`, saying it has `received`."""
    from firebase_messaging import FcmPushClientConfig

    quick = FcmPushClientConfig(abort_on_sequential_error_count=None, connection_retry_count=1)
    return Receiver(None, serve=serve, credentials=credentials, client_config=quick, received=received)


def numbers(client):
    return {int(payload["data"]["n"]) for payload, _ in client.received if "n" in payload.get("data", {})}


def stop_client(client):
    try:
        client.stop_client()
    finally:
        client.loop.call_soon_threadsafe(client.loop.stop)


def send(base, token, number):
    body = json.dumps({"to": token, "data": {"n": str(number)}, "time_to_live": 3600}).encode()
    request = urllib.request.Request(base + "/fcm/send", data=body, method="POST", headers={
        "Content-Type": "application/json", "Authorization": "key=" + KEY})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.load(response).get("success") == 1


def receiver_phase(binary, rounds, rng):
    state = tempfile.mkdtemp(prefix="fcm-crash-receiver-")
    serve = Serve(binary, state)
    client = start_client(serve, None, [])
    token, credentials = client.token, client.credentials
    answered, received, number = set(), set(), 0
    for round_number in range(rounds):
        stop = threading.Event()

        def sender():
            nonlocal number
            while not stop.is_set():
                number += 1
                try:
                    if send(serve.base, token, number):
                        answered.add(number)
                except OSError:
                    return

        thread = threading.Thread(target=sender)
        thread.start()
        time.sleep(rng.uniform(0.3, 1.5))
        serve.proc.send_signal(signal.SIGKILL)
        serve.proc.wait(timeout=10)
        stop.set()
        thread.join(timeout=10)
        received |= numbers(client)
        persistent_ids = client.persistent_ids
        stop_client(client)
        serve = Serve(binary, state)
        client = start_client(serve, credentials, persistent_ids)
        assert client.token == token, "round %d: the token changed after a restart" % round_number
        deadline = time.time() + 20
        while time.time() < deadline and not answered <= received | numbers(client):
            time.sleep(0.2)
        lost = sorted(answered - received - numbers(client))
        assert not lost, "round %d: answered but never received: %s" % (round_number, lost[:20])
        received |= numbers(client)
    stop_client(client)
    serve.proc.send_signal(signal.SIGTERM)
    serve.proc.wait(timeout=10)
    return len(answered)


if __name__ == "__main__":
    # The client logs every connection serve's kill cut: expected here.
    logging.getLogger("firebase_messaging").setLevel(logging.CRITICAL)
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    count = receiver_phase(sys.argv[1], rounds, random.Random())
    print("crash: %d real-client rounds (%d messages answered success, every one received)" % (rounds, count))
