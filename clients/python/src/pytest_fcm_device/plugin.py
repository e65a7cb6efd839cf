"""The pytest plugin (entry point `pytest11`): the `fcm_emulator` and `fcm` fixtures.

Nothing starts unless a test asks for one of them, so the plugin costs nothing to a
suite that does not use it.
"""
import os

import pytest

from .client import FCM, Emulator
from .emulator import StartedEmulator, StartError, find_binary


def pytest_addoption(parser):
    group = parser.getgroup("fcm-device", "fcm-device (an emulated FCM phone)")
    group.addoption(
        "--fcm-device-binary", metavar="PATH",
        help="the fcm-device binary to start when the suite does not run under `fcm-device exec` "
             "(default: the fcm_device_binary ini setting, $FCM_DEVICE_BINARY, or fcm-device on PATH)")
    group.addoption(
        "--fcm-profile", metavar="PROFILE",
        help="the device profile (YAML) the started emulator runs (default: the fcm_profile ini "
             "setting, or the built-in device); under `fcm-device exec` its own --profile counts")
    group.addoption(
        "--fcm-device-arg", metavar="ARG", action="append", default=[],
        help="one more argument for the started emulator, e.g. --fcm-device-arg=--no-echo (repeatable)")
    parser.addini("fcm_device_binary", "the fcm-device binary to start (see --fcm-device-binary)")
    parser.addini("fcm_profile", "the device profile the started emulator runs, relative to the ini file")
    parser.addini("fcm_device_args", "more arguments for the started emulator", type="args", default=[])


def _setting(config, option, ini):
    """An option's value (relative to where pytest was started), else the ini
    setting's (relative to the ini file), else None."""
    value = config.getoption(option)
    base = config.invocation_params.dir
    if not value:
        value = config.getini(ini) or None
        base = config.inipath.parent if config.inipath else config.rootpath
    if value and (os.sep in value or value.endswith((".yaml", ".yml"))):
        value = str(base / os.path.expanduser(value))
    return value


def pytest_collection_modifyitems(session, config, items):
    """A suite that will ask for the emulator, with none in the environment and no
    binary to start, stops at once with one error (not one per test)."""
    if Emulator.from_environ() or not any({"fcm", "fcm_emulator"} & set(getattr(item, "fixturenames", ()))
                                          for item in items):
        return
    problem = None
    try:
        find_binary(_setting(config, "fcm_device_binary", "fcm_device_binary"))
    except StartError as error:
        problem = str(error)
    if problem:
        raise pytest.UsageError("fcm-device: %s" % problem)


def pytest_report_header(config):
    external = Emulator.from_environ()
    if external:
        return "fcm-device: %s (from the environment)" % external.control
    binary = _setting(config, "fcm_device_binary", "fcm_device_binary") or os.environ.get("FCM_DEVICE_BINARY")
    profile = _setting(config, "fcm_profile", "fcm_profile")
    return "fcm-device: started for the session when a test asks for it (%s%s)" % (
        binary or "fcm-device from PATH", ", profile %s" % profile if profile else "")


@pytest.fixture(scope="session")
def fcm_emulator(request, tmp_path_factory):
    """The emulator for the whole session: the one the environment names (the suite
    runs under `fcm-device exec`), or one started now with `fcm-device exec` and
    stopped at the end. Its variables (FCM_EMULATOR_*, and the proxy variables exec
    sets) are in os.environ meanwhile, as under exec."""
    external = Emulator.from_environ()
    if external:
        yield external
        return
    config = request.config
    problem = started = None
    try:
        binary = find_binary(_setting(config, "fcm_device_binary", "fcm_device_binary"))
        started = StartedEmulator(
            binary, str(tmp_path_factory.mktemp("fcm-device")), profile=_setting(config, "fcm_profile", "fcm_profile"),
            args=list(config.getini("fcm_device_args")) + config.getoption("fcm_device_arg"))
    except StartError as error:
        problem = str(error)
    if problem:
        # Outside the handler: said once, without the exception it came from.
        pytest.fail(problem, pytrace=False)
    saved = {name: os.environ.get(name) for name in started.env}
    os.environ.update(started.env)
    try:
        yield started.emulator
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        started.stop()
    problem = started.failure()
    if problem:
        pytest.fail(problem, pytrace=False)


@pytest.fixture
def fcm(fcm_emulator):
    """The emulator reset to its profile's start (`POST reset`) for this test: waits,
    expectations and `events()` see only what happens after the reset."""
    client = FCM(fcm_emulator)
    client.reset()
    return client
