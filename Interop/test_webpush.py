"""Web Push with pywebpush, unchanged, against `fcm-device serve`: a browser's push
subscription (made with the app server's py-vapid key through the control API, read
back from GET devices/NAME in its toJSON() shape) takes messages at the emulator's own
base and through the HTTPS proxy as fcm.googleapis.com, in both encodings and both
VAPID header forms; the service worker's push event gets the decrypted text; what FCM
refuses is refused with its status.

Runs in Interop/.webpush (pywebpush needs a cryptography that aioxmpp's environment
cannot take): Interop/.webpush/bin/python Interop/test_webpush.py PATH/TO/fcm-device"""
import base64
import json
import os
import subprocess
import sys
import urllib.request

from serve_harness import HERE, Serve, run_each

PROFILE = os.path.join(HERE, "interop-web.yaml")
PROJECT = "interop-project"
CLAIMS = {"sub": "mailto:push@example.com"}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Browser:
    """serve with a browser whose subscription is made with a fresh py-vapid key."""

    def __init__(self, binary):
        from cryptography.hazmat.primitives import serialization
        from py_vapid import Vapid

        self.binary = binary
        self.serve = Serve(binary, PROFILE, extra=("--https-port", "0"))
        self.base = "http://127.0.0.1:%d" % self.serve.listening["http"]
        self.control = self.base + "/emulator/v1/projects/" + PROJECT
        self.vapid = Vapid()
        self.vapid.generate_keys()
        raw = self.vapid.public_key.public_bytes(serialization.Encoding.X962,
                                                 serialization.PublicFormat.UncompressedPoint)
        self.application_server_key = b64url(raw)
        self.act({"get_token": {"vapid_key": self.application_server_key}})
        self.subscription = self.call("GET", "/devices/browser")["pushSubscription"]

    def call(self, method, route, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.control + route, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    def act(self, action):
        return self.call("POST", "/devices/browser/actions", action)["events"]

    def at_base(self):
        """The subscription with its endpoint at the emulator's own base."""
        endpoint = self.subscription["endpoint"].replace("https://fcm.googleapis.com", self.base)
        return dict(self.subscription, endpoint=endpoint)

    def pushed(self, text):
        return self.serve.wait_for(lambda e: e.get("event") == "pushEvent" and e.get("data") == text)

    def stop(self):
        self.serve.stop()


def sends(browser, text, subscription=None, **options):
    from pywebpush import webpush

    options.setdefault("vapid_private_key", browser.vapid)
    options.setdefault("vapid_claims", dict(CLAIMS))
    return webpush(subscription or browser.at_base(), text, ttl=options.pop("ttl", 60), **options)


def refused(browser, text, subscription=None, **options):
    from pywebpush import WebPushException

    try:
        sends(browser, text, subscription, **options)
    except WebPushException as error:
        return error.response.status_code, error.response.text
    raise AssertionError("the push service took it")


def both_encodings_at_the_emulators_base(browser):
    for encoding in ("aes128gcm", "aesgcm"):
        text = "hello over %s" % encoding
        response = sends(browser, text, content_encoding=encoding)
        assert response.status_code == 201, (response.status_code, response.text)
        assert response.headers["Location"].startswith(browser.base + "/0:"), response.headers
        assert response.headers["TTL"] == "60", response.headers
        assert browser.pushed(text)["encoding"] == encoding


def webpush_async_at_the_emulators_base(browser):
    import asyncio

    from pywebpush import webpush_async

    async def send():
        return await webpush_async(browser.at_base(), "from asyncio", vapid_private_key=browser.vapid,
                                   vapid_claims=dict(CLAIMS), ttl=30)

    response = asyncio.run(send())
    assert response.status == 201, response.status
    assert response.headers["TTL"] == "30", response.headers
    browser.pushed("from asyncio")


def through_the_proxy_as_googles_host(browser):
    printed = subprocess.run([browser.binary, "env", "--state", browser.serve.state, "--profile", PROFILE,
                              "--json"], check=True, capture_output=True, text=True).stdout
    saved = dict(os.environ)
    os.environ.update(json.loads(printed))
    try:
        # The endpoint as the browser gave it: https://fcm.googleapis.com/fcm/send/…
        responses = {encoding: sends(browser, "through the proxy, " + encoding, subscription=browser.subscription,
                                     content_encoding=encoding) for encoding in ("aes128gcm", "aesgcm")}
    finally:
        os.environ.clear()
        os.environ.update(saved)
    for encoding, response in responses.items():
        assert response.status_code == 201, (response.status_code, response.text)
        assert response.headers["Location"].startswith("https://fcm.googleapis.com/0:"), response.headers
        assert browser.pushed("through the proxy, " + encoding)["encoding"] == encoding


def at_the_https_port(browser):
    printed = subprocess.run([browser.binary, "env", "--state", browser.serve.state, "--profile", PROFILE,
                              "--json"], check=True, capture_output=True, text=True).stdout
    base = "https://127.0.0.1:%d" % browser.serve.listening["https"]
    subscription = dict(browser.subscription, endpoint=browser.subscription["endpoint"].replace(
        "https://fcm.googleapis.com", base))
    # requests trusts REQUESTS_CA_BUNDLE over a session's own verify: the emulator's CA there.
    saved = os.environ.get("REQUESTS_CA_BUNDLE")
    os.environ["REQUESTS_CA_BUNDLE"] = json.loads(printed)["SSL_CERT_FILE"]
    try:
        # pywebpush writes aud https://127.0.0.1:PORT: the origin a TLS request reached.
        response = sends(browser, "over TLS at the base", subscription=subscription)
    finally:
        if saved is None:
            os.environ.pop("REQUESTS_CA_BUNDLE")
        else:
            os.environ["REQUESTS_CA_BUNDLE"] = saved
    assert response.status_code == 201, (response.status_code, response.text)
    assert response.headers["Location"].startswith(base + "/0:"), response.headers
    browser.pushed("over TLS at the base")


def the_older_webpush_header_form(browser):
    from py_vapid import Vapid01

    older = Vapid01.from_pem(browser.vapid.private_pem())
    response = sends(browser, "the WebPush scheme", vapid_private_key=older, content_encoding="aesgcm")
    assert response.status_code == 201, (response.status_code, response.text)
    browser.pushed("the WebPush scheme")


def what_fcm_refuses(browser):
    from py_vapid import Vapid

    stranger = Vapid()
    stranger.generate_keys()
    status, text = refused(browser, "x", vapid_private_key=stranger)
    assert status == 403 and text.startswith("the key in the authorization header does not correspond"), text
    status, text = refused(browser, "x" * 3994)
    assert status == 413, (status, text)
    assert sends(browser, "x" * 3993).status_code == 201
    gone = dict(browser.at_base(), endpoint=browser.base + "/wp/nobody")
    assert refused(browser, "x", subscription=gone)[0] == 404
    # No TTL at all (pywebpush always sends one): signed as pywebpush signs, the TTL left out.
    endpoint = browser.at_base()["endpoint"]
    headers = browser.vapid.sign(dict(CLAIMS, aud=browser.base))
    request = urllib.request.Request(endpoint, data=b"", method="POST", headers=headers)
    try:
        urllib.request.urlopen(request, timeout=10)
        raise AssertionError("taken without a TTL")
    except urllib.error.HTTPError as error:
        assert (error.code, error.read().decode()) == (400, "The TTL header is required (RFC 8030 §5.2).\n"), error
    browser.act({"delete_token": True})
    status, text = refused(browser, "x")
    assert (status, text) == (410, "push subscription has unsubscribed or expired.\n"), (status, text)


def a_fault_from_the_control_api(browser):
    from pywebpush import WebPushException

    browser.call("POST", "/faults", {"path": "/wp", "status": 429, "retry_after": 7, "count": 1})
    endpoint = browser.at_base()["endpoint"].replace("/fcm/send/", "/wp/")
    try:
        sends(browser, "throttled", subscription=dict(browser.subscription, endpoint=endpoint))
        raise AssertionError("the fault did not answer")
    except WebPushException as error:
        assert (error.status_code, str(error.retry_after)) == (429, "7"), (error.status_code, error.retry_after)
    # Used once: the same request is taken now, at /wp/ as at /fcm/send/.
    response = sends(browser, "after the fault", subscription=dict(browser.subscription, endpoint=endpoint))
    assert response.status_code == 201, response.status_code
    browser.pushed("after the fault")


def offline_then_back(browser):
    browser.act({"network": "offline"})
    assert sends(browser, "never", ttl=0).status_code == 201
    assert sends(browser, "held 1", headers={"Topic": "score"}).status_code == 201
    assert sends(browser, "held 2", headers={"Topic": "score"}).status_code == 201
    browser.serve.wait_for(lambda e: e.get("event") == "webPushReplaced")
    browser.act({"network": "online"})
    browser.pushed("held 2")
    pushed = [e.get("data") for e in browser.serve.events if e.get("event") == "pushEvent"]
    assert pushed == ["held 2"], pushed
    dropped = browser.serve.wait_for(lambda e: e.get("event") == "webPushDropped")
    assert dropped["reason"] == "ttl0", dropped


TESTS = [
    ("pywebpush: aes128gcm and aesgcm at the emulator's base, decrypted in the worker",
     both_encodings_at_the_emulators_base),
    ("pywebpush: webpush_async (aiohttp) at the emulator's base", webpush_async_at_the_emulators_base),
    ("pywebpush: both encodings through the HTTPS proxy as fcm.googleapis.com, under fcm-device env",
     through_the_proxy_as_googles_host),
    ("pywebpush: at the emulator's --https-port (aud https://127.0.0.1:PORT)", at_the_https_port),
    ("pywebpush: py-vapid's Vapid01 (WebPush + Crypto-Key p256ecdsa)", the_older_webpush_header_form),
    ("pywebpush: another key 403, 3,994 bytes 413, unknown 404, no TTL, unsubscribed 410", what_fcm_refuses),
    ("pywebpush: a 429 fault with Retry-After from the control API, then /wp/ takes it", a_fault_from_the_control_api),
    ("pywebpush: offline, TTL 0 dropped, a Topic replaced, the newest delivered", offline_then_back),
]


def run(binary):
    return run_each(TESTS, lambda: Browser(binary))


def main():
    results = run(sys.argv[1])
    for name, error in results:
        print(("ok    " if error is None else "FAIL  ") + name + ("" if error is None else "\n      " + error))
    failed = sum(1 for _, error in results if error is not None)
    print("web push interop: %d passed, %d failed" % (len(results) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
