"""Where a remote Selenium Grid's browser finds the guarding proxy, and who else may not use it.

Local Chromium reaches its `GuardingProxy` (proxy.py) on the worker's loopback. A Grid's
browser runs on another host, so with `SELENIUM_REMOTE_URL` the proxy listens on an address
the Grid can reach: `BLOGHARVEST_PROXY_ADVERTISE` (host[:port], or `auto`: this host's
address on the route to the Grid), in `BLOGHARVEST_PROXY_PORTS` (lo-hi) when a firewall or
NetworkPolicy names the ports. Without it a Grid renders nothing (fail closed) unless
`BLOGHARVEST_UNGUARDED_GRID=1` says its network is confined some other way.

Why an allow-list of the Grid's addresses and not a per-session secret: Chromium ignores
credentials written in `--proxy-server`; it answers a proxy's 407 only from an extension or
a CDP `Fetch.authRequired` handler, and Selenium receives no CDP events (a Grid's node is
reached through its own websocket, if at all). The addresses the browser's connections come
from are known instead: those the Grid's host resolves to (a headless Service on k8s, the
container on compose), plus `BLOGHARVEST_PROXY_CLIENTS` (addresses or CIDRs) for a hub whose
nodes live elsewhere. Any other client's connection is closed before a byte is read.
"""
from __future__ import annotations

import ipaddress
import os
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass
from typing import Callable

__all__ = ["Listen", "GridClients", "grid_listen", "ENV_ADVERTISE", "ENV_PORTS", "ENV_CLIENTS",
           "ENV_UNGUARDED", "UNGUARDED"]

ENV_ADVERTISE = "BLOGHARVEST_PROXY_ADVERTISE"
ENV_PORTS = "BLOGHARVEST_PROXY_PORTS"
ENV_CLIENTS = "BLOGHARVEST_PROXY_CLIENTS"
ENV_UNGUARDED = "BLOGHARVEST_UNGUARDED_GRID"

UNGUARDED = (f"rendering is off: SELENIUM_REMOTE_URL names a Selenium Grid but {ENV_ADVERTISE} is not set, "
             f"so the Grid's browser could not go through the private-address guard (a hostile page could "
             f"reach internal addresses from the Grid's network); pages are read as served. Set "
             f"{ENV_ADVERTISE} to this worker's address as the Grid reaches it (k8s: the pod IP from the "
             f"downward API; compose: auto), or {ENV_UNGUARDED}=1 to render unguarded on a Grid whose "
             f"network is confined otherwise.")

RESOLVE_EVERY = 2.0  # seconds: an unknown client re-resolves the Grid's host at most this often


@dataclass(frozen=True)
class Listen:
    """Where a GuardingProxy listens (`bind`, a port in `ports`, (0, 0) for any), the host
    the browser is told (`advertise`), and who may connect (`clients`, None: whoever reaches
    `bind`, which is loopback by default)."""
    bind: str = "127.0.0.1"
    advertise: str = "127.0.0.1"
    ports: tuple[int, int] = (0, 0)
    clients: Callable[[str], bool] | None = None

    def candidates(self) -> range:
        lo, hi = self.ports
        return range(lo, hi + 1)


