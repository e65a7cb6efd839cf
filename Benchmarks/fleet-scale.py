#!/usr/bin/env python3
"""A big fleet in `serve`, measured: for each size N (default 100,000 and 1,000,000),

  fresh    start on an empty state folder: seconds to ready (the last phone has its
           token, asked through the control API), resident memory once idle, the
           peak on the way (VmHWM), the state file's size, seconds to stop on SIGTERM;
  resumed  the same, on the state the fresh run left, and 300 legacy sends one after
           another to the last phone (median and 90th percentile: one call to one phone);
  fan-out  every phone subscribed to a topic (IID batchAdd, 1,000 tokens a call),
           then one legacy send to the topic: seconds to the HTTP answer and to the
           last delivery event on stdout (when the log last grew, watched by its size;
           `--read-lines` reads every line as it comes instead), and what a control API read and a send to
           one phone take while the copies go out; then the stop (which leaves the million
           changed phones to the journal) and a resume of that fleet (which replays it).
  rows     the same on a fresh fleet with a checkpoint after every call
           (`--checkpoint-every 1`): the send's answer waits for a checkpoint that
           writes a row for every phone; the resume reads them all back.

Run on purpose, with a release build (figures vary with the machine; run it several
times and report ranges):

    swift build -c release --product fcm-device
    Benchmarks/fleet-scale.py [--binary .build/release/fcm-device] [N ...] [--no-fan-out] [--no-rows]
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request

SENDER = "123456789012"
READ_LINES = False
KEY = "fleet-key"


def kib(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def request(port, path, body=None, headers=None, timeout=600):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, headers=headers or {})
    if data is not None:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=timeout) as answer:
        return json.loads(answer.read() or b"{}")


class Serve:
    def __init__(self, binary, profile, state, out, fresh, extra=()):
        self.state = state
        self.started = time.monotonic()
        args = [binary, "serve", "--no-device-limits", "--profile", profile, "--state", state, "--http-port", "0", "--ccs-port", "0",
                "--ccs-plain-port", "0", "--no-echo", *extra]
        if fresh:
            args.append("--fresh")
        self.out = open(out, "w")
        self.process = subprocess.Popen(args, stdout=self.out, stderr=subprocess.STDOUT)
        self.port = None

    def wait_ready(self, last_phone):
        running = os.path.join(self.state, "fleet.running.json")
        while True:
            if self.process.poll() is not None:
                raise SystemExit(f"serve ended with {self.process.returncode}")
            if self.port is None and os.path.exists(running):
                try:
                    self.port = json.load(open(running))["http"]
                except (ValueError, KeyError):
                    pass
            if self.port is not None:
                try:
                    phone = request(self.port, f"/emulator/v1/projects/{SENDER}/devices/{last_phone}", timeout=60)
                    if phone.get("tokens"):
                        return time.monotonic() - self.started
                except OSError:
                    pass
            time.sleep(0.05)

    def stop(self):
        began = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        self.process.wait()
        self.out.close()
        return time.monotonic() - began


def state_bytes(state):
    return sum(os.path.getsize(os.path.join(state, name)) for name in os.listdir(state) if "sqlite" in name)


def measure(serve, last_phone, settle):
    ready = serve.wait_ready(last_phone)
    time.sleep(settle)
    pid = serve.process.pid
    return {"ready_s": round(ready, 2), "rss_mib": round(kib(pid, "VmRSS") / 1024, 1),
            "peak_mib": round(kib(pid, "VmHWM") / 1024, 1)}


def tokens_from(out):
    tokens = []
    with open(out) as lines:
        for line in lines:
            if '"onNewToken"' in line:
                tokens.append(json.loads(line)["token"])
    return tokens


def run(binary, count, do_fan_out, do_rows, settle):
    work = tempfile.mkdtemp(prefix="fleet-scale-")
    try:
        profile = os.path.join(work, "fleet.yaml")
        with open(profile, "w") as text:
            text.write(f"version: 1\ndevices: {{ count: {count}, like: {{ name: phone, seed: 3 }} }}\n"
                       f"senders: [ {{ id: \"{SENDER}\", key: {KEY} }} ]\n")
        state = os.path.join(work, "state")
        last = f"phone-{count}" if count > 1 else "phone"
        report = {"phones": count}
        serve = Serve(binary, profile, state, os.path.join(work, "fresh.txt"), fresh=True)
        report["fresh"] = measure(serve, last, settle)
        report["fresh"]["state_mib"] = round(state_bytes(state) / 2**20, 1)
        report["fresh"]["stop_s"] = round(serve.stop(), 2)
        serve = Serve(binary, profile, state, os.path.join(work, "resumed.txt"), fresh=False)
        report["resumed"] = measure(serve, last, settle)
        report["resumed"].update(unicast(serve, os.path.join(work, "fresh.txt"), last))
        if do_fan_out:
            serve.stop()
            # The tokens are in the fresh run's output; the resumed fleet has the same.
            serve = Serve(binary, profile, state, os.path.join(work, "fan.txt"), fresh=False)
            serve.wait_ready(last)
            report["fan_out"] = fan_out(serve, os.path.join(work, "fresh.txt"), os.path.join(work, "fan.txt"), count)
            report["fan_out"]["rss_mib"] = round(kib(serve.process.pid, "VmRSS") / 1024, 1)
            report["fan_out"]["stop_s"] = round(serve.stop(), 2)
            report["fan_out"]["state_mib"] = round(state_bytes(state) / 2**20, 1)
            serve = Serve(binary, profile, state, os.path.join(work, "after.txt"), fresh=False)
            report["resumed_after_fan_out"] = measure(serve, last, settle)
            report["resumed_after_fan_out"]["stop_s"] = round(serve.stop(), 2)
        else:
            report["resumed"]["stop_s"] = round(serve.stop(), 2)
        if do_rows:
            report["rows"] = rows_phase(binary, profile, os.path.join(work, "rows"), work, count, last, settle)
        return report
    finally:
        shutil.rmtree(work, ignore_errors=True)


def rows_phase(binary, profile, state, work, count, last, settle):
    """A checkpoint after every call: the topic message's answer waits for a row of
    every phone to be written, and the resume reads them all."""
    fresh = os.path.join(work, "rows-fresh.txt")
    serve = Serve(binary, profile, state, fresh, fresh=True, extra=["--checkpoint-every", "1"])
    serve.wait_ready(last)
    report = fan_out(serve, fresh, fresh, count)
    report["stop_s"] = round(serve.stop(), 2)
    report["state_mib"] = round(state_bytes(state) / 2**20, 1)
    serve = Serve(binary, profile, state, os.path.join(work, "rows-after.txt"), fresh=False)
    report["resumed"] = measure(serve, last, settle)
    serve.stop()
    return report


def fan_out(serve, tokens_file, out, count):
    tokens = tokens_from(tokens_file)
    assert len(tokens) == count, f"{len(tokens)} tokens for {count} phones"
    began = time.monotonic()
    for start in range(0, len(tokens), 1000):
        request(serve.port, "/iid/v1:batchAdd", {"to": "/topics/all", "registration_tokens": tokens[start:start + 1000]},
                {"Authorization": "key=" + KEY})
    subscribed = time.monotonic() - began
    with open(out) as log:
        log.seek(0, os.SEEK_END)
        mark = log.tell()
    began = time.monotonic()
    answer = request(serve.port, "/fcm/send", {"to": "/topics/all", "data": {"n": "1"}}, {"Authorization": "key=" + KEY})
    answered = time.monotonic() - began
    # Other doors while the copies go out: a control API read and a send to one phone.
    during = time.monotonic()
    request(serve.port, f"/emulator/v1/projects/{SENDER}/devices/phone-1")
    read_during = time.monotonic() - during
    during = time.monotonic()
    request(serve.port, "/fcm/send", {"to": tokens[0], "data": {"n": "one"}}, {"Authorization": "key=" + KEY})
    send_during = time.monotonic() - during
    if READ_LINES:
        last = read_deliveries(out, mark, count)
    else:
        last = watch_log(out, mark, count)
    return {"subscribe_s": round(subscribed, 1), "answered_s": round(answered, 2),
            "read_during_s": round(read_during, 3), "send_during_s": round(send_during, 3),
            "last_delivery_s": round(last - began, 2), "answer_ok": "message_id" in answer}


def count_deliveries(text):
    return sum(1 for line in text.split("\n") if '"onMessageReceived"' in line and '"/topics/all"' in line)


def read_deliveries(out, mark, count):
    """A consumer reading every line as it comes (it shares the machine's cores with
    the server): the moment it has read the last delivery."""
    delivered = 0
    with open(out) as log:
        log.seek(mark)
        pending = ""
        while delivered < count:
            chunk = log.read(1 << 20)
            if not chunk:
                time.sleep(0.01)
                continue
            pending += chunk
            lines = pending.split("\n")
            pending = lines.pop()
            delivered += sum(1 for line in lines if '"onMessageReceived"' in line and '"/topics/all"' in line)
    return time.monotonic()


def watch_log(out, mark, count, quiet=0.5, limit=120):
    """The moment the log last grew, watched by its size alone (a stat every 5 ms, so
    the watcher takes no core from the server); once it has been quiet for `quiet`
    seconds the deliveries are counted, and the watch goes on if any is missing."""
    began = time.monotonic()
    size, grew = os.path.getsize(out), time.monotonic()
    while time.monotonic() - began < limit:
        time.sleep(0.005)
        now_size = os.path.getsize(out)
        if now_size != size:
            size, grew = now_size, time.monotonic()
        elif time.monotonic() - grew >= quiet:
            with open(out) as log:
                log.seek(mark)
                if count_deliveries(log.read()) >= count:
                    return grew
            grew = time.monotonic()
    raise SystemExit(f"fewer than {count} deliveries on the log after {limit} s")


def unicast(serve, tokens_file, last_phone, sends=300):
    """Legacy sends one after another to the last phone: what one call to one phone costs."""
    with open(tokens_file) as lines:
        # With one phone, events name no device.
        token = next(json.loads(line)["token"] for line in lines
                     if '"onNewToken"' in line and (f'"device":"{last_phone}"' in line or '"device":' not in line))
    times = []
    for n in range(sends):
        began = time.monotonic()
        request(serve.port, "/fcm/send", {"to": token, "data": {"n": str(n)}}, {"Authorization": "key=" + KEY})
        times.append(time.monotonic() - began)
    times.sort()
    return {"send_median_ms": round(times[len(times) // 2] * 1000, 2), "send_p90_ms": round(times[len(times) * 9 // 10]
                                                                                            * 1000, 2)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sizes", nargs="*", type=int, default=[100_000, 1_000_000])
    parser.add_argument("--binary", default=".build/release/fcm-device")
    parser.add_argument("--no-fan-out", action="store_true")
    parser.add_argument("--no-rows", action="store_true", help="leave out the phase with a checkpoint every call")
    parser.add_argument("--settle", type=float, default=2.0, help="seconds idle before memory is read")
    parser.add_argument("--read-lines", action="store_true",
                        help="time the fan-out by reading every line as it comes (the reader shares the cores) "
                        "instead of by the log's size")
    options = parser.parse_args()
    global READ_LINES
    READ_LINES = options.read_lines
    for count in options.sizes:
        print(json.dumps(run(options.binary, count, not options.no_fan_out, not options.no_rows, options.settle)),
              flush=True)


if __name__ == "__main__":
    main()
