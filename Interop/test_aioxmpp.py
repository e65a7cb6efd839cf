"""aioxmpp (a strict XMPP client) as an app server against fcm-device serve.

aioxmpp authenticates only over TLS, so every test dials the CCS TLS port directly
(XEP-0368 connector) and verifies the emulator's certificate (PKIX, hostname =
fcm.googleapis.com) against the CA that `serve` prints as tlsCert. Every failure
carries the last stanzas aioxmpp sent and received, taken from its own debug log."""
import asyncio
import json
import logging
from datetime import timedelta

import aioxmpp
import aioxmpp.connector
import aioxmpp.errors
import aioxmpp.security_layer
import aioxmpp.xso
import aiosasl

from serve_harness import DRAIN_PROFILE, KEY, SENDER, Serve, downstream

DOMAIN = "fcm.googleapis.com"
STEP_TIMEOUT = 10  # seconds for any one awaited event
TEST_TIMEOUT = 30  # seconds for a whole test


class GCM(aioxmpp.xso.XSO):
    """`<gcm xmlns="google:mobile:data">JSON</gcm>`, in either prefix form."""
    TAG = ("google:mobile:data", "gcm")
    text = aioxmpp.xso.Text(default=None)

    def __init__(self, text=None):
        super().__init__()
        self.text = text


aioxmpp.Message.gcm = aioxmpp.xso.Child([GCM])


