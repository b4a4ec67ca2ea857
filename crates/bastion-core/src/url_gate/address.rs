//! IP address classification for the URL gate: which addresses a request must never
//! reach (SSRF) and which a user should be warned about before navigating.
//!
//! Sources: IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and its
//! updates: RFC 1122 "this network", RFC 1918 private, RFC 6598 shared/CGNAT, RFC 3927
//! link-local, RFC 5737 / RFC 3849 documentation, RFC 2544 benchmarking, RFC 5771
//! multicast, RFC 1112 reserved, RFC 4193 unique-local, RFC 4291 link-local and
//! IPv4-mapped, RFC 6052 NAT64, RFC 3056 6to4, RFC 4380 Teredo).
//!
//! Addresses arrive already parsed: the WHATWG URL parser (`url` crate) turns every
//! IPv4 spelling (`2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`) into one
//! [`std::net::Ipv4Addr`], and DNS answers are parsed with `std::net`. Range membership
//! uses `std::net` predicates where they are stable and [`ipnet`] CIDR blocks for the rest;
//! nothing here parses text by hand.

use ipnet::{Ipv4Net, Ipv6Net};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::LazyLock;

/// What kind of address an IP is, for the URL gate. Only [`AddressClass::Public`] is a
/// globally routable unicast destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AddressClass {
    /// Globally routable unicast.
    Public,
    /// `127.0.0.0/8`, `::1` (RFC 1122, RFC 4291).
    Loopback,
    /// RFC 1918 private (`10/8`, `172.16/12`, `192.168/16`) or IPv6 unique-local
    /// `fc00::/7` (RFC 4193).
    Private,
    /// `169.254/16` (RFC 3927, includes the cloud metadata address) or `fe80::/10`.
    LinkLocal,
    /// Shared address space `100.64/10` (RFC 6598, carrier-grade NAT).
    SharedCgnat,
    /// `0.0.0.0/8` "this network", `0.0.0.0`, `::` (RFC 1122, RFC 4291).
    Unspecified,
    /// `224/4`, `255.255.255.255`, `ff00::/8` (RFC 5771, RFC 919, RFC 4291).
    Multicast,
    /// Documentation ranges `192.0.2/24`, `198.51.100/24`, `203.0.113/24`, `2001:db8::/32`
    /// (RFC 5737, RFC 3849).
    Documentation,
    /// Benchmarking `198.18/15`, `2001:2::/48` (RFC 2544, RFC 5180).
    Benchmarking,
    /// Other IANA special-purpose or reserved space (`192.0.0/24`, `240/4`, discard-only
    /// `100::/64`, `ORCHIDv2` `2001:20::/28`, deprecated site-local `fec0::/10`, ...).
    Reserved,
}

impl AddressClass {
    /// Stable lowercase name used in finding messages and the `check url` output.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Public => "public",
            Self::Loopback => "loopback",
            Self::Private => "private",
            Self::LinkLocal => "link-local",
            Self::SharedCgnat => "shared (CGNAT)",
            Self::Unspecified => "unspecified",
            Self::Multicast => "multicast",
            Self::Documentation => "documentation",
            Self::Benchmarking => "benchmarking",
            Self::Reserved => "reserved",
        }
    }

    /// `true` for every class but [`AddressClass::Public`].
    pub const fn is_non_public(self) -> bool {
        !matches!(self, Self::Public)
    }
}

/// The classification of one address: its class, and the IPv4 address it embeds when
/// the class was decided by an embedded IPv4 (IPv4-mapped, IPv4-compatible, NAT64,
/// 6to4, Teredo).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Classified {
    /// The class.
    pub class: AddressClass,
    /// The embedded IPv4 address the class came from, if any.
    pub embedded_v4: Option<Ipv4Addr>,
}

fn nets4(list: &[&str]) -> Vec<Ipv4Net> {
    list.iter()
        .map(|s| s.parse().expect("static CIDR table"))
        .collect()
}

fn nets6(list: &[&str]) -> Vec<Ipv6Net> {
    list.iter()
        .map(|s| s.parse().expect("static CIDR table"))
        .collect()
}

