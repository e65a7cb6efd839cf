"""pyfcm 1.x against the emulator, run from its own folder (Interop/.pyfcm1).
Usage: pyfcm1_topics.py BASE_URL SERVER_KEY TOKEN. Prints the last topic message id."""
import sys

import requests.adapters
from pyfcm import FCMNotification
from pyfcm.errors import InvalidDataError


class ToEmulator(requests.adapters.HTTPAdapter):
    """Sends requests for Google's IID host to the emulator (pyfcm 1.x has the URL built in)."""

    def __init__(self, base):
        super().__init__()
        self.base = base

    def send(self, request, **kwargs):
        request.url = request.url.replace("https://iid.googleapis.com", self.base)
        return super().send(request, **kwargs)


def main(base, key, token):
    push = FCMNotification(api_key=key)
    push.FCM_END_POINT = base + "/fcm/send"
    push.requests_session.mount("https://iid.googleapis.com", ToEmulator(base))
    assert push.subscribe_registration_ids_to_topic([token], "pyfcm") is True
    try:
        push.subscribe_registration_ids_to_topic([token], "bad name")
        raise AssertionError("a bad topic name was accepted")
    except InvalidDataError:
        pass
    sent = push.notify_topic_subscribers(topic_name="pyfcm", data_message={"via": "pyfcm 1"})
    assert sent["success"] == 1 and sent["topic_message_id"], sent
    condition = push.notify_topic_subscribers(condition="'pyfcm' in topics", data_message={"via": "condition"})
    assert condition["success"] == 1, condition
    print(condition["topic_message_id"])


if __name__ == "__main__":
    main(*sys.argv[1:4])
