"""xmpppy (Google's old Python sample library) as an app server."""
import json
import time

import xmpp

from serve_harness import KEY, SENDER, downstream, xml_escape


def exchange(serve, tls):
    port = serve.listening["ccs"] if tls else serve.listening["ccsPlain"]
    client = xmpp.Client("fcm.googleapis.com", debug=[])
    assert client.connect(server=("127.0.0.1", port), secure=1 if tls else 0, use_srv=False), "no connection"
    assert client.auth(SENDER, KEY), "authentication failed"
    inbox = []

    def on_message(_, message):
        gcm = message.getTag("gcm")
        if gcm is not None:
            inbox.append(json.loads(gcm.getData()))

    client.RegisterHandler("message", on_message)

    def wait(predicate, timeout=10):
        deadline = time.time() + timeout
        while time.time() < deadline:
            client.Process(0.2)
            for message in inbox:
                if predicate(message):
                    return message
        raise AssertionError("nothing matched; got %s" % inbox)

    def send(payload):
        client.send('<message id="7"><gcm xmlns="google:mobile:data">%s</gcm></message>' % xml_escape(payload))

    send(downstream("x-1", serve.token, data={"k": "v"}))
    assert wait(lambda m: m.get("message_id") == "x-1")["message_type"] == "ack"
    send(downstream("x-2", serve.token, time_to_live="abc"))
    nack = wait(lambda m: m.get("message_id") == "x-2")
    assert nack["error"] == "INVALID_JSON", nack
    client.disconnect()


def run(serve):
    results = []
    for name, tls in [("xmpppy TLS: ack and INVALID_JSON nack", True), ("xmpppy plain: ack and INVALID_JSON nack", False)]:
        try:
            exchange(serve, tls)
            results.append((name, None))
        except Exception as error:  # noqa: BLE001
            results.append((name, repr(error)))
    return results
