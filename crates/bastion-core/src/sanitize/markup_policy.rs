//! The `[content]` policy the markup sanitizer applies ([`super::sanitize_markup`]).

use super::data_carriers;
use super::urls::same_or_parent;
use serde::{Deserialize, Serialize};
use url::Url;

/// Content policy (`[content]` config section). Every key is optional; unknown keys are
/// refused.
///
/// # Defaults
/// | key | default | meaning |
/// |---|---|---|
/// | `trusted_domains` | `[]` | no trusted hosts: every external image is neutralized and every data-carrying link is made inert |
/// | `html_in_text` | `"clean"` | HTML in text/markdown is cleaned by the allowlist |
/// | `injection` | `"flag"` | instruction-like result text passes with a warning |
/// | `mime_allowlist` | `[]` | the built-in list [`crate::result::DEFAULT_MIME_ALLOWLIST`] |
/// | `allow_svg` | `false` | SVG images and blobs are refused; SVG text is cleaned as HTML |
/// | `denied_uri_schemes` | `[]` | only the built-in [`crate::result::DANGEROUS_URI_SCHEMES`] are refused |
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContentPolicy {
    /// Hosts whose links may carry query data and whose markdown images may load (exact
    /// host or parent domain, e.g. `example.com` trusts `docs.example.com`; a leading
    /// `*.` or `.` is ignored; internationalized names are compared in their punycode
    /// form).
    pub trusted_domains: Vec<String>,
    /// HTML tags in text and markdown content (tool and prompt text, `text/markdown`,
    /// `text/plain` resources): `"clean"` (default) removes what the allowlist does not
    /// keep; `"escape"` shows every tag as visible text (`<` written as `&lt;`)
    /// instead. HTML comments are shown as `[hidden comment: …]` in
    /// both modes; `text/html` resources are always cleaned.
    pub html_in_text: HtmlInText,
    /// Instruction-like text in results (`injection_in_result`): `"flag"` (default)
    /// passes the result with a warning; `"block"` refuses the whole result (the finding
    /// becomes `high`, verdict `block`). See [`ContentPolicy::injection_blocks`].
    pub injection: InjectionMode,
    /// MIME types (essence, case-insensitive; `type/*` matches a whole top-level type)
    /// that image, audio and blob content may declare. Empty (default) means
    /// [`crate::result::DEFAULT_MIME_ALLOWLIST`]. A non-empty list replaces the defaults;
    /// an image block must still declare `image/…` and an audio block `audio/…`.
    pub mime_allowlist: Vec<String>,
    /// Let `image/svg+xml` through as image content, blobs and text resources
    /// unchanged. Default `false`: SVG can carry scripts and event handlers, so SVG
    /// image content and blobs are removed and SVG text resources are cleaned as HTML.
    pub allow_svg: bool,
    /// URI schemes (without the colon, case-insensitive) refused in `resource_link` and
    /// embedded resource URIs in addition to the always refused `javascript`, `vbscript`
    /// and `data` ([`crate::result::DANGEROUS_URI_SCHEMES`]).
    pub denied_uri_schemes: Vec<String>,
}

/// What [`ContentPolicy::html_in_text`] does with HTML tags in text and markdown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HtmlInText {
    /// Clean by the allowlist (scripts, handlers, frames, forms, beacons removed).
    #[default]
    Clean,
    /// Show every tag as escaped, visible text.
    Escape,
}

/// What [`ContentPolicy::injection`] does with instruction-like text in results.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InjectionMode {
    /// Pass the result, warn (`warn` finding, verdict `flag`).
    #[default]
    Flag,
    /// Refuse the result (`high` finding, verdict `block`).
    Block,
}

impl ContentPolicy {
    /// Whether instruction-like text refuses the whole result (`injection = "block"`).
    pub const fn injection_blocks(&self) -> bool {
        matches!(self.injection, InjectionMode::Block)
    }

    /// The names of the query and fragment values of `url` that carry data
    /// ([`data_carriers`]) when its host is not trusted ([`Self::is_trusted`]); empty for
    /// a trusted host or a URL that carries nothing.
    pub(crate) fn untrusted_carriers(&self, url: &Url) -> Vec<String> {
        if self.is_trusted(url.host_str().unwrap_or_default()) {
            Vec::new()
        } else {
            data_carriers(url)
        }
    }

    /// Whether `host` (as produced by [`Url::host_str`], i.e. lowercase ASCII) is one of
    /// [`Self::trusted_domains`] or a subdomain of one.
    pub fn is_trusted(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.');
        self.trusted_domains.iter().any(|entry| {
            let entry = entry
                .trim()
                .trim_start_matches("*.")
                .trim_start_matches('.')
                .trim_end_matches('.');
            if entry.is_empty() {
                return false;
            }
            let Ok(parsed) = url::Host::parse(entry) else {
                return false;
            };
            let entry = parsed.to_string();
            same_or_parent(&entry, host)
        })
    }
}
