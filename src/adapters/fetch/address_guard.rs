//! The fetcher's SSRF guard: which addresses a fetch may connect to ([`is_public_address`]), and
//! the DNS resolver that enforces that on every host name the client connects to
//! ([`GuardedResolver`]). Why the check sits in the resolver, and how IP literals are checked, is
//! explained in the fetcher's module documentation.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Which addresses a fetch may connect to.
pub(super) type AddressPolicy = Arc<dyn Fn(IpAddr) -> bool + Send + Sync>;

/// A host name that resolved to an address the policy refuses.
#[derive(Debug, thiserror::Error)]
#[error("{host} resolves to {ip}, which is not a public address")]
pub(super) struct RefusedAddress {
    host: String,
    ip: IpAddr,
}

/// The fetch client's only DNS resolver: the addresses it returns are the ones connected to, so
/// vetting them here leaves no window between check and connect.
pub(super) struct GuardedResolver {
    pub(super) may_connect: AddressPolicy,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        let may_connect = Arc::clone(&self.may_connect);
        Box::pin(async move {
            let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if addrs.is_empty() {
                return Err(std::io::Error::other(format!("{host} has no address")).into());
            }
            // One refused address refuses the host: a public name has no business resolving to a
            // private address, and trying only its other addresses would make the outcome depend
            // on the order the connector tries them in.
            if let Some(refused) = addrs.iter().find(|addr| !may_connect(addr.ip())) {
                return Err(RefusedAddress { host, ip: refused.ip() }.into());
            }
            let addrs: Addrs = Box::new(addrs.into_iter());
            Ok(addrs)
        })
    }
}

/// Whether `ip` is a public unicast address, one a page may be fetched from without
/// `allow_private_networks`. Refused: unspecified, loopback, private, CGNAT, link-local (the cloud
/// metadata address included), multicast, broadcast and reserved IPv4 ranges; IPv6 unspecified,
/// loopback, unique-local, link-local, site-local, multicast, documentation and discard-only
/// ranges, and IPv6 forms that carry a refused IPv4 address (mapped, compatible, NAT64, 6to4).
pub fn is_public_address(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => is_public_v4(ip),
        IpAddr::V6(ip) => is_public_v6(ip),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    let refused = a == 0 // "this network", 0.0.0.0 included
        || a == 10 // private
        || (a == 100 && (64..=127).contains(&b)) // carrier-grade NAT, 100.64.0.0/10
        || a == 127 // loopback
        || (a == 169 && b == 254) // link-local, the cloud metadata service 169.254.169.254
        || (a == 172 && (16..=31).contains(&b)) // private
        || (a == 192 && b == 0 && (c == 0 || c == 2)) // IETF protocol assignments, TEST-NET-1
        || (a == 192 && b == 168) // private
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || (a == 198 && b == 51 && c == 100) // TEST-NET-2
        || (a == 203 && b == 0 && c == 113) // TEST-NET-3
        || a >= 224; // multicast 224/4, reserved 240/4, broadcast
    !refused
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    if let Some(carried) = carried_ipv4(ip) {
        return is_public_v4(carried);
    }
    let first = ip.segments()[0];
    let refused = ip.is_unspecified()
        || ip.is_loopback()
        || (first & 0xfe00) == 0xfc00 // unique local, fc00::/7
        || (first & 0xffc0) == 0xfe80 // link-local, fe80::/10
        || (first & 0xffc0) == 0xfec0 // site-local (deprecated), fec0::/10
        || (first & 0xff00) == 0xff00 // multicast
        || (first == 0x2001 && ip.segments()[1] == 0x0db8) // documentation, 2001:db8::/32
        || ip.segments()[..4] == [0x0100, 0, 0, 0]; // discard-only, 100::/64
    !refused
}

/// The IPv4 address an IPv6 address reaches: IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible
/// `::a.b.c.d` (deprecated; `::` and `::1` map into 0.0.0.0/8, refused anyway), NAT64
/// `64:ff9b::a.b.c.d` and 6to4 `2002:AABB:CCDD::/48`.
fn carried_ipv4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let from = |high: u16, low: u16| Ipv4Addr::from((u32::from(high) << 16) | u32::from(low));
    match s {
        [0, 0, 0, 0, 0, 0xffff, high, low] | [0, 0, 0, 0, 0, 0, high, low] | [0x64, 0xff9b, 0, 0, 0, 0, high, low] => {
            Some(from(high, low))
        }
        [0x2002, high, low, ..] => Some(from(high, low)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_classified_public_or_not() {
        let table: &[(&str, bool)] = &[
            ("93.184.216.34", true),
            ("8.8.8.8", true),
            ("100.63.255.255", true),
            ("100.128.0.1", true),
            ("172.15.255.255", true),
            ("172.32.0.1", true),
            ("192.169.0.1", true),
            ("223.255.255.255", true),
            ("0.0.0.0", false),
            ("0.1.2.3", false),
            ("10.0.0.1", false),
            ("100.64.0.1", false),
            ("100.127.255.254", false),
            ("127.0.0.1", false),
            ("127.255.255.254", false),
            ("169.254.169.254", false),
            ("169.254.0.1", false),
            ("172.16.0.1", false),
            ("172.31.255.255", false),
            ("192.0.0.8", false),
            ("192.0.2.1", false),
            ("192.168.1.1", false),
            ("198.18.0.1", false),
            ("224.0.0.1", false),
            ("240.0.0.1", false),
            ("255.255.255.255", false),
            ("2606:4700:4700::1111", true),
            ("2a00:1450:4001::200e", true),
            ("::ffff:8.8.8.8", true),
            ("64:ff9b::808:808", true),
            ("2002:808:808::1", true),
            ("::", false),
            ("::1", false),
            ("fc00::1", false),
            ("fd12:3456:789a::1", false),
            ("fe80::1", false),
            ("febf::1", false),
            ("fec0::1", false),
            ("ff02::1", false),
            ("2001:db8::1", false),
            ("100::1", false),
            ("::ffff:127.0.0.1", false),
            ("::ffff:10.0.0.1", false),
            ("::ffff:169.254.169.254", false),
            ("::127.0.0.1", false),
            ("64:ff9b::a00:1", false),
            ("2002:c0a8:101::1", false),
        ];
        for (raw, public) in table {
            let ip: IpAddr = raw.parse().expect(raw);
            assert_eq!(is_public_address(ip), *public, "{raw}");
        }
    }
}