def _ip(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """An address as an IP (an IPv4-mapped IPv6 peer as its IPv4 address), None if not one."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return None
    return ip.ipv4_mapped if ip.version == 6 and ip.ipv4_mapped else ip


class GridClients:
    """`clients(address) -> bool`: is this peer the Grid? The Grid's host is resolved when
    made and again (at most every RESOLVE_EVERY s) when an unknown peer connects, so a Grid
    that restarted on a new address is let in; `extra` are addresses or CIDRs always let in."""

    def __init__(self, host: str, port: int, extra: tuple[str, ...] = ()):
        self.host, self.port = host, port
        self.extra = tuple(ipaddress.ip_network(x.strip(), strict=False) for x in extra if x.strip())
        self._lock = threading.Lock()
        self._known: frozenset = frozenset()
        self._at = 0.0
        self._resolve()
        if not self._known and not self.extra:
            raise OSError(f"the Selenium Grid's host {host!r} resolves to no address: nobody could use the proxy")

    def _resolve(self) -> None:
        try:
            infos = socket.getaddrinfo(self.host, self.port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            infos = []
        with self._lock:
            self._known = frozenset(ip for ip in (_ip(i[4][0]) for i in infos) if ip is not None) or self._known
            self._at = time.monotonic()

    def __call__(self, address: str) -> bool:
        ip = _ip(address)
        if ip is None:
            return False
        if ip in self._known or any(ip in net for net in self.extra):
            return True
        if time.monotonic() - self._at < RESOLVE_EVERY:
            return False
        self._resolve()
        return ip in self._known

    @property
    def known(self) -> frozenset:
        return self._known


def _split_host_port(value: str) -> tuple[str, int | None]:
    """("host", port or None) of `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6 address."""
    value = value.strip()
    if value.count(":") > 1 and not value.startswith("["):
        return value, None  # a bare IPv6 address: no port
    parts = urllib.parse.urlsplit("//" + value)
    return parts.hostname or value, parts.port


def _ports(spec: str | None, port: int | None) -> tuple[int, int]:
    """The ports to listen on: the advertised one, else BLOGHARVEST_PROXY_PORTS ("lo-hi" or
    "port"), else (0, 0) (any free port)."""
    if port:
        return port, port
    if not spec or not spec.strip():
        return 0, 0
    lo, _, hi = spec.strip().partition("-")
    lo, hi = int(lo), int(hi or lo)
    if not 0 < lo <= hi < 65536:
        raise ValueError(f"{ENV_PORTS}={spec!r} is not a port range lo-hi")
    return lo, hi


def route_address(host: str, port: int) -> str:
    """This host's address on the route to `host` (`auto`): the source of a UDP socket
    connected there (no packet is sent)."""
    family, _, _, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_DGRAM)[0]
    with socket.socket(family, socket.SOCK_DGRAM) as s:
        s.connect(addr)
        return s.getsockname()[0]


def _local(address: str) -> bool:
    """Can this host listen on `address`?"""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.bind((address, 0))
        return True
    except OSError:
        return False


def _bind_address(host: str) -> str:
    """The local address to listen on for an advertised `host`: itself when an IP, else the
    first of its addresses that is this host's, else every interface (the allow-list still
    decides who is served)."""
    ip = _ip(host)
    if ip is not None:
        return str(ip)
    try:
        addresses = [i[4][0] for i in socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)]
    except (OSError, UnicodeError):
        addresses = []
    return next((a for a in addresses if _local(a)), "::" if any(":" in a for a in addresses) else "0.0.0.0")


def grid_listen(remote_url: str, advertise: str, environ=None) -> Listen:
    """Where the proxy of a session on the Grid at `remote_url` listens, and whom it serves.

    `advertise` is BLOGHARVEST_PROXY_ADVERTISE (host[:port] or "auto"); the ports and extra
    clients come from `environ` (os.environ). Raises OSError when the Grid's host resolves
    to nothing, ValueError on a malformed setting."""
    environ = os.environ if environ is None else environ
    grid = urllib.parse.urlsplit(remote_url)
    if not grid.hostname:
        raise ValueError(f"SELENIUM_REMOTE_URL={remote_url!r} has no host")
    grid_port = grid.port or (443 if grid.scheme == "https" else 80)
    host, port = _split_host_port(advertise)
    if host == "auto":
        host = route_address(grid.hostname, grid_port)
    clients = GridClients(grid.hostname, grid_port, tuple((environ.get(ENV_CLIENTS) or "").split(",")))
    return Listen(bind=_bind_address(host), advertise=host, ports=_ports(environ.get(ENV_PORTS), port),
                  clients=clients)
