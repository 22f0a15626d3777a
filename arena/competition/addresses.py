"""Web addresses: the one a competition is reached at, as the organiser gives it for the links sent to competitors,
and those the arena may send requests to (webhooks' receivers: public addresses only, unless the organiser allows
a host)."""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

from arena.errors import ConfigError

SCHEMES = ("http", "https")


def check_url(url: str) -> str:
    """url, if a browser can open a competition's pages there (http or https, with a host): ConfigError naming what is
    wrong (a link made from it would lead nowhere)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - read for its check of the port
    except ValueError as exc:
        raise ConfigError(f"--url {url[:80]!r} is not a web address ({exc}): give one such as "
                          "https://arena.example.org") from None
    if parts.scheme not in SCHEMES or not parts.hostname:
        raise ConfigError(f"--url {url[:80]!r} is not an http:// or https:// address with a host: give one such as "
                          "https://arena.example.org")
    if parts.query or parts.fragment:
        raise ConfigError(f"--url {url[:80]!r} holds a query or a fragment: give the competition's address alone")
    return url


# --- where the arena may send requests: webhooks' receivers -------------------------------------------------------
# A receiver's address is refused unless it is a public one: a hook must not make the server reach its own machine,
# its network, or a cloud's metadata service (server-side request forgery). The organiser allows hosts otherwise
# refused ([serve] webhook_hosts), by name, address or network.
METADATA = ("169.254.169.254", "fd00:ec2::254", "100.100.100.200")  # cloud metadata services, named in messages


def refused_because(address: str, allowed: "AllowedHosts | None" = None, host: str = "") -> str | None:
    """Why a request to this IP address is refused (its kind in words), or None if it may be sent: a public
    address, or one the organiser allows (by the host's name or the address)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if allowed is not None and allowed.allows(host, ip):
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:  # ::ffff:127.0.0.1 is 127.0.0.1
        ip = ip.ipv4_mapped
        if allowed is not None and allowed.allows(host, ip):
            return None
    if str(ip) in METADATA:
        return "a cloud metadata service's address"
    for kind, test in (("a loopback", ip.is_loopback), ("a link-local", ip.is_link_local),
                       ("a private", ip.is_private), ("an unspecified", ip.is_unspecified),
                       ("a multicast", ip.is_multicast)):
        if test:
            return f"{kind} address"
    return None if ip.is_global else "not a public address"


class AllowedHosts:
    """The hosts a webhook may reach although their addresses are refused: host names (matched as written, without
    case), IP addresses and networks, as the organiser lists them in [serve] webhook_hosts."""

    def __init__(self, hosts: tuple[str, ...] = ()) -> None:
        self.names: set[str] = set()
        self.networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        for host in hosts:
            text = host.strip() if isinstance(host, str) else ""
            try:
                self.networks.append(ipaddress.ip_network(text.strip("[]"), strict=False))
            except ValueError:
                if not _HOST_NAME.fullmatch(text):
                    raise ConfigError(f"--webhook-host (webhook_hosts) {str(host)[:80]!r} is not a host name, an "
                                      "IP address or a network (such as 127.0.0.1, 10.0.0.0/8 or "
                                      "hooks.internal)") from None
                self.names.add(text.lower().rstrip("."))

    def allows(self, host: str, ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
        """True if the organiser allows this host name or this address."""
        return host.lower().rstrip(".") in self.names or any(ip in net for net in self.networks)


_HOST_NAME = re.compile(r"(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                        r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?")
MAX_HOOK_URL = 2000  # characters of a webhook's address


def check_hook_url(url: object, allowed: AllowedHosts) -> str:
    """A webhook's address, if a request may be sent there: http or https, a host, no user name or password, no
    fragment, at most MAX_HOOK_URL characters, and not an IP address that is refused (a host name is checked at
    every delivery, against every address it then resolves to). ConfigError naming what is wrong."""
    if not isinstance(url, str) or not url:
        raise ConfigError('"url" must be the receiver\'s address, such as https://example.org/hook')
    if len(url) > MAX_HOOK_URL:
        raise ConfigError(f'"url" is {len(url)} characters long: at most {MAX_HOOK_URL}')
    if not url.isprintable() or any(c.isspace() for c in url):
        raise ConfigError('"url" holds spaces or control characters')
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - read for its check of the port
    except ValueError as exc:
        raise ConfigError(f'"url" {url[:80]!r} is not a web address ({exc})') from None
    if parts.scheme not in SCHEMES or not parts.hostname:
        raise ConfigError(f'"url" {url[:80]!r} is not an http:// or https:// address with a host')
    if parts.username is not None or parts.password is not None:
        raise ConfigError(f'"url" {url[:80]!r} holds a user name or password: a delivery is signed instead')
    if parts.fragment:
        raise ConfigError(f'"url" {url[:80]!r} holds a fragment (#...), which is never sent')
    try:
        ipaddress.ip_address(parts.hostname.split("%", 1)[0])
    except ValueError:
        if not _HOST_NAME.fullmatch(parts.hostname):
            raise ConfigError(f'"url" {url[:80]!r}: {parts.hostname[:80]!r} is not a host name') from None
        return url
    why = refused_because(parts.hostname, allowed, parts.hostname)
    if why is not None:
        raise ConfigError(f'"url" {url[:80]!r} is {why}: webhooks reach public addresses only, unless the organiser '
                          "allows the host in [serve] webhook_hosts")
    return url
