"""The crash test's Web Push rounds: `serve --profile` on one browser whose push
subscription was made (in the first round, through the control API's get_token) with
an app server's VAPID key; an app server sends Web Push to the subscription's endpoint
at the emulator's own base, each body encrypted (aes128gcm, RFC 8291) and signed (VAPID,
ES256) with the `cryptography` package, and each payload an FCM message with an id of
its own, so the FCM SDK's worker puts it in the browser's inbox. serve is killed with
SIGKILL at a random moment; after each kill `fcm-device state --json --profile P` must
show every message answered 201 in the browser's inbox (the browser is online, its tab
hidden: it takes each at once), and the subscription the same. Used by crash_test.py.
"""

import base64
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request

SENDER = "123456789012"
KEY = "webpush-crash-key"
PER_ROUND = 150
PROFILE = """version: 1
description: The crash test's browser.
devices: [ { name: browser, platform: web, app: "https://app.example.com", state: background, seed: %d } ]
senders: [ { id: "%s", key: %s, project: webpush-project } ]
"""


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class AppServer:
    """A Web Push app server: its VAPID key, and requests encrypted to a subscription."""

    def __init__(self):
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives import serialization

        self.key = ec.generate_private_key(ec.SECP256R1())
        self.public = self.key.public_key().public_bytes(serialization.Encoding.X962,
                                                         serialization.PublicFormat.UncompressedPoint)

    def authorization(self, audience):
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

        header = b64url(b'{"typ":"JWT","alg":"ES256"}')
        claims = b64url(json.dumps({"aud": audience, "exp": int(time.time()) + 3600,
                                    "sub": "mailto:crash@example.com"}).encode())
        r, s = decode_dss_signature(self.key.sign((header + "." + claims).encode(), ec.ECDSA(hashes.SHA256())))
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
        return "vapid t=%s.%s.%s, k=%s" % (header, claims, b64url(signature), b64url(self.public))

    @staticmethod
    def encrypt(plaintext, p256dh, auth):
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
        from cryptography.hazmat.primitives.kdf.hkdf import HKDF

        receiver = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), p256dh)
        ephemeral = ec.generate_private_key(ec.SECP256R1())
        sender = ephemeral.public_key().public_bytes(serialization.Encoding.X962,
                                                     serialization.PublicFormat.UncompressedPoint)
        secret = ephemeral.exchange(ec.ECDH(), receiver)
        ikm = HKDF(hashes.SHA256(), 32, salt=auth, info=b"WebPush: info\0" + p256dh + sender).derive(secret)
        salt = os.urandom(16)
        cek = HKDF(hashes.SHA256(), 16, salt=salt, info=b"Content-Encoding: aes128gcm\0").derive(ikm)
        nonce = HKDF(hashes.SHA256(), 12, salt=salt, info=b"Content-Encoding: nonce\0").derive(ikm)
        record = AESGCM(cek).encrypt(nonce, plaintext + b"\x02", None)
        return salt + (4096).to_bytes(4, "big") + bytes([len(sender)]) + sender + record


class Serve:
    def __init__(self, binary, state, profile, commit_delay):
        self.proc = subprocess.Popen(
            [binary, "serve", "--profile", profile, "--state", state, "--ccs-port", "0", "--ccs-plain-port", "0",
             "--http-port", "0", "--commit-delay-ms", str(commit_delay)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError("serve --profile did not start: " + self.proc.stderr.read())
        self.port = json.loads(line)["http"]
        self.base = "http://127.0.0.1:%d" % self.port
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()

    def control(self, method, route, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request("%s/emulator/v1/projects/%s%s" % (self.base, SENDER, route), data=data,
                                         method=method, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)


class Sender(threading.Thread):
    """Sends Web Push to the subscription, one request at a time, until serve is gone."""

    def __init__(self, serve, app_server, subscription, prefix):
        super().__init__(daemon=True)
        self.serve, self.app_server, self.prefix = serve, app_server, prefix
        self.endpoint = subscription["endpoint"].replace("https://fcm.googleapis.com", serve.base)
        self.p256dh = b64decode(subscription["keys"]["p256dh"])
        self.auth = b64decode(subscription["keys"]["auth"])
        self.accepted, self.refused = [], []

    def run(self):
        for n in range(PER_ROUND):
            mid = "%s-%d" % (self.prefix, n)
            payload = json.dumps({"fcmMessageId": mid, "from": SENDER, "data": {"n": str(n)}}).encode()
            request = urllib.request.Request(self.endpoint, data=AppServer.encrypt(payload, self.p256dh, self.auth),
                                             method="POST", headers={
                                                 "TTL": "3600", "Content-Encoding": "aes128gcm",
                                                 "Authorization": self.app_server.authorization(self.serve.base)})
            try:
                with urllib.request.urlopen(request, timeout=5) as response:
                    if response.status == 201:
                        self.accepted.append(mid)
                    else:
                        self.refused.append("%s answered %d" % (mid, response.status))
            except urllib.error.HTTPError as error:
                self.refused.append("%s answered %d: %s" % (mid, error.code, error.read()[:200]))
                return
            except OSError:
                return


def webpush_phase(binary, rounds, rng, commit_delay):
    """Returns the number of Web Push messages answered 201 and checked."""
    try:
        import cryptography  # noqa: F401 - the app server's encryption and signature
    except ImportError:
        raise AssertionError("the Web Push rounds need Python's cryptography package: pip install cryptography")
    state = tempfile.mkdtemp(prefix="fcm-crash-webpush-")
    profile = os.path.join(state, "browser.yaml")
    with open(profile, "w") as file:
        file.write(PROFILE % (rng.randrange(1, 2 ** 62), SENDER, KEY))
    app_server, subscription, total = AppServer(), None, 0
    try:
        for number in range(1, rounds + 1):
            serve = Serve(binary, state, profile, commit_delay)
            try:
                if subscription is None:
                    serve.control("POST", "/devices/browser/actions", {"get_token": {"vapid_key": b64url(app_server.public)}})
                    subscription = serve.control("GET", "/devices/browser")["pushSubscription"]
                elif serve.control("GET", "/devices/browser").get("pushSubscription") != subscription:
                    raise AssertionError("web push round %d: the subscription changed" % number)
                sender = Sender(serve, app_server, subscription, "wp%d" % number)
                sender.start()
                time.sleep(rng.uniform(0.05, 0.5))
            finally:
                serve.kill()
            sender.join(10)
            if sender.refused:
                raise AssertionError("web push round %d: %s" % (number, sender.refused[:3]))
            out = subprocess.run([binary, "state", "--state", state, "--profile", profile, "--json"],
                                 capture_output=True, text=True, timeout=30)
            if out.returncode != 0:
                raise AssertionError("fcm-device state failed: " + out.stderr)
            device = json.loads(out.stdout)["devices"][0]
            if device.get("pushSubscription") != subscription:
                raise AssertionError("web push round %d: the subscription was not kept" % number)
            inbox = {message["id"] for message in device["inbox"]}
            missing = [mid for mid in sender.accepted if mid not in inbox]
            if missing:
                raise AssertionError("web push round %d: answered 201 but not delivered after the restart: %s"
                                     % (number, missing[:5]))
            total += len(sender.accepted)
            print("web push round %d: killed after %3d answered 201; all delivered, the subscription kept"
                  % (number, len(sender.accepted)), flush=True)
    finally:
        shutil.rmtree(state, ignore_errors=True)
    return total
