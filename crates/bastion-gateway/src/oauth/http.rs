//! The `oauth2` crate's HTTP client: every token request goes through the
//! [`SafeFetcher`] (URL gate on the token endpoint, vetted DNS answers, no proxy, size and
//! time limits), with redirects not followed (a grant is never replayed to another URL).

use crate::fetch::{FetchError, FetchRequest, SafeFetcher};
use oauth2::{AsyncHttpClient, HttpRequest, HttpResponse};
use std::future::Future;
use std::pin::Pin;

/// [`AsyncHttpClient`] over a [`SafeFetcher`].
pub(crate) struct SafeHttp<'f>(pub(crate) &'f SafeFetcher);

impl<'c> AsyncHttpClient<'c> for SafeHttp<'_> {
    type Error = FetchError;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse, FetchError>> + Send + 'c>>;

    fn call(&'c self, request: HttpRequest) -> Self::Future {
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let response = self
                .0
                .fetch(FetchRequest {
                    method: parts.method,
                    url: parts.uri.to_string(),
                    headers: parts.headers,
                    body: Some(body),
                    follow_redirects: false,
                })
                .await?;
            let mut out = HttpResponse::new(response.body);
            *out.status_mut() = response.status;
            *out.headers_mut() = response.headers;
            Ok(out)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oauth2::basic::BasicClient;
    use oauth2::{AuthorizationCode, ClientId, PkceCodeVerifier, RequestTokenError, TokenUrl};

    #[tokio::test]
    async fn token_requests_pass_the_ssrf_guard() {
        // Default fetcher: https to public addresses only. The token endpoint on a
        // private or loopback address is refused before any connection.
        let fetcher = SafeFetcher::builder()
            .nameservers(crate::fetch::Nameservers::Custom(vec![
                "127.0.0.1:9".parse().unwrap(),
            ]))
            .build()
            .unwrap();
        for endpoint in [
            "https://10.0.0.7/token",
            "http://127.0.0.1:9/token",
            "https://169.254.169.254/token",
        ] {
            let client = BasicClient::new(ClientId::new("c".into()))
                .set_token_uri(TokenUrl::new(endpoint.into()).unwrap());
            let e = client
                .exchange_code(AuthorizationCode::new("x".into()))
                .set_pkce_verifier(PkceCodeVerifier::new("v".repeat(43)))
                .request_async(&SafeHttp(&fetcher))
                .await
                .unwrap_err();
            let RequestTokenError::Request(e) = e else {
                panic!("{endpoint}: not refused by the fetcher: {e:?}");
            };
            assert_eq!(e.reason(), "url_refused", "{endpoint}: {e}");
        }
    }
}
