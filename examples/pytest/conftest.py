"""A pytest fixture on fcm-device's control API (run under `fcm-device exec`)."""
import os

import pytest
import requests


class Phone:
    """The emulated phone, reset before each test."""

    def __init__(self):
        self.control = os.environ["FCM_EMULATOR_CONTROL"]
        reply = requests.post(self.control + "/reset", timeout=10)
        reply.raise_for_status()
        self.after = reply.json()["last"]
        device = requests.get(self.control + "/devices", timeout=10).json()["devices"][0]
        self.token = device["tokens"][os.environ["FCM_EMULATOR_SENDER"]]

    def act(self, action):
        """One action in the profile's step syntax, e.g. {"state": "background"}."""
        reply = requests.post(self.control + "/devices/default/actions", json=action, timeout=10)
        reply.raise_for_status()
        return reply.json()["events"]

    def fault(self, fault):
        requests.post(self.control + "/faults", json=fault, timeout=10).raise_for_status()

    def wait_for(self, event, timeout="5s", **fields):
        """The first event of this name (and fields) since the reset; fails after `timeout`."""
        params = dict(fields, type=event, after=self.after, wait=timeout, limit=1)
        found = requests.get(self.control + "/events", params=params, timeout=70).json()["events"]
        assert found, "no %s %s within %s" % (event, fields, timeout)
        return found[0]


@pytest.fixture
def phone():
    return Phone()
