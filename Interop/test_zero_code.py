"""Zero code change: unmodified SDKs reach the emulator through its HTTPS proxy, with
only the variables `fcm-device env` prints, a service-account JSON whose key the
emulator never saw and whose token_uri is Google's own. Each client runs in its own
interpreter with a guard that refuses, and records, any connection beyond this
machine; a test fails if its client tried one."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from serve_harness import HERE, HTTP_PROFILE, KEY, SENDER, Serve, run_each

PROJECT = "interop-project"
CLIENTS = os.path.join(HERE, "zero_code", "clients.py")


def foreign_service_account(folder):
    """A service account as a real Firebase project issues one: its own RSA key,
    Google's token URL."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    account = {
        "type": "service_account", "project_id": PROJECT, "private_key_id": os.urandom(20).hex(),
        "private_key": pem, "client_email": "app-server@%s.iam.gserviceaccount.com" % PROJECT,
        "client_id": "104000000000000000001", "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": "https://oauth2.googleapis.com/token",
        "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
    }
    path = os.path.join(folder, "real-project-service-account.json")
    with open(path, "w") as file:
        json.dump(account, file)
    return path, account["private_key_id"]


class ProxiedDevice:
    def __init__(self, binary):
        self.binary = binary
        self.serve = Serve(binary, HTTP_PROFILE, extra=("--https-port", "0"))
        self.serve.wait_for(lambda e: e.get("event") == "onNewToken" and e.get("sender") == SENDER
                            and e.get("token") != self.serve.token)
        tokens = [e["token"] for e in self.serve.events
                  if e.get("event") == "onNewToken" and e.get("sender") == SENDER]
        self.old_token, self.token = tokens[:2]
        printed = subprocess.run([binary, "env", "--state", self.serve.state, "--profile", HTTP_PROFILE, "--json"],
                                 check=True, capture_output=True, text=True).stdout
        self.environment = json.loads(printed)
        self.service_account, self.key_id = foreign_service_account(self.serve.state)

    def run_client(self, name, pythonpath=()):
        """Runs one client with the printed variables and the network guard; its output."""
        guard_log = tempfile.mktemp(prefix="fcm-guard-")
        environment = dict(os.environ, **self.environment)
        environment["NETWORK_GUARD_LOG"] = guard_log
        environment["PYTHONPATH"] = os.pathsep.join([os.path.join(HERE, "zero_code"), *pythonpath])
        config = {"token": self.token, "old_token": self.old_token, "project": PROJECT, "key": KEY,
                  "service_account": self.service_account}
        done = subprocess.run([sys.executable, CLIENTS, name, json.dumps(config)], env=environment,
                              capture_output=True, text=True, timeout=120)
        attempts = open(guard_log).read().strip() if os.path.exists(guard_log) else ""
        assert not attempts, "the client tried to leave this machine: " + attempts
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    def received(self, message_id):
        return self.serve.wait_for(lambda e: e.get("event") == "onMessageReceived" and e.get("id") == message_id)


def firebase_admin_zero_code(device):
    sent = device.run_client("firebase_admin_sdk")
    device.received(sent["sent"].rsplit("/", 1)[1])
    unverified = device.serve.wait_for(lambda e: e.get("event") == "credentialsUnverified")
    assert unverified["key"] == device.key_id, unverified
    device.serve.wait_for(lambda e: e.get("event") == "topicSubscribed" and e.get("topic") == "proxied")
    device.serve.wait_for(lambda e: e.get("event") == "onMessageReceived" and e.get("from") == "/topics/proxied")


def pyfcm2_zero_code(device):
    device.received(device.run_client("pyfcm2")["sent"].rsplit("/", 1)[1])


def pyfcm1_zero_code(device):
    device.received(device.run_client("pyfcm1", pythonpath=[os.path.join(HERE, ".pyfcm1")])["sent"])


def python_gcm_zero_code(device):
    device.received(device.run_client("python_gcm")["sent"])


def httpx_http2_tunnel(device):
    device.received(device.run_client("httpx_http2")["sent"])


def httpx_hundred_streams(device):
    sent = device.run_client("httpx_concurrent_streams")["sent"]
    assert len(set(sent)) == 100, len(set(sent))
    for message_id in sent:
        device.received(message_id)


def httpx_goaway_fault(device):
    control = "http://127.0.0.1:%d/emulator/v1/projects/%s/faults" % (device.serve.listening["http"], PROJECT)
    subprocess.run(["curl", "-s", "-f", "-X", "POST", control, "-d", '{"path": "/fcm/send", "goaway": true}'],
                   check=True, capture_output=True, env={"PATH": os.environ["PATH"]})
    device.received(device.run_client("httpx_goaway")["sent"])
    device.serve.wait_for(lambda e: e.get("event") == "faultInjected" and e.get("does") == "HTTP/2 GOAWAY")


def http2_protocol_error(device):
    """A client that breaks HTTP/2 after ALPN chose it: an event, and that connection only."""
    import socket
    import ssl

    context = ssl.create_default_context(cafile=device.environment["SSL_CERT_FILE"])
    context.set_alpn_protocols(["h2"])
    port = device.serve.listening["https"]
    with context.wrap_socket(socket.create_connection(("127.0.0.1", port)),
                             server_hostname="fcm.googleapis.com") as broken:
        assert broken.selected_alpn_protocol() == "h2"
        broken.sendall(b"POST /fcm/send HTTP/1.1\r\nHost: fcm.googleapis.com\r\n\r\n")
        broken.settimeout(5)
        while broken.recv(4096):
            pass
    device.serve.wait_for(lambda e: e.get("event") == "requestRejected" and e.get("method") == "HTTP/2")
    device.received(device.run_client("httpx_http2")["sent"])


