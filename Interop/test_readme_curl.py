"""The curl commands of the guides docs/app-servers.md (the HTTP APIs) and
docs/control-api.md (the control API), run against `fcm-device serve` on the built-in
device: each ```sh block between a pair of markers, <!-- curl-examples:begin --> and
<!-- curl-examples:end -->, runs in one bash session (variables carry over, in the order
of DOCUMENTS), and its output must match the ```text block after it, where "…" stands
for anything. Every document must hold at least one pair."""
import os
import re
import subprocess
import tempfile

from serve_harness import Serve

DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs")
DOCUMENTS = ("app-servers.md", "control-api.md")
BEGIN = "<!-- curl-examples:begin -->"
END = "<!-- curl-examples:end -->"
SEPARATOR = "=====fcm-device-readme-block====="


def examples():
    """(document, command, expected output) for every example, in the order they run, and
    the documents that hold no section between the markers."""
    triples, unmarked = [], []
    for document in DOCUMENTS:
        text = open(os.path.join(DOCS, document), encoding="utf-8").read()
        sections = [part.split(END)[0] for part in text.split(BEGIN)[1:]]
        if not sections:
            unmarked.append(document)
        for section in sections:
            blocks = re.findall(r"```(sh|text)\n(.*?)```", section, re.S)
            for (kind, body), (next_kind, expected) in zip(blocks, blocks[1:]):
                if kind == "sh" and next_kind == "text":
                    triples.append((document, body, expected.strip()))
    return triples, unmarked


def matches(expected, actual):
    pattern = ".*".join(re.escape(part) for part in expected.split("…"))
    return re.fullmatch(pattern, actual.strip(), re.S) is not None


def run(binary):
    pairs, unmarked = examples()
    if unmarked or not pairs:
        return [("curl examples of docs/%s" % document, "no examples found between the markers")
                for document in unmarked or DOCUMENTS]
    home = tempfile.mkdtemp(prefix="fcm-readme-")
    serve = Serve(os.path.abspath(binary), profile=None, state=os.path.join(home, "fcm-device"))
    try:
        port = serve.listening["http"]
        script = "set -e\n" + "".join(
            body.replace("127.0.0.1:8085", "127.0.0.1:%d" % port) + "\necho\necho %s\n" % SEPARATOR
            for _, body, _ in pairs)
        env = dict(os.environ, TOKEN=serve.token, XDG_STATE_HOME=home,
                   PATH=os.path.dirname(os.path.abspath(binary)) + os.pathsep + os.environ["PATH"])
        done = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=60)
        outputs = done.stdout.split(SEPARATOR + "\n")
        results = []
        for index, (document, body, expected) in enumerate(pairs):
            name = "curl example %d of docs/%s: %s" % (index + 1, document, body.strip().splitlines()[0][:60])
            actual = outputs[index] if index < len(outputs) else ""
            if matches(expected, actual):
                results.append((name, None))
            else:
                results.append((name, "expected %r, got %r (stderr: %r)" % (expected, actual.strip(), done.stderr[-300:])))
        return results
    finally:
        serve.stop()
