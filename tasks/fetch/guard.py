"""The private-address guard and the one URL parser that both the guard and the connection obey.

Why one parser: `http://127.0.0.1:8080\\@1.1.1.1/` reads as host 1.1.1.1 to urllib.parse but
as 127.0.0.1 to urllib3, so a guard checking one reading and a connection following the other
is an SSRF hole. `parse_url` decides once, WHATWG-style (IPv4 numbers in any radix, IDNA,
percent-decoded hosts), refuses what parsers disagree on (backslashes, userinfo, control
characters) and returns a canonical URL; everything after it (requests, urllib3, the
browser proxy) sees only that canonical spelling.

Why pinning: `check_address` resolves the host and checks every address; the connection then
goes to the address that was checked (`Target.address`), not to a second DNS answer, which
closes the DNS-rebinding window. (The client also checks the socket's peer after connect.)
"""
from __future__ import annotations

import ipaddress
import os
import re
import socket
import urllib.parse
from dataclasses import dataclass
from typing import Callable, Union

from tasks.fetch.errors import FetchError

ENV_ALLOW_PRIVATE = "BLOGHARVEST_ALLOW_PRIVATE"
MAX_URL_LENGTH = 8192  # longer is a trap or an attack, not a blog's page
MAX_HOST_LENGTH = 253  # RFC 1035, without the trailing dot
MAX_LABEL_LENGTH = 63

# allow_private: a bool, None (read the environment), or a predicate url -> bool
AllowPrivate = Union[bool, None, Callable[[str], bool]]

_BLOCKED_NAMES = {"localhost", "metadata", "metadata.google.internal", "metadata.goog",
                  "instance-data", "instance-data.ec2.internal", "metadata.azure.com"}
_BLOCKED_SUFFIXES = (".localhost", ".internal", ".local", ".localdomain", ".home.arpa", ".intranet")
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_FORBIDDEN_HOST = re.compile(r"[\s#%/:<>?@\[\\\]^|*\"'`{}]")
_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?$")
# characters kept as they are in a path or query; anything else is percent-encoded
_SAFE = "/?:@!$&'()*+,;=-._~%[]"


@dataclass(frozen=True)
class Target:
    """A parsed, canonical http(s) URL; `address` is the IP the guard checked (None when the
    guard was skipped): the connection must go there."""
    url: str
    scheme: str
    host: str  # lower-case ASCII name, dotted IPv4, or IPv6 without brackets
    port: int
    address: str | None = None

    @property
    def origin(self) -> str:
        return self.url[:self.url.index("/", len(self.scheme) + 3)]


def allowed(url: str, allow_private: AllowPrivate) -> bool:
    """Does the caller let `url` reach private addresses (tests, the eval harness)?"""
    if allow_private is None:
        return os.environ.get(ENV_ALLOW_PRIVATE) == "1"
    if callable(allow_private):
        return bool(allow_private(url))
    return bool(allow_private)


# ---------------------------------------------------------------------------- parsing

def _ipv4_number(part: str) -> int | None:
    """WHATWG IPv4 number: decimal, 0x hex or 0-prefixed octal; None if not a number."""
    if not part:
        return None
    base = 10
    if part[:2].lower() == "0x":
        part, base = part[2:], 16
    elif len(part) > 1 and part[0] == "0":
        part, base = part[1:], 8
    if part == "":
        return 0
    try:
        return int(part, base)
    except ValueError:
        return None


def _ends_in_number(host: str) -> bool:
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts = parts[:-1]
    last = parts[-1]
    return bool(last) and (last.isdigit() or bool(re.fullmatch(r"0[xX][0-9A-Fa-f]*", last)))


def _ipv4(host: str, url: str) -> str:
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts = parts[:-1]
    if len(parts) > 4:
        raise FetchError("bad_url", url, f"host {host!r} is not a valid IPv4 address")
    nums = [_ipv4_number(p) for p in parts]
    if any(n is None for n in nums) or any(n > 255 for n in nums[:-1]) \
            or nums[-1] >= 256 ** (5 - len(nums)):
        raise FetchError("bad_url", url, f"host {host!r} is not a valid IPv4 address")
    value = nums[-1]
    for i, n in enumerate(nums[:-1]):
        value += n * 256 ** (3 - i)
    return str(ipaddress.IPv4Address(value))


def _host(raw: str, url: str) -> str:
    """The host as the connection will name it: a bracketed IPv6 literal compressed, else a
    lower-case ASCII name (percent-decoded, IDNA) or a dotted IPv4 address (WHATWG numbers)."""
    if raw.startswith("["):
        return _ipv6_host(raw, url)
    host = urllib.parse.unquote(raw)
    if not host:
        raise FetchError("bad_url", url, "URL has no host")
    host = _ascii_host(host, url).lower()
    if _FORBIDDEN_HOST.search(host) or _CONTROL.search(host):
        raise FetchError("bad_url", url, f"forbidden character in host {host!r}")
    if _ends_in_number(host):
        return _ipv4(host, url)
    host = host[:-1] if host.endswith(".") else host
    _check_host_name(host, url)
    return host


