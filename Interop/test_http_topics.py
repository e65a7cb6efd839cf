"""Topics with real SDKs: firebase-admin subscribe/unsubscribe (the v1 per-token API and
the legacy IID one), topic and condition sends; pyfcm 1.x topic subscription and topic
send (IID batchAdd with a server key, legacy /fcm/send); python-gcm's topic send.

The SDKs call Google's hosts by name. Until the emulator serves them through a proxy,
each test points the SDK at it the way its own code allows: a class attribute, or, for
pyfcm 1.x's hard-coded IID URL, a requests adapter that sends iid.googleapis.com to the
emulator."""
import os
import subprocess
import sys

from serve_harness import firebase_app, run_each, KEY
from test_http_sdks import PROJECT, HTTPDevice

HERE = os.path.dirname(os.path.abspath(__file__))


def topic_event(device, name, topic, **fields):
    return device.serve.wait_for(lambda e: e.get("event") == name and e.get("topic") == topic
                                 and all(e.get(k) == v for k, v in fields.items()))


def firebase_admin_topics(device):
    from firebase_admin import messaging

    app = firebase_app(device.base, device.credentials, PROJECT)

    added = messaging.subscribe_to_topic([device.token, device.old_token, "not-a-token"], "/topics/news", app=app)
    assert (added.success_count, added.failure_count) == (1, 2), vars(added)
    assert [e.index for e in added.errors] == [1, 2], [vars(e) for e in added.errors]
    topic_event(device, "topicSubscribed", "news", by="v1")

    name = messaging.send(messaging.Message(topic="news", data={"headline": "v1 topic"}), app=app)
    received = device.received(name.rsplit("/", 1)[1])
    assert received["from"] == "/topics/news", received
    name = messaging.send(messaging.Message(condition="'news' in topics && !('sport' in topics)",
                                            data={"headline": "condition"}), app=app)
    device.received(name.rsplit("/", 1)[1])

    legacy = messaging.subscribe_to_topic_legacy([device.token], "sport", app=app)
    assert legacy.success_count == 1, vars(legacy)
    topic_event(device, "topicSubscribed", "sport", by="iid")
    name = messaging.send(messaging.Message(condition="'news' in topics && 'sport' in topics",
                                            data={"headline": "both"}), app=app)
    device.received(name.rsplit("/", 1)[1])

    removed = messaging.unsubscribe_from_topic([device.token], "news", app=app)
    assert removed.success_count == 1, vars(removed)
    topic_event(device, "topicUnsubscribed", "news", by="v1")
    batch = messaging.send_each_for_multicast(messaging.MulticastMessage(
        tokens=[device.token, device.old_token], data={"k": "v"}), app=app)
    assert (batch.success_count, batch.failure_count) == (1, 1), (batch.success_count, batch.failure_count)


def pyfcm1_topics(device):
    """pyfcm 1.x cannot share a virtual environment with pyfcm 2, so it runs from its own folder."""
    env = dict(os.environ, PYTHONPATH=os.path.join(HERE, ".pyfcm1"))
    done = subprocess.run([sys.executable, os.path.join(HERE, "pyfcm1_topics.py"), device.base, KEY, device.token],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-800:]
    message_id = done.stdout.strip().splitlines()[-1]
    device.received(message_id)
    topic_event(device, "topicSubscribed", "pyfcm", by="iid")


def python_gcm_topics(device):
    from gcm import GCM
    from gcm.gcm import GCMTopicMessageException

    gcm = GCM(KEY)
    gcm.url = device.base + "/fcm/send"
    # python-gcm has no subscription call: the IID API subscribes the token first.
    import requests
    reply = requests.post(device.base + "/iid/v1:batchAdd", headers={"Authorization": "key=" + KEY},
                          json={"to": "/topics/gcm", "registration_tokens": [device.token]}, timeout=10)
    assert reply.json() == {"results": [{}]}, reply.text
    message_id = gcm.send_topic_message(topic="gcm", data={"via": "python-gcm"})
    received = device.received(str(message_id))
    assert received["from"] == "/topics/gcm", received
    # python-gcm retries every topic error (with backoff), then raises OSError.
    try:
        gcm.send_topic_message(topic="gcm", data={"k": "x" * 2100}, retries=1)
        raise AssertionError("a 2,100-byte topic message was accepted")
    except (GCMTopicMessageException, OSError):
        pass
    device.serve.wait_for(lambda e: e.get("event") == "downstreamRejected" and e.get("error") == "MessageTooBig")


def run(binary):
    tests = [
        ("firebase-admin topics: subscribe (v1 and legacy IID), topic and condition sends, unsubscribe, multicast",
         firebase_admin_topics),
        ("pyfcm 1.x topics: IID batchAdd with a server key, notify_topic_subscribers, condition", pyfcm1_topics),
        ("python-gcm topics: send_topic_message, MessageTooBig past 2,048 bytes", python_gcm_topics),
    ]
    return run_each(tests, lambda: HTTPDevice(binary))
