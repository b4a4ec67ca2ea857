//! The loopback redirect listener (RFC 8252 §7.3): `http://127.0.0.1:PORT/callback/SEGMENT`
//! on an ephemeral port, `SEGMENT` 128 random bits unless the client's registration fixed
//! it.
//!
//! It takes exactly one authorization response on that path: the first hit is judged
//! (state, RFC 9207 `iss`, `error=`, code; see [`judge_response`]) and ends the wait
//! whatever the outcome; later hits are answered 400 and change nothing. Any other path
//! or method is answered 404/405 and the wait goes on. Pages are small static HTML
//! (`Content-Security-Policy: default-src 'none'`, `Cache-Control: no-store`,
//! `Referrer-Policy: no-referrer`); nothing from the request is reflected.

use super::error::{OAuthError, clip_ascii};
use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;

/// What an authorization response must match.
#[derive(Debug, Clone)]
pub(crate) struct Expected {
    /// The `state` sent.
    pub(crate) state: String,
    /// The issuer the request went to (RFC 9207).
    pub(crate) issuer: String,
    /// The issuer's metadata promises `iss` (`authorization_response_iss_parameter_supported`).
    pub(crate) iss_required: bool,
}

type Outcome = Result<String, OAuthError>;

struct Shared {
    expected: Expected,
    done: Mutex<Option<oneshot::Sender<Outcome>>>,
}

/// A started listener.
pub(crate) struct Listener {
    redirect_uri: String,
    outcome: oneshot::Receiver<Outcome>,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl Listener {
    /// Binds `127.0.0.1:0` and serves `/callback/{segment}`.
    ///
    /// # Errors
    /// [`OAuthError::Listener`] when the socket cannot be bound.
    pub(crate) async fn start(segment: &str, expected: Expected) -> Result<Self, OAuthError> {
        let socket = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(OAuthError::Listener)?;
        let port = socket.local_addr().map_err(OAuthError::Listener)?.port();
        let path = format!("/callback/{segment}");
        let (tx, outcome) = oneshot::channel();
        let shared = Arc::new(Shared {
            expected,
            done: Mutex::new(Some(tx)),
        });
        let app = Router::new()
            .route(&path, axum::routing::get(callback))
            .fallback(|| async { page(StatusCode::NOT_FOUND, "Not found.") })
            .with_state(shared);
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let _ = axum::serve(socket, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await;
        });
        Ok(Self {
            redirect_uri: format!("http://127.0.0.1:{port}{path}"),
            outcome,
            stop: Some(stop),
            task,
        })
    }