static V4_SHARED: LazyLock<Vec<Ipv4Net>> = LazyLock::new(|| nets4(&["100.64.0.0/10"]));
static V4_BENCH: LazyLock<Vec<Ipv4Net>> = LazyLock::new(|| nets4(&["198.18.0.0/15"]));
static V4_RESERVED: LazyLock<Vec<Ipv4Net>> = LazyLock::new(|| {
    nets4(&[
        "192.0.0.0/24",   // IETF protocol assignments (RFC 6890)
        "192.88.99.0/24", // deprecated 6to4 relay anycast (RFC 7526)
        "240.0.0.0/4",    // reserved for future use (RFC 1112)
    ])
});
static V6_BENCH: LazyLock<Vec<Ipv6Net>> = LazyLock::new(|| nets6(&["2001:2::/48"]));
static V6_RESERVED: LazyLock<Vec<Ipv6Net>> = LazyLock::new(|| {
    nets6(&[
        "100::/64",       // discard-only (RFC 6666)
        "2001::/23",      // IETF protocol assignments (RFC 2928), Teredo handled first
        "fec0::/10",      // deprecated site-local (RFC 3879)
        "::/96",          // deprecated IPv4-compatible (handled first when it embeds v4)
        "64:ff9b:1::/48", // local-use NAT64 (RFC 8215)
    ])
});
static V6_DOC: LazyLock<Vec<Ipv6Net>> = LazyLock::new(|| nets6(&["2001:db8::/32", "3fff::/20"]));
static V6_NAT64: LazyLock<Ipv6Net> = LazyLock::new(|| nets6(&["64:ff9b::/96"])[0]);
static V6_6TO4: LazyLock<Ipv6Net> = LazyLock::new(|| nets6(&["2002::/16"])[0]);
static V6_TEREDO: LazyLock<Ipv6Net> = LazyLock::new(|| nets6(&["2001::/32"])[0]);

/// Classifies an IPv4 address (module docs give the sources).
pub fn classify_v4(ip: Ipv4Addr) -> AddressClass {
    if ip.is_loopback() {
        AddressClass::Loopback
    } else if ip.is_private() {
        AddressClass::Private
    } else if ip.is_link_local() {
        AddressClass::LinkLocal
    } else if ip.octets()[0] == 0 {
        AddressClass::Unspecified
    } else if ip.is_multicast() || ip.is_broadcast() {
        AddressClass::Multicast
    } else if ip.is_documentation() {
        AddressClass::Documentation
    } else if V4_SHARED.iter().any(|n| n.contains(&ip)) {
        AddressClass::SharedCgnat
    } else if V4_BENCH.iter().any(|n| n.contains(&ip)) {
        AddressClass::Benchmarking
    } else if V4_RESERVED.iter().any(|n| n.contains(&ip)) {
        AddressClass::Reserved
    } else {
        AddressClass::Public
    }
}

/// The IPv4 address an IPv6 address carries, by the standard embeddings: IPv4-mapped
/// `::ffff:a.b.c.d` (RFC 4291 §2.5.5.2), IPv4-compatible `::a.b.c.d` (deprecated, RFC 4291
/// §2.5.5.1; `::` and `::1` excluded), NAT64 `64:ff9b::/96` (RFC 6052), 6to4 `2002::/16`
/// (RFC 3056, bits 16..48) and Teredo `2001::/32` (RFC 4380, client address inverted in the
/// last 32 bits).
pub fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some(v4);
    }
    let o = ip.octets();
    let tail = Ipv4Addr::new(o[12], o[13], o[14], o[15]);
    if V6_NAT64.contains(&ip) {
        return Some(tail);
    }
    if V6_6TO4.contains(&ip) {
        return Some(Ipv4Addr::new(o[2], o[3], o[4], o[5]));
    }
    if V6_TEREDO.contains(&ip) {
        return Some(Ipv4Addr::from(!u32::from(tail)));
    }
    // IPv4-compatible: first 96 bits zero; `::` and `::1` are their own classes.
    if o[..12].iter().all(|b| *b == 0) && u32::from(tail) > 1 {
        return Some(tail);
    }
    None
}

