"""The suite's own fixture: the app server under test, pointed at the emulator.

The emulator itself, and its reset before each test, come from the pytest-fcm-device
plugin (clients/python): its `fcm` fixture."""
import pytest

from app_server import Notifier


@pytest.fixture
def notifier(fcm):
    """The app server, sending to the emulator with the first sender's server key."""
    return Notifier(host=fcm.host, server_key=fcm.server_key)
