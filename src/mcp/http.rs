//! Streamable HTTP at `/mcp`, guarded: a bearer token on every request (401 without it),
//! the `Origin` header checked as the MCP specification asks against DNS rebinding (a
//! present Origin that is neither a loopback origin nor allowed by name: 403), and a
//! non-loopback address only when asked for explicitly.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::{MemoryServer, ServeError};
use crate::MemoryStore;

/// Shortest token accepted: a guessable token on a network port is no guard.
pub const MIN_TOKEN_LEN: usize = 16;
/// Fewest different characters a token must have (`aaaaaaaaaaaaaaaa` is 16 characters long).
pub const MIN_TOKEN_DISTINCT: usize = 8;
/// Largest request body, in bytes: the longest memory (65,000 characters), JSON-escaped,
/// fits with room to spare.
pub const MAX_BODY_BYTES: usize = 1 << 20;
/// Sessions open at once; a new one past this is refused (503) until one closes or idles
/// out ([`SESSION_IDLE`]).
pub const MAX_SESSIONS: usize = 64;
/// A session with no request for this long is closed.
pub const SESSION_IDLE: std::time::Duration = std::time::Duration::from_secs(120);

/// How the HTTP transport is exposed.
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// Where to listen (port 0: any free port, printed at start).
    pub addr: SocketAddr,
    /// The bearer token every request must carry (`Authorization: Bearer <token>`).
    pub token: String,
    /// Listen on a non-loopback address (anyone who reaches it and holds the token reads
    /// the memory; put TLS in front).
    pub allow_remote: bool,
    /// Browser origins allowed besides loopback ones, exactly as browsers send them
    /// (`https://app.example.com`, `http://example.com:8080`).
    pub allowed_origins: Vec<String>,
}

impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the token.
        f.debug_struct("HttpOptions")
            .field("addr", &self.addr)
            .field("allow_remote", &self.allow_remote)
            .field("allowed_origins", &self.allowed_origins)
            .finish_non_exhaustive()
    }
}

impl HttpOptions {
    /// Options for `addr` with `token`; loopback only, no other origin.
    pub fn new(addr: SocketAddr, token: impl Into<String>) -> Self {
        HttpOptions { addr, token: token.into(), allow_remote: false, allowed_origins: Vec::new() }
    }

    /// Reads a listening address: `HOST:PORT`, `[V6]:PORT`, or a bare port (loopback).
    pub fn parse_addr(s: &str) -> Result<SocketAddr, ServeError> {
        let s = s.trim();
        if let Ok(port) = s.parse::<u16>() {
            return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
        }
        if let Some(port) = s.strip_prefix("localhost:").and_then(|p| p.parse::<u16>().ok()) {
            return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
        }
        s.parse().map_err(|_| {
            ServeError::Config(format!(
                "{s:?} is not an address to listen on: use 127.0.0.1:8765, [::1]:8765 or a port"
            ))
        })
    }

    /// The rules: a token of [`MIN_TOKEN_LEN`] characters or more, and loopback unless
    /// `allow_remote`.
    pub fn check(&self) -> Result<(), ServeError> {
        let token = self.token.trim();
        let distinct = token.chars().collect::<std::collections::HashSet<_>>().len();
        if token.chars().count() < MIN_TOKEN_LEN || distinct < MIN_TOKEN_DISTINCT {
            return Err(ServeError::Config(format!(
                "the HTTP transport needs a bearer token of at least {MIN_TOKEN_LEN} characters, {MIN_TOKEN_DISTINCT} of them different, in MEMSTR_MCP_TOKEN \
                 (e.g. `export MEMSTR_MCP_TOKEN=$(openssl rand -hex 32)`)"
            )));
        }
        if !self.addr.ip().is_loopback() && !self.allow_remote {
            return Err(ServeError::Config(format!(
                "refusing to listen on {}, which is not a loopback address: anyone who reaches it with the token reads \
                 this memory. Pass --allow-remote to do it anyway (and put TLS in front), or listen on 127.0.0.1",
                self.addr
            )));
        }
        for o in &self.allowed_origins {
            if normal_origin(o).is_none() {
                return Err(ServeError::Config(format!(
                    "allowed origin {o:?} is not an origin: give scheme://host[:port], e.g. https://app.example.com"
                )));
            }
        }
        Ok(())
    }
}

