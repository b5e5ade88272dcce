//! Relay addresses: `wss://` by default, `ws://` only for loopback or by explicit opt-in.

use std::fmt;
use std::net::IpAddr;

use serde::{Deserialize, Serialize};

/// Why a relay address was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RelayUrlError {
    /// Not a `ws://` or `wss://` URL with a host; holds the input.
    #[error("{0:?} is not a websocket URL (expected wss://host[:port][/path])")]
    Malformed(String),
    /// Unencrypted `ws://` to a non-loopback host without opt-in; holds the input.
    #[error("{0:?} is unencrypted ws:// to a non-loopback host; use wss://, or opt in to insecure relays")]
    Insecure(String),
}

/// A validated relay address, normalised (lower-case scheme and host, no trailing `/`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RelayUrl(String);

impl RelayUrl {
    /// Parses `url`. `allow_insecure` admits `ws://` to any host.
    pub fn parse(url: &str, allow_insecure: bool) -> Result<Self, RelayUrlError> {
        let url = url.trim();
        let malformed = || RelayUrlError::Malformed(url.to_string());
        let (scheme, rest) = url.split_once("://").ok_or_else(malformed)?;
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "ws" && scheme != "wss" {
            return Err(malformed());
        }
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        if authority.is_empty() || authority.contains('@') || rest.contains(char::is_whitespace) {
            return Err(malformed());
        }
        let host = host_of(authority).ok_or_else(malformed)?;
        if scheme == "ws" && !allow_insecure && !is_loopback(&host) {
            return Err(RelayUrlError::Insecure(url.to_string()));
        }
        let path = path.trim_end_matches('/');
        Ok(RelayUrl(format!("{scheme}://{}{path}", authority.to_ascii_lowercase())))
    }

    /// The address.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether its host is on this machine or a private network: loopback, `localhost`,
    /// `.local`/`.internal` names, RFC 1918, link-local and unique-local addresses.
    pub fn is_private(&self) -> bool {
        let rest = self.0.split_once("://").map_or("", |(_, r)| r);
        let authority = rest.split('/').next().unwrap_or("");
        let Some(host) = host_of(authority) else { return false };
        if is_loopback(&host)
            || [".localhost", ".local", ".internal", ".lan", ".home.arpa"].iter().any(|s| host.ends_with(s))
        {
            return true;
        }
        match host.parse::<IpAddr>() {
            Ok(IpAddr::V4(ip)) => {
                ip.is_private()
                    || ip.is_link_local()
                    || ip.is_unspecified()
                    || ip.octets()[0] == 100 && (64..128).contains(&ip.octets()[1])
            }
            Ok(IpAddr::V6(ip)) => {
                let s = ip.segments()[0];
                ip.is_unspecified()
                    || (s & 0xfe00) == 0xfc00
                    || (s & 0xffc0) == 0xfe80
                    || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_private() || v4.is_loopback() || v4.is_link_local())
            }
            Err(_) => false,
        }
    }
}

impl std::ops::Deref for RelayUrl {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RelayUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The host of `host[:port]` or `[v6]:port`, checked for a sane port.
fn host_of(authority: &str) -> Option<String> {
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (h, after) = rest.split_once(']')?;
        (h.to_string(), after.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), Some(p)),
            None => (authority.to_string(), None),
        }
    };
    if host.is_empty() || port.is_some_and(|p| p.parse::<u16>().is_err()) {
        return None;
    }
    Some(host.to_ascii_lowercase())
}

fn is_loopback(host: &str) -> bool {
    host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_secure_and_loopback() {
        assert_eq!(RelayUrl::parse("wss://Relay.Example.com/", false).unwrap().as_str(), "wss://relay.example.com");
        assert!(RelayUrl::parse("ws://127.0.0.1:7777", false).is_ok());
        assert!(RelayUrl::parse("ws://localhost:7777/path", false).is_ok());
        assert!(RelayUrl::parse("ws://[::1]:7777", false).is_ok());
        assert!(RelayUrl::parse("ws://127.5.5.5:1", false).is_ok());
    }

    #[test]
    fn refuses_insecure_remote_unless_opted_in() {
        assert!(matches!(RelayUrl::parse("ws://relay.example.com", false), Err(RelayUrlError::Insecure(_))));
        assert!(matches!(RelayUrl::parse("ws://10.0.0.1", false), Err(RelayUrlError::Insecure(_))));
        assert!(RelayUrl::parse("ws://relay.example.com", true).is_ok());
    }

    #[test]
    fn private_addresses_are_told_apart() {
        for private in [
            "ws://127.0.0.1:7",
            "ws://localhost",
            "wss://10.1.2.3",
            "wss://192.168.1.9:7777",
            "wss://172.20.0.1",
            "wss://169.254.1.1",
            "wss://[fd00::1]",
            "wss://[fe80::1]",
            "wss://nas.local",
            "wss://100.64.0.1",
            "wss://[::ffff:10.0.0.1]",
        ] {
            assert!(RelayUrl::parse(private, true).unwrap().is_private(), "{private}");
        }
        for public in ["wss://relay.example.com", "wss://8.8.8.8", "wss://[2001:db8::1]", "wss://172.32.0.1"] {
            assert!(!RelayUrl::parse(public, true).unwrap().is_private(), "{public}");
        }
    }

    #[test]
    fn refuses_garbage() {
        for bad in ["", "relay.example.com", "https://x", "wss://", "wss://user@host", "wss://h:99999", "wss://a b"] {
            assert!(matches!(RelayUrl::parse(bad, true), Err(RelayUrlError::Malformed(_))), "{bad}");
        }
    }
}
