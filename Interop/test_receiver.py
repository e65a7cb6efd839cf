"""A real client app instance against `fcm-device serve`: firebase-messaging 0.4.5,
unchanged but for its host constants, checks in, registers (register3, Firebase
Installations, FCM registrations) and receives over MCS, as from Google. App servers
reach it by its FCM token (legacy, v1, a topic) and by its endpoint (pywebpush, aesgcm).
A client that answers none of the server's pings is closed as dead and held for.
Held messages reach it when it logs in again, after a `deleted_messages` notice when the
store's limit discarded some; a restart with its saved credentials
keeps its token; wrong credentials are refused and serve goes on serving.

Runs in Interop/.receiver (firebase-messaging pins http-ece 1.1, which the Web Push
environment cannot take): Interop/.receiver/bin/python Interop/test_receiver.py PATH/TO/fcm-device"""
import asyncio
import base64
import json
import os
import sys
import threading
import time
import urllib.request

from serve_harness import HERE, Serve, credentials_file, run_each

PROFILE = os.path.join(HERE, "interop-receiver.yaml")
PROJECT = "receiver-project"
SENDER = "987654321098"
KEY = "receiver-server-key"


def patch_hosts(base, mcs_port):
    """Points firebase-messaging at the emulator: its names are imported by each module."""
    from firebase_messaging import fcmpushclient, fcmregister

    fcmregister.GCM_CHECKIN_URL = base + "/checkin"
    fcmregister.GCM_REGISTER_URL = base + "/c2dm/register3"
    fcmregister.FCM_INSTALLATION = base + "/v1/"
    fcmregister.FCM_REGISTRATION = base + "/v1/"
    fcmpushclient.MCS_HOST = "127.0.0.1"
    fcmpushclient.MCS_PORT = mcs_port


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def config(vapid=None):
    """The client's Firebase config; with `vapid` (a py-vapid key), its subscription is
    made with that key, so an app server holding it can send Web Push to it."""
    from cryptography.hazmat.primitives import serialization
    from firebase_messaging import FcmRegisterConfig

    extra = {}
    if vapid:
        raw = vapid.public_key.public_bytes(serialization.Encoding.X962,
                                            serialization.PublicFormat.UncompressedPoint)
        extra["vapid_key"] = b64url(raw)
    return FcmRegisterConfig(
        project_id=PROJECT, app_id="1:%s:web:0123456789abcdef" % SENDER, api_key="AIzaSy-emulated-key",
        messaging_sender_id=SENDER, **extra)


class Receiver:
    """serve, and a firebase-messaging client in a thread of its own (asyncio). It
    stops with its serve: a client left running would reconnect to the next serve (the
    hosts are patched module-wide) with the same seeded credentials."""

    def __init__(self, binary, serve=None, credentials=None, client_config=None, received=()):
        """`received`: the persistent ids it says it has at its login (a client that
        keeps them, as firebase-messaging's users do across restarts)."""
        from py_vapid import Vapid

        self.vapid = Vapid()
        self.vapid.generate_keys()
        self.serve = serve or Serve(binary, PROFILE)
        self.base = "http://127.0.0.1:%d" % self.serve.listening["http"]
        os.environ["SSL_CERT_FILE"] = self.serve.listening["tlsCert"]
        patch_hosts(self.base, self.serve.listening["mcs"])
        self.received = []
        self.cond = threading.Condition()
        self.credentials = credentials
        self.client_config = client_config
        self.already = list(received)
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self.client = None
        self.token = self.call(self._start())

    def call(self, coroutine, timeout=30):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def _on_message(self, payload, persistent_id, context):
        with self.cond:
            self.received.append((payload, persistent_id))
            self.cond.notify_all()

    def _saved(self, credentials):
        self.credentials = credentials

    async def _start(self):
        from firebase_messaging import FcmPushClient, FcmPushClientConfig

        self.client = FcmPushClient(
            self._on_message, config(self.vapid), self.credentials, self._saved,
            config=self.client_config or FcmPushClientConfig(abort_on_sequential_error_count=None),
            received_persistent_ids=list(self.already))
        token = await self.client.checkin_or_register()
        await self.client.start()
        for _ in range(100):
            if self.client.is_started():
                return token
            await asyncio.sleep(0.1)
        raise AssertionError("the client did not log in over MCS")

    @property
    def persistent_ids(self):
        """What it received: the ids it had at its login, then each message's."""
        return self.already + [persistent_id for _, persistent_id in self.received]

    def stop_client(self):
        async def stop():
            await self.client.stop()
            # Its tasks end before the next test patches the hosts (a task still
            # reconnecting would read the next serve's port).
            await asyncio.gather(*self.client.tasks, return_exceptions=True)

        self.call(stop())

    def wait_for(self, predicate, timeout=10):
        deadline = time.time() + timeout
        with self.cond:
            while True:
                for payload, persistent_id in self.received:
                    if predicate(payload):
                        return payload, persistent_id
                left = deadline - time.time()
                if left <= 0:
                    raise AssertionError("the client received no such message; it has %s" % self.received[-3:])
                self.cond.wait(left)

    def post(self, path, body, headers):
        request = urllib.request.Request(self.base + path, data=json.dumps(body).encode(), method="POST",
                                         headers=dict({"Content-Type": "application/json"}, **headers))
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    def legacy(self, **fields):
        return self.post("/fcm/send", dict({"to": self.token}, **fields), {"Authorization": "key=" + KEY})

    def stop(self):
        try:
            if self.client:
                self.stop_client()
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.serve.stop()