/// Classifies an IPv6 address; an embedded IPv4 address (see [`embedded_v4`]) decides when
/// it is not public, so `::ffff:127.0.0.1` is loopback and `64:ff9b::a9fe:a9fe` link-local.
pub fn classify_v6(ip: Ipv6Addr) -> Classified {
    if let Some(v4) = embedded_v4(ip) {
        let class = classify_v4(v4);
        if class.is_non_public() {
            return Classified {
                class,
                embedded_v4: Some(v4),
            };
        }
    }
    let class = if ip.is_loopback() {
        AddressClass::Loopback
    } else if ip.is_unspecified() {
        AddressClass::Unspecified
    } else if ip.is_unique_local() {
        AddressClass::Private
    } else if ip.is_unicast_link_local() {
        AddressClass::LinkLocal
    } else if ip.is_multicast() {
        AddressClass::Multicast
    } else if V6_DOC.iter().any(|n| n.contains(&ip)) {
        AddressClass::Documentation
    } else if V6_BENCH.iter().any(|n| n.contains(&ip)) {
        AddressClass::Benchmarking
    } else if V6_RESERVED.iter().any(|n| n.contains(&ip)) {
        AddressClass::Reserved
    } else {
        AddressClass::Public
    };
    Classified {
        class,
        embedded_v4: None,
    }
}

/// Classifies any IP address (see [`classify_v4`], [`classify_v6`]).
pub fn classify(ip: IpAddr) -> Classified {
    match ip {
        IpAddr::V4(v4) => Classified {
            class: classify_v4(v4),
            embedded_v4: None,
        },
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(s: &str) -> AddressClass {
        classify(s.parse().unwrap()).class
    }

    #[test]
    fn v4_ranges() {
        use AddressClass as C;
        for (ip, want) in [
            ("127.0.0.1", C::Loopback),
            ("127.255.1.2", C::Loopback),
            ("10.1.2.3", C::Private),
            ("172.16.0.1", C::Private),
            ("172.31.255.255", C::Private),
            ("192.168.1.1", C::Private),
            ("169.254.169.254", C::LinkLocal),
            ("100.64.0.1", C::SharedCgnat),
            ("100.127.255.254", C::SharedCgnat),
            ("0.0.0.0", C::Unspecified),
            ("0.1.2.3", C::Unspecified),
            ("224.0.0.1", C::Multicast),
            ("255.255.255.255", C::Multicast),
            ("192.0.2.1", C::Documentation),
            ("203.0.113.10", C::Documentation),
            ("198.18.0.1", C::Benchmarking),
            ("192.0.0.8", C::Reserved),
            ("240.0.0.1", C::Reserved),
            ("8.8.8.8", C::Public),
            ("172.32.0.1", C::Public),
            ("100.128.0.1", C::Public),
            ("1.1.1.1", C::Public),
        ] {
            assert_eq!(class(ip), want, "{ip}");
        }
    }

    #[test]
    fn v6_ranges_and_embedded_v4() {
        use AddressClass as C;
        for (ip, want) in [
            ("::1", C::Loopback),
            ("::", C::Unspecified),
            ("fd00::5", C::Private),
            ("fc00::1", C::Private),
            ("fe80::1", C::LinkLocal),
            ("ff02::1", C::Multicast),
            ("2001:db8::1", C::Documentation),
            ("::ffff:127.0.0.1", C::Loopback),
            ("::ffff:a9fe:a9fe", C::LinkLocal),
            ("::ffff:10.0.0.1", C::Private),
            ("::127.0.0.1", C::Loopback),
            ("64:ff9b::7f00:1", C::Loopback),
            ("64:ff9b::a9fe:a9fe", C::LinkLocal),
            ("2002:7f00:1::", C::Loopback),
            ("2002:c0a8:101::1", C::Private),
            ("fec0::1", C::Reserved),
            ("100::1", C::Reserved),
            ("2606:4700:4700::1111", C::Public),
            ("2a00:1450:4001:82a::200e", C::Public),
            ("::ffff:8.8.8.8", C::Public),
        ] {
            assert_eq!(class(ip), want, "{ip}");
        }
        // Teredo: client 127.0.0.1 stored inverted (0x80ff_fffe).
        assert_eq!(class("2001:0:4136:e378:8000:63bf:80ff:fffe"), C::Loopback);
        let c = classify("::ffff:127.0.0.1".parse().unwrap());
        assert_eq!(c.embedded_v4, Some(Ipv4Addr::LOCALHOST));
    }
}
