"""Find the address phones on the same Wi-Fi should open.

Only reads the machine's network interfaces (via ifaddr); it never opens a socket
towards any address, so asking costs no packet on the network.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Callable, Iterable, Protocol, Sequence

# Interfaces that phones on the table's Wi-Fi can't reach through (containers, VMs)
# or that lead somewhere else entirely (VPN tunnels).
VIRTUAL_PREFIXES = ("docker", "br-", "veth", "virbr", "vmnet", "vboxnet", "cni", "flannel",
                    "podman", "lxc", "lxd", "kube", "vethernet", "hyper-v", "vmware", "virtualbox")
VPN_PREFIXES = ("tun", "tap", "wg", "utun", "tailscale", "zt", "ppp", "ipsec", "nordlynx",
                "proton", "wireguard", "openvpn", "vpn", "ham")
WIFI_ETHERNET_PREFIXES = ("wl", "wi-fi", "wifi", "wlan", "en", "eth", "ethernet", "local area")


class AdapterLike(Protocol):
    name: str
    nice_name: str
    ips: Sequence


@dataclass(frozen=True)
class Candidate:
    address: str
    interface: str
    rank: int  # lower is better


def _rank(address: ipaddress.IPv4Address, names: Sequence[str]) -> int | None:
    """None to skip the address, else a rank (lower is better)."""
    names = [n.lower() for n in names if n]
    if address.is_loopback or address.is_link_local or address.is_unspecified or address.is_multicast:
        return None
    if any(n.startswith(VIRTUAL_PREFIXES) or "virtual" in n or "docker" in n for n in names):
        return None
    rank = 0
    if (address in ipaddress.ip_network("100.64.0.0/10")
            or any(n.startswith(VPN_PREFIXES) or "vpn" in n for n in names)):
        rank += 50  # reachable only inside the tunnel; a last resort
    if not address.is_private:
        rank += 20
    if address in ipaddress.ip_network("172.16.0.0/12"):
        rank += 5  # often a container or VM network even when the name doesn't say so
    if not any(n.startswith(WIFI_ETHERNET_PREFIXES) for n in names):
        rank += 2
    return rank


def candidates(adapters: Iterable[AdapterLike]) -> list[Candidate]:
    found = []
    for adapter in adapters:
        # On Windows `name` is a GUID and `nice_name` says "Wi-Fi"; on Linux both are "wlan0".
        names = [getattr(adapter, "nice_name", "") or "", getattr(adapter, "name", "") or ""]
        for ip in adapter.ips:
            if not isinstance(ip.ip, str):  # IPv6 entries are tuples; phones' Wi-Fi prefers IPv4
                continue
            try:
                address = ipaddress.IPv4Address(ip.ip)
            except ValueError:
                continue
            rank = _rank(address, names)
            if rank is not None:
                found.append(Candidate(str(address), names[0] or names[1], rank))
    found.sort(key=lambda c: (c.rank, c.address))
    return found


def lan_address(adapters: Iterable[AdapterLike] | None = None) -> str | None:
    """The best LAN IPv4 address, or None when the machine has only loopback."""
    if adapters is None:
        import ifaddr
        adapters = ifaddr.get_adapters()
    best = candidates(adapters)
    return best[0].address if best else None


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_name(host_header: str) -> str:
    """The name in a Host header, without its port: "[::1]:8000" → "::1", "Example:80" → "example"."""
    host = (host_header or "").strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else ""
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


def is_own_request(remote_addr: str, host_header: str, join_host: Callable[[], str | None] | None = None) -> bool:
    """A request the laptop made to itself: from a loopback address *and* naming this laptop
    in its Host header (a loopback name or address, or the join address phones were given).
    A page on the laptop that rebinds its own DNS name to 127.0.0.1 (DNS rebinding) sends its
    own name as Host, so it is not trusted."""
    if not is_loopback(remote_addr or ""):
        return False
    name = host_name(host_header)
    if is_loopback(name):
        return True
    own = join_host() if join_host else None  # asked only when needed: it may read the interfaces
    return bool(own) and name == host_name(own)


def is_wildcard(host: str) -> bool:
    return host in ("0.0.0.0", "::", "", "*")
