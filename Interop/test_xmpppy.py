"""xmpppy (Google's old Python sample library) as an app server."""
import json
import time

import xmpp

from serve_harness import DRAIN_PROFILE, KEY, SENDER, Serve, downstream, xml_escape


class AppServer:
    """One xmpppy connection, with the CCS messages it has received."""

    def __init__(self, serve, tls):
        port = serve.listening["ccs"] if tls else serve.listening["ccsPlain"]
        self.client = xmpp.Client("fcm.googleapis.com", debug=[])
        assert self.client.connect(server=("127.0.0.1", port), secure=1 if tls else 0, use_srv=False), "no connection"
        assert self.client.auth(SENDER, KEY), "authentication failed"
        self.inbox = []
        self.client.RegisterHandler("message", self.on_message)

    def on_message(self, _, message):
        gcm = message.getTag("gcm")
        if gcm is not None:
            self.inbox.append(json.loads(gcm.getData()))

    def wait(self, predicate, timeout=10):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if not self.client.isConnected():
                break
            self.client.Process(0.2)
            for message in self.inbox:
                if predicate(message):
                    return message
        raise AssertionError("nothing matched; got %s" % self.inbox)

    def send(self, payload):
        self.client.send('<message id="7"><gcm xmlns="google:mobile:data">%s</gcm></message>' % xml_escape(payload))


def full_exchange(serve):
    app = AppServer(serve, True)
    app.send(downstream("x-1", serve.token, data={"k": "v"}, delivery_receipt_requested=True))
    assert app.wait(lambda m: m.get("message_id") == "x-1")["message_type"] == "ack"
    receipt = app.wait(lambda m: m.get("message_type") == "receipt")
    app.send(json.dumps({"to": "gcm.googleapis.com", "message_id": receipt["message_id"], "message_type": "ack"}))
    app.send(downstream("x-2", serve.token, time_to_live="abc"))
    assert app.wait(lambda m: m.get("message_id") == "x-2")["error"] == "INVALID_JSON"
    upstream = app.wait(lambda m: "message_type" not in m and m.get("message_id") == "up-1", timeout=15)
    app.send(json.dumps({"to": upstream["from"], "message_id": "up-1", "message_type": "ack"}))
    serve.wait_for(lambda e: e.get("event") == "appServerAck" and e.get("id") == "up-1")
    app.client.disconnect()


def plain_ack(serve):
    app = AppServer(serve, False)
    app.send(downstream("p-1", serve.token))
    assert app.wait(lambda m: m.get("message_id") == "p-1")["message_type"] == "ack"
    app.client.disconnect()


def survives_draining(serve):
    old = AppServer(serve, True)
    old.wait(lambda m: m.get("control_type") == "CONNECTION_DRAINING")
    old.send(downstream("late", serve.token))
    assert old.wait(lambda m: m.get("message_id") == "late")["error"] == "CONNECTION_DRAINING"
    new = AppServer(serve, True)
    new.send(downstream("retry", serve.token))
    assert new.wait(lambda m: m.get("message_id") == "retry")["message_type"] == "ack"
    drained = serve.wait_for(lambda e: e.get("event") == "connectionDraining")["connection"]
    serve.wait_for(lambda e: e.get("event") == "appServerDisconnected" and e.get("connection") == drained)
    new.client.disconnect()


def run(binary):
    results = []
    for name, profile, test in [
        ("xmpppy TLS: downstream ack, receipt, INVALID_JSON nack, upstream and its ack", None, full_exchange),
        ("xmpppy plain: downstream ack", None, plain_ack),
        ("xmpppy survives draining: control, CONNECTION_DRAINING nack, new connection", DRAIN_PROFILE, survives_draining),
    ]:
        serve = Serve(binary, profile) if profile else Serve(binary)
        try:
            test(serve)
            results.append((name, None))
        except Exception as error:  # noqa: BLE001
            results.append((name, repr(error)))
        finally:
            serve.stop()
    return results
