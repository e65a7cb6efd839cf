"""The plugin, seen from a suite that uses it: what a failure prints, the emulator's
life, and the values it hands over."""
import json
import socket

import pytest

from pytest_fcm_device import Emulator, duration_seconds
from pytest_fcm_device.client import matches
from pytest_fcm_device.emulator import StartedEmulator


def test_a_wait_that_times_out_shows_the_events_of_that_name_that_did_happen(pytester, run):
    pytester.makepyfile("""
        def test_wait(fcm):
            fcm.act({"state": "background"})
            fcm.wait_for("appStateChanged", state="stopped", timeout="300ms")
    """)
    result = run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "E   *AssertionError: no appStateChanged state='stopped' within 300ms (since the reset, seq *)",
        "E   *1 appStateChanged event(s) since the reset, none with those fields:",
        'E   *seq * {"at":*,"side":"device","event":"appStateChanged","state":"background"}',
        'E   *differs: state="background" (wanted \'stopped\')',
    ])


def test_a_misspelt_field_or_event_is_refused_at_once_in_the_products_words(pytester, run):
    pytester.makepyfile("""
        import time

        def test_field(fcm):
            started = time.monotonic()
            try:
                fcm.wait_for("notificationPosted", titel="Dinner", timeout="30s")
            finally:
                assert time.monotonic() - started < 10, "the wait ran its course"

        def test_kind(fcm):
            fcm.wait_for("notificationPostd", timeout="30s")
    """)
    result = run()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines([
        "*notificationPosted has no field titel; did you mean title?*",
        '*no event is called "notificationPostd"; did you mean notificationPosted?*',
    ])


def test_a_wait_for_an_event_that_never_happened_shows_the_last_events(pytester, run):
    pytester.makepyfile("""
        def test_wait(fcm):
            fcm.act({"network": "offline"})
            fcm.wait_for("notificationPosted", timeout="200ms")
    """)
    result = run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "E   *no notificationPosted within 200ms (since the reset, seq *)",
        "E   *no notificationPosted since the reset; the last * event(s):",
        '*"event":"networkChanged"*',
    ])


def test_a_failed_expect_none_shows_the_apis_detail(pytester, run):
    pytester.makepyfile("""
        def test_none(fcm):
            fcm.act({"state": "background"})
            fcm.expect_none("appStateChanged", state="background")
    """)
    result = run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "E   *expect_none appStateChanged state=background did not hold: it happened: seq * appStateChanged*",
    ])


def test_the_session_has_one_emulator_reset_before_each_test_and_stopped_after(pytester, run):
    pytester.makepyfile("""
        import os

        def test_first(fcm, fcm_emulator):
            assert fcm_emulator.started
            assert os.environ["FCM_EMULATOR_CONTROL"] == fcm.control.base_url
            assert os.environ["HTTPS_PROXY"].endswith(fcm.host)
            with open("host.txt", "w") as out:
                out.write(fcm.host)
            assert fcm.token() == fcm.emulator.token
            fcm.act({"state": "background"})
            fcm.wait_for("appStateChanged", state="background")

        def test_second_sees_nothing_of_the_first(fcm):
            assert os.environ["FCM_EMULATOR_HOST"] == open("host.txt").read()
            fcm.expect_none("appStateChanged")
            assert fcm.device()["appState"] == "foreground"
            assert fcm.events(type="appStateChanged") == []
    """)
    result = run()
    result.assert_outcomes(passed=2)
    host, port = (pytester.path / "host.txt").read_text().split(":")
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection((host, int(port)), timeout=5).close()


