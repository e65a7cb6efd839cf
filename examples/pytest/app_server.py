"""Stands for the app server under test: notifications over FCM's legacy HTTP API,
retried when the service answers 503 (honouring Retry-After, a few times at most)."""
import os
import time

import requests


class Notifier:
    def __init__(self, host=None, server_key=None, attempts=3):
        self.url = "http://%s/fcm/send" % (host or os.environ["FCM_EMULATOR_HOST"])
        self.key = server_key or os.environ["FCM_EMULATOR_SERVER_KEY"]
        self.attempts = attempts

    def notify(self, token, title, body=""):
        """Sends a notification; the message id, after retrying 503s."""
        for attempt in range(self.attempts):
            reply = requests.post(self.url, timeout=10, json={
                "to": token, "notification": {"title": title, "body": body}},
                headers={"Authorization": "key=" + self.key})
            if reply.status_code == 503 and attempt + 1 < self.attempts:
                time.sleep(min(float(reply.headers.get("Retry-After", "1")), 5))
                continue
            reply.raise_for_status()
            result = reply.json()["results"][0]
            if "error" in result:
                raise RuntimeError(result["error"])
            return result["message_id"]
        raise RuntimeError("FCM stayed unavailable")
