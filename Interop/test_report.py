"""The app server's report card with real app servers. The example app server
(examples/report) under `fcm-device exec --report`: broken, it gets exactly the
findings it earned, with evidence on the right requests; mended, none. Good app
servers in firebase-admin (with its own retries), pyfcm and slixmpp get no error
and no warning."""
import asyncio
import json
import os
import subprocess
import sys
import tempfile

import requests

import test_slixmpp
from serve_harness import HERE, Serve, run_each
from test_http_sdks import PROJECT, HTTPDevice

EXAMPLE = os.path.join(os.path.dirname(HERE), "examples", "report")
BROKEN = {
    "unregistered-token-reused", "permanent-error-resent", "retry-after-ignored", "retry-without-backoff",
    "retry-too-soon", "device-rate-exceeded", "collapse-key-limit", "collapsible-throttled", "high-priority-unseen",
    "rejected-access-token-reused", "batch-endpoint", "legacy-http-api",
}


def exec_example(binary, mended):
    folder = tempfile.mkdtemp(prefix="fcm-report-")
    report, junit = os.path.join(folder, "report.json"), os.path.join(folder, "report.xml")
    done = subprocess.run(
        [binary, "exec", "--profile", os.path.join(EXAMPLE, "device.yaml"), "--report", report,
         "--report-junit", junit, "--fail-on", "error", "--", sys.executable, os.path.join(EXAMPLE, "app_server.py")]
        + (["--mended"] if mended else []), capture_output=True, text=True, timeout=180)
    with open(report) as file:
        card = json.load(file)
    with open(junit) as file:
        return done, card, file.read()


def broken_example(binary):
    done, card, junit = exec_example(binary, mended=False)
    found = {finding["rule"]: finding for finding in card["findings"]}
    assert set(found) == BROKEN, "earned but missing: %s; not earned: %s" % (
        sorted(BROKEN - set(found)), sorted(set(found) - BROKEN))
    assert done.returncode == 1, (done.returncode, done.stderr[-1500:])
    assert "passed, but the app server's report has" in done.stderr, done.stderr[-1500:]
    notes = [rule for rule, finding in found.items() if finding["severity"] == "note"]
    assert sorted(notes) == ["legacy-http-api", "retry-too-soon"], notes
    # Run with --fail-on error: the errors fail their cases, as they fail the run; the
    # warnings and notes are passed cases carrying their text.
    errors = [rule for rule, finding in found.items() if finding["severity"] == "error"]
    assert junit.count("<testcase ") == 22 and junit.count("<failure ") == len(errors), junit
    assert 'failures="%d"' % len(errors) in junit and "<skipped" not in junit, junit
    assert junit.count("<system-out>") == len(BROKEN) - len(errors), junit
    # The evidence points at the requests that broke each practice.
    assert found["batch-endpoint"]["examples"][0]["subject"] == "/batch", found["batch-endpoint"]
    assert "DeviceMessageRateExceeded" in found["device-rate-exceeded"]["examples"][0]["detail"]
    assert found["legacy-http-api"]["count"] == 250, found["legacy-http-api"]
    assert "(Retry-After 2 s)" in found["retry-after-ignored"]["examples"][0]["detail"], found["retry-after-ignored"]
    assert found["permanent-error-resent"]["count"] == 1 and found["unregistered-token-reused"]["count"] == 1
    assert found["collapse-key-limit"]["examples"][0]["detail"].startswith("dropped (collapse key a)")


def mended_example(binary):
    done, card, junit = exec_example(binary, mended=True)
    assert card == {"findings": []}, card
    assert done.returncode == 0, done.stderr[-2000:]
    assert "app server report" not in done.stderr, done.stderr[-2000:]
    assert junit.count("<testcase ") == 22 and "<failure" not in junit, junit


def findings(serve, project):
    control = "http://127.0.0.1:%d/emulator/v1/projects/%s" % (serve.listening["http"], project)
    return requests.get(control + "/report", timeout=10).json()["findings"]


def no_error_or_warning(found):
    bad = [finding for finding in found if finding["severity"] in ("error", "warning")]
    assert not bad, json.dumps(bad, indent=1)


