#!/usr/bin/env python3
"""Where a message's time goes on the serving path: `perf` samples of `fcm-device serve`
under load, put into parts (the journal, the event log, the engine, reading the request,
the socket, ...) and given as microseconds of CPU per message, for each build named, so
two builds' costs can be read side by side (issue 54's "find the cost first").

    Benchmarks/serving-profile.py KIND BINARY [BINARY ...]

KIND is `legacy` or `v1` (HTTP sends from wrk, 32 connections, one thread) or `ccs`
(downstream messages on one plain CCS connection from xmpp-load, which it builds when
`XMPP_LOAD` is not set). Each sample is put in the part of the innermost frame that names
one; the others fall under "other". A part's
figure is its samples over the sampling rate, divided by the messages served while
`perf` recorded. Run it with release builds, on purpose, never in tests; the figures
move with the machine, so compare builds measured in the same run. It needs `perf`,
`wrk` and `curl`. A build older than `--no-device-limits` (such as c09d172) needs a
wrapper that drops the flag. For `ccs` the whole run of `serve` is recorded, its start
included. Samples in the C library's allocator carry no chain of callers, so they fall
under "other". One run's totals move by about a tenth: a difference of a microsecond or
two between builds is a lead, not a finding.
"""

import collections
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

RATE = 999
SECONDS = 6
CCS_MESSAGES = 100_000

COMMON = [
    ("report card", r"ReportCard"),
    ("event log", r"EventLog|TranscriptFormatter|LineWriter"),
    ("journal", r"JournalWriter|GRDB|sqlite3|InputCoding|ByteWriter"),
    ("engine", r"DeviceEngine"),
]
PARTS = {
    "http": COMMON + [
        ("request read", r"LegacySendReader|JSONParser|V1MessageReader|FCMLegacyFields"),
        ("reply made", r"LegacyReply"),
        ("authentication", r"HTTPAuthenticator"),
        ("socket write", r"writev|flushNow"),
        ("socket read", r"__libc_read|\bread\b"),
        ("send service", r"HTTPSendService"),
        ("session (submit, gateway)", r"DeviceHost|FCMSession|EngineBox|SharedBox"),
        ("send handler", r"DirectSendHandler|LoopReleases"),
        ("HTTP parse and codec", r"llhttp|HTTPDecoder|HTTPResponseEncoder|NIOHTTPTypes|HTTPFields|HTTPTypes"),
        ("waiting (epoll, futex)", r"epoll_wait|futex_wait"),
    ],
    "ccs": COMMON + [
        ("request read", r"CCSReader|JSONParser|FCMLegacyFields"),
        ("ack made and written", r"CCSOutbound|CCSConnectionC5write|writev|flushNow"),
        ("XML and XMPP session", r"FCMXMPP|XMLStream|XMPPSession"),
        ("session (submit)", r"DeviceHost|FCMSession|EngineBox|SharedBox"),
        ("CCS connection, flush gate", r"CCSConnection|DurableFlushGate|LoopReleases"),
        ("waiting (epoll, futex)", r"epoll_wait|futex_wait"),
    ],
}


def stop(serve):
    serve.send_signal(signal.SIGTERM)
    try:
        serve.wait(timeout=30)
    except subprocess.TimeoutExpired:
        serve.kill()
        serve.wait()


def start_serve(binary, work):
    """`serve` on free ports, with its HTTP port and first token; stopped on any failure."""
    path = os.path.join(work, "log")
    with open(path, "w") as log:
        serve = subprocess.Popen([binary, "serve", "--no-device-limits", "--ccs-port", "0", "--ccs-plain-port", "0",
                                  "--http-port", "0", "--state", os.path.join(work, "state")], stdout=log)
    try:
        for _ in range(200):
            with open(path) as log:
                text = log.read()
            port = re.search(r'"http":(\d+)', text)
            token = re.search(r'"onNewToken".*?"token":"([^"]+)"', text)
            if port and token:
                return serve, port.group(1), token.group(1)
            time.sleep(0.05)
        raise RuntimeError(f"{binary} did not start in 10 s (its log: {path})")
    except BaseException:
        stop(serve)
        raise


def http_script(kind, binary, work, port, token):
    if kind == "legacy":
        body = '{"to":"%s","data":{"score":"1-0"}}' % token
        headers = {"Authorization": "key=demo-server-key"}
        path = "/fcm/send"
    else:
        assertion = subprocess.run([binary, "credentials", "--state", os.path.join(work, "state"), "--assertion"],
                                   capture_output=True, text=True, check=True).stdout.strip()
        grant = subprocess.run(["curl", "-s", f"http://127.0.0.1:{port}/token", "-d",
                                "grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer", "-d",
                                f"assertion={assertion}"], capture_output=True, text=True, check=True).stdout
        bearer = re.search(r'"access_token":"([^"]+)"', grant).group(1)
        body = '{"message":{"token":"%s","data":{"score":"1-0"}}}' % token
        headers = {"Authorization": "Bearer " + bearer}
        path = "/v1/projects/demo-project/messages:send"
    headers["Content-Type"] = "application/json"
    script = os.path.join(work, "send.lua")
    with open(script, "w") as lua:
        lua.write('wrk.method = "POST"\nwrk.body = [[%s]]\n' % body)
        for name, value in headers.items():
            lua.write(f'wrk.headers["{name}"] = "{value}"\n')
    return f"http://127.0.0.1:{port}{path}", script


