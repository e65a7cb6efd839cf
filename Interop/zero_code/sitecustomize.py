"""Loaded first by every Python client the zero-code tests start: any connection,
or name lookup, that would leave this machine is written to $NETWORK_GUARD_LOG and
refused, so a test fails if its client tried to reach the network."""
import os
import socket

_LOG = os.environ.get("NETWORK_GUARD_LOG")
_LOCAL_NAMES = {"localhost", "127.0.0.1", "::1", ""}


def _local(host):
    return isinstance(host, str) and (host in _LOCAL_NAMES or host.startswith("127."))


def _refuse(what):
    if _LOG:
        with open(_LOG, "a") as log:
            log.write(what + "\n")
    raise OSError("the interop guard refused a connection beyond this machine: " + what)


if _LOG:
    _connect = socket.socket.connect
    _connect_ex = socket.socket.connect_ex
    _getaddrinfo = socket.getaddrinfo

    def connect(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _local(address[0]):
            _refuse("connect %r" % (address,))
        return _connect(self, address)

    def connect_ex(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _local(address[0]):
            _refuse("connect_ex %r" % (address,))
        return _connect_ex(self, address)

    def getaddrinfo(host, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else host
        if name is not None and not _local(name):
            _refuse("getaddrinfo %r" % (name,))
        return _getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = connect
    socket.socket.connect_ex = connect_ex
    socket.getaddrinfo = getaddrinfo
