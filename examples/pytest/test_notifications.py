"""Behaviours of the app server, checked on the emulated phone (the `fcm` fixture of
the pytest-fcm-device plugin: the phone reset before each test)."""


def test_a_notification_reaches_the_tray_when_the_app_is_in_the_background(fcm, notifier):
    fcm.act({"state": "background"})
    message_id = notifier.notify(fcm.token(), "Dinner", "is ready")
    posted = fcm.wait_for("notificationPosted", id=message_id)
    assert posted["title"] == "Dinner"


def test_in_the_foreground_the_app_gets_it_and_the_tray_does_not(fcm, notifier):
    message_id = notifier.notify(fcm.token(), "Dinner", "is ready")
    received = fcm.wait_for("onMessageReceived", id=message_id)
    assert received["notification"] == {"title": "Dinner", "body": "is ready"}
    fcm.expect_none("notificationPosted")


def test_the_app_server_retries_when_fcm_answers_503(fcm, notifier):
    fcm.fault(path="/fcm/send", status=503, retry_after=1, count=1)
    message_id = notifier.notify(fcm.token(), "Retried")
    fcm.wait_for("faultInjected", path="/fcm/send")
    fcm.wait_for("onMessageReceived", id=message_id)


def test_a_notification_for_one_phone_reaches_only_that_phone(fcm, notifier):
    # The phone of the device's one (`default`), named before a second one joins:
    # with two, every phone is named (the reset before the next test removes it again).
    phone = fcm.device()["name"]
    fcm.act_on_fleet({"add_device": {"name": "tablet", "platform": "android"}})
    message_id = notifier.notify(fcm.token("tablet"), "Only the tablet")
    fcm.wait_for("onMessageReceived", id=message_id, device="tablet")
    fcm.expect_none("onMessageReceived", device=phone)