def curl_proxy_and_direct_tls(device):
    proxy, ca = device.environment["HTTPS_PROXY"], device.environment["SSL_CERT_FILE"]
    body = json.dumps({"to": device.token, "data": {"via": "curl"}})
    send = ["-s", "-H", "Authorization: key=" + KEY, "-H", "Content-Type: application/json", "-d", body]
    through = subprocess.run(["curl", "-x", proxy, "--cacert", ca, *send, "https://fcm.googleapis.com/fcm/send"],
                             capture_output=True, text=True, check=True, env={"PATH": os.environ["PATH"]})
    device.received(json.loads(through.stdout)["results"][0]["message_id"])
    port = device.serve.listening["https"]
    direct = subprocess.run(
        ["curl", "--http2", "--cacert", ca, "--resolve", "fcm.googleapis.com:%d:127.0.0.1" % port, *send,
         "-w", "\n%{http_version}", "https://fcm.googleapis.com:%d/fcm/send" % port],
        capture_output=True, text=True, check=True, env={"PATH": os.environ["PATH"]})
    reply, version = direct.stdout.rsplit("\n", 1)
    assert version == "2", version
    device.received(json.loads(reply)["results"][0]["message_id"])
    # curl ends its connections with a reset: a client going away is not an HTTP/2 failure.
    noise = [e for e in device.serve.events if e.get("event") == "requestRejected" and e.get("method") == "HTTP/2"]
    assert not noise, noise
    # A TLS client that names a server the emulator does not stand in for fails its handshake.
    unknown = subprocess.run(["curl", "-s", "--cacert", ca, "--resolve", "www.example.com:%d:127.0.0.1" % port,
                              "https://www.example.com:%d/healthz" % port], capture_output=True, text=True,
                             env={"PATH": os.environ["PATH"]})
    assert unknown.returncode != 0 and not unknown.stdout, (unknown.returncode, unknown.stdout)
    device.serve.wait_for(lambda e: e.get("event") == "requestRejected" and e.get("method") == "TLS"
                          and "www.example.com" in e.get("reason", ""))
    refused = subprocess.run(["curl", "-s", "-x", proxy, "-o", "/dev/null", "-w", "%{http_connect}",
                              "https://www.example.com/"], capture_output=True, text=True,
                             env={"PATH": os.environ["PATH"]})
    assert refused.stdout == "403", refused.stdout
    device.serve.wait_for(lambda e: e.get("event") == "requestRejected" and e.get("method") == "CONNECT"
                          and e.get("path") == "www.example.com:443")


def google_api_client_zero_code(device):
    sent = device.run_client("google_api_client")
    device.received(sent["sent"].rsplit("/", 1)[1])
    device.serve.wait_for(lambda e: e.get("event") == "topicSubscribed" and e.get("topic") == "discovery")
    device.serve.wait_for(lambda e: e.get("event") == "topicUnsubscribed" and e.get("topic") == "discovery")


def java_zero_code(device):
    """A JVM with only JAVA_TOOL_OPTIONS: the proxy, and the PKCS12 trust store the emulator wrote."""
    environment = {"PATH": os.environ["PATH"], "JAVA_TOOL_OPTIONS": device.environment["JAVA_TOOL_OPTIONS"]}
    done = subprocess.run(["java", os.path.join(HERE, "zero_code", "Send.java"), KEY, device.token],
                          env=environment, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    device.received(json.loads(done.stdout.strip().splitlines()[-1])["results"][0]["message_id"])


def run(binary):
    tests = [
        ("zero code: firebase-admin send, dry run, send_each, UnregisteredError, subscribe_to_topic, a topic send, "
         "with a real project's service account", firebase_admin_zero_code),
        ("zero code: pyfcm 2 notify", pyfcm2_zero_code),
        ("zero code: google-api-python-client (discovery, httplib2): messages.send, a schema refusal, "
         "topicSubscriptions create, get, list, patch and delete", google_api_client_zero_code),
        ("zero code: pyfcm 1.5.4 notify_single_device (legacy)", pyfcm1_zero_code),
        ("zero code: python-gcm json_request (gcm-http.googleapis.com)", python_gcm_zero_code),
        ("zero code: httpx with http2=True through the tunnel speaks HTTP/2", httpx_http2_tunnel),
        ("zero code: curl -x, curl --http2 on --https-port, an unknown server name and a CONNECT elsewhere refused",
         curl_proxy_and_direct_tls),
        ("HTTP/2: 100 concurrent streams on one connection through the tunnel, all served", httpx_hundred_streams),
        ("HTTP/2: a GOAWAY fault ends the connection unanswered, httpx's next request is served", httpx_goaway_fault),
        ("HTTP/2: a client that breaks the protocol is an event and ends only its connection", http2_protocol_error),
    ]
    java = ("zero code: a JVM (HttpsURLConnection) with JAVA_TOOL_OPTIONS and the PKCS12 trust store", java_zero_code)
    if shutil.which("java"):
        tests.append(java)
    skipped = [] if shutil.which("java") else [(java[0], "SKIP: no java on this machine")]
    return run_each(tests, lambda: ProxiedDevice(binary)) + skipped
