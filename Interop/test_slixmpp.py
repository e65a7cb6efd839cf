"""slixmpp as an app server against fcm-device serve."""
import asyncio
import json
import ssl

import slixmpp
from slixmpp.xmlstream.handler import Callback
from slixmpp.xmlstream.matcher import MatchXPath

from serve_harness import DRAIN_PROFILE, KEY, SENDER, Serve, downstream, xml_escape


class AppServer(slixmpp.ClientXMPP):
    def __init__(self, key, tls, cafile):
        super().__init__(SENDER + "@fcm.googleapis.com", key)
        self.enable_starttls = False
        self.enable_direct_tls = tls
        self.enable_plaintext = not tls
        if tls:
            self.ca_certs = cafile
        else:
            # slixmpp sends PLAIN over an unencrypted stream only when told to.
            self["feature_mechanisms"].unencrypted_plain = True
        self.inbox = asyncio.Queue()
        self.seen = []
        self.started = asyncio.get_event_loop().create_future()
        self.register_handler(Callback(
            "gcm", MatchXPath("{jabber:client}message/{google:mobile:data}gcm"), self.on_gcm))
        self.add_event_handler("session_start", lambda _: self.started.done() or self.started.set_result(True))
        self.add_event_handler("failed_all_auth", lambda _: self.started.done() or self.started.set_result(False))
        self.closed = asyncio.get_event_loop().create_future()
        self.add_event_handler("disconnected", lambda _: self.closed.done() or self.closed.set_result(True))

    def on_gcm(self, message):
        self.inbox.put_nowait(json.loads(message.xml.find("{google:mobile:data}gcm").text))

    def gcm(self, payload, stanza_id="1"):
        self.send_raw('<message id="%s"><gcm xmlns="google:mobile:data">%s</gcm></message>' % (stanza_id, xml_escape(payload)))

    async def next(self, predicate, timeout=10):
        """The first message, received so far or later, that matches."""
        for message in self.seen:
            if predicate(message):
                self.seen.remove(message)
                return message
        while True:
            message = await asyncio.wait_for(self.inbox.get(), timeout)
            if predicate(message):
                return message
            self.seen.append(message)


async def session(serve, tls, key=KEY):
    port = serve.listening["ccs"] if tls else serve.listening["ccsPlain"]
    app = AppServer(key, tls, serve.listening["tlsCert"])
    app.connect("127.0.0.1", port)
    ok = await asyncio.wait_for(app.started, 10)
    return app, ok


STEP = ["start"]


async def full_exchange(serve, tls):
    STEP[0] = "authenticate"
    app, ok = await session(serve, tls)
    assert ok, "authentication failed"
    app.gcm(downstream("d-1", serve.token, data={"score": "1-0"}, delivery_receipt_requested=True))
    STEP[0] = "ack of d-1"
    ack = await app.next(lambda m: m.get("message_id") == "d-1")
    assert ack["message_type"] == "ack", ack
    STEP[0] = "receipt of d-1"
    receipt = await app.next(lambda m: m.get("message_type") == "receipt")
    assert receipt["message_id"] == "dr2:d-1", receipt
    app.gcm(json.dumps({"to": "gcm.googleapis.com", "message_id": receipt["message_id"], "message_type": "ack"}))
    app.gcm(downstream("d-2", "not-a-token"))
    STEP[0] = "nack of d-2"
    nack = await app.next(lambda m: m.get("message_id") == "d-2")
    assert nack["error"] == "BAD_REGISTRATION", nack
    STEP[0] = "upstream up-1"
    upstream = await app.next(lambda m: "message_type" not in m and m.get("message_id") == "up-1", timeout=15)
    assert upstream["category"] == "com.example.interop" and upstream["data"] == {"hello": "world"}, upstream
    app.gcm(json.dumps({"to": upstream["from"], "message_id": "up-1", "message_type": "ack"}))
    STEP[0] = "appServerAck in the log"
    serve.wait_for(lambda e: e.get("event") == "appServerAck" and e.get("id") == "up-1")
    app.disconnect()


async def plain_ack(serve):
    app, ok = await session(serve, False)
    assert ok, "authentication failed"
    app.gcm(downstream("p-1", serve.token, data={"k": "v"}))
    assert (await app.next(lambda m: m.get("message_id") == "p-1"))["message_type"] == "ack"
    app.disconnect()


async def survives_draining(serve):
    old, ok = await session(serve, True)
    assert ok, "authentication failed"
    await old.next(lambda m: m.get("control_type") == "CONNECTION_DRAINING", timeout=10)
    old.gcm(downstream("late", serve.token))
    nack = await old.next(lambda m: m.get("message_id") == "late")
    assert nack["error"] == "CONNECTION_DRAINING", nack
    new, ok = await session(serve, True)
    assert ok, "the new connection failed"
    new.gcm(downstream("retry", serve.token))
    assert (await new.next(lambda m: m.get("message_id") == "retry"))["message_type"] == "ack"
    await asyncio.wait_for(old.closed, 10)
    new.disconnect()


async def topic_send(serve):
    import requests
    reply = requests.post("http://127.0.0.1:%d/iid/v1:batchAdd" % serve.listening["http"],
                          headers={"Authorization": "key=" + KEY},
                          json={"to": "/topics/ccs", "registration_tokens": [serve.token]}, timeout=10)
    assert reply.json() == {"results": [{}]}, reply.text
    app, ok = await session(serve, True)
    assert ok, "authentication failed"
    app.gcm(json.dumps({"to": "/topics/ccs", "message_id": "t-1", "data": {"via": "ccs topic"}}))
    assert (await app.next(lambda m: m.get("message_id") == "t-1"))["message_type"] == "ack"
    received = serve.wait_for(lambda e: e.get("event") == "onMessageReceived" and e.get("id") == "t-1")
    assert received["from"] == "/topics/ccs", received
    app.gcm(json.dumps({"condition": "'ccs' in topics || 'other' in topics", "message_id": "t-2", "data": {"k": "v"}}))
    assert (await app.next(lambda m: m.get("message_id") == "t-2"))["message_type"] == "ack"
    serve.wait_for(lambda e: e.get("event") == "onMessageReceived" and e.get("id") == "t-2")
    app.gcm(json.dumps({"to": "/topics/bad name", "message_id": "t-3"}))
    nack = await app.next(lambda m: m.get("message_id") == "t-3")
    assert nack["message_type"] == "nack" and nack["error"] == "INVALID_JSON", nack
    app.disconnect()


async def wrong_key(serve):
    app, ok = await session(serve, True, key="wrong")
    assert not ok, "a wrong key was accepted"
    app.disconnect()


def run(binary):
    results = []
    for name, profile, coroutine in [
        ("slixmpp TLS (verified certificate): downstream, receipt, nack, upstream, acks", None, full_exchange),
        ("slixmpp plain: downstream ack", None, plain_ack),
        ("slixmpp wrong key is refused", None, wrong_key),
        ("slixmpp topic and condition sends over CCS: acked, delivered from the topic; a bad topic nacked", None,
         topic_send),
        ("slixmpp survives draining: control, CONNECTION_DRAINING nack, new connection", DRAIN_PROFILE, survives_draining),
    ]:
        serve = Serve(binary, profile) if profile else Serve(binary)
        try:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            loop.run_until_complete(coroutine(serve, True) if coroutine is full_exchange else coroutine(serve))
            results.append((name, None))
        except Exception as error:  # noqa: BLE001 - report every failure
            results.append((name, "%s (at step: %s)" % (repr(error), STEP[0])))
        finally:
            serve.stop()
    return results