/// `scheme://host[:port]`, lower-cased, the default port dropped; `None` when it is not one.
fn normal_origin(origin: &str) -> Option<(String, String, Option<u16>)> {
    let origin = origin.trim().trim_end_matches('/');
    let (scheme, rest) = origin.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if !matches!(scheme.as_str(), "http" | "https") || rest.is_empty() || rest.contains(['/', '?', '#', '@']) {
        return None;
    }
    let (host, port) = if let Some(v6) = rest.strip_prefix('[') {
        let (h, after) = v6.split_once(']')?;
        (format!("[{}]", h.to_ascii_lowercase()), after.strip_prefix(':'))
    } else {
        match rest.rsplit_once(':') {
            Some((h, p)) => (h.to_ascii_lowercase(), Some(p)),
            None => (rest.to_ascii_lowercase(), None),
        }
    };
    let port = match port {
        Some(p) => Some(p.parse::<u16>().ok()?),
        None => None,
    };
    let default = if scheme == "https" { 443 } else { 80 };
    Some((scheme, host, port.filter(|p| *p != default)))
}

fn is_loopback_host(host: &str) -> bool {
    if host == "localhost" || host.ends_with(".localhost") {
        return true;
    }
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    bare.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

struct Guard {
    token: String,
    allowed: Vec<(String, String, Option<u16>)>,
    sessions: Arc<LocalSessionManager>,
}

impl Guard {
    fn origin_allowed(&self, origin: &HeaderValue) -> bool {
        let Some(o) = origin.to_str().ok().and_then(normal_origin) else { return false };
        is_loopback_host(&o.1) || self.allowed.contains(&o)
    }

    fn token_ok(&self, auth: Option<&HeaderValue>) -> bool {
        let Some(given) = auth.and_then(|a| a.to_str().ok()) else { return false };
        let Some(given) = given.strip_prefix("Bearer ").or_else(|| given.strip_prefix("bearer ")) else {
            return false;
        };
        constant_time_eq(given.trim().as_bytes(), self.token.trim().as_bytes())
    }
}

/// Compares without stopping at the first difference, so timing tells nothing of the token.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = a.len() ^ b.len();
    for (i, x) in a.iter().enumerate() {
        diff |= usize::from(x ^ b.get(i).copied().unwrap_or(0));
    }
    diff == 0
}

async fn guard(State(g): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    // Origin first: a page a browser was tricked into loading gets no further, token or not.
    if let Some(origin) = request.headers().get(header::ORIGIN) {
        if !g.origin_allowed(origin) {
            return (
                StatusCode::FORBIDDEN,
                "Forbidden: this Origin may not use memstr's MCP server (only loopback origins and those given with --allow-origin)",
            )
                .into_response();
        }
    }
    if !g.token_ok(request.headers().get(header::AUTHORIZATION)) {
        let mut r =
            (StatusCode::UNAUTHORIZED, "Unauthorized: send Authorization: Bearer <MEMSTR_MCP_TOKEN>").into_response();
        r.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer realm=\"memstr\""));
        return r;
    }
    // A request without a session starts one: refused past the cap, so a token holder
    // cannot fill memory with sessions.
    if request.method() == axum::http::Method::POST
        && !request.headers().contains_key("mcp-session-id")
        && g.sessions.sessions.read().await.len() >= MAX_SESSIONS
    {
        let mut r = (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("Too many sessions: {MAX_SESSIONS} are open; close one (DELETE) or retry when one idles out"),
        )
            .into_response();
        r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("30"));
        return r;
    }
    // The body is read here, bounded, before the MCP service parses it.
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_BODY_BYTES).await {
        Ok(b) => b,
        Err(_) => {
            return (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("Payload too large: a request body may be at most {MAX_BODY_BYTES} bytes"),
            )
                .into_response()
        }
    };
    next.run(Request::from_parts(parts, axum::body::Body::from(bytes))).await
}

