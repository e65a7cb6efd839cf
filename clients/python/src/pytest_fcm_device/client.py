"""fcm-device's control API, with the standard library only.

`Emulator` is where an emulator runs (the variables `fcm-device exec` sets); `FCM` is
one test's view of it: reset, then waits, expectations, actions and faults, each
failure saying what happened instead. docs/control-api.md describes the API.
"""
import json
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request

__all__ = ["ControlError", "Emulator", "FCM", "duration_seconds"]

# The fields GET events filters on itself; any other field is compared here.
API_FIELDS = ("token", "id", "topic", "sender", "from", "side")
# The longest wait the control API takes in one call.
MAX_WAIT = 60.0
# How many events a failure message shows.
SHOWN = 12

_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def duration_seconds(value):
    """`5s`, `250ms`, `2m`, `1.5s` or a number of seconds, in seconds."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value)
    else:
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*", str(value))
        if not match:
            raise ValueError("a duration is 5s, 250ms, 2m or a number of seconds, not %r" % (value,))
        seconds = float(match.group(1)) * _UNITS[match.group(2) or "s"]
    if seconds < 0:
        raise ValueError("a duration cannot be negative: %r" % (value,))
    return seconds


def _text(value):
    """A value as the event log writes it, for comparing by text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True)
    return str(value)


def matches(actual, wanted):
    """Whether a field's value matches, as a profile's `expect` matches it: a single
    value by its text (or a list that contains it), a list exactly, a mapping by the
    pairs it names; a callable is asked."""
    if callable(wanted):
        return bool(wanted(actual))
    if isinstance(wanted, dict):
        return isinstance(actual, dict) and all(k in actual and matches(actual[k], v) for k, v in wanted.items())
    if isinstance(wanted, (list, tuple)):
        return (isinstance(actual, list) and len(actual) == len(wanted)
                and all(matches(a, w) for a, w in zip(actual, wanted)))
    if isinstance(actual, list):
        return any(_text(item) == _text(wanted) for item in actual)
    return _text(actual) == _text(wanted)


def _field_names(fields):
    """Keyword names to event field names: `from_` is `from`."""
    return {("from" if name == "from_" else name): value for name, value in fields.items()}


def _show(value):
    """A wanted value as a message shows it."""
    return getattr(value, "__name__", "<callable>") if callable(value) else repr(value)


def _describe(event, fields):
    """`notificationPosted id='0:1' title='Hi'`."""
    return " ".join([event] + ["%s=%s" % (name, _show(value)) for name, value in fields.items()])


def format_event(event):
    """One event as a line: its sequence number, then the JSON the log holds."""
    rest = {k: v for k, v in event.items() if k != "seq"}
    return "seq %s %s" % (event.get("seq", "?"), json.dumps(rest, separators=(",", ":")))


class ControlError(Exception):
    """The control API refused a call (4xx) or could not be reached; the message is its own."""

    def __init__(self, method, url, status, message):
        super().__init__("%s %s: %s%s" % (method, url, "%s " % status if status else "", message))
        self.method = method
        self.url = url
        self.status = status
        self.message = message


class Control:
    """Calls on one control API base URL (`FCM_EMULATOR_CONTROL`), JSON in and out.
    Never through a proxy: the emulator is local, and HTTPS_PROXY may point at it."""

    def __init__(self, base_url, timeout=10.0):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def call(self, method, route, body=None, params=None, timeout=None):
        __tracebackhide__ = True
        url = self.base_url + "/" + route
        if params:
            url += "?" + urllib.parse.urlencode([(k, v) for k, v in params.items() if v is not None])
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with self._opener.open(request, timeout=timeout or self.timeout) as reply:
                text = reply.read().decode()
        except urllib.error.HTTPError as error:
            text = error.read().decode(errors="replace")
            try:
                message = json.loads(text)["error"]["message"]
            except (ValueError, KeyError, TypeError):
                message = text
            raise ControlError(method, url, error.code, message) from None
        except (urllib.error.URLError, OSError) as error:
            raise ControlError(method, url, None, "cannot reach the control API: %s" % (
                getattr(error, "reason", None) or error,)) from None
        return json.loads(text) if text else {}

    def get(self, route, **params):
        __tracebackhide__ = True
        return self.call("GET", route, params=params)

    def post(self, route, body=None, params=None, timeout=None):
        __tracebackhide__ = True
        return self.call("POST", route, body=body if body is not None else {}, params=params, timeout=timeout)


