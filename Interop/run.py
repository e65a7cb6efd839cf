#!/usr/bin/env python3
"""Interop tests: real XMPP client libraries and HTTP SDKs against `fcm-device serve`.
Usage: Interop/.venv/bin/python Interop/run.py PATH/TO/fcm-device"""
import sys

import test_aioxmpp
import test_fleet
import test_web_fleet
import test_http_sdks
import test_http_topics
import test_readme_curl
import test_report
import test_slixmpp
import test_xmpppy
import test_zero_code


def main():
    binary = sys.argv[1]
    results = []
    for module in (test_slixmpp, test_xmpppy, test_aioxmpp, test_http_sdks, test_http_topics, test_readme_curl,
                   test_zero_code, test_fleet, test_web_fleet, test_report):
        results += module.run(binary)
    skipped = [(name, error) for name, error in results if error is not None and error.startswith("SKIP")]
    for name, error in results:
        mark = "ok    " if error is None else "skip  " if (name, error) in skipped else "FAIL  "
        print(mark + name + ("" if error is None else "\n      " + error))
    failed = sum(1 for _, error in results if error is not None) - len(skipped)
    print("interop: %d passed, %d failed, %d skipped" % (len(results) - failed - len(skipped), failed, len(skipped)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