def record_http(kind, binary, work, out):
    """perf over SECONDS of wrk's load; the messages are wrk's rate times SECONDS."""
    serve, port, token = start_serve(binary, work)
    try:
        url, script = http_script(kind, binary, work, port, token)
        subprocess.run(["wrk", "-t", "1", "-c", "32", "-d", "2s", "-s", script, url], capture_output=True, check=True)
        load = subprocess.Popen(["wrk", "-t", "1", "-c", "32", "-d", f"{SECONDS + 1}s", "-s", script, url],
                                stdout=subprocess.PIPE, text=True)
        try:
            time.sleep(0.5)
            subprocess.run(["perf", "record", "-q", "-F", str(RATE), "-g", "-p", str(serve.pid), "-o", out, "--",
                            "sleep", str(SECONDS)], capture_output=True, check=True)
            report = load.communicate()[0]
        finally:
            if load.poll() is None:
                load.kill()
                load.wait()
        if re.search(r"Non-2xx|Socket errors", report):
            raise RuntimeError(f"{binary}: some {kind} sends were refused or failed, not profiled:\n{report}")
        rate = re.search(r"Requests/sec:\s*([\d.]+)", report)
        if not rate or float(rate.group(1)) <= 0:
            raise RuntimeError(f"{binary}: wrk served no {kind} sends:\n{report}")
        return float(rate.group(1)) * SECONDS
    finally:
        stop(serve)


def record_ccs(binary, work, out):
    """perf over a whole `serve` that xmpp-load drives: CCS_MESSAGES on one connection."""
    load = os.environ.get("XMPP_LOAD")
    if not load:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        subprocess.run(["swift", "build", "-c", "release", "--product", "xmpp-load"], check=True, capture_output=True,
                       cwd=root)
        path = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], capture_output=True, text=True,
                              check=True, cwd=root).stdout.strip()
        load = os.path.join(path, "xmpp-load")
    wrapper = os.path.join(work, "serve-under-perf")
    with open(wrapper, "w") as script:
        script.write(f'#!/bin/sh\nexec perf record -q -F {RATE} -g -o "{out}" -- "{binary}" "$@"\n')
    os.chmod(wrapper, 0o755)
    # xmpp-load stops the serve it started, and waits for it (perf writes its file then).
    subprocess.run([load, wrapper, "one", str(CCS_MESSAGES), "1"], check=True, capture_output=True)
    return CCS_MESSAGES


def parts_of(data, parts):
    script = subprocess.run(["perf", "script", "-i", data, "-F", "comm,tid,ip,sym"], capture_output=True,
                            text=True, check=True).stdout
    counts, threads = collections.Counter(), collections.Counter()
    for block in script.split("\n\n"):
        lines = [line.strip() for line in block.strip().split("\n") if line.strip()]
        if not lines:
            continue
        threads[lines[0].rsplit(" ", 1)[0].strip()] += 1
        part = "other"
        for frame in lines[1:]:
            part = next((name for name, pattern in parts if re.search(pattern, frame)), None)
            if part:
                break
        counts[part or "other"] += 1
    if not counts:
        raise RuntimeError(f"perf recorded no samples in {data} (is perf allowed here? see perf_event_paranoid)")
    return counts, threads


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("legacy", "v1", "ccs"):
        sys.exit(__doc__)
    kind, binaries = sys.argv[1], [os.path.abspath(binary) for binary in sys.argv[2:]]
    parts = PARTS["ccs" if kind == "ccs" else "http"]
    for binary in binaries:
        if not os.access(binary, os.X_OK):
            sys.exit(f"serving-profile: {binary} is not an executable fcm-device build")
    columns = []
    with tempfile.TemporaryDirectory() as work:
        for number, binary in enumerate(binaries):
            out = os.path.join(work, f"perf-{number}.data")
            run = os.path.join(work, f"run-{number}")
            os.mkdir(run)
            try:
                messages = record_ccs(binary, run, out) if kind == "ccs" else record_http(kind, binary, run, out)
                columns.append((binary, messages, *parts_of(out, parts)))
            except (RuntimeError, subprocess.CalledProcessError, FileNotFoundError) as failure:
                sys.exit(f"serving-profile: {failure}")
    print(f"µs of CPU a message, {kind}, by part ({RATE} Hz samples); the builds:")
    for number, (binary, *_) in enumerate(columns, 1):
        print(f"  {number}: {binary}")
    print(f"{'':28}" + "".join(f"{number:>16}" for number in range(1, len(columns) + 1)))
    for name in [name for name, _ in parts] + ["other", "TOTAL"]:
        row = f"{name:28}"
        for _, messages, counts, _ in columns:
            samples = sum(counts.values()) if name == "TOTAL" else counts[name]
            row += f"{samples / RATE / messages * 1e6:16.2f}"
        print(row)
    for binary, messages, counts, threads in columns:
        total = sum(threads.values())
        split = ", ".join(f"{name} {100 * n / total:.0f}%" for name, n in threads.most_common(4))
        print(f"{binary}: {messages:.0f} messages while recorded; threads: {split}")


if __name__ == "__main__":
    main()