class Emulator:
    """Where an emulator runs, as `fcm-device exec` tells a suite: `env` holds the
    variables it sets (FCM_EMULATOR_* and the proxy variables of `fcm-device env`),
    and each FCM_EMULATOR_* variable is an attribute too."""

    def __init__(self, env, started=False, state=None, log=None):
        self.env = dict(env)
        self.started = started
        self.state = state
        self.log = log
        self.control = env["FCM_EMULATOR_CONTROL"]
        self.host = env.get("FCM_EMULATOR_HOST")
        self.project = env.get("FCM_EMULATOR_PROJECT")
        self.sender = env.get("FCM_EMULATOR_SENDER")
        self.server_key = env.get("FCM_EMULATOR_SERVER_KEY")
        self.token = env.get("FCM_EMULATOR_TOKEN")
        self.tokens = json.loads(env.get("FCM_EMULATOR_TOKENS") or "{}")
        self.device_tokens = json.loads(env.get("FCM_EMULATOR_DEVICE_TOKENS") or "{}")
        self.ccs_host = env.get("FCM_EMULATOR_CCS_HOST")
        self.ccs_plain_host = env.get("FCM_EMULATOR_CCS_PLAIN_HOST")
        self.ca = env.get("FCM_EMULATOR_CA")
        self.credentials = env.get("FCM_EMULATOR_CREDENTIALS")

    @classmethod
    def from_environ(cls, environ=None):
        """The emulator the environment names (a suite under `fcm-device exec`), or None.
        With only FCM_EMULATOR_HOST (a `serve` started by hand), the control API is
        that host's, for FCM_EMULATOR_PROJECT (or FCM_EMULATOR_SENDER; by default the
        built-in device's demo-project)."""
        environ = os.environ if environ is None else environ
        env = {k: v for k, v in environ.items() if k.startswith("FCM_EMULATOR_")}
        if "FCM_EMULATOR_CONTROL" not in env:
            host = env.get("FCM_EMULATOR_HOST")
            if not host:
                return None
            project = env.get("FCM_EMULATOR_PROJECT") or env.get("FCM_EMULATOR_SENDER") or "demo-project"
            env["FCM_EMULATOR_CONTROL"] = "http://%s/emulator/v1/projects/%s" % (host, project)
        return cls(env)

    def __repr__(self):
        return "<Emulator %s%s>" % (self.control, " (started by the plugin)" if self.started else "")


