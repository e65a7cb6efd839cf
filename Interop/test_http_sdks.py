"""The HTTP send APIs with real SDKs: firebase-admin and pyfcm 2 (v1, through the
emulator's token endpoint), python-gcm (legacy JSON and plain text)."""

from serve_harness import credentials_file, firebase_app, run_each, HTTP_PROFILE, KEY, SENDER, Serve

OTHER_SENDER = "210987654321"
PROJECT = "interop-project"


class HTTPDevice:
    """`serve` with the HTTP profile, its tokens, and a service-account JSON."""

    def __init__(self, binary):
        self.serve = Serve(binary, HTTP_PROFILE)
        self.base = "http://127.0.0.1:%d" % self.serve.listening["http"]
        tokens = lambda sender: [e["token"] for e in self.serve.events
                                 if e.get("event") == "onNewToken" and e.get("sender") == sender]
        self.serve.wait_for(lambda e: e.get("event") == "onNewToken" and e.get("sender") == SENDER
                            and e.get("token") != self.serve.token)
        self.old_token, self.token = tokens(SENDER)[:2]
        self.other_token = tokens(OTHER_SENDER)[0]
        self.credentials = credentials_file(binary, self.serve, HTTP_PROFILE, PROJECT)

    def received(self, message_id):
        """The device's onMessageReceived for a message id the API returned."""
        return self.serve.wait_for(lambda e: e.get("event") == "onMessageReceived" and e.get("id") == message_id)


def firebase_admin_v1(device):
    from firebase_admin import exceptions, messaging

    app = firebase_app(device.base, device.credentials)
    name = messaging.send(messaging.Message(
        token=device.token, data={"score": "1-0"},
        android=messaging.AndroidConfig(ttl=600, priority="high", collapse_key="score")), app=app)
    assert name.startswith("projects/%s/messages/0:" % PROJECT), name
    received = device.received(name.rsplit("/", 1)[1])
    assert received["data"] == {"score": "1-0"}, received
    dry = messaging.send(messaging.Message(token=device.token, data={"k": "v"}), dry_run=True, app=app)
    assert dry.endswith("/fake_message_id"), dry
    by_fid = messaging.send(messaging.Message(fid=device.token.split(":")[0], data={"via": "fid"}), app=app)
    device.received(by_fid.rsplit("/", 1)[1])
    for token, error in [(device.old_token, messaging.UnregisteredError),
                         (device.other_token, messaging.SenderIdMismatchError),
                         ("not-a-token", exceptions.InvalidArgumentError)]:
        try:
            messaging.send(messaging.Message(token=token, data={"k": "v"}), app=app)
            raise AssertionError("sent to %s without %s" % (token[:20], error.__name__))
        except error:
            pass
    batch = messaging.send_each([messaging.Message(token=device.token, data={"n": str(n)}) for n in range(5)]
                                + [messaging.Message(token=device.old_token, data={"n": "old"})], app=app)
    assert (batch.success_count, batch.failure_count) == (5, 1), (batch.success_count, batch.failure_count)


def firebase_admin_faults(device):
    """Faults from the control API: firebase-admin retries a 503 and raises QuotaExceededError on a 429."""
    import requests
    from firebase_admin import messaging

    app = firebase_app(device.base, device.credentials)
    control = device.base + "/emulator/v1/projects/" + PROJECT
    requests.post(control + "/faults", json={"path": "/v1", "status": 503, "retry_after": 1, "count": 1},
                  timeout=10).raise_for_status()
    name = messaging.send(messaging.Message(token=device.token, data={"after": "a 503"}), app=app)
    device.received(name.rsplit("/", 1)[1])
    device.serve.wait_for(lambda e: e.get("event") == "faultInjected" and e.get("path", "").startswith("/v1/"))
    # Without Retry-After: urllib3, under firebase-admin's sync calls, retries a 429 that carries one.
    requests.post(control + "/faults", json={"path": "/v1", "status": 429, "count": 1},
                  timeout=10).raise_for_status()
    try:
        messaging.send(messaging.Message(token=device.token, data={"k": "v"}), app=app)
        raise AssertionError("a 429 did not raise")
    except messaging.QuotaExceededError:
        pass
    # A rate rule: the device takes one message a minute; the second is over its rate.
    requests.post(control + "/faults", json={"token": device.token, "rate": "1/1m"}, timeout=10).raise_for_status()
    messaging.send(messaging.Message(token=device.token, data={"within": "the rate"}), app=app)
    try:
        messaging.send(messaging.Message(token=device.token, data={"over": "the rate"}), app=app)
        raise AssertionError("a message over the device's rate was accepted")
    except messaging.QuotaExceededError:
        pass
    device.serve.wait_for(lambda e: e.get("event") == "downstreamRejected"
                          and e.get("error") == "DeviceMessageRateExceeded")


def pyfcm_v1(device):
    from pyfcm import FCMNotification
    from pyfcm.errors import FCMNotRegisteredError, FCMSenderIdMismatchError

    FCMNotification.FCM_END_POINT_BASE = device.base + "/v1/projects"
    fcm = FCMNotification(service_account_file=device.credentials, project_id=PROJECT)
    result = fcm.notify(fcm_token=device.token, notification_title="Hello", notification_body="from pyfcm",
                        data_payload={"source": "pyfcm"})
    device.received(result["name"].rsplit("/", 1)[1])
    for token, error in [(device.old_token, FCMNotRegisteredError), (device.other_token, FCMSenderIdMismatchError)]:
        try:
            fcm.notify(fcm_token=token, data_payload={"k": "v"})
            raise AssertionError("sent to %s without %s" % (token[:20], error.__name__))
        except error:
            pass


def python_gcm_legacy(device):
    from gcm import GCM
    from gcm.gcm import GCMAuthenticationException, GCMNotRegisteredException

    gcm = GCM(KEY)
    gcm.url = device.base + "/fcm/send"
    info = gcm.json_request(registration_ids=[device.token, device.old_token, "not-a-token"],
                            data={"via": "legacy"}, time_to_live=60)
    assert list(info["success"]) == [device.token], info
    assert info["errors"] == {"NotRegistered": [device.old_token], "InvalidRegistration": ["not-a-token"]}, info
    device.received(info["success"][device.token])
    # python-gcm returns only a canonical id from plain text (none here), or raises.
    assert gcm.plaintext_request(registration_id=device.token, data={"via": "plain text"}) is None
    device.serve.wait_for(lambda e: e.get("event") == "onMessageReceived" and e.get("data") == {"via": "plain text"})
    try:
        gcm.plaintext_request(registration_id=device.old_token, data={"k": "v"})
        raise AssertionError("plain text to an old token succeeded")
    except GCMNotRegisteredException:
        pass
    wrong = GCM("wrong-key")
    wrong.url = device.base + "/gcm/send"
    try:
        wrong.json_request(registration_ids=[device.token], data={"k": "v"})
        raise AssertionError("a wrong server key was accepted")
    except GCMAuthenticationException:
        pass


def run(binary):
    tests = [
        ("firebase-admin v1: send, dry run, fid, UNREGISTERED, SENDER_ID_MISMATCH, INVALID_ARGUMENT, send_each",
         firebase_admin_v1),
        ("firebase-admin faults: a 503 retried, a 429 raised as QuotaExceededError, a device's rate rule",
         firebase_admin_faults),
        ("pyfcm 2 v1: notify, not registered, sender mismatch", pyfcm_v1),
        ("python-gcm legacy: JSON results in order, plain text, wrong key", python_gcm_legacy),
    ]
    return run_each(tests, lambda: HTTPDevice(binary))
