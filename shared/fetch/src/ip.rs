//! Which IP addresses an outbound request may reach.
//!
//! The rule is "public unicast only". Every range below is either internal to us (loopback,
//! the Lambda runtime API on 127.0.0.1:9001, link-local including the cloud metadata service
//! 169.254.169.254), internal to some network (RFC 1918, CGNAT, unique-local), not a unicast
//! destination (multicast, broadcast, unspecified), never routed (documentation, benchmarking,
//! reserved), or a *translation* of an embedded IPv4 address (IPv4-mapped, IPv4-compatible,
//! SIIT, NAT64, 6to4, Teredo) that could smuggle a private IPv4 past an IPv4-only check.
//! Translation forms are refused outright rather than unwrapped and re-checked: no legitimate
//! document or webhook host needs them, and refusing them removes a whole class of bypasses.
//!
//! For IPv6 the check is an allow-list first: only the global unicast block `2000::/3` can pass,
//! and then the special-purpose sub-ranges inside it are refused. Anything IANA allocates later
//! outside `2000::/3` is refused until reviewed.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is not public.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AddressClass {
    /// 127.0.0.0/8, ::1 (includes the Lambda runtime API at 127.0.0.1:9001).
    Loopback,
    /// RFC 1918 (10/8, 172.16/12, 192.168/16) and deprecated IPv6 site-local fec0::/10.
    Private,
    /// 169.254.0.0/16 (cloud metadata 169.254.169.254), fe80::/10.
    LinkLocal,
    /// 100.64.0.0/10 carrier-grade NAT shared space.
    SharedAddressSpace,
    /// fc00::/7 unique-local (includes the EC2 IPv6 metadata address fd00:ec2::254).
    UniqueLocal,
    /// 224.0.0.0/4, ff00::/8.
    Multicast,
    /// 0.0.0.0/8 ("this network"; connecting to 0.0.0.0 reaches the local host on Linux), ::.
    Unspecified,
    /// 255.255.255.255.
    Broadcast,
    /// 192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20.
    Documentation,
    /// 198.18.0.0/15, 2001:2::/48.
    Benchmarking,
    /// IPv4 embedded in IPv6: ::ffff:0:0/96 (mapped), ::/96 (compatible), ::ffff:0:0:0/96 (SIIT).
    Ipv4Embedded,
    /// 64:ff9b::/96 and 64:ff9b:1::/48 (NAT64).
    Nat64,
    /// 2002::/16 (6to4), 192.88.99.0/24 (6to4 relay anycast), 2001::/32 (Teredo).
    Tunnel,
    /// Other special-purpose or unallocated space: 192.0.0.0/24, 240.0.0.0/4, 100::/64,
    /// 2001::/23, 5f00::/16 (SRv6), and IPv6 outside 2000::/3.
    Reserved,
}

impl AddressClass {
    /// Short user-facing description.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Loopback => "a loopback address",
            Self::Private => "a private network address",
            Self::LinkLocal => "a link-local address",
            Self::SharedAddressSpace => "a carrier-grade NAT address",
            Self::UniqueLocal => "a unique-local IPv6 address",
            Self::Multicast => "a multicast address",
            Self::Unspecified => "an unspecified address",
            Self::Broadcast => "a broadcast address",
            Self::Documentation => "a documentation-only address",
            Self::Benchmarking => "a benchmarking address",
            Self::Ipv4Embedded => "an IPv4-in-IPv6 address form",
            Self::Nat64 => "a NAT64 address",
            Self::Tunnel => "a tunnelling (6to4/Teredo) address",
            Self::Reserved => "a reserved address",
        }
    }
}

impl fmt::Display for AddressClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// One refused range. Both families are held left-aligned in 128 bits (an IPv4 network shifted up by 96), so a prefix
/// length always counts from the top bit and one comparison serves IPv4 and IPv6.
#[derive(Debug, Clone, Copy)]
struct Range {
    net: u128,
    prefix: u32,
    class: AddressClass,
}

impl Range {
    /// `net/prefix` for IPv4, e.g. `v4([10, 0, 0, 0], 8, ..)` for 10.0.0.0/8.
    const fn v4(net: [u8; 4], prefix: u32, class: AddressClass) -> Self {
        Range {
            net: (u32::from_be_bytes(net) as u128) << 96,
            prefix,
            class,
        }
    }

