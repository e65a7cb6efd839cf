"""Runs `fcm-device serve` on free ports and reads its JSON-lines log."""
import json
import os
import signal
import subprocess
import tempfile
import threading
import time
import uuid

SENDER = "123456789012"
KEY = "interop-key"
HERE = os.path.dirname(os.path.abspath(__file__))
PROFILE = os.path.join(HERE, "interop.yaml")
DRAIN_PROFILE = os.path.join(HERE, "interop-drain.yaml")
HTTP_PROFILE = os.path.join(HERE, "interop-http.yaml")


class Serve:
    def __init__(self, binary, profile=PROFILE, state=None, extra=()):
        """`profile=None` serves the built-in default device; `extra` are more serve options."""
        self.state = state or tempfile.mkdtemp(prefix="fcm-interop-")
        chosen = ["--profile", profile] if profile else []
        self.proc = subprocess.Popen(
            [binary, "serve", *chosen, "--ccs-port", "0", "--ccs-plain-port", "0", "--http-port", "0", "--mcs-port", "0",
             "--state", self.state, *extra],
            stdout=subprocess.PIPE, text=True)
        self.listening = json.loads(self.proc.stdout.readline())
        self.events = []
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        self.token = self.wait_for(lambda e: e.get("event") in ("onNewToken", "tokenResumed"))["token"]

    def _read(self):
        for line in self.proc.stdout:
            with self.cond:
                self.events.append(json.loads(line))
                self.cond.notify_all()

    def wait_for(self, predicate, timeout=10):
        deadline = time.time() + timeout
        with self.cond:
            while True:
                for event in self.events:
                    if predicate(event):
                        return event
                left = deadline - time.time()
                if left <= 0:
                    raise AssertionError("no such event in the serve log; last: %s" % self.events[-5:])
                self.cond.wait(left)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=10)
        assert code == 0, "serve exited with %s" % code


def downstream(message_id, token, **fields):
    body = {"to": token, "message_id": message_id}
    body.update(fields)
    return json.dumps(body)


def xml_escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def run_each(tests, make_device):
    """Runs each (name, test) on a device of its own; [(name, None or the error)]. A
    device with a `stop` of its own (a real client beside its serve) stops with it."""
    results = []
    for name, test in tests:
        device = None
        try:
            device = make_device()
            test(device)
            results.append((name, None))
        except Exception as error:  # noqa: BLE001 - report every failure
            results.append((name, repr(error)))
        finally:
            if device:
                getattr(device, "stop", device.serve.stop)()
    return results


def credentials_file(binary, serve, profile, project):
    """A service-account JSON for `project` whose token_uri is `serve`'s, written in
    its state folder (what `fcm-device credentials -o` gives a user)."""
    path = serve.state + "/service-account.json"
    subprocess.run([binary, "credentials", "--profile", profile, "--sender", project, "--http-port",
                    str(serve.listening["http"]), "--state", serve.state, "-o", path], check=True)
    return path


def firebase_app(base, credentials_path, project=None):
    """firebase-admin pointed at the emulator at `base` as its users do it without the
    proxy: the send URL (and, with `project`, the topic URLs) overridden, and a name of
    its own (an object's id can come back, and firebase-admin refuses a name twice)."""
    import firebase_admin
    import google.auth.credentials
    from firebase_admin import credentials, messaging

    # google-auth would otherwise look up a "regional access boundary" at Google.
    google.auth.credentials.CredentialsWithRegionalAccessBoundary._is_regional_access_boundary_lookup_required = (
        lambda self: False)
    messaging._MessagingService.FCM_URL = base + "/v1/projects/{0}/messages:send"
    messaging._MessagingService.IID_URL = base
    app = firebase_admin.initialize_app(credentials.Certificate(credentials_path), name="interop-" + uuid.uuid4().hex)
    if project:
        messaging._get_messaging_service(app)._fcm_topic_url = base + "/v1/projects/%s/registrations" % project
    return app
