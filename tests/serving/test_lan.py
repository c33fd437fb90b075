"""Choosing the address phones should open, from fake and real interface lists."""

from __future__ import annotations

import socket
from dataclasses import dataclass, field

import pytest

from companion import cli, lan


@dataclass
class FakeIP:
    ip: object  # str for IPv4; (address, flowinfo, scope_id) for IPv6, as ifaddr gives
    network_prefix: int = 24
    nice_name: str = ""


@dataclass
class FakeAdapter:
    name: str
    nice_name: str
    ips: list = field(default_factory=list)


def adapter(name: str, *ips: object, nice_name: str | None = None) -> FakeAdapter:
    return FakeAdapter(name=name, nice_name=name if nice_name is None else nice_name,
                       ips=[FakeIP(ip) for ip in ips])


LO = adapter("lo", "127.0.0.1", ("::1", 0, 0))


def test_loopback_only_gives_none():
    assert lan.lan_address([LO]) is None
    assert lan.candidates([LO]) == []


def test_no_adapters_gives_none():
    assert lan.lan_address([]) is None


def test_wifi_beats_docker_and_loopback():
    adapters = [LO, adapter("docker0", "172.17.0.1"), adapter("wlan0", "192.168.1.20")]
    assert lan.lan_address(adapters) == "192.168.1.20"
    assert [c.address for c in lan.candidates(adapters)] == ["192.168.1.20"]


@pytest.mark.parametrize("order", [0, 1])
def test_windows_wifi_beats_wsl_switch(order):
    wifi = adapter("{4F3A8E21-9C1B-4D2A-8A55-1B2C3D4E5F60}", "10.0.0.5", nice_name="Wi-Fi")
    wsl = adapter("{0B1C2D3E-4F50-6172-8394-A5B6C7D8E9F0}", "172.20.0.1", nice_name="vEthernet (WSL)")
    adapters = [wifi, wsl] if order == 0 else [wsl, wifi]
    assert lan.lan_address(adapters) == "10.0.0.5"


def test_wifi_beats_tailscale():
    adapters = [adapter("tailscale0", "100.101.1.2"), adapter("wlan0", "192.168.0.3")]
    assert lan.lan_address(adapters) == "192.168.0.3"


@pytest.mark.parametrize("vpn", [adapter("tailscale0", "100.101.1.2"), adapter("wg0", "10.8.0.2"),
                                 adapter("tun0", "10.9.0.6"), adapter("utun3", "100.64.3.3")])
def test_only_a_vpn_is_better_than_nothing(vpn):
    assert lan.lan_address([LO, vpn]) == vpn.ips[0].ip


def test_link_local_is_ignored():
    assert lan.lan_address([LO, adapter("eth0", "169.254.10.20")]) is None
    assert lan.lan_address([adapter("eth0", "169.254.10.20"), adapter("wlan0", "192.168.1.7")]) == "192.168.1.7"


def test_ipv6_entries_are_ignored():
    v6_only = adapter("wlan0", ("fe80::1c2d:3e4f:5a6b:7c8d", 0, 3), ("2001:db8::5", 0, 0))
    assert lan.lan_address([LO, v6_only]) is None
    dual = adapter("wlan0", ("2001:db8::5", 0, 0), "192.168.1.30")
    assert lan.lan_address([dual]) == "192.168.1.30"


def test_garbage_entries_are_skipped():
    odd = adapter("wlan0", "not-an-ip", "", "192.168.1.40")
    assert lan.lan_address([odd]) == "192.168.1.40"


@pytest.mark.parametrize("name", ["docker0", "br-1a2b3c4d5e6f", "veth12ab34", "virbr0", "vmnet8",
                                  "vboxnet0", "cni0", "podman0", "lxdbr0"])
def test_virtual_networks_are_never_offered(name):
    assert lan.lan_address([adapter(name, "192.168.122.1")]) is None


def test_ethernet_and_wifi_are_both_fine():
    found = lan.candidates([adapter("eth0", "192.168.1.10"), adapter("wlan0", "192.168.1.11")])
    assert {c.address for c in found} == {"192.168.1.10", "192.168.1.11"}


def test_unnamed_private_interface_beats_public_and_vpn():
    adapters = [adapter("tailscale0", "100.101.1.2"), adapter("something", "192.168.5.5")]
    assert lan.lan_address(adapters) == "192.168.5.5"


def test_choice_does_not_depend_on_adapter_order():
    adapters = [LO, adapter("docker0", "172.17.0.1"), adapter("tailscale0", "100.101.1.2"),
                adapter("wlan0", "192.168.1.20"), adapter("eth1", "169.254.3.3")]
    assert lan.lan_address(adapters) == lan.lan_address(list(reversed(adapters))) == "192.168.1.20"


@pytest.mark.parametrize("host, loopback", [("127.0.0.1", True), ("127.1.2.3", True), ("::1", True),
                                            ("[::1]", True), ("localhost", True), ("0.0.0.0", False),
                                            ("192.168.1.20", False), ("example", False)])
def test_is_loopback(host, loopback):
    assert lan.is_loopback(host) is loopback


@pytest.mark.parametrize("host, wildcard", [("0.0.0.0", True), ("::", True), ("", True),
                                            ("127.0.0.1", False), ("192.168.1.20", False)])
def test_is_wildcard(host, wildcard):
    assert lan.is_wildcard(host) is wildcard


def test_finding_the_address_sends_no_packet(monkeypatch):
    """Only reads the interface list: no connect, no send, no DNS."""
    def refuse(*_args, **_kwargs):
        raise AssertionError("lan lookup touched the network")

    for method in ("connect", "connect_ex", "sendto", "send", "sendall", "sendmsg"):
        monkeypatch.setattr(socket.socket, method, refuse, raising=False)
    for function in ("getaddrinfo", "gethostbyname", "gethostbyname_ex", "create_connection"):
        monkeypatch.setattr(socket, function, refuse)

    address = lan.lan_address()  # the real ifaddr on this machine
    assert address is None or lan.is_loopback(address) is False
    url, _warning = cli.join_url("0.0.0.0", 8000)
    assert url.startswith("http://") and url.endswith(":8000/")
