"""App-server code exactly as it runs in production: no URL, host or class
attribute is changed. Only the environment (`fcm-device env`) sends it to the
emulator. Usage: clients.py NAME CONFIG_JSON"""
import json
import sys


def firebase_admin_sdk(config):
    import firebase_admin
    from firebase_admin import credentials, messaging

    app = firebase_admin.initialize_app(credentials.Certificate(config["service_account"]))
    name = messaging.send(messaging.Message(token=config["token"], data={"via": "proxy"}), app=app)
    assert name.startswith("projects/%s/messages/0:" % config["project"]), name
    dry = messaging.send(messaging.Message(token=config["token"], data={"k": "v"}), dry_run=True, app=app)
    assert dry.endswith("/fake_message_id"), dry
    batch = messaging.send_each([messaging.Message(token=config["token"], data={"n": str(n)}) for n in range(3)],
                                app=app)
    assert batch.success_count == 3, [r.exception for r in batch.responses]
    try:
        messaging.send(messaging.Message(token=config["old_token"], data={"k": "v"}), app=app)
        raise AssertionError("an old token was accepted")
    except messaging.UnregisteredError:
        pass
    result = messaging.subscribe_to_topic([config["token"]], "proxied", app=app)
    assert result.success_count == 1, result.errors
    topic = messaging.send(messaging.Message(topic="proxied", data={"via": "topic"}), app=app)
    print(json.dumps({"sent": name, "topic": topic}))


def pyfcm2(config):
    from pyfcm import FCMNotification

    fcm = FCMNotification(service_account_file=config["service_account"], project_id=config["project"])
    result = fcm.notify(fcm_token=config["token"], data_payload={"via": "pyfcm2"})
    print(json.dumps({"sent": result["name"]}))


def pyfcm1(config):
    from pyfcm import FCMNotification

    fcm = FCMNotification(api_key=config["key"])
    result = fcm.notify_single_device(registration_id=config["token"], data_message={"via": "pyfcm1"})
    assert result["success"] == 1, result
    print(json.dumps({"sent": result["results"][0]["message_id"]}))


def python_gcm(config):
    from gcm import GCM

    info = GCM(config["key"]).json_request(registration_ids=[config["token"]], data={"via": "python-gcm"})
    assert list(info["success"]) == [config["token"]], info
    print(json.dumps({"sent": info["success"][config["token"]]}))


def httpx_http2(config):
    import httpx

    with httpx.Client(http2=True) as client:
        reply = client.post("https://fcm.googleapis.com/fcm/send", headers={"Authorization": "key=" + config["key"]},
                            json={"to": config["token"], "data": {"via": "httpx h2"}})
        assert reply.http_version == "HTTP/2", reply.http_version
        assert reply.json()["success"] == 1, reply.text
        print(json.dumps({"sent": reply.json()["results"][0]["message_id"], "version": reply.http_version}))


def httpx_concurrent_streams(config):
    """100 requests at once on one HTTP/2 connection: each its own stream, all served."""
    import asyncio

    import httpx

    async def send_all():
        limits = httpx.Limits(max_connections=1)
        async with httpx.AsyncClient(http2=True, limits=limits) as client:
            async def one(n):
                return await client.post("https://fcm.googleapis.com/fcm/send",
                                         headers={"Authorization": "key=" + config["key"]},
                                         json={"to": config["token"], "data": {"stream": str(n)}})
            return await asyncio.gather(*(one(n) for n in range(100)))

    replies = asyncio.run(send_all())
    assert all(r.status_code == 200 and r.http_version == "HTTP/2" for r in replies), [r.status_code for r in replies]
    print(json.dumps({"sent": [r.json()["results"][0]["message_id"] for r in replies]}))


def httpx_goaway(config):
    """A GOAWAY fault: the request's HTTP/2 connection is told to go away unanswered; the next one is served."""
    import httpx

    request = {"headers": {"Authorization": "key=" + config["key"]},
               "json": {"to": config["token"], "data": {"via": "after a GOAWAY"}}}
    with httpx.Client(http2=True) as client:
        try:
            client.post("https://fcm.googleapis.com/fcm/send", **request)
            raise AssertionError("a GOAWAY fault was answered")
        except httpx.RemoteProtocolError as error:
            assert "ConnectionTerminated" in repr(error), repr(error)
        reply = client.post("https://fcm.googleapis.com/fcm/send", **request)
        assert reply.http_version == "HTTP/2" and reply.json()["success"] == 1, reply.text
        print(json.dumps({"sent": reply.json()["results"][0]["message_id"]}))


def google_api_client(config):
    """Google's discovery-based client (googleapiclient over google-auth-httplib2), as
    generated from fcm.v1.json: messages.send, a send the schema refuses, and the
    topicSubscriptions methods on a registration named by its token."""
    from google.oauth2 import service_account
    from googleapiclient.discovery import build
    from googleapiclient.errors import HttpError

    credentials = service_account.Credentials.from_service_account_file(
        config["service_account"], scopes=["https://www.googleapis.com/auth/firebase.messaging"])
    fcm = build("fcm", "v1", credentials=credentials, static_discovery=True, cache_discovery=False)
    parent = "projects/%s" % config["project"]
    sent = fcm.projects().messages().send(
        parent=parent, body={"message": {"token": config["token"], "data": {"via": "googleapiclient"}}}).execute()
    try:
        fcm.projects().messages().send(
            parent=parent, body={"message": {"token": config["token"], "notificaton": {"title": "x"}}}).execute()
        raise AssertionError("a misspelled field was accepted")
    except HttpError as error:
        assert error.status_code == 400, error
        assert 'Unknown name "notificaton"' in error.reason, error.reason
    registration = "%s/registrations/%s" % (parent, config["token"])
    subscriptions = fcm.projects().registrations().topicSubscriptions()
    created = subscriptions.create(parent=registration, topicName="discovery", body={}).execute()
    assert created["name"] == registration + "/topicSubscriptions/discovery", created
    assert subscriptions.get(name=created["name"]).execute()["topicName"] == "discovery"
    listed = subscriptions.list(parent=registration, pageSize=10).execute()
    assert [s["topicName"] for s in listed["topicSubscriptions"]] == ["discovery"], listed
    patched = subscriptions.patch(name=registration + "/topicSubscriptions/patched", allowMissing=True,
                                  body={}).execute()
    assert patched["topicName"] == "patched", patched
    subscriptions.delete(name=patched["name"]).execute()
    subscriptions.delete(name=created["name"]).execute()
    print(json.dumps({"sent": sent["name"], "created": created["name"]}))


if __name__ == "__main__":
    import socket

    # The network guard must be in place, or "never the network" would pass untested.
    assert socket.socket.connect.__module__ == "sitecustomize", "the network guard did not load"
    globals()[sys.argv[1]](json.loads(sys.argv[2]))
