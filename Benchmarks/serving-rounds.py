#!/usr/bin/env python3
"""The serving path's ratios for several builds, alternating in one run: each round runs
`serving-ratio.sh` once for each build in turn, and at the end each build's median of
each ratio (CCS msg/s, HTTP legacy and v1 sends/s, each per `GET /healthz` req/s), with
every round's figure, and each median against the first build's.

    Benchmarks/serving-rounds.py [--rounds 3] XMPP_LOAD BASE [BUILD ...]

BASE and each BUILD are release builds of fcm-device (a build older than
`--no-device-limits`, such as c09d172, needs a wrapper that drops the flag); XMPP_LOAD
a release build of the xmpp-load generator. The machine's speed changes from hour to
hour, so only builds measured in the same run compare; run it on purpose, never in tests.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys

NAMES = ("ccs-per-healthz", "legacy-per-healthz", "v1-per-healthz")


def one_round(script, binary, load):
    result = subprocess.run(["bash", script, binary, load], capture_output=True, text=True)
    figures = {}
    for name in NAMES:
        found = re.search(rf"^{name}\s+([\d.]+)", result.stdout, re.MULTILINE)
        if not found:
            sys.exit(f"serving-rounds: no {name} from {binary} (exit {result.returncode}):\n"
                     f"{result.stdout[-2000:]}{result.stderr[-2000:]}")
        figures[name] = float(found.group(1))
    rates = re.search(r"^GET /healthz .*$", result.stdout, re.MULTILINE)
    return figures, rates.group(0) if rates else ""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("load", metavar="XMPP_LOAD")
    parser.add_argument("base", metavar="BASE")
    parser.add_argument("builds", nargs="*", metavar="BUILD")
    options = parser.parse_args()
    options.builds = [options.base] + options.builds
    if options.rounds < 1:
        parser.error("--rounds must be at least 1")
    for path in [options.load] + options.builds:
        if not os.access(path, os.X_OK):
            parser.error(f"{path} is not an executable file")
    # serving-ratio.sh runs from the repository's root: hand it whole paths.
    options.load = os.path.abspath(options.load)
    options.builds = [os.path.abspath(build) for build in options.builds]
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "serving-ratio.sh")
    runs = {build: {name: [] for name in NAMES} for build in options.builds}
    for number in range(1, options.rounds + 1):
        for build in options.builds:
            figures, rates = one_round(script, build, options.load)
            for name, value in figures.items():
                runs[build][name].append(value)
            print(f"round {number} {build}: " + ", ".join(f"{name} {value:.3f}" for name, value in figures.items())
                  + f" ({rates})", flush=True)
    base = options.builds[0]
    print(f"\nmedians of {options.rounds} round(s), each against {base}'s:")
    for build in options.builds:
        parts = []
        for name in NAMES:
            median = statistics.median(runs[build][name])
            base_median = statistics.median(runs[base][name])
            against = median / base_median if base_median > 0 else float("nan")
            rounds = ", ".join(f"{value:.3f}" for value in runs[build][name])
            parts.append(f"{name} {median:.3f} ({rounds}) {against:.2f}x")
        print(f"{build}: " + "; ".join(parts))


if __name__ == "__main__":
    main()
