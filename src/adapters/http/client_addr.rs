//! The address of the client a request came from, as the server loop resolved it (the TCP peer, or
//! the address a trusted proxy forwarded). Sign-in throttling and the connection limits key on it.

use std::net::IpAddr;

use warp::Filter;

/// Set by the server loop as a request extension on every request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClientAddr(pub IpAddr);

impl ClientAddr {
    /// The key under which this client is throttled: the address itself for IPv4, its /64 network
    /// for IPv6 (one subscriber usually holds a whole /64, so single addresses are free to rotate).
    pub fn throttle_key(&self) -> String {
        match self.0 {
            IpAddr::V4(v4) => v4.to_string(),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => v4.to_string(),
                None => {
                    let s = v6.segments();
                    format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
                }
            },
        }
    }
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
}
