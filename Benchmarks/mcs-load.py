"""The MCS path under load: messages a second delivered to one real client.

A release `fcm-device serve` (production's per-device limits off), one client
registered as firebase-messaging registers (its own registration code), and a lean MCS
reader in its place after that: it logs in, counts each DataMessageStanza and acks
what each read brought (one selective ack per read, not per message: the Python
client would be the bottleneck otherwise). wrk sends legacy messages to the client's
token for SECONDS; the figure is what reached the client a second, beside what the
HTTP API accepted a second and GET /healthz's rate on the same serve.

Run with the receiver environment (Interop/setup.sh makes it):
  Interop/.receiver/bin/python Benchmarks/mcs-load.py [SECONDS] [CONNECTIONS] [ROUNDS]
FCM_DEVICE=PATH uses that binary instead of building the release one."""
import asyncio
import json
import os
import re
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Interop"))
from test_receiver import KEY, PROFILE, config, patch_hosts  # noqa: E402


def varint(value):
    out = b""
    while True:
        byte = value & 0x7F
        value >>= 7
        out += bytes([byte | (0x80 if value else 0)])
        if not value:
            return out


def frame(tag, payload, first=False):
    return (bytes([41]) if first else b"") + bytes([tag]) + varint(len(payload)) + payload


class Reader(threading.Thread):
    """Logs in over MCS and counts data stanzas, acking each read's ids at once."""

    def __init__(self, port, ca, credentials):
        super().__init__(daemon=True)
        from firebase_messaging.proto.mcs_pb2 import DataMessageStanza, IqStanza, LoginRequest, SelectiveAck

        self.stanza, self.iq, self.ack = DataMessageStanza, IqStanza, SelectiveAck
        gcm = credentials["gcm"]
        login = LoginRequest(id="chrome-94.0.4606.51", domain="mcs.android.com", user=gcm["android_id"],
                             resource=gcm["android_id"], auth_token=gcm["security_token"], use_rmq2=True)
        context = ssl.create_default_context(cafile=ca)
        self.sock = context.wrap_socket(socket.create_connection(("127.0.0.1", port)),
                                        server_hostname="mtalk.google.com")
        self.sock.sendall(frame(2, login.SerializeToString(), first=True))
        self.count = 0
        self.times = []

    def run(self):
        buffer = b""
        first = True
        while True:
            data = self.sock.recv(1 << 20)
            if not data:
                return
            buffer += data
            ids = []
            at = 0
            while True:
                start = at + (1 if first else 0)
                if start + 2 > len(buffer):
                    break
                tag = buffer[start]
                length, shift, cursor = 0, 0, start + 1
                while cursor < len(buffer):
                    byte = buffer[cursor]
                    cursor += 1
                    length |= (byte & 0x7F) << shift
                    shift += 7
                    if not byte & 0x80:
                        break
                else:
                    break
                if cursor + length > len(buffer):
                    break
                if tag == 8:
                    message = self.stanza()
                    message.ParseFromString(buffer[cursor:cursor + length])
                    ids.append(message.persistent_id)
                first = False
                at = cursor + length
            buffer = buffer[at:]
            if ids:
                self.count += len(ids)
                self.times.append((time.monotonic(), self.count))
                iq = self.iq(type=1, id="")
                iq.extension.id = 12
                iq.extension.data = self.ack(id=ids).SerializeToString()
                self.sock.sendall(frame(7, iq.SerializeToString()))


def register(base, mcs_port, ca):
    os.environ["SSL_CERT_FILE"] = ca
    patch_hosts(base, mcs_port)
    from firebase_messaging.fcmregister import FcmRegister

    async def run():
        register = FcmRegister(config())
        try:
            return await register.checkin_or_register()
        finally:
            await register.close()

    return asyncio.run(run())


def wrk_rate(url, seconds, connections, script=None):
    command = ["wrk", "-t", "1", "-c", str(connections), "-d", "%ds" % seconds]
    if script:
        command += ["-s", script]
    out = subprocess.run(command + [url], capture_output=True, text=True, check=True).stdout
    if re.search(r"Non-2xx|Socket errors", out):
        raise SystemExit("errors in the wrk run:\n" + out)
    return float(re.search(r"Requests/sec:\s*([0-9.]+)", out).group(1))


def main():
    seconds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    connections = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    binary = os.environ.get("FCM_DEVICE")
    if not binary:
        subprocess.run(["swift", "build", "-c", "release", "--product", "fcm-device"], check=True,
                       cwd=os.path.join(HERE, ".."), capture_output=True)
        binary = os.path.join(HERE, "..", ".build", "release", "fcm-device")
    work = tempfile.mkdtemp(prefix="fcm-mcs-load-")
    serve = subprocess.Popen(
        [binary, "serve", "--profile", PROFILE, "--no-device-limits", "--state", work, "--ccs-port", "0",
         "--ccs-plain-port", "0", "--http-port", "0", "--mcs-port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        listening = json.loads(serve.stdout.readline())
        threading.Thread(target=lambda: [None for _ in serve.stdout], daemon=True).start()
        base = "http://127.0.0.1:%d" % listening["http"]
        credentials = register(base, listening["mcs"], listening["tlsCert"])
        token = credentials["fcm"]["registration"]["token"]
        reader = Reader(listening["mcs"], listening["tlsCert"], credentials)
        reader.start()
        script = os.path.join(work, "legacy.lua")
        with open(script, "w") as handle:
            handle.write('wrk.method = "POST"\nwrk.body = [[%s]]\n' % json.dumps(
                {"to": token, "data": {"score": "1-0"}}))
            handle.write('wrk.headers["Authorization"] = "key=%s"\n' % KEY)
            handle.write('wrk.headers["Content-Type"] = "application/json"\n')
        for round_number in range(rounds):
            healthz = wrk_rate(base + "/healthz", seconds, connections)
            before = reader.count
            started = time.monotonic()
            accepted = wrk_rate(base + "/fcm/send", seconds, connections, script)
            sent = accepted * seconds
            deadline = time.monotonic() + 30
            while reader.count - before < sent * 0.999 and time.monotonic() < deadline:
                time.sleep(0.05)
            last = reader.times[-1][0] if reader.times else time.monotonic()
            delivered = (reader.count - before) / max(last - started, 1e-9)
            print("round %d: healthz %.0f req/s; legacy accepted %.0f msg/s; delivered over MCS %.0f msg/s "
                  "(%d messages, the last %.2f s after the first send)" % (
                      round_number + 1, healthz, accepted, delivered, reader.count - before, last - started))
    finally:
        serve.terminate()
        serve.wait(timeout=10)


if __name__ == "__main__":
    main()
