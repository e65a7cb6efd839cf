#!/usr/bin/env python3
"""Interop tests: real XMPP client libraries and HTTP SDKs against `fcm-device serve`.
Usage: Interop/.venv/bin/python Interop/run.py PATH/TO/fcm-device"""
import sys

import test_aioxmpp
import test_http_sdks
import test_http_topics
import test_readme_curl
import test_slixmpp
import test_xmpppy


def main():
    binary = sys.argv[1]
    results = []
    for module in (test_slixmpp, test_xmpppy, test_aioxmpp, test_http_sdks, test_http_topics, test_readme_curl):
        results += module.run(binary)
    for name, error in results:
        print(("ok    " if error is None else "FAIL  ") + name + ("" if error is None else "\n      " + error))
    failed = sum(1 for _, error in results if error is not None)
    print("interop: %d passed, %d failed" % (len(results) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
