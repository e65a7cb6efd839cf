"""The plugin's own tests run suites in a child pytest (pytester), each with the
emulator the plugin starts. The plugin must be installed (pip install ./clients/python):
the child finds it by its entry point. The binary: $FCM_DEVICE_BINARY, else the
repository's debug build, else fcm-device on PATH."""
import os
import pathlib
import shutil

import pytest

pytest_plugins = ["pytester"]

REPOSITORY = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def binary():
    for candidate in (os.environ.get("FCM_DEVICE_BINARY"), str(REPOSITORY / ".build/debug/fcm-device"),
                      shutil.which("fcm-device")):
        if candidate and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    pytest.skip("no fcm-device binary: set FCM_DEVICE_BINARY or build it (swift build)")


@pytest.fixture(autouse=True)
def no_emulator_around(monkeypatch):
    """Hides an emulator these tests may run under (`fcm-device exec -- pytest`): the
    suites they run get their own unless a test says otherwise."""
    for name in list(os.environ):
        if name.startswith("FCM_EMULATOR_"):
            monkeypatch.delenv(name)


@pytest.fixture
def run(pytester, binary):
    """Runs the suite written in pytester's folder; the plugin starts its emulator."""

    def run(*args):
        return pytester.runpytest_subprocess("-p", "no:cacheprovider", "--fcm-device-binary=" + binary, *args)

    return run