    /// `net/prefix` for IPv6 from its leading 16-bit groups (the rest are zero), e.g. `v6(&[0x2001, 0xdb8], 32, ..)`
    /// for 2001:db8::/32.
    const fn v6(leading: &[u16], prefix: u32, class: AddressClass) -> Self {
        let mut net = 0u128;
        let mut i = 0;
        while i < leading.len() {
            net |= (leading[i] as u128) << (112 - 16 * i);
            i += 1;
        }
        Range { net, prefix, class }
    }

    /// Whether the left-aligned `addr` lies in this range.
    fn contains(&self, addr: u128) -> bool {
        // A /0 prefix would shift by the full width; `checked_shl` turns that into the empty mask.
        let mask = u128::MAX.checked_shl(128 - self.prefix).unwrap_or(0);
        addr & mask == self.net & mask
    }
}

/// The class of the first range holding `addr` (so more specific ranges must come first).
fn first_match(ranges: &[Range], addr: u128) -> Option<AddressClass> {
    ranges.iter().find(|r| r.contains(addr)).map(|r| r.class)
}

const V4_REFUSED: &[Range] = &[
    Range::v4([255, 255, 255, 255], 32, AddressClass::Broadcast),
    Range::v4([0, 0, 0, 0], 8, AddressClass::Unspecified),
    Range::v4([10, 0, 0, 0], 8, AddressClass::Private),
    Range::v4([100, 64, 0, 0], 10, AddressClass::SharedAddressSpace),
    Range::v4([127, 0, 0, 0], 8, AddressClass::Loopback),
    Range::v4([169, 254, 0, 0], 16, AddressClass::LinkLocal),
    Range::v4([172, 16, 0, 0], 12, AddressClass::Private),
    Range::v4([192, 0, 0, 0], 24, AddressClass::Reserved),
    Range::v4([192, 0, 2, 0], 24, AddressClass::Documentation),
    Range::v4([192, 88, 99, 0], 24, AddressClass::Tunnel),
    Range::v4([192, 168, 0, 0], 16, AddressClass::Private),
    Range::v4([198, 18, 0, 0], 15, AddressClass::Benchmarking),
    Range::v4([198, 51, 100, 0], 24, AddressClass::Documentation),
    Range::v4([203, 0, 113, 0], 24, AddressClass::Documentation),
    Range::v4([224, 0, 0, 0], 4, AddressClass::Multicast),
    Range::v4([240, 0, 0, 0], 4, AddressClass::Reserved),
];

// Order matters: the more specific entries come first.
const V6_REFUSED: &[Range] = &[
    Range::v6(&[0, 0, 0, 0, 0, 0xffff], 96, AddressClass::Ipv4Embedded),
    Range::v6(&[0, 0, 0, 0, 0xffff], 96, AddressClass::Ipv4Embedded),
    Range::v6(&[], 96, AddressClass::Ipv4Embedded),
    Range::v6(&[0x64, 0xff9b], 96, AddressClass::Nat64),
    Range::v6(&[0x64, 0xff9b, 1], 48, AddressClass::Nat64),
    Range::v6(&[0x100], 64, AddressClass::Reserved),
    Range::v6(&[0x2001], 32, AddressClass::Tunnel),
    Range::v6(&[0x2001, 2], 48, AddressClass::Benchmarking),
    Range::v6(&[0x2001], 23, AddressClass::Reserved),
    Range::v6(&[0x2001, 0xdb8], 32, AddressClass::Documentation),
    Range::v6(&[0x2002], 16, AddressClass::Tunnel),
    Range::v6(&[0x3fff], 20, AddressClass::Documentation),
    Range::v6(&[0x5f00], 16, AddressClass::Reserved),
    Range::v6(&[0xfc00], 7, AddressClass::UniqueLocal),
    Range::v6(&[0xfe80], 10, AddressClass::LinkLocal),
    Range::v6(&[0xfec0], 10, AddressClass::Private),
    Range::v6(&[0xff00], 8, AddressClass::Multicast),
];

/// The allow-list for IPv6: only global unicast 2000::/3 may pass.
const V6_GLOBAL_UNICAST: Range = Range::v6(&[0x2000], 3, AddressClass::Reserved);

