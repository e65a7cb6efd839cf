"""Starting an emulator for a suite that does not run under `fcm-device exec`.

It runs `fcm-device exec` itself around a small Python process that hands back the
environment exec gives it (FCM_EMULATOR_* and the proxy variables, exactly as a suite
under exec sees them) and then waits for its standard input to close. Closing it stops
the emulator: exec ends when its command does, and stops the emulator cleanly. If the
test process dies, the pipe closes all the same, so no emulator outlives the suite.
"""
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time

from .client import Emulator

# The command exec runs: the environment as one JSON line, then a wait for EOF.
HELPER = """\
import json, os, signal, sys
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
signal.signal(signal.SIGINT, signal.SIG_IGN)
sys.stdout.write(json.dumps(dict(os.environ)) + "\\n")
sys.stdout.flush()
try:
    sys.stdin.read()
except Exception:
    pass
"""


class StartError(Exception):
    """The emulator could not be started; the message says why, with its output."""


def find_binary(given=None):
    """The fcm-device binary: the one given (option, ini or FCM_DEVICE_BINARY), else PATH's."""
    name = given or os.environ.get("FCM_DEVICE_BINARY") or "fcm-device"
    if os.sep in name:
        if not os.access(name, os.X_OK):
            raise StartError("fcm-device binary %s does not exist or is not executable" % name)
        return os.path.abspath(name)
    found = shutil.which(name)
    if not found:
        raise StartError(
            "%s is not on PATH: give its path with --fcm-device-binary (or the fcm_device_binary ini "
            "setting, or FCM_DEVICE_BINARY), or run the suite under `fcm-device exec -- pytest …`" % name)
    return found


class StartedEmulator:
    """An emulator this process started (`fcm-device exec` around a helper)."""

    def __init__(self, binary, folder, profile=None, args=(), timeout=60.0):
        self.binary = binary
        self.folder = folder
        self.state = os.path.join(folder, "state")
        self.log = os.path.join(folder, "events.jsonl")
        self.stderr_path = os.path.join(folder, "fcm-device.stderr")
        os.makedirs(self.state, exist_ok=True)
        self.argv = [binary, "exec", "--state", self.state, "--log", self.log]
        if profile:
            self.argv += ["--profile", profile]
        self.argv += list(args) + ["--", sys.executable, "-c", HELPER]
        given = {k: v for k, v in os.environ.items() if not k.startswith("FCM_EMULATOR_")}
        self._stderr = open(self.stderr_path, "wb")
        self.process = subprocess.Popen(
            self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, env=given,
            start_new_session=True)
        try:
            line = self._first_line(timeout)
        except BaseException:
            self.stop()
            raise
        try:
            seen = json.loads(line)
        except ValueError:
            self.stop()
            raise StartError("%s: unexpected first line %r%s" % (self.command, line, self._stderr_text()))
        # What exec added or changed: the suite sees the same under exec.
        self.env = {k: v for k, v in seen.items() if given.get(k) != v}
        self.emulator = Emulator(self.env, started=True, state=self.state, log=self.log)
        self.status = None

    @property
    def command(self):
        return " ".join(self.argv[: self.argv.index("--")])

    def _first_line(self, timeout):
        deadline = time.monotonic() + timeout
        out = self.process.stdout.fileno()
        data = b""
        with selectors.DefaultSelector() as selector:
            selector.register(out, selectors.EVENT_READ)
            while b"\n" not in data:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise StartError("%s did not start within %ds%s" % (self.command, timeout, self._stderr_text()))
                if not selector.select(remaining):
                    continue
                chunk = os.read(out, 65536)
                if not chunk:
                    status = self.process.wait()
                    raise StartError("%s exited with status %s before it was ready%s" % (
                        self.command, status, self._stderr_text()))
                data += chunk
        return data.split(b"\n", 1)[0].decode()

    def _stderr_text(self):
        if not self._stderr.closed:
            self._stderr.flush()
        try:
            with open(self.stderr_path, errors="replace") as stderr:
                text = stderr.read().strip()
        except OSError:
            text = ""
        return (":\n" + text) if text else ""

    def stop(self, timeout=30.0):
        """Closes the helper's input, so exec stops the emulator and ends; signals only
        this process if it does not. Its exit status (1: a profile `expect` failed)."""
        process = self.process
        if process.poll() is None:
            try:
                process.stdin.close()
            except OSError:
                pass
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        for stream in (process.stdin, process.stdout, self._stderr):
            try:
                stream.close()
            except (OSError, ValueError):
                pass
        self.status = process.returncode
        return self.status

    def failure(self):
        """Why the emulator's end counts as a failure, or None."""
        if self.status in (0, None):
            return None
        return "the emulator ended with status %s%s\n(it ran as: %s)" % (self.status, self._stderr_text(), self.command)