    /// The redirect URI to send in the authorization request.
    pub(crate) fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    /// Waits up to `deadline` for the one authorization response; the code when it
    /// passed every check.
    ///
    /// # Errors
    /// [`OAuthError::CallbackTimeout`], or the refusal [`judge_response`] gave.
    pub(crate) async fn wait(mut self, deadline: Duration) -> Result<String, OAuthError> {
        let outcome = tokio::time::timeout(deadline, &mut self.outcome).await;
        // Give the browser its page before the listener goes away.
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let _ = tokio::time::timeout(Duration::from_secs(2), &mut self.task).await;
        self.task.abort();
        match outcome {
            Ok(Ok(result)) => result,
            Ok(Err(_)) | Err(_) => Err(OAuthError::CallbackTimeout(deadline)),
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn callback(State(shared): State<Arc<Shared>>, RawQuery(query): RawQuery) -> Response {
    let Some(done) = shared
        .done
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take()
    else {
        return page(
            StatusCode::BAD_REQUEST,
            "This authorization link was already used. Nothing was changed.",
        );
    };
    let result = judge_response(query.as_deref().unwrap_or(""), &shared.expected);
    let answer = match &result {
        Ok(_) => page(
            StatusCode::OK,
            "MCP Bastion received the authorization. You can close this tab.",
        ),
        Err(_) => page(
            StatusCode::BAD_REQUEST,
            "MCP Bastion refused this authorization response. See the terminal or log for why.",
        ),
    };
    let _ = done.send(result);
    answer
}

/// Judges the query of an authorization response, in this order: exactly one `state`,
/// equal to the one sent (else [`OAuthError::StateMismatch`]); RFC 9207 `iss` through
/// `bastion_core::url_gate::judge_authorization_response` (else
/// [`OAuthError::IssuerRefused`]); `error=` ([`OAuthError::Denied`]); exactly one
/// `code` ([`OAuthError::NoCode`]). Returns the code.
pub(crate) fn judge_response(query: &str, expected: &Expected) -> Result<String, OAuthError> {
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    let all = |key: &str| -> Vec<&str> {
        pairs
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .collect()
    };
    match all("state").as_slice() {
        [one] if *one == expected.state => {}
        _ => return Err(OAuthError::StateMismatch),
    }
    let (findings, _) = bastion_core::url_gate::judge_authorization_response(
        &expected.issuer,
        query,
        expected.iss_required,
    );
    if !findings.is_empty() {
        return Err(OAuthError::IssuerRefused { findings });
    }
    if let Some(error) = all("error").first() {
        return Err(OAuthError::Denied {
            error: clip_ascii(error),
            description: all("error_description").first().map(|d| clip_ascii(d)),
        });
    }
    match all("code").as_slice() {
        [code] if !code.is_empty() => Ok((*code).to_owned()),
        _ => Err(OAuthError::NoCode),
    }
}

fn page(status: StatusCode, text: &'static str) -> Response {
    let body =
        format!("<!doctype html><meta charset=\"utf-8\"><title>MCP Bastion</title><p>{text}</p>\n");
    let mut response = (status, body).into_response();
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expected(iss_required: bool) -> Expected {
        Expected {
            state: "s1".into(),
            issuer: "https://as.example".into(),
            iss_required,
        }
    }

    /// A GET on the listener: the status code.
    async fn get(uri: &str, path_and_query: &str) -> u16 {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let port = url::Url::parse(uri).unwrap().port().unwrap();
        let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .unwrap();
        s.write_all(
            format!(
                "GET {path_and_query} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            )
            .as_bytes(),
        )
        .await
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).await.unwrap();
        out.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    #[tokio::test]
    async fn the_listener_takes_one_response_on_its_path_only() {
        let l = Listener::start("seg", expected(false)).await.unwrap();
        let uri = l.redirect_uri().to_owned();
        assert!(uri.starts_with("http://127.0.0.1:") && uri.ends_with("/callback/seg"));
        // Other paths and methods change nothing.
        assert_eq!(get(&uri, "/callback/other?code=c&state=s1").await, 404);
        assert_eq!(get(&uri, "/?code=c&state=s1").await, 404);
        assert_eq!(get(&uri, "/callback/seg?code=c1&state=s1").await, 200);
        // A second hit is refused and does not replace the first.
        assert_eq!(get(&uri, "/callback/seg?code=c2&state=s1").await, 400);
        assert_eq!(l.wait(Duration::from_secs(5)).await.unwrap(), "c1");
    }

    #[tokio::test]
    async fn a_wrong_state_on_the_path_ends_the_wait_with_a_refusal() {
        let l = Listener::start("seg", expected(false)).await.unwrap();
        let uri = l.redirect_uri().to_owned();
        assert_eq!(get(&uri, "/callback/seg?code=c1&state=forged").await, 400);
        let e = l.wait(Duration::from_secs(5)).await.unwrap_err();
        assert_eq!(e.reason(), "oauth_state_mismatch");
    }

    #[test]
    fn responses_are_judged_state_first_then_iss_then_error_then_code() {
        let e = expected(true);
        assert_eq!(
            judge_response("code=c1&state=s1&iss=https%3A%2F%2Fas.example", &e).unwrap(),
            "c1"
        );
        let reason = |q: &str, e: &Expected| judge_response(q, e).unwrap_err().reason();
        assert_eq!(
            reason("code=c1&state=s2&iss=https%3A%2F%2Fas.example", &e),
            "oauth_state_mismatch"
        );
        assert_eq!(
            reason("code=c1&state=s1&state=s1&iss=https%3A%2F%2Fas.example", &e),
            "oauth_state_mismatch"
        );
        assert_eq!(
            reason("code=c1&iss=https%3A%2F%2Fas.example", &e),
            "oauth_state_mismatch"
        );
        assert_eq!(
            reason("code=c1&state=s1&iss=https%3A%2F%2Fevil.example", &e),
            "oauth_issuer_mismatch"
        );
        assert_eq!(reason("code=c1&state=s1", &e), "oauth_issuer_missing");
        // Not promised: absent is accepted, present must still match.
        assert_eq!(
            judge_response("code=c1&state=s1", &expected(false)).unwrap(),
            "c1"
        );
        assert_eq!(
            reason(
                "code=c1&state=s1&iss=https%3A%2F%2Fas.example%2F",
                &expected(false)
            ),
            "oauth_issuer_mismatch"
        );
        assert_eq!(
            reason("error=access_denied&state=s1", &expected(false)),
            "oauth_denied"
        );
        assert_eq!(reason("state=s1", &expected(false)), "oauth_no_code");
        assert_eq!(
            reason("state=s1&code=a&code=b", &expected(false)),
            "oauth_no_code"
        );
    }
}
