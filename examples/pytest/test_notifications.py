"""Two behaviours of the app server, checked on the emulated phone."""
from app_server import Notifier


def test_a_notification_reaches_the_tray_when_the_app_is_in_the_background(phone):
    phone.act({"state": "background"})
    message_id = Notifier().notify(phone.token, "Dinner", "is ready")
    posted = phone.wait_for("notificationPosted", id=message_id)
    assert posted["title"] == "Dinner"


def test_the_app_server_retries_when_fcm_answers_503(phone):
    phone.fault({"path": "/fcm/send", "status": 503, "retry_after": 1, "count": 1})
    message_id = Notifier().notify(phone.token, "Retried")
    phone.wait_for("faultInjected", path="/fcm/send")
    phone.wait_for("onMessageReceived", id=message_id)