/// Classifies an IPv4 address; `None` means public unicast.
pub fn classify_v4(ip: Ipv4Addr) -> Option<AddressClass> {
    first_match(V4_REFUSED, u128::from(u32::from(ip)) << 96)
}

/// Classifies an IPv6 address; `None` means public unicast.
pub fn classify_v6(ip: Ipv6Addr) -> Option<AddressClass> {
    let a = u128::from(ip);
    if a == 0 {
        return Some(AddressClass::Unspecified);
    }
    if a == 1 {
        return Some(AddressClass::Loopback);
    }
    first_match(V6_REFUSED, a)
        .or_else(|| (!V6_GLOBAL_UNICAST.contains(a)).then_some(AddressClass::Reserved))
}

/// Classifies any address; `None` means public unicast.
pub fn classify_ip(ip: IpAddr) -> Option<AddressClass> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

/// Checks an address against the policy: public addresses pass; with `allow_loopback`, plain
/// loopback (127.0.0.0/8 and ::1, not their IPv4-in-IPv6 spellings) passes too. Nothing else
/// ever does: private and link-local stay refused in every configuration.
pub fn check_ip(ip: IpAddr, allow_loopback: bool) -> Result<(), AddressClass> {
    match classify_ip(ip) {
        None => Ok(()),
        Some(AddressClass::Loopback) if allow_loopback => Ok(()),
        Some(class) => Err(class),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(s: &str) -> Option<AddressClass> {
        classify_ip(s.parse().expect("test ip"))
    }

    #[test]
    fn range_boundaries_are_exact() {
        // Just outside each refused IPv4 range: public.
        for public in [
            "9.255.255.255",
            "11.0.0.0",
            "100.63.255.255",
            "100.128.0.0",
            "126.255.255.255",
            "128.0.0.0",
            "169.253.255.255",
            "169.255.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.0.1.255",
            "192.0.3.0",
            "192.167.255.255",
            "192.169.0.0",
            "198.17.255.255",
            "198.20.0.0",
            "223.255.255.255",
            "1.1.1.1",
        ] {
            assert_eq!(class(public), None, "{public}");
        }
        // Just inside.
        for (inside, expected) in [
            ("10.255.255.255", AddressClass::Private),
            ("172.16.0.0", AddressClass::Private),
            ("192.168.255.255", AddressClass::Private),
            ("100.64.0.0", AddressClass::SharedAddressSpace),
            ("0.255.255.255", AddressClass::Unspecified),
            ("224.0.0.0", AddressClass::Multicast),
            ("239.255.255.255", AddressClass::Multicast),
            ("255.255.255.254", AddressClass::Reserved),
        ] {
            assert_eq!(class(inside), Some(expected), "{inside}");
        }
    }

    #[test]
    fn ipv6_allows_only_global_unicast_outside_special_ranges() {
        for public in [
            "2606:4700:4700::1111",
            "2001:4860:4860::8888",
            "2001:200::1",
            "2a00:1450:4007:80e::200e",
            "3ffe::1",
        ] {
            assert_eq!(class(public), None, "{public}");
        }
        for (refused, expected) in [
            ("::2", AddressClass::Ipv4Embedded),
            ("::ffff:8.8.8.8", AddressClass::Ipv4Embedded),
            ("2001:db8:ffff::1", AddressClass::Documentation),
            ("2001:1ff::1", AddressClass::Reserved),
            ("1::1", AddressClass::Reserved),
            ("e000::1", AddressClass::Reserved),
            ("fdff:ffff::1", AddressClass::UniqueLocal),
            ("febf::1", AddressClass::LinkLocal),
        ] {
            assert_eq!(class(refused), Some(expected), "{refused}");
        }
    }

    #[test]
    fn loopback_switch_never_unlocks_other_ranges() {
        let ip = |s: &str| s.parse::<IpAddr>().expect("test ip");
        assert_eq!(check_ip(ip("127.0.0.1"), true), Ok(()));
        assert_eq!(check_ip(ip("::1"), true), Ok(()));
        assert_eq!(
            check_ip(ip("127.0.0.1"), false),
            Err(AddressClass::Loopback)
        );
        for other in [
            "10.0.0.1",
            "169.254.169.254",
            "0.0.0.0",
            "::ffff:127.0.0.1",
            "fe80::1",
        ] {
            assert!(check_ip(ip(other), true).is_err(), "{other}");
        }
    }
}