class Wire(logging.Handler):
    """Collects aioxmpp's SENT/RECV debug lines: the XML on the wire, after TLS."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines = []

    def emit(self, record):
        message = record.getMessage()
        if message.startswith(("SENT ", "RECV ")):
            self.lines.append("%s %s" % (record.name.rsplit(".", 2)[-2], message))

    def tail(self, count=16):
        return "\n        ".join(line[:600] for line in self.lines[-count:])


WIRE = Wire()
STEP = ["start"]


def logger_for(name):
    """A logger of its own per connection, quiet except for the wire capture."""
    logger = logging.getLogger("interop-aioxmpp." + name)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    if WIRE not in logger.handlers:
        logger.addHandler(WIRE)
    return logger


class AppServer:
    """One aioxmpp client connection and the CCS messages it has received."""

    def __init__(self, serve, name, key=KEY):
        cafile = serve.listening["tlsCert"]

        def ssl_context():
            context = aioxmpp.security_layer.default_ssl_context()
            context.load_verify_locations(cafile)
            return context

        self.client = aioxmpp.Client(
            aioxmpp.JID.fromstr(SENDER + "@" + DOMAIN),
            aioxmpp.make_security_layer(key, ssl_context_factory=ssl_context),
            override_peer=[("127.0.0.1", serve.listening["ccs"], aioxmpp.connector.XMPPOverTLSConnector())],
            negotiation_timeout=timedelta(seconds=STEP_TIMEOUT),
            max_initial_attempts=1,
            logger=logger_for(name))
        self.inbox = asyncio.Queue()
        self.seen = []
        self.client.summon(aioxmpp.dispatcher.SimpleMessageDispatcher).register_callback(None, None, self.on_message)
        self.established = self.client.on_stream_established.future()
        self.failed = self.client.on_failure.future()
        self.destroyed = asyncio.get_event_loop().create_future()
        self.client.on_stream_destroyed.connect(self.on_destroyed)
        self.client.on_stream_suspended.connect(self.on_destroyed)

    def on_message(self, message):
        if message.type_ == aioxmpp.MessageType.ERROR:
            # The error stanza echoes the offending <gcm> payload.
            self.inbox.put_nowait({"stanza_error": message.error, "id": message.id_})
        elif message.gcm is not None:
            self.inbox.put_nowait(json.loads(message.gcm.text))

    def on_destroyed(self, *_):
        if not self.destroyed.done():
            self.destroyed.set_result(True)

    async def start(self):
        """Connects and logs in; returns None once the session is established, else the failure."""
        self.client.start()
        done, _ = await asyncio.wait([self.established, self.failed], timeout=STEP_TIMEOUT,
                                     return_when=asyncio.FIRST_COMPLETED)
        if self.established in done:
            return None
        if self.failed in done:
            # on_failure carries an exception, so its future holds it as one.
            return self.failed.exception() or self.failed.result()
        raise AssertionError("neither an established session nor a failure within %d s" % STEP_TIMEOUT)

    async def send(self, payload):
        await asyncio.wait_for(self.client.send(self.message(payload)), STEP_TIMEOUT)

    @staticmethod
    def message(payload):
        message = aioxmpp.Message(type_=aioxmpp.MessageType.NORMAL)
        message.gcm = GCM(payload)
        return message

    async def next(self, predicate, timeout=STEP_TIMEOUT):
        """The first message, received so far or later, that matches."""
        for message in self.seen:
            if predicate(message):
                self.seen.remove(message)
                return message
        while True:
            try:
                message = await asyncio.wait_for(self.inbox.get(), timeout)
            except asyncio.TimeoutError:
                raise AssertionError("nothing matched within %d s; unmatched: %s" % (timeout, self.seen)) from None
            if predicate(message):
                return message
            self.seen.append(message)

    async def stop(self):
        if self.client.running:
            stopped = self.client.on_stopped.future()
            self.client.stop()
            try:
                await asyncio.wait_for(stopped, STEP_TIMEOUT)
            except asyncio.TimeoutError:
                pass


async def in_log(serve, predicate):
    """Waits for a serve log event without blocking the event loop."""
    return await asyncio.get_running_loop().run_in_executor(None, lambda: serve.wait_for(predicate, STEP_TIMEOUT))


async def logged_in(serve, name):
    """An app server logged in (SASL PLAIN, bind, session), or an AssertionError."""
    app = AppServer(serve, name)
    failure = await app.start()
    assert failure is None, "login of %s failed: %r" % (name, failure)
    return app


async def login(serve):
    STEP[0] = "SASL PLAIN, bind, session"
    app = await logged_in(serve, "login")
    jid = app.client.local_jid
    assert jid.localpart == SENDER and jid.resource, "bound to %s" % jid
    STEP[0] = "the connection in the serve log"
    await in_log(serve, lambda e: e.get("event") == "appServerConnected")
    STEP[0] = "close"
    await app.stop()
    await in_log(serve, lambda e: e.get("event") == "appServerDisconnected")


async def downstream_exchange(serve):
    STEP[0] = "login"
    app = await logged_in(serve, "downstream")
    # aioxmpp leaves quotes raw in text and escapes & < > itself.
    data = {"quote": 'say "hi" & <bye>', "accent": "\u00e9"}
    await app.send(downstream("a-1", serve.token, data=data, delivery_receipt_requested=True))
    STEP[0] = "ack of a-1"
    ack = await app.next(lambda m: m.get("message_id") == "a-1")
    assert ack["message_type"] == "ack" and ack["from"] == serve.token, ack
    STEP[0] = "receipt of a-1"
    receipt = await app.next(lambda m: m.get("message_type") == "receipt")
    assert receipt["message_id"] == "dr2:a-1", receipt
    assert receipt["data"]["message_status"] == "MESSAGE_SENT_TO_DEVICE", receipt
    await app.send(json.dumps({"to": receipt["from"], "message_id": receipt["message_id"], "message_type": "ack"}))
    STEP[0] = "nack of a-2"
    await app.send(downstream("a-2", "not-a-token"))
    nack = await app.next(lambda m: m.get("message_id") == "a-2")
    assert nack["message_type"] == "nack" and nack["error"] == "BAD_REGISTRATION", nack
    STEP[0] = "stanza error for a message without message_id"
    sent = app.message(json.dumps({"to": serve.token, "data": {"k": "v"}}))
    await asyncio.wait_for(app.client.send(sent), STEP_TIMEOUT)
    bounced = await app.next(lambda m: "stanza_error" in m)
    assert bounced["id"] == sent.id_, "error stanza id %r for the message %r" % (bounced["id"], sent.id_)
    error = bounced["stanza_error"]
    assert error.condition == aioxmpp.ErrorCondition.BAD_REQUEST, error
    assert error.type_ == aioxmpp.ErrorType.MODIFY and "message_id" in (error.text or ""), error
    STEP[0] = "close"
    await app.stop()


async def upstream_exchange(serve):
    STEP[0] = "login"
    app = await logged_in(serve, "upstream")
    STEP[0] = "upstream up-1"
    upstream = await app.next(lambda m: "message_type" not in m and m.get("message_id") == "up-1", timeout=15)
    assert upstream["category"] == "com.example.interop" and upstream["data"] == {"hello": "world"}, upstream
    assert upstream["from"] == serve.token, upstream
    await app.send(json.dumps({"to": upstream["from"], "message_id": "up-1", "message_type": "ack"}))
    STEP[0] = "appServerAck in the log"
    await in_log(serve, lambda e: e.get("event") == "appServerAck" and e.get("id") == "up-1")
    STEP[0] = "close"
    await app.stop()


async def survives_draining(serve):
    STEP[0] = "login (old connection)"
    old = await logged_in(serve, "old")
    STEP[0] = "CONNECTION_DRAINING control"
    control = await old.next(lambda m: m.get("control_type") == "CONNECTION_DRAINING")
    assert control["message_type"] == "control", control
    STEP[0] = "nack of a message sent on the draining connection"
    await old.send(downstream("late", serve.token))
    nack = await old.next(lambda m: m.get("message_id") == "late")
    assert nack["error"] == "CONNECTION_DRAINING", nack
    STEP[0] = "login (new connection)"
    new = await logged_in(serve, "new")
    await new.send(downstream("retry", serve.token))
    STEP[0] = "ack of the retry on the new connection"
    assert (await new.next(lambda m: m.get("message_id") == "retry"))["message_type"] == "ack"
    STEP[0] = "the server closes the draining stream"
    await asyncio.wait_for(old.destroyed, STEP_TIMEOUT)
    await old.stop()  # or aioxmpp would reconnect it
    drained = (await in_log(serve, lambda e: e.get("event") == "connectionDraining"))["connection"]
    await in_log(serve, lambda e: e.get("event") == "appServerDisconnected" and e.get("connection") == drained)
    STEP[0] = "close"
    await new.stop()


async def wrong_key(serve):
    STEP[0] = "login with a wrong key"
    app = AppServer(serve, "wrong-key", key="wrong")
    failure = await app.start()
    assert isinstance(failure, aiosasl.AuthenticationFailure), \
        "expected an authentication failure, got %r" % (failure,)
    await app.stop()


def run(binary):
    results = []
    for name, profile, coroutine in [
        ("aioxmpp TLS (verified certificate): SASL PLAIN login, bind, session", None, login),
        ("aioxmpp downstream: ack, receipt, BAD_REGISTRATION nack, stanza error", None, downstream_exchange),
        ("aioxmpp upstream: received and acked back", None, upstream_exchange),
        ("aioxmpp survives draining: control, CONNECTION_DRAINING nack, new connection", DRAIN_PROFILE,
         survives_draining),
        ("aioxmpp wrong key is refused as an authentication failure", None, wrong_key),
    ]:
        serve = Serve(binary, profile) if profile else Serve(binary)
        WIRE.lines.clear()
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(asyncio.wait_for(coroutine(serve), TEST_TIMEOUT))
            results.append((name, None))
        except Exception as error:  # noqa: BLE001 - report every failure
            results.append((name, "%r (at step: %s)\n      wire:\n        %s" % (error, STEP[0], WIRE.tail())))
        finally:
            cancel_all(loop)
            serve.stop()
    return results


def cancel_all(loop):
    """Ends whatever aioxmpp left running (reconnect attempts, stream tasks)."""
    tasks = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in tasks:
        task.cancel()
    if tasks:
        loop.run_until_complete(asyncio.wait(tasks, timeout=5))
    loop.close()


if __name__ == "__main__":
    import sys
    for outcome, problem in run(sys.argv[1]):
        print(("ok    " if problem is None else "FAIL  ") + outcome + ("" if problem is None else "\n      " + problem))
