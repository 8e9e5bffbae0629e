//! The address of the client a request came from, as the server loop resolved it (the TCP peer, or
//! the address a trusted proxy forwarded). Sign-in throttling and the connection limits key on it.

use std::net::{IpAddr, Ipv6Addr};

use ipnet::IpNet;

use warp::Filter;

/// Set by the server loop as a request extension on every request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClientAddr(pub IpAddr);

impl ClientAddr {
    /// The key under which this client is throttled: the address itself for IPv4, its /64 network
    /// for IPv6 (one subscriber usually holds a whole /64, so single addresses are free to rotate).
    pub fn throttle_key(&self) -> String {
        match self.network() {
            IpAddr::V4(v4) => v4.to_string(),
            IpAddr::V6(v6) => format!("{v6}/64"),
        }
    }

    /// The address that stands for this client: an IPv4 address (IPv4-mapped IPv6 included) as
    /// it is, an IPv6 address cut to its /64 network.
    pub fn network(&self) -> IpAddr {
        match self.0 {
            IpAddr::V4(v4) => IpAddr::V4(v4),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => IpAddr::V4(v4),
                None => {
                    let s = v6.segments();
                    IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
                }
            },
        }
    }

    /// The client of a request that reached this server from `peer`: the peer itself, unless it
    /// is a trusted proxy; then the rightmost `X-Forwarded-For` address that is not one (proxies
    /// append the address they received from, so everything left of it is the client's say-so).
    pub fn resolve<'a>(
        peer: IpAddr,
        forwarded_for: impl DoubleEndedIterator<Item = &'a str>,
        trusted_proxies: &[IpNet],
    ) -> Self {
        let trusted = |ip: &IpAddr| is_trusted_proxy(trusted_proxies, *ip);
        if !trusted(&peer) {
            return Self(peer);
        }
        let mut client = peer;
        for hop in forwarded_for.rev().flat_map(|value| value.rsplit(',')).map(str::trim) {
            match hop.parse::<IpAddr>() {
                Ok(ip) if trusted(&ip) => client = ip,
                Ok(ip) => return Self(ip),
                // A hop that is not an address: the chain cannot be followed further.
                Err(_) => break,
            }
        }
        Self(client)
    }
}

/// Whether `peer` is one of the configured reverse proxies, whose forwarded headers are believed.
pub fn is_trusted_proxy(trusted_proxies: &[IpNet], peer: IpAddr) -> bool {
    trusted_proxies.iter().any(|net| net.contains(&peer))
}

/// Whether the request reached the service over TLS, as a trusted proxy says in
/// `X-Forwarded-Proto` (this server itself speaks plain HTTP).
pub fn forwarded_over_tls<'a>(
    peer: IpAddr,
    mut forwarded_proto: impl DoubleEndedIterator<Item = &'a str>,
    trusted_proxies: &[IpNet],
) -> bool {
    is_trusted_proxy(trusted_proxies, peer)
        && forwarded_proto
            .next_back()
            .and_then(|value| value.rsplit(',').next())
            .is_some_and(|proto| proto.trim().eq_ignore_ascii_case("https"))
}

/// The request's client address; `None` only where no server loop ran (`warp::test` requests).
pub fn client_addr() -> impl Filter<Extract = (Option<ClientAddr>,), Error = std::convert::Infallible> + Clone {
    warp::ext::optional::<ClientAddr>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv4_is_keyed_by_address_and_ipv6_by_its_64_network() {
        let v4 = ClientAddr("203.0.113.7".parse().expect("ip"));
        assert_eq!(v4.throttle_key(), "203.0.113.7");
        let a = ClientAddr("2001:db8:1:2:aaaa::1".parse().expect("ip"));
        let b = ClientAddr("2001:db8:1:2:bbbb::9".parse().expect("ip"));
        assert_eq!(a.throttle_key(), b.throttle_key());
        assert_eq!(a.throttle_key(), "2001:db8:1:2::/64");
        let mapped = ClientAddr("::ffff:198.51.100.4".parse().expect("ip"));
        assert_eq!(mapped.throttle_key(), "198.51.100.4");
    }

    fn nets(list: &[&str]) -> Vec<IpNet> {
        list.iter().map(|n| n.parse().expect("net")).collect()
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("ip")
    }

    #[test]
    fn forwarded_for_is_believed_only_from_a_trusted_proxy() {
        let proxies = nets(&["10.0.0.0/8"]);
        let header = ["198.51.100.1, 203.0.113.5"];
        // An untrusted peer is the client, whatever it claims.
        assert_eq!(ClientAddr::resolve(ip("192.0.2.9"), header.into_iter(), &proxies), ClientAddr(ip("192.0.2.9")));
        // Through a trusted proxy: the address the proxy received from (rightmost), not the
        // client's own claim to its left.
        assert_eq!(ClientAddr::resolve(ip("10.1.2.3"), header.into_iter(), &proxies), ClientAddr(ip("203.0.113.5")));
    }

    #[test]
    fn chained_trusted_proxies_are_skipped_and_garbage_stops_the_walk() {
        let proxies = nets(&["10.0.0.0/8"]);
        let chain = ["203.0.113.5", "10.9.9.9"];
        assert_eq!(ClientAddr::resolve(ip("10.1.2.3"), chain.into_iter(), &proxies), ClientAddr(ip("203.0.113.5")));
        let garbage = ["203.0.113.5, not-an-ip, 10.9.9.9"];
        assert_eq!(ClientAddr::resolve(ip("10.1.2.3"), garbage.into_iter(), &proxies), ClientAddr(ip("10.9.9.9")));
        assert_eq!(ClientAddr::resolve(ip("10.1.2.3"), std::iter::empty(), &proxies), ClientAddr(ip("10.1.2.3")));
    }

    #[test]
    fn tls_is_believed_from_a_trusted_proxys_last_forwarded_proto() {
        let proxies = nets(&["127.0.0.1/32"]);
        assert!(forwarded_over_tls(ip("127.0.0.1"), ["https"].into_iter(), &proxies));
        assert!(forwarded_over_tls(ip("127.0.0.1"), ["http, https"].into_iter(), &proxies));
        assert!(!forwarded_over_tls(ip("127.0.0.1"), ["https, http"].into_iter(), &proxies));
        assert!(!forwarded_over_tls(ip("192.0.2.1"), ["https"].into_iter(), &proxies));
        assert!(!forwarded_over_tls(ip("127.0.0.1"), std::iter::empty(), &proxies));
    }
}