def _ipv6_host(raw: str, url: str) -> str:
    """A bracketed IPv6 literal, compressed; zone identifiers refused."""
    if not raw.endswith("]"):
        raise FetchError("bad_url", url, "unclosed IPv6 address")
    try:
        ip = ipaddress.IPv6Address(raw[1:-1])
    except ValueError:
        raise FetchError("bad_url", url, f"invalid IPv6 address {raw!r}") from None
    if ip.scope_id:
        raise FetchError("bad_url", url, "IPv6 zone identifiers are refused")
    return ip.compressed


def _ascii_host(host: str, url: str) -> str:
    """An international host name in its IDNA (UTS #46) ASCII form; ASCII names unchanged."""
    if host.isascii():
        return host
    import idna

    try:
        return idna.encode(host, uts46=True).decode("ascii")
    except (idna.IDNAError, UnicodeError, ValueError) as e:
        raise FetchError("bad_url", url, f"host is not a valid international name: {e}") from None


def _check_host_name(host: str, url: str) -> None:
    """Refuse a host name too long, with a label too long, or with a label DNS cannot hold."""
    if len(host) > MAX_HOST_LENGTH:
        raise FetchError("bad_url", url, f"host name longer than {MAX_HOST_LENGTH} characters")
    for label in host.split("."):
        if len(label) > MAX_LABEL_LENGTH:
            raise FetchError("bad_url", url, f"host label longer than {MAX_LABEL_LENGTH} characters")
        if not _LABEL.match(label):
            raise FetchError("bad_url", url, f"invalid host name {host!r}")


def parse_url(url: str) -> Target:
    """The one reading of `url` that the guard checks and the connection uses.

    Raises FetchError "bad_scheme" for anything but http(s) and "bad_url" for what parsers
    read differently: backslashes, userinfo (`user@host`), control characters, bad ports,
    over-long URLs or host names. The fragment is dropped.
    """
    url = _clean_url_text(url)
    scheme, rest = _http_scheme(url)
    authority, path, query = _authority_path_query(rest, url)
    host_raw, port_raw = _host_and_port(authority, url)
    host = _host(host_raw, url)
    port = _port(port_raw, scheme, url)
    return Target(_canonical_url(scheme, host, port, path, query), scheme, host, port)


def _clean_url_text(url) -> str:
    """The URL string without surrounding whitespace; refused when it is no string, too
    long, or holds control characters."""
    if not isinstance(url, str):
        raise FetchError("bad_url", repr(url), "URL is not a string")
    url = url.strip(" \t\n\r\f\v\x00")
    if len(url) > MAX_URL_LENGTH:
        raise FetchError("bad_url", url[:200] + "...", f"URL longer than {MAX_URL_LENGTH} characters")
    if _CONTROL.search(url):
        raise FetchError("bad_url", url, "control character in URL")
    return url


def _http_scheme(url: str) -> tuple[str, str]:
    """(the lower-case scheme, what follows its colon): http and https only."""
    m = _SCHEME.match(url)
    if not m:
        raise FetchError("bad_url", url, "URL has no scheme")
    scheme = m.group(1).lower()
    if scheme not in ("http", "https"):
        raise FetchError("bad_scheme", url, f"scheme {m.group(1)!r} is not http or https")
    return scheme, url[m.end():]


def _authority_path_query(rest: str, url: str) -> tuple[str, str, str | None]:
    """(authority, path without its leading slash, query or None when there is no '?') of
    what follows the scheme, the fragment dropped. Refused: a backslash before the query,
    no //authority, userinfo."""
    head, sep, query = rest.split("#", 1)[0].partition("?")
    if "\\" in head:
        raise FetchError("bad_url", url, "backslash in URL (parsers disagree on where the host ends)")
    if not head.startswith("//"):
        raise FetchError("bad_url", url, "URL has no authority (//host)")
    authority, _, path = head[2:].partition("/")
    if "@" in authority:
        raise FetchError("bad_url", url, "userinfo (user@host) in URL is refused")
    return authority, path, (query if sep else None)


def _host_and_port(authority: str, url: str) -> tuple[str, str]:
    """(raw host, raw port or "") of the authority: an IPv6 literal keeps its brackets."""
    if not authority.startswith("["):
        host_raw, _, port_raw = authority.partition(":")
        if ":" in port_raw:
            raise FetchError("bad_url", url, "more than one ':' in host")
        return host_raw, port_raw
    end = authority.find("]")
    if end < 0:
        return authority, ""
    host_raw, port_raw = authority[:end + 1], authority[end + 1:]
    if port_raw and not port_raw.startswith(":"):
        raise FetchError("bad_url", url, "junk after IPv6 address")
    return host_raw, port_raw[1:]


