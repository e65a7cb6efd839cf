#!/usr/bin/env bash
# Makes Interop/.venv with the client libraries the interop tests use, and the pytest
# plugin of clients/python.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv || { apt-get update -qq && apt-get install -y -qq python3-venv && python3 -m venv .venv; }
fi
.venv/bin/pip install -q --disable-pip-version-check -r requirements.txt
# pyfcm 1.x (topic management and topic sends on the legacy API) cannot share the
# environment with pyfcm 2: it goes in a folder of its own, put on PYTHONPATH by its test.
.venv/bin/pip install -q --disable-pip-version-check --no-deps --upgrade --target .pyfcm1 pyfcm==1.5.4
# Web Push app-server libraries (pywebpush 2.5 needs a cryptography aioxmpp's pyOpenSSL
# cannot take): an environment of their own, for Interop/test_webpush.py.
if [ ! -x .webpush/bin/python ]; then python3 -m venv .webpush; fi
.webpush/bin/pip install -q --disable-pip-version-check -r webpush-requirements.txt
# A real client (firebase-messaging, which pins http-ece 1.1): an environment of its own,
# for Interop/test_receiver.py.
if [ ! -x .receiver/bin/python ]; then python3 -m venv .receiver; fi
.receiver/bin/pip install -q --disable-pip-version-check -r receiver-requirements.txt
# The pytest plugin of clients/python, from the work tree: built offline by the venv's
# own setuptools (no isolated build environment to download), reinstalled every time.
.venv/bin/pip install -q --disable-pip-version-check --no-index --no-build-isolation ../clients/python
