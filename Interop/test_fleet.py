"""Several phones on one `serve`, driven by real SDKs: firebase-admin subscribes two
phones' tokens and sends to the topic, then sends to three phones with
send_each_for_multicast (one uninstalled); the legacy API's registration_ids across
phones; a device group of two phones made and used with curl; `fcm-device exec` giving
a suite every phone's tokens."""
import json
import os
import subprocess

from serve_harness import Serve, credentials_file, firebase_app, run_each, KEY

HERE = os.path.dirname(os.path.abspath(__file__))
FLEET_PROFILE = os.path.join(HERE, "interop-fleet.yaml")
PROJECT = "interop-project"


class Fleet:
    """`serve` with three phones, each phone's token by name, and a service-account JSON."""

    def __init__(self, binary):
        self.serve = Serve(binary, FLEET_PROFILE)
        self.base = "http://127.0.0.1:%d" % self.serve.listening["http"]
        self.serve.wait_for(lambda e: e.get("event") == "uninstalled" and e.get("device") == "old-phone")
        self.tokens = {e["device"]: e["token"] for e in self.serve.events
                       if e.get("event") in ("onNewToken", "didReceiveRegistrationToken")}
        assert sorted(self.tokens) == ["iphone", "old-phone", "pixel"], self.tokens
        self.credentials = credentials_file(binary, self.serve, FLEET_PROFILE, PROJECT)

    def delivered(self, phone, **fields):
        """The phone's own callback for a message that matches `fields`."""
        names = ("onMessageReceived", "didReceiveRemoteNotification")
        return self.serve.wait_for(lambda e: e.get("event") in names and e.get("device") == phone
                                   and all(e.get(k) == v for k, v in fields.items()))


def firebase_admin_fleet(fleet):
    from firebase_admin import messaging

    app = firebase_app(fleet.base, fleet.credentials, PROJECT)

    both = [fleet.tokens["pixel"], fleet.tokens["iphone"]]
    added = messaging.subscribe_to_topic(both, "news", app=app)
    assert (added.success_count, added.failure_count) == (2, 0), vars(added)
    name = messaging.send(messaging.Message(topic="news", data={"headline": "to both"}), app=app)
    message_id = name.rsplit("/", 1)[1]
    accepted = fleet.serve.wait_for(lambda e: e.get("event") == "downstreamAccepted" and e.get("id") == message_id)
    assert accepted["subscribers"] == 2, accepted
    assert fleet.delivered("pixel", id=message_id)["from"] == "/topics/news"
    assert fleet.delivered("iphone", id=message_id)["from"] == "/topics/news"

    tokens = [fleet.tokens["pixel"], fleet.tokens["old-phone"], fleet.tokens["iphone"]]
    batch = messaging.send_each_for_multicast(
        messaging.MulticastMessage(tokens=tokens, data={"k": "multicast"}), app=app)
    assert (batch.success_count, batch.failure_count) == (2, 1), (batch.success_count, batch.failure_count)
    assert [r.success for r in batch.responses] == [True, False, True]
    assert isinstance(batch.responses[1].exception, messaging.UnregisteredError), batch.responses[1].exception
    fleet.delivered("pixel", data={"k": "multicast"})
    fleet.delivered("iphone", data={"k": "multicast"})


def legacy_multicast(fleet):
    import requests

    tokens = [fleet.tokens["iphone"], fleet.tokens["old-phone"], "bogus", fleet.tokens["pixel"]]
    reply = requests.post(fleet.base + "/fcm/send", headers={"Authorization": "key=" + KEY},
                          json={"registration_ids": tokens, "data": {"k": "legacy"}}, timeout=10).json()
    assert (reply["success"], reply["failure"]) == (2, 2), reply
    results = reply["results"]
    assert "message_id" in results[0] and "message_id" in results[3], results
    assert [results[1].get("error"), results[2].get("error")] == ["NotRegistered", "InvalidRegistration"], results
    fleet.delivered("iphone", id=results[0]["message_id"])
    fleet.delivered("pixel", id=results[3]["message_id"])


def curl_device_group(fleet):
    def curl(path, body, project=True):
        headers = ["-H", "Authorization: key=" + KEY, "-H", "Content-Type: application/json"]
        if project:
            headers += ["-H", "project_id: 123456789012"]
        done = subprocess.run(["curl", "-sS", *headers, "-d", json.dumps(body), fleet.base + path],
                              capture_output=True, text=True, timeout=20, check=True)
        return json.loads(done.stdout)

    made = curl("/fcm/notification", {"operation": "create", "notification_key_name": "family",
                                      "registration_ids": [fleet.tokens["pixel"], fleet.tokens["iphone"]]})
    key = made["notification_key"]
    sent = curl("/fcm/send", {"to": key, "data": {"k": "group"}}, project=False)
    assert sent == {"success": 2, "failure": 0}, sent
    fleet.delivered("pixel", data={"k": "group"})
    fleet.delivered("iphone", data={"k": "group"})


# Run by `fcm-device exec`: FCM_EMULATOR_DEVICE_TOKENS names every phone with its tokens,
# the same the control API reports; on a fleet the single-phone token variables are unset.
EXEC_CHECK = """
import json, os, urllib.request
given = json.loads(os.environ["FCM_EMULATOR_DEVICE_TOKENS"])
with urllib.request.urlopen(os.environ["FCM_EMULATOR_CONTROL"] + "/devices", timeout=10) as reply:
    devices = json.load(reply)["devices"]
assert sorted(given) == ["iphone", "old-phone", "pixel"], given
assert given == {d["name"]: d["tokens"] for d in devices}, (given, devices)
# A fleet's phones are named: no single-phone token variable implies the first one.
assert "FCM_EMULATOR_TOKEN" not in os.environ and "FCM_EMULATOR_TOKENS" not in os.environ
"""


def exec_device_tokens(binary):
    import sys

    done = subprocess.run([binary, "exec", "--profile", FLEET_PROFILE, "--", sys.executable, "-c", EXEC_CHECK],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]


def run(binary):
    tests = [
        ("firebase-admin across three phones: a topic to two subscribers, send_each_for_multicast with one "
         "uninstalled", firebase_admin_fleet),
        ("legacy registration_ids across phones: results in request order", legacy_multicast),
        ("curl: a device group of two phones, a message to its key", curl_device_group),
    ]
    results = run_each(tests, lambda: Fleet(binary))
    name = "exec: FCM_EMULATOR_DEVICE_TOKENS has every phone's tokens, as GET devices shows them"
    try:
        exec_device_tokens(binary)
        results.append((name, None))
    except Exception as error:  # noqa: BLE001 - report every failure
        results.append((name, repr(error)))
    return results
