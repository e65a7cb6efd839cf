"""A browser beside two phones, driven by firebase-admin as its users write it: the
server subscribes all three tokens to a topic (a web app cannot subscribe itself), and
one message with android, apns and webpush blocks reaches each shaped for its platform;
a webpush link that is not HTTPS is refused as FCM refuses it."""
import os

from serve_harness import Serve, credentials_file, firebase_app, run_each

HERE = os.path.dirname(os.path.abspath(__file__))
PROFILE = os.path.join(HERE, "interop-web.yaml")
PROJECT = "interop-project"


class WebFleet:
    def __init__(self, binary):
        self.serve = Serve(binary, PROFILE)
        self.base = "http://127.0.0.1:%d" % self.serve.listening["http"]
        self.serve.wait_for(lambda e: e.get("event") == "getToken" and e.get("device") == "browser")
        names = ("onNewToken", "didReceiveRegistrationToken", "getToken")
        self.tokens = {e["device"]: e["token"] for e in self.serve.events if e.get("event") in names}
        assert sorted(self.tokens) == ["browser", "iphone", "pixel"], self.tokens
        self.credentials = credentials_file(binary, self.serve, PROFILE, PROJECT)

    def app(self):
        return firebase_app(self.base, self.credentials, PROJECT)


def one_message_three_platforms(fleet):
    from firebase_admin import messaging

    app = fleet.app()
    added = messaging.subscribe_to_topic(list(fleet.tokens.values()), "news", app=app)
    assert (added.success_count, added.failure_count) == (3, 0), vars(added)
    message = messaging.Message(
        topic="news",
        notification=messaging.Notification(title="Base", body="for everyone"),
        android=messaging.AndroidConfig(notification=messaging.AndroidNotification(title="Android")),
        apns=messaging.APNSConfig(payload=messaging.APNSPayload(aps=messaging.Aps(
            alert=messaging.ApsAlert(title="Apple"), badge=2))),
        webpush=messaging.WebpushConfig(
            headers={"Urgency": "high"},
            notification=messaging.WebpushNotification(title="Web", icon="/icon.png"),
            fcm_options=messaging.WebpushFCMOptions(link="https://app.example.com/news")))
    message_id = messaging.send(message, app=app).rsplit("/", 1)[1]

    def posted(phone):
        return fleet.serve.wait_for(lambda e: e.get("event") == "notificationPosted" and e.get("device") == phone
                                    and e.get("id") == message_id)

    assert posted("pixel")["title"] == "Android"
    assert posted("iphone")["title"] == "Apple" and posted("iphone")["badge"] == "2"
    web = posted("browser")
    assert (web["title"], web["icon"], web["link"]) == ("Web", "/icon.png", "https://app.example.com/news"), web
    hook = fleet.serve.wait_for(lambda e: e.get("event") == "onBackgroundMessage" and e.get("id") == message_id)
    assert hook["priority"] == "high" and hook["ignored"] == ["android", "apns"], hook


def unknown_urgency_refused(fleet):
    from firebase_admin import messaging, exceptions

    app = fleet.app()
    message = messaging.Message(token=fleet.tokens["browser"], data={"k": "v"},
                                webpush=messaging.WebpushConfig(headers={"Urgency": "urgent"}))
    try:
        messaging.send(message, app=app)
    except exceptions.InvalidArgumentError as error:
        assert "Urgency" in str(error), str(error)
    else:
        raise AssertionError("an Urgency Web Push does not have was accepted")


def run(binary):
    tests = [
        ("firebase-admin: one topic message with android, apns and webpush blocks, shaped for an Android phone, "
         "an iPhone and a browser", one_message_three_platforms),
        ("firebase-admin: a webpush Urgency Web Push does not have is INVALID_ARGUMENT", unknown_urgency_refused),
    ]
    return run_each(tests, lambda: WebFleet(binary))
