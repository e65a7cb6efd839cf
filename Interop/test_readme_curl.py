"""The curl commands of README.md, run against `fcm-device serve` on the built-in
device: each ```sh block between the curl-examples markers runs in one bash session
(variables carry over), and its output must match the ```text block after it, where
"…" stands for anything."""
import os
import re
import subprocess
import tempfile

from serve_harness import Serve

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "README.md")
SEPARATOR = "=====fcm-device-readme-block====="


def examples():
    text = open(README, encoding="utf-8").read()
    section = text.split("<!-- curl-examples:begin -->")[1].split("<!-- curl-examples:end -->")[0]
    blocks = re.findall(r"```(sh|text)\n(.*?)```", section, re.S)
    pairs = []
    for (kind, body), (next_kind, expected) in zip(blocks, blocks[1:]):
        if kind == "sh" and next_kind == "text":
            pairs.append((body, expected.strip()))
    return pairs


def matches(expected, actual):
    pattern = ".*".join(re.escape(part) for part in expected.split("…"))
    return re.fullmatch(pattern, actual.strip(), re.S) is not None


def run(binary):
    pairs = examples()
    if not pairs:
        return [("README curl examples", "no examples found between the markers")]
    home = tempfile.mkdtemp(prefix="fcm-readme-")
    serve = Serve(os.path.abspath(binary), profile=None, state=os.path.join(home, "fcm-device"))
    try:
        port = serve.listening["http"]
        script = "set -e\n" + "".join(
            body.replace("127.0.0.1:8085", "127.0.0.1:%d" % port) + "\necho\necho %s\n" % SEPARATOR
            for body, _ in pairs)
        env = dict(os.environ, TOKEN=serve.token, XDG_STATE_HOME=home,
                   PATH=os.path.dirname(os.path.abspath(binary)) + os.pathsep + os.environ["PATH"])
        done = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=60)
        outputs = done.stdout.split(SEPARATOR + "\n")
        results = []
        for index, (body, expected) in enumerate(pairs):
            name = "README curl example %d: %s" % (index + 1, body.strip().splitlines()[0][:60])
            actual = outputs[index] if index < len(outputs) else ""
            if matches(expected, actual):
                results.append((name, None))
            else:
                results.append((name, "expected %r, got %r (stderr: %r)" % (expected, actual.strip(), done.stderr[-300:])))
        return results
    finally:
        serve.stop()
