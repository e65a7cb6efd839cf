"""The crash test's real-client rounds: firebase-messaging 0.4.5 registers with `serve`
and receives over MCS while an app server sends it legacy messages, each with a number
of its own; serve is killed with SIGKILL at a random moment, then started again on the
same state, and the client logs in again with its saved credentials and the persistent
ids it received (as a client that keeps them does). Every message answered `success`
must reach the client: before the kill, or after it (held for it, or not acked and sent
again). Its token must stay the same.

Runs in Interop/.receiver (made by Interop/setup.sh):
  Interop/.receiver/bin/python Crash/receiver_phase.py .build/debug/fcm-device [ROUNDS]"""
import asyncio
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
from test_receiver import KEY, PROFILE, config, patch_hosts  # noqa: E402


class Serve:
    def __init__(self, binary, state):
        self.proc = subprocess.Popen(
            [binary, "serve", "--profile", PROFILE, "--state", state, "--ccs-port", "0", "--ccs-plain-port", "0",
             "--http-port", "0", "--mcs-port", "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.listening = json.loads(self.proc.stdout.readline())
        threading.Thread(target=lambda: [None for _ in self.proc.stdout], daemon=True).start()
        self.base = "http://127.0.0.1:%d" % self.listening["http"]
        os.environ["SSL_CERT_FILE"] = self.listening["tlsCert"]
        patch_hosts(self.base, self.listening["mcs"])


class Client:
    """A firebase-messaging client on an event loop of its own."""

    def __init__(self, credentials, received):
        self.credentials = credentials
        self.numbers = set()
        self.persistent_ids = list(received)
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self.token = asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(30)

    def _on_message(self, payload, persistent_id, context):
        self.persistent_ids.append(persistent_id)
        number = payload.get("data", {}).get("n")
        if number is not None:
            self.numbers.add(int(number))

    def _saved(self, credentials):
        self.credentials = credentials

    async def _start(self):
        from firebase_messaging import FcmPushClient, FcmPushClientConfig

        self.client = FcmPushClient(
            self._on_message, config(), self.credentials, self._saved,
            received_persistent_ids=list(self.persistent_ids),
            config=FcmPushClientConfig(abort_on_sequential_error_count=None, connection_retry_count=1))
        token = await self.client.checkin_or_register()
        await self.client.start()
        for _ in range(100):
            if self.client.is_started():
                return token
            await asyncio.sleep(0.1)
        raise AssertionError("the client did not log in over MCS")

    def stop(self):
        async def stop():
            await self.client.stop()
            await asyncio.gather(*self.client.tasks, return_exceptions=True)

        try:
            asyncio.run_coroutine_threadsafe(stop(), self.loop).result(30)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)


def send(base, token, number):
    body = json.dumps({"to": token, "data": {"n": str(number)}, "time_to_live": 3600}).encode()
    request = urllib.request.Request(base + "/fcm/send", data=body, method="POST", headers={
        "Content-Type": "application/json", "Authorization": "key=" + KEY})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.load(response).get("success") == 1


def receiver_phase(binary, rounds, rng):
    state = tempfile.mkdtemp(prefix="fcm-crash-receiver-")
    serve = Serve(binary, state)
    client = Client(None, [])
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
        received |= client.numbers
        persistent_ids = client.persistent_ids
        client.stop()
        serve = Serve(binary, state)
        client = Client(credentials, persistent_ids)
        assert client.token == token, "round %d: the token changed after a restart" % round_number
        deadline = time.time() + 20
        while time.time() < deadline and not answered <= received | client.numbers:
            time.sleep(0.2)
        lost = sorted(answered - received - client.numbers)
        assert not lost, "round %d: answered but never received: %s" % (round_number, lost[:20])
        received |= client.numbers
    client.stop()
    serve.proc.send_signal(signal.SIGTERM)
    serve.proc.wait(timeout=10)
    return len(answered)


if __name__ == "__main__":
    # The client logs every connection serve's kill cut: expected here.
    logging.getLogger("firebase_messaging").setLevel(logging.CRITICAL)
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    count = receiver_phase(sys.argv[1], rounds, random.Random())
    print("crash: %d real-client rounds (%d messages answered success, every one received)" % (rounds, count))