def firebase_admin_good(device):
    from firebase_admin import messaging

    from serve_harness import firebase_app

    app = firebase_app(device.base, device.credentials)
    control = device.base + "/emulator/v1/projects/" + PROJECT
    # Two 503s without Retry-After: firebase-admin retries them itself.
    requests.post(control + "/faults", json={"path": "/v1", "status": 503, "count": 2}, timeout=10).raise_for_status()
    messaging.send(messaging.Message(token=device.token, data={"after": "503s"}), app=app)
    tokens = [device.token, device.old_token]
    batch = messaging.send_each([messaging.Message(token=token, data={"n": "1"}) for token in tokens], app=app)
    for token, response in zip(list(tokens), batch.responses):
        if isinstance(response.exception, messaging.UnregisteredError):
            tokens.remove(token)
    assert tokens == [device.token], tokens
    messaging.send(messaging.Message(token=device.token, notification=messaging.Notification(title="Hi")), app=app)
    found = findings(device.serve, PROJECT)
    no_error_or_warning(found)
    assert {finding["rule"] for finding in found} <= {"retry-too-soon"}, found


def pyfcm_good(device):
    from pyfcm import FCMNotification
    from pyfcm.errors import FCMNotRegisteredError

    FCMNotification.FCM_END_POINT_BASE = device.base + "/v1/projects"
    fcm = FCMNotification(service_account_file=device.credentials, project_id=PROJECT)
    tokens = [device.token, device.old_token]
    for token in list(tokens):
        try:
            fcm.notify(fcm_token=token, notification_title="Hello", data_payload={"k": "v"})
        except FCMNotRegisteredError:
            tokens.remove(token)
    for token in tokens:
        fcm.notify(fcm_token=token, data_payload={"again": "1"})
    assert findings(device.serve, PROJECT) == []


def fast_mistakes(device):
    """The commonest mistakes, made as fast as a test suite makes them: a dead token sent
    to three more times at once, with firebase-admin (one keep-alive session) and with
    plain requests (a new connection each), and an access token refused 401 used three
    more times. Each is judged, with no second to hide in."""
    from firebase_admin import messaging

    from serve_harness import firebase_app

    app = firebase_app(device.base, device.credentials)
    dead = messaging.Message(token=device.old_token, data={"n": "1"})
    for _ in range(4):
        try:
            messaging.send(dead, app=app)
        except messaging.UnregisteredError:
            pass
    found = {finding["rule"]: finding for finding in findings(device.serve, PROJECT)}
    assert found.get("unregistered-token-reused", {}).get("count") == 3, found
    url = device.base + "/v1/projects/%s/messages:send" % PROJECT
    for _ in range(3):
        reply = requests.post(url, json={"message": {"token": device.old_token, "data": {"n": "2"}}}, timeout=10,
                              headers={"Authorization": "Bearer " + app.credential.get_access_token().access_token})
        assert reply.status_code == 404, reply.text
    found = {finding["rule"]: finding for finding in findings(device.serve, PROJECT)}
    assert found["unregistered-token-reused"]["count"] >= 5, found["unregistered-token-reused"]
    session = requests.Session()
    for _ in range(4):
        reply = session.post(url, json={"message": {"token": device.token, "data": {"n": "3"}}}, timeout=10,
                             headers={"Authorization": "Bearer ya29.not-issued-here"})
        assert reply.status_code == 401, reply.text
    found = {finding["rule"]: finding for finding in findings(device.serve, PROJECT)}
    assert found.get("rejected-access-token-reused", {}).get("count") == 3, found
    assert "access-token-per-request" not in found, found


def slixmpp_good(binary):
    """An XMPP app server that acks every upstream message and receipt: the one note
    that XMPP is shut down, nothing else."""
    serve = Serve(binary)
    try:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        loop.run_until_complete(test_slixmpp.full_exchange(serve, False))
        serve.wait_for(lambda e: e.get("event") == "appServerDisconnected")
        found = findings(serve, "123456789012")
        assert [finding["rule"] for finding in found] == ["legacy-xmpp-api"], found
    finally:
        serve.stop()
    report = [e for e in serve.events if e.get("event") == "report"]
    assert [f["rule"] for f in report[0]["findings"]] == ["legacy-xmpp-api"], report


def run(binary):
    results = []
    for name, test in [("report card: the broken example app server gets exactly what it earned", broken_example),
                       ("report card: the mended example app server gets an empty report", mended_example),
                       ("report card: a good slixmpp app server gets only the XMPP note", slixmpp_good)]:
        try:
            test(binary)
            results.append((name, None))
        except Exception as error:  # noqa: BLE001 - report every failure
            results.append((name, repr(error)))
    results += run_each([("report card: firebase-admin with its own retries gets no error or warning",
                          firebase_admin_good),
                         ("report card: a good pyfcm app server gets an empty report", pyfcm_good),
                         ("report card: a dead token and a refused access token reused within milliseconds are "
                          "judged", fast_mistakes)],
                        lambda: HTTPDevice(binary))
    return results


if __name__ == "__main__":
    for name, error in run(sys.argv[1]):
        print(("ok    " if error is None else "FAIL  ") + name + ("" if error is None else "\n      " + error))
