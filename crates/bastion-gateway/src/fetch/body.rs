//! Reading a response body under a byte cap.

use super::FetchError;
use reqwest::{Response, Url};

/// Reads `response`'s body in full if it is at most `limit` bytes: a `Content-Length`
/// above the limit is refused before reading, and a streamed body is refused as soon
/// as it passes the limit (never truncated). No decompression happens (none is
/// requested), so the cap is on the bytes received.
///
/// # Errors
/// [`FetchError::TooLarge`]; [`FetchError::Transport`] when the connection fails.
pub(super) async fn read_capped(
    mut response: Response,
    limit: u64,
    url: &Url,
) -> Result<Vec<u8>, FetchError> {
    let too_large = || FetchError::TooLarge {
        url: url.to_string(),
        limit,
    };
    if response.content_length().is_some_and(|n| n > limit) {
        return Err(too_large());
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| super::transport(url, e))?
    {
        if (body.len() + chunk.len()) as u64 > limit {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}
