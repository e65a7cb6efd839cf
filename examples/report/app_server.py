"""A small app server that breaks Google's practices for FCM app servers, one by one,
or with --mended keeps them, in the same situations. Run it under the emulator and
read the report card:

    fcm-device exec --profile examples/report/device.yaml --report report.json \
        -- python examples/report/app_server.py [--mended]

It needs requests and google-auth (firebase-admin brings both)."""
import json
import os
import sys
import time

import requests
from google.auth.transport.requests import Request
from google.oauth2 import service_account

MENDED = "--mended" in sys.argv[1:]
HOST = "http://" + os.environ["FCM_EMULATOR_HOST"]
CONTROL = os.environ["FCM_EMULATOR_CONTROL"]
PROJECT = os.environ["FCM_EMULATOR_PROJECT"]
SEND = "%s/v1/projects/%s/messages:send" % (HOST, PROJECT)
# One keep-alive session, as the Admin SDKs keep: each request follows the answer before it.
session = requests.Session()
credentials = service_account.Credentials.from_service_account_file(
    os.environ["FCM_EMULATOR_CREDENTIALS"], scopes=["https://www.googleapis.com/auth/firebase.messaging"])


def bearer():
    if not credentials.valid:
        credentials.refresh(Request())
    return credentials.token


def send(message, token=None):
    """One v1 send: the reply."""
    return session.post(SEND, json={"message": message}, timeout=10,
                         headers={"Authorization": "Bearer " + (token or bearer())})


def control(method, path, body=None):
    reply = requests.request(method, CONTROL + "/" + path, json=body, timeout=10)
    reply.raise_for_status()
    return reply.json()


def phone_token():
    return control("GET", "devices/default")["tokens"]["123456789012"]


def say(text):
    print(("mended: " if MENDED else "broken: ") + text, flush=True)


def stale_tokens():
    """The token is refreshed on the phone: the old one is UNREGISTERED."""
    old = phone_token()
    control("POST", "devices/default/actions", {"refresh_token": True})
    assert send({"token": old, "data": {"n": "1"}}).status_code == 404
    if MENDED:
        say("the old token is dropped; the new one is used")
        send({"token": phone_token(), "data": {"n": "1"}}).raise_for_status()
    else:
        say("sends to the token FCM called unregistered, again")
        send({"token": old, "data": {"n": "1"}})


def invalid_request():
    bad = {"token": phone_token(), "data": {"from": "reserved"}}
    assert send(bad).status_code == 400
    if MENDED:
        say("fixes the refused message before sending it")
        send({"token": phone_token(), "data": {"sender": "reserved"}}).raise_for_status()
    else:
        say("resends the refused message unchanged")
        send(bad)


def retry_after():
    control("POST", "faults", {"path": "/v1", "status": 503, "retry_after": 2, "count": 1})
    message = {"token": phone_token(), "data": {"n": "retry-after"}}
    reply = send(message)
    assert reply.status_code == 503
    if MENDED:
        say("waits for Retry-After (%s s)" % reply.headers["Retry-After"])
        time.sleep(float(reply.headers["Retry-After"]))
    else:
        say("resends at once, ignoring Retry-After")
    send(message).raise_for_status()


def backoff():
    message = {"token": phone_token(), "data": {"n": "backoff"}}
    if MENDED:
        control("POST", "faults", {"path": "/v1", "status": 503, "count": 1})
        assert send(message).status_code == 503
        say("waits 10 s before retrying a 503 without Retry-After")
        time.sleep(10)
    else:
        control("POST", "faults", {"path": "/v1", "status": 503, "count": 4})
        say("retries a 503 every second, without backing off")
        for _ in range(4):
            assert send(message).status_code == 503
            time.sleep(1)
    send(message).raise_for_status()


def collapse_keys():
    """The phone is offline while messages with collapse keys wait for it."""
    control("POST", "devices/default/actions", {"network": "offline"})
    keys = ["a", "b", "c", "d"] if MENDED else ["a", "b", "c", "d", "e"]
    say("%d collapse keys held for one phone" % len(keys))
    for key in keys:
        send({"token": phone_token(), "data": {"k": key}, "android": {"collapse_key": key}}).raise_for_status()
    control("POST", "devices/default/actions", {"network": "online"})


def throttling():
    count = 10 if MENDED else 20
    say("%d more collapsible messages to one phone" % count)
    for n in range(count):
        send({"token": phone_token(), "data": {"n": str(n)}, "android": {"collapse_key": "score"}}).raise_for_status()


def priority():
    level = "NORMAL" if MENDED else "HIGH"
    say("a background data message at %s priority" % level)
    send({"token": phone_token(), "data": {"sync": "1"}, "android": {"priority": level}}).raise_for_status()


def access_token():
    stale = "ya29.not-issued-here"
    assert send({"token": phone_token(), "data": {"n": "1"}}, token=stale).status_code == 401
    if MENDED:
        say("gets a new access token after a 401")
        send({"token": phone_token(), "data": {"n": "1"}}).raise_for_status()
    else:
        say("sends again with the access token that drew a 401")
        send({"token": phone_token(), "data": {"n": "1"}}, token=stale)


def batch():
    if MENDED:
        say("sends one request per message (send_each)")
        send({"token": phone_token(), "data": {"n": "each"}}).raise_for_status()
    else:
        say("uses the batch endpoint (send_all)")
        requests.post(HOST + "/batch", data="--batch\r\n", timeout=10,
                      headers={"Authorization": "Bearer " + bearer(), "Content-Type": "multipart/mixed"})


def flood():
    if MENDED:
        say("60 messages a minute, on HTTP v1")
        for n in range(60):
            send({"token": phone_token(), "data": {"n": str(n)}}).raise_for_status()
        return
    say("250 messages in a few seconds, on the legacy API")
    key = requests.get(CONTROL + "/devices/default", timeout=10) and os.environ["FCM_EMULATOR_SERVER_KEY"]
    for n in range(250):
        requests.post(HOST + "/fcm/send", json={"to": phone_token(), "data": {"n": str(n)}}, timeout=10,
                      headers={"Authorization": "key=" + key})


for practice in (stale_tokens, invalid_request, retry_after, backoff, collapse_keys, throttling, priority,
                 access_token, batch, flood):
    practice()
print(json.dumps({"done": True, "mended": MENDED}))