class FCM:
    """One test's view of the emulator: `reset()` (the fixture calls it), then
    everything waits for and judges only what happened after that reset."""

    def __init__(self, emulator, timeout=10.0):
        self.emulator = emulator if isinstance(emulator, Emulator) else Emulator({"FCM_EMULATOR_CONTROL": emulator})
        self.control = Control(self.emulator.control, timeout=timeout)
        self.after = 0

    def __getattr__(self, name):
        # The emulator's facts read off the test's view too: fcm.host, fcm.server_key, …
        if name.startswith("_") or name == "emulator":
            raise AttributeError(name)
        return getattr(self.emulator, name)

    # Reset

    def reset(self):
        """`POST reset`: the profile's start again; waits see only what follows."""
        __tracebackhide__ = True
        reply = self.control.post("reset")
        self.after = reply["last"]
        return reply

    # Phones

    def devices(self):
        """Every phone, as `GET devices` shows it."""
        __tracebackhide__ = True
        return self.control.get("devices")["devices"]

    def device(self, name="default"):
        """One phone (`default` is the only one, on a device of one), as `GET
        devices/NAME` shows it; on a fleet, name the phone."""
        __tracebackhide__ = True
        return self.control.get("devices/" + urllib.parse.quote(name, safe=""))

    def token(self, device=None, sender=None):
        """A phone's current token for a sender: by default the only phone's (a
        fleet's phones are named), for FCM_EMULATOR_SENDER (or the phone's first
        sender)."""
        __tracebackhide__ = True
        tokens = self.device(device or "default")["tokens"]
        if sender is None:
            sender = self.emulator.sender if self.emulator.sender in tokens else next(iter(tokens), None)
        if sender not in tokens:
            raise ControlError("GET", "devices/%s" % (device or "default"), None,
                               "the phone has no sender %s; its senders are %s" % (sender, ", ".join(tokens)))
        return tokens[sender]

    def act(self, device, action=None):
        """One of a phone's steps, in the profile's step syntax: `act("pixel", {"network":
        "offline"})`, or `act({"state": "background"})` on a device of one phone. The
        events it caused. The fleet's steps go to `act_on_fleet`."""
        __tracebackhide__ = True
        if action is None:
            device, action = "default", device
        route = "devices/%s/actions" % urllib.parse.quote(device or "default", safe="")
        return self.control.post(route, action)["events"]

    def act_on_fleet(self, action):
        """One of the fleet's steps (`POST actions`), in the profile's step syntax: a
        phone joining (`{"add_device": {"name": "tablet"}}`), the service, a fault, a
        push to a topic or a list of devices. The events it caused."""
        __tracebackhide__ = True
        return self.control.post("actions", action)["events"]

    def fault(self, fault=None, **fields):
        """`POST faults`: `fault(path="/fcm/send", status=503, retry_after=1, count=1)`
        or the same as a dict. The events it caused (`faultAdded`)."""
        __tracebackhide__ = True
        body = dict(fault or {}, **fields)
        return self.control.post("faults", body)["events"]

    def faults(self):
        """The faults not used up."""
        __tracebackhide__ = True
        return self.control.get("faults")["faults"]

    def clear_faults(self):
        __tracebackhide__ = True
        return self.control.call("DELETE", "faults")["events"]

    # The event log

    def events(self, type=None, after=None, **fields):
        """Every event since the reset (or `after`), of these types (a name or a list),
        with these fields."""
        __tracebackhide__ = True
        fields = _field_names(fields)
        params, local = self._split(fields)
        if isinstance(type, (list, tuple)):
            type = ",".join(type)
        cursor = self.after if after is None else after
        found = []
        while True:
            reply = self.control.get("events", type=type, after=cursor, limit=1000, **params)
            batch = reply["events"]
            found += [e for e in batch if self._local_match(e, local)]
            if len(batch) < 1000:
                return found
            cursor = batch[-1]["seq"]

    def wait_for(self, event, timeout="5s", device=None, after=None, **fields):
        """The first `event` since the reset (or `after`) with these fields, waited for
        up to `timeout` (a long poll: it answers as soon as the event happens). Fields
        the API filters on (token, id, topic, sender, from, side) go to it; the others
        (title, data, device, …) are compared here, as an `expect` compares them; a
        field may also be a callable. `from` is spelt `from_`. Fails with the events of
        that name that did happen (or the last events) when none comes."""
        __tracebackhide__ = True
        fields = _field_names(fields)
        if device is not None:
            fields["device"] = device
        params, local = self._split(fields)
        start = self.after if after is None else after
        cursor = start
        seconds = duration_seconds(timeout)
        deadline = time.monotonic() + seconds
        while True:
            remaining = deadline - time.monotonic()
            wait = min(remaining, MAX_WAIT)
            # The field names go along, so the emulator refuses one the event never
            # carries at once, in its own words, instead of a wait that cannot end.
            query = dict(params, type=event, after=cursor, limit=1000, fields=",".join(fields))
            if wait > 0:
                query["wait"] = "%dms" % max(1, int(wait * 1000))
            reply = self.control.call("GET", "events", params=query, timeout=max(wait, 0) + self.control.timeout)
            for found in reply["events"]:
                cursor = max(cursor, found["seq"])
                if self._local_match(found, local):
                    return found
            if remaining <= 0:
                break
        raise AssertionError(self._not_found(event, fields, timeout, start))

    def expect(self, event, timeout="5s", **fields):
        """`POST expectations` with `expect`: holds when such an event happened since
        the reset (or happens within `timeout`) and no earlier `expect` claimed it;
        fails with the API's `detail`. The reply (`seq` is the event's)."""
        __tracebackhide__ = True
        return self._judge("expect", event, fields, timeout)

    def expect_none(self, event, **fields):
        """`POST expectations` with `expect_none`: holds when no such event happened
        since the reset; fails with the API's `detail` (the event that did)."""
        __tracebackhide__ = True
        return self._judge("expect_none", event, fields, None)

    # Helpers

    @staticmethod
    def _split(fields):
        """The fields the API filters on (plain values), and the rest."""
        params, local = {}, {}
        for name, value in fields.items():
            if name in API_FIELDS and isinstance(value, (str, int)) and not isinstance(value, bool):
                params[name] = str(value)
            else:
                local[name] = value
        return params, local

    def _local_match(self, event, local):
        for name, wanted in local.items():
            if name == "device":
                if not self._on_device(event, wanted):
                    return False
            elif name not in event or not matches(event[name], wanted):
                return False
        return True

    def _on_device(self, event, wanted):
        """An event names its phone only when there are several: one without `device`
        is the only phone's, which `default` (or its name) names."""
        if wanted == "default":
            wanted = self._only_name()
        if "device" in event:
            return matches(event["device"], wanted)
        return event.get("side") == "device" and wanted == self._only_name()

    def _only_name(self):
        """The name of the only phone; a fleet's phones are named, never implied."""
        __tracebackhide__ = True
        if not hasattr(self, "_only"):
            names = [d["name"] for d in self.devices()]
            if len(names) != 1:
                raise ControlError("GET", "devices", None,
                                   "this emulator runs %d phones, so default names none of them; name one: %s"
                                   % (len(names), ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")))
            self._only = names[0]
        return self._only

    def _judge(self, kind, event, fields, timeout):
        __tracebackhide__ = True
        fields = _field_names(fields)
        if fields.get("device") == "default":
            fields["device"] = self._only_name()
        body = {kind: dict(fields, event=event)}
        params = {"after": self.after}
        wait = 0.0
        if timeout is not None:
            wait = min(duration_seconds(timeout), MAX_WAIT)
            params["wait"] = "%dms" % int(wait * 1000)
        reply = self.control.post("expectations", body, params=params, timeout=wait + self.control.timeout)
        if not reply.get("held"):
            raise AssertionError("%s did not hold: %s" % (reply.get("expect", kind + " " + event),
                                                         reply.get("detail", "(no detail)")))
        return reply

    def _not_found(self, event, fields, timeout, start):
        """A failed wait's message: what was wanted, then what happened instead."""
        since = "since the reset" if start == self.after else "after seq %d" % start
        lines = ["no %s within %s (%s, seq %d)" % (_describe(event, fields), timeout, since, start)]
        try:
            same = self.control.get("events", type=event, after=start, limit=1000)["events"]
            if same:
                lines.append("%d %s event(s) %s, none with those fields:" % (len(same), event, since))
                if len(same) > SHOWN:
                    lines.append("  … %d earlier" % (len(same) - SHOWN))
                for found in same[-SHOWN:]:
                    lines.append("  " + format_event(found))
                    differ = self._differences(found, fields)
                    if differ:
                        lines.append("      differs: " + differ)
            else:
                last = self.control.get("events", after=start, limit=1)["last"]
                recent = self.control.get("events", after=max(start, last - SHOWN), limit=SHOWN)["events"]
                if recent:
                    lines.append("no %s %s; the last %d event(s):" % (event, since, len(recent)))
                    lines += ["  " + format_event(found) for found in recent]
                else:
                    lines.append("no event at all %s" % since)
        except ControlError as error:
            lines.append("(and the event log could not be read: %s)" % error)
        return "\n".join(lines)

    def _differences(self, event, fields):
        out = []
        for name, wanted in fields.items():
            if name == "device":
                ok = self._on_device(event, wanted)
            else:
                ok = name in event and matches(event[name], wanted)
            if not ok:
                got = "(none)" if name not in event else json.dumps(event[name])
                out.append("%s=%s (wanted %s)" % (name, got, _show(wanted)))
        return ", ".join(out)