pub(super) async fn serve<F: Future<Output = ()> + Send + 'static>(
    store: &MemoryStore,
    options: HttpOptions,
    shutdown: F,
) -> Result<(), ServeError> {
    options.check()?;
    let mut config = StreamableHttpServerConfig::default();
    if options.allow_remote {
        // Reached by names we cannot list; the token and the Origin check guard it.
        config = config.disable_allowed_hosts();
    }
    let cancel = config.cancellation_token.clone();
    // One server value for every session: they share the store and the bound on calls.
    let server = MemoryServer::new(store.clone());
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(SESSION_IDLE);
    let sessions = Arc::new(sessions);
    let service = StreamableHttpService::new(move || Ok(server.clone()), sessions.clone(), config);
    let g = Arc::new(Guard {
        token: options.token.clone(),
        allowed: options.allowed_origins.iter().filter_map(|o| normal_origin(o)).collect(),
        sessions,
    });
    let app = axum::Router::new().nest_service("/mcp", service).layer(axum::middleware::from_fn_with_state(g, guard));
    let listener = tokio::net::TcpListener::bind(options.addr).await?;
    let local = listener.local_addr()?;
    // On stderr, for the operator and for tests that asked for port 0.
    eprintln!("memstr mcp: listening on http://{local}/mcp");
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown.await;
            // Open event streams end too, so the graceful shutdown does not wait on them.
            cancel.cancel();
        })
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard_with(allowed: &[&str]) -> Guard {
        Guard {
            token: "x".repeat(20),
            allowed: allowed.iter().filter_map(|o| normal_origin(o)).collect(),
            sessions: Arc::new(LocalSessionManager::default()),
        }
    }

    #[test]
    fn loopback_origins_pass_and_others_need_naming() {
        let g = guard_with(&["https://app.example.com"]);
        for ok in [
            "http://localhost:3000",
            "http://127.0.0.1",
            "https://[::1]:8443",
            "http://127.0.0.2:1",
            "https://app.example.com:443",
            "HTTPS://APP.example.com/",
        ] {
            assert!(g.origin_allowed(&HeaderValue::from_static(ok)), "{ok}");
        }
        for bad in [
            "http://evil.example",
            "null",
            "http://localhost.evil.com",
            "http://127.0.0.1.nip.io",
            "https://app.example.com:8443",
            "file://",
            "http://app.example.com",
        ] {
            assert!(!g.origin_allowed(&HeaderValue::from_static(bad)), "{bad}");
        }
    }

    #[test]
    fn only_the_exact_bearer_token_passes() {
        let g = guard_with(&[]);
        let t = "x".repeat(20);
        assert!(g.token_ok(Some(&HeaderValue::from_str(&format!("Bearer {t}")).unwrap())));
        for bad in
            [format!("Bearer {t}x"), format!("Bearer {}", &t[1..]), t.clone(), format!("Basic {t}"), String::new()]
        {
            assert!(!g.token_ok(Some(&HeaderValue::from_str(&bad).unwrap())), "{bad}");
        }
        assert!(!g.token_ok(None));
    }

    #[test]
    fn short_tokens_and_remote_addresses_are_refused() {
        let local = HttpOptions::parse_addr("8765").unwrap();
        let good = "0123456789abcdef";
        assert!(HttpOptions::new(local, "short").check().is_err());
        assert!(HttpOptions::new(local, "y".repeat(16)).check().is_err(), "16 identical characters guard nothing");
        assert!(HttpOptions::new(local, "abababababababab").check().is_err(), "2 different characters");
        assert!(HttpOptions::new(local, good).check().is_ok());
        let remote = HttpOptions::parse_addr("0.0.0.0:8765").unwrap();
        assert!(HttpOptions::new(remote, good).check().is_err());
        let mut allowed = HttpOptions::new(remote, good);
        allowed.allow_remote = true;
        assert!(allowed.check().is_ok());
        assert!(HttpOptions::parse_addr("[::1]:9").unwrap().ip().is_loopback());
        assert!(HttpOptions::parse_addr("nonsense").is_err());
    }
}