def _port(port_raw: str, scheme: str, url: str) -> int:
    """The port: the scheme's default when none is written, else 1-65535 in digits."""
    if not port_raw:
        return 443 if scheme == "https" else 80
    if not port_raw.isdigit() or not 0 < int(port_raw) < 65536:
        raise FetchError("bad_url", url, f"invalid port {port_raw!r}")
    return int(port_raw)


def _canonical_url(scheme: str, host: str, port: int, path: str, query: str | None) -> str:
    """The one spelling every fetch uses: IPv6 bracketed, a default port left out, path and
    query percent-encoded (a backslash in the query as %5C)."""
    netloc = f"[{host}]" if ":" in host else host
    if port != (443 if scheme == "https" else 80):
        netloc += f":{port}"
    url = f"{scheme}://{netloc}" + urllib.parse.quote("/" + path, safe=_SAFE)
    if query is not None:
        url += "?" + urllib.parse.quote(query.replace("\\", "%5C"), safe=_SAFE + "\\")
    return url


def normalize_url(url: str) -> str:
    """`parse_url(url).url`: the canonical spelling every fetch uses."""
    return parse_url(url).url


# ---------------------------------------------------------------------------- addresses

def blocked_ip(address: str) -> str | None:
    """Why an IP address must not be fetched from (None if it is a public address)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return "not an IP address"
    if ip.version == 6:
        reason = _ipv6_disguise(ip)
        if reason:
            return reason
    return next((reason for is_kind, reason in _NON_PUBLIC if is_kind(ip)), None)


def _ipv6_disguise(ip: ipaddress.IPv6Address) -> str | None:
    """Why an IPv6 address is an IPv4 one in disguise that must not be reached: IPv4-mapped,
    or a 6to4, Teredo or NAT64 address embedding a non-public IPv4 address."""
    if ip.ipv4_mapped is not None:
        return "IPv4-mapped IPv6 address"
    embedded = ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
    if ip in _NAT64:
        embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if embedded is not None and blocked_ip(str(embedded)):
        return "IPv6 address embedding a non-public IPv4 address"
    return None


# The kinds of non-public address, in the order their reasons are told (first match wins).
_NON_PUBLIC = (
    (lambda ip: ip.is_unspecified, "unspecified address"),
    (lambda ip: ip.is_loopback, "loopback address"),
    (lambda ip: ip.is_link_local, "link-local address (cloud metadata lives here)"),
    (lambda ip: ip.version == 4 and ip in _CGNAT, "carrier-grade NAT address"),
    (lambda ip: ip.is_multicast, "multicast address"),
    (lambda ip: ip.is_private, "private address"),
    (lambda ip: ip.is_reserved, "reserved address"),
    (lambda ip: not ip.is_global, "non-global address"),
)


def check_address(url: str, allow_private: AllowPrivate = None) -> Target:
    """The parsed `url` with the address to connect to; raises FetchError("private_address")
    unless every address its host resolves to is on the public internet.

    `allow_private` True (or a predicate returning True for the canonical URL, or None with
    BLOGHARVEST_ALLOW_PRIVATE=1) skips the address checks (then `address` is None): tests
    and the eval harness serve blogs from loopback. Parsing is never skipped.
    """
    t = parse_url(url)
    if allowed(t.url, allow_private):
        return t
    name = t.host
    try:
        literal = ipaddress.ip_address(name)
    except ValueError:
        literal = None
    if literal is not None:
        reason = blocked_ip(str(literal))
        if reason:
            raise FetchError("private_address", t.url, f"address {name}: {reason}")
        return Target(t.url, t.scheme, t.host, t.port, str(literal))
    if name in _BLOCKED_NAMES or name.endswith(_BLOCKED_SUFFIXES):
        raise FetchError("private_address", t.url, f"host {name!r} is an internal name")
    if "." not in name:
        raise FetchError("private_address", t.url,
                         f"single-label host {name!r} resolves through internal search domains")
    try:
        infos = socket.getaddrinfo(name, t.port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, OSError) as e:
        raise FetchError("connection", t.url, f"cannot resolve {name!r}: {e}") from None
    if not infos:
        raise FetchError("connection", t.url, f"{name!r} resolves to nothing")
    for info in infos:
        address = info[4][0]
        reason = blocked_ip(address)
        if reason:
            raise FetchError("private_address", t.url, f"{name} resolves to {address}: {reason}")
    return Target(t.url, t.scheme, t.host, t.port, infos[0][4][0])