def test_under_exec_the_environments_emulator_is_used(pytester, binary, tmp_path, monkeypatch):
    # Stands for `fcm-device exec -- pytest`: the variables are in the environment.
    emulator = StartedEmulator(binary, str(tmp_path))
    try:
        pytester.makepyfile("""
            import os

            def test_it(fcm, fcm_emulator):
                assert not fcm_emulator.started
                assert fcm.control.base_url == os.environ["FCM_EMULATOR_CONTROL"]
                assert fcm.token() == os.environ["FCM_EMULATOR_TOKEN"]
        """)
        with monkeypatch.context() as env:
            for name, value in emulator.env.items():
                env.setenv(name, value)
            result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
        result.assert_outcomes(passed=1)
        result.stdout.fnmatch_lines(["fcm-device: http://127.0.0.1:*/emulator/v1/projects/* (from the environment)"])
    finally:
        assert emulator.stop() == 0


def test_a_profile_expectation_that_fails_fails_the_session(pytester, run):
    pytester.makefile(".yaml", profile="""
        version: 1
        senders:
          - { id: "123456789012", key: a-key, project: a-project }
        timeline:
          - at: 0s
            expect: { event: notificationPosted }
    """)
    pytester.makepyfile("""
        def test_it(fcm):
            assert fcm.project == "a-project" and fcm.server_key == "a-key"
    """)
    result = run("--fcm-profile=profile.yaml")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines([
        "*the emulator ended with status 1:", "*expect notificationPosted*", "(it ran as: *fcm-device exec *)"])


def test_a_binary_that_is_not_there_is_named(pytester):
    pytester.makepyfile("""
        def test_it(fcm):
            pass

        def test_again(fcm):
            pass
    """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--fcm-device-binary=./no/fcm-device")
    # One clean error at the session's start, not one per test nor a chained traceback.
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*fcm-device: fcm-device binary */no/fcm-device does not exist or is not executable*"])
    text = result.stdout.str() + result.stderr.str()
    assert text.count("does not exist or is not executable") == 1, text
    assert "During handling" not in text


def test_fields_match_as_a_profiles_expect_matches_them():
    assert matches("background", "background")
    assert matches(3, "3") and matches(True, "true") and matches(True, True)
    assert matches(["0:1", "0:2"], "0:2")
    assert matches({"title": "Hi", "body": ""}, {"title": "Hi"})
    assert not matches({"title": "Hi"}, {"title": "Hi", "body": ""})
    assert matches(["a", "b"], ["a", "b"]) and not matches(["a", "b"], ["a"])
    assert matches("Dinner is ready", lambda text: text.startswith("Dinner"))


def test_durations():
    assert duration_seconds("250ms") == 0.25
    assert duration_seconds("5s") == duration_seconds(5) == 5
    assert duration_seconds("2m") == 120
    with pytest.raises(ValueError):
        duration_seconds("soon")


def test_the_environment_names_the_control_api():
    assert Emulator.from_environ({}) is None
    bare = Emulator.from_environ({"FCM_EMULATOR_HOST": "127.0.0.1:8085"})
    assert bare.control == "http://127.0.0.1:8085/emulator/v1/projects/demo-project"
    full = Emulator.from_environ({
        "FCM_EMULATOR_CONTROL": "http://127.0.0.1:1/emulator/v1/projects/p",
        "FCM_EMULATOR_TOKENS": json.dumps({"1": "t"}), "OTHER": "x"})
    assert full.tokens == {"1": "t"} and "OTHER" not in full.env


def test_the_fleets_steps_have_their_own_door_and_a_phones_door_names_it(pytester, run):
    pytester.makepyfile("""
        import pytest
        from pytest_fcm_device.client import ControlError

        def test_doors(fcm):
            events = fcm.act_on_fleet({"add_device": {"name": "tablet"}})
            assert [e["event"] for e in events][:1] == ["deviceAdded"], events
            assert [d["name"] for d in fcm.devices()][-1] == "tablet"
            with pytest.raises(ControlError) as refused:
                fcm.act("tablet", {"add_device": {"name": "watch"}})
            assert "add_device is the fleet's step, not tablet's: POST actions" in str(refused.value)
    """)
    run().assert_outcomes(passed=1)