def phone(receiver):
    url = receiver.base + "/emulator/v1/projects/%s/devices" % PROJECT
    with urllib.request.urlopen(url, timeout=10) as response:
        devices = json.load(response)["devices"]
    return next(device for device in devices if device["name"].startswith("receiver-"))


def test_registers_and_appears_as_a_phone(receiver):
    found = phone(receiver)
    assert found["platform"] == "web", found
    assert found["tokens"][SENDER] == receiver.token, (found["tokens"], receiver.token)
    assert found["connected"], found
    assert found["pushSubscription"]["endpoint"].startswith("https://fcm.googleapis.com/fcm/send/"), found
    receiver.serve.wait_for(lambda e: e.get("event") == "receiverConnected")


def test_legacy_send_arrives_decrypted(receiver):
    answer = receiver.legacy(data={"hello": "real client"}, notification={"title": "Hi", "body": "there"})
    assert answer["success"] == 1, answer
    payload, persistent_id = receiver.wait_for(lambda p: p.get("data", {}).get("hello") == "real client")
    assert payload["from"] == SENDER and payload["notification"]["title"] == "Hi", payload
    assert persistent_id, persistent_id
    receiver.serve.wait_for(lambda e: e.get("event") == "receiverAcked" and persistent_id in e.get("persistent_ids", []))


def test_v1_send_arrives(receiver):
    token = access_token(receiver)
    answer = receiver.post("/v1/projects/%s/messages:send" % PROJECT,
                           {"message": {"token": receiver.token, "data": {"via": "v1"}}},
                           {"Authorization": "Bearer " + token})
    assert answer["name"].startswith("projects/%s/messages/" % PROJECT), answer
    receiver.wait_for(lambda p: p.get("data", {}).get("via") == "v1")


