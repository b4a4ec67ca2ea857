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