def access_token(receiver):
    """A bearer token from the token endpoint, with the emulator's own service account."""
    path = credentials_file(receiver.serve.proc.args[0], receiver.serve, PROFILE, PROJECT)
    with open(path) as handle:
        key = json.load(handle)
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding

    now = int(time.time())
    header = {"alg": "RS256", "typ": "JWT", "kid": key["private_key_id"]}
    claims = {"iss": key["client_email"], "scope": "https://www.googleapis.com/auth/firebase.messaging",
              "aud": key["token_uri"], "iat": now, "exp": now + 3600}

    def part(value):
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    signing = part(header) + "." + part(claims)
    private = serialization.load_pem_private_key(key["private_key"].encode(), password=None)
    signature = private.sign(signing.encode(), padding.PKCS1v15(), hashes.SHA256())
    assertion = signing + "." + base64.urlsafe_b64encode(signature).rstrip(b"=").decode()
    body = ("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion).encode()
    request = urllib.request.Request(receiver.base + "/token", data=body, method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)["access_token"]


def test_topic_send_arrives(receiver):
    add = receiver.post("/iid/v1:batchAdd", {"to": "/topics/alerts", "registration_tokens": [receiver.token]},
                        {"Authorization": "key=" + KEY})
    assert add["results"] == [{}], add
    answer = receiver.post("/fcm/send", {"to": "/topics/alerts", "data": {"topic": "yes"}},
                           {"Authorization": "key=" + KEY})
    assert "message_id" in answer, answer
    payload, _ = receiver.wait_for(lambda p: p.get("data", {}).get("topic") == "yes")
    assert payload["from"] == "/topics/alerts", payload


def test_web_push_to_its_endpoint_arrives(receiver):
    from pywebpush import webpush

    subscription = phone(receiver)["pushSubscription"]
    subscription["endpoint"] = subscription["endpoint"].replace("https://fcm.googleapis.com", receiver.base)
    webpush(subscription, json.dumps({"web": "push"}), vapid_private_key=receiver.vapid,
            vapid_claims={"sub": "mailto:push@example.com"}, content_encoding="aesgcm", ttl=60)
    receiver.wait_for(lambda p: p.get("web") == "push")


def test_held_messages_arrive_at_the_next_login_and_ttl_zero_does_not(receiver):
    receiver.stop_client()
    receiver.serve.wait_for(lambda e: e.get("event") == "receiverDisconnected")
    receiver.legacy(data={"while": "away"}, time_to_live=600)
    receiver.legacy(data={"now": "or never"}, time_to_live=0)
    receiver.received.clear()
    receiver.call(receiver.client.start())
    receiver.wait_for(lambda p: p.get("data", {}).get("while") == "away")
    time.sleep(1)
    assert not [p for p, _ in receiver.received if p.get("data", {}).get("now")], receiver.received


def test_messages_discarded_while_away_are_told_as_deleted_messages(receiver):
    receiver.stop_client()
    receiver.serve.wait_for(lambda e: e.get("event") == "receiverDisconnected")
    # The 101st message past the 100-message store discards all of them.
    for n in range(101):
        assert receiver.legacy(data={"n": str(n)}, time_to_live=600)["success"] == 1
    receiver.serve.wait_for(lambda e: e.get("event") == "discarded" and e.get("reason") == "store-limit")
    receiver.legacy(data={"after": "the limit"}, time_to_live=600)
    receiver.received.clear()
    receiver.call(receiver.client.start())
    receiver.wait_for(lambda p: p.get("data", {}).get("after") == "the limit")
    notice = receiver.serve.wait_for(
        lambda e: e.get("event") == "receiverSent" and e.get("message_type") == "deleted_messages")
    assert notice["total_deleted"] == 101 and notice["bytes"] == 0, notice
    # firebase-messaging reads it, calls no callback for it, and acks it as any message.
    receiver.serve.wait_for(
        lambda e: e.get("event") == "receiverAcked" and notice["persistent_id"] in e.get("persistent_ids", []))
    assert [p for p, _ in receiver.received] == [p for p, _ in receiver.received if "after" in p.get("data", {})], \
        receiver.received


def test_a_restart_with_saved_credentials_keeps_the_token(receiver):
    token = receiver.token
    saved = receiver.credentials
    receiver.stop_client()
    again = Receiver(None, serve=receiver.serve, credentials=saved)
    try:
        assert again.token == token, (again.token, token)
        again.legacy(data={"after": "restart"})
        again.wait_for(lambda p: p.get("data", {}).get("after") == "restart")
    finally:
        again.client and again.stop_client()
        again.loop.call_soon_threadsafe(again.loop.stop)
    receiver.client = None


def test_wrong_credentials_are_refused_and_serve_goes_on(receiver):
    saved = json.loads(json.dumps(receiver.credentials))
    saved["gcm"]["security_token"] = str(int(saved["gcm"]["security_token"]) ^ 1)
    from firebase_messaging.fcmregister import FcmRegister

    async def check_in():
        register = FcmRegister(config(), saved)
        try:
            return await register.gcm_check_in(saved["gcm"]["android_id"], saved["gcm"]["security_token"])
        finally:
            await register.close()

    # The wrong pair is refused; the client then checks in as a new device.
    receiver.call(check_in())
    refused = receiver.serve.wait_for(
        lambda e: e.get("event") == "receiverRefused" and e.get("endpoint") == "checkin")
    assert refused["status"] == 401, refused
    receiver.legacy(data={"still": "served"})
    receiver.wait_for(lambda p: p.get("data", {}).get("still") == "served")


def test_serve_killed_and_restarted_keeps_the_receiver_and_what_it_held(receiver):
    token = receiver.token
    receiver.stop_client()
    receiver.serve.wait_for(lambda e: e.get("event") == "receiverDisconnected")
    answer = receiver.legacy(data={"held": "across a crash"}, time_to_live=600)
    assert answer["success"] == 1, answer
    receiver.serve.proc.kill()
    receiver.serve.proc.wait(timeout=10)
    receiver.client = None
    receiver.serve = Serve(receiver.serve.proc.args[0], PROFILE, state=receiver.serve.state)
    again = Receiver(None, serve=receiver.serve, credentials=receiver.credentials)
    try:
        assert again.token == token, (again.token, token)
        again.wait_for(lambda p: p.get("data", {}).get("held") == "across a crash")
    finally:
        again.stop_client()
        again.loop.call_soon_threadsafe(again.loop.stop)


def test_the_server_pings_a_client_that_does_not_ping_itself(receiver):
    from firebase_messaging import FcmPushClientConfig

    receiver.stop_client()
    # No pings of its own: it resets unless the server pings it every 5 s (it allows 2 s more).
    quiet = FcmPushClientConfig(client_heartbeat_interval=None, server_heartbeat_interval=5,
                                abort_on_sequential_error_count=None)
    again = Receiver(None, serve=receiver.serve, credentials=receiver.credentials, client_config=quiet)
    receiver.client = None
    try:
        logins = len([e for e in receiver.serve.events if e.get("event") == "receiverConnected"])
        time.sleep(12)
        assert again.client.is_started()
        now = len([e for e in receiver.serve.events if e.get("event") == "receiverConnected"])
        assert now == logins, "the client logged in again %d times: it missed the server's pings" % (now - logins)
    finally:
        again.stop_client()
        again.loop.call_soon_threadsafe(again.loop.stop)


def test_a_wrong_security_token_at_mcs_login_is_refused(receiver):
    import ssl
    import socket

    from firebase_messaging.proto.mcs_pb2 import LoginRequest, LoginResponse

    login = LoginRequest(id="chrome-94.0.4606.51", domain="mcs.android.com",
                         user=receiver.credentials["gcm"]["android_id"],
                         resource=receiver.credentials["gcm"]["android_id"],
                         auth_token=str(int(receiver.credentials["gcm"]["security_token"]) ^ 1))
    payload = login.SerializeToString()
    context = ssl.create_default_context(cafile=receiver.serve.listening["tlsCert"])
    with socket.create_connection(("127.0.0.1", receiver.serve.listening["mcs"]), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname="mtalk.google.com") as tls:
            tls.sendall(bytes([41, 2, len(payload)]) + payload)
            head = tls.recv(3)
            assert head[:2] == bytes([41, 3]), head
            body = b""
            while len(body) < head[2]:
                body += tls.recv(head[2] - len(body))
            response = LoginResponse()
            response.ParseFromString(body)
            assert response.error.code == 401, response
            assert tls.recv(1) == b"", "the connection stays open after a refused login"
    receiver.serve.wait_for(lambda e: e.get("event") == "receiverRefused" and e.get("endpoint") == "mcs")
    # The real client is still connected and served.
    receiver.legacy(data={"after": "a refused login"})
    receiver.wait_for(lambda p: p.get("data", {}).get("after") == "a refused login")


def test_a_client_that_answers_no_ping_is_closed_and_held_for(receiver):
    import ssl
    import socket

    from firebase_messaging.proto.mcs_pb2 import HeartbeatStat, LoginRequest

    receiver.stop_client()
    receiver.serve.wait_for(lambda e: e.get("event") == "receiverDisconnected")
    gcm = receiver.credentials["gcm"]
    # It asks for the server's pings every 5 s, then says nothing, as a suspended process.
    login = LoginRequest(id="chrome-94.0.4606.51", domain="mcs.android.com", user=gcm["android_id"],
                         resource=gcm["android_id"], auth_token=gcm["security_token"],
                         heartbeat_stat=HeartbeatStat(ip="", timeout=False, interval_ms=5000))
    payload = login.SerializeToString()
    context = ssl.create_default_context(cafile=receiver.serve.listening["tlsCert"])
    started = time.time()
    with socket.create_connection(("127.0.0.1", receiver.serve.listening["mcs"]), timeout=30) as raw:
        with context.wrap_socket(raw, server_hostname="mtalk.google.com") as tls:
            tls.sendall(bytes([41, 2, len(payload)]) + payload)
            while tls.recv(4096):
                assert time.time() - started < 25, "still open 25 s after a login that answered no ping"
    closed_after = time.time() - started
    assert 9 <= closed_after <= 20, "closed %.1f s after the login" % closed_after
    gone = receiver.serve.wait_for(
        lambda e: e.get("event") == "receiverDisconnected" and "closed as dead" in e.get("reason", ""))
    assert gone["reason"].startswith("nothing from the client in the 5 s after the server's heartbeat ping"), gone
    # Away again: what comes now is held for its next login.
    receiver.legacy(data={"for": "later"}, time_to_live=600)
    held = receiver.serve.wait_for(lambda e: e.get("event") == "stored" and e.get("device", "").startswith("receiver"))
    assert held["reason"] == "offline", held


def test_the_registration_hosts_answer_through_the_https_proxy(receiver):
    import ssl
    import urllib.parse

    context = ssl.create_default_context(cafile=receiver.serve.listening["tlsCert"])
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({"https": receiver.base}),
                                         urllib.request.HTTPSHandler(context=context))
    installation = urllib.request.Request(
        "https://firebaseinstallations.googleapis.com/v1/projects/%s/installations" % PROJECT, method="POST",
        data=json.dumps({"appId": "1:%s:web:1" % SENDER, "authVersion": "FIS_v2", "fid": "cZ3kq8dT3x2vT0aQWbT1aX",
                         "sdkVersion": "w:0.6.6"}).encode(),
        headers={"Content-Type": "application/json", "x-goog-api-key": "AIzaSy-emulated-key"})
    with opener.open(installation, timeout=10) as response:
        assert json.load(response)["fid"] == "cZ3kq8dT3x2vT0aQWbT1aX"
    gcm = receiver.credentials["gcm"]
    register3 = urllib.request.Request(
        "https://android.clients.google.com/c2dm/register3", method="POST",
        data=urllib.parse.urlencode({"app": "org.chromium.linux", "X-subtype": gcm["app_id"],
                                     "device": gcm["android_id"], "sender": "x"}).encode(),
        headers={"Authorization": "AidLogin %s:%s" % (gcm["android_id"], gcm["security_token"]),
                 "Content-Type": "application/x-www-form-urlencoded"})
    with opener.open(register3, timeout=10) as response:
        assert response.read().decode() == "token=" + gcm["token"]


TESTS = [(name, test) for name, test in sorted(globals().items()) if name.startswith("test_")]


def main():
    binary = sys.argv[1]
    only = sys.argv[2:]
    results = run_each([(name, test) for name, test in TESTS if not only or name in only], lambda: Receiver(binary))
    failed = [(name, error) for name, error in results if error]
    for name, error in results:
        print(("FAIL " if error else "ok   ") + name + (": " + error if error else ""))
    print("%d of %d passed" % (len(results) - len(failed), len(results)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
