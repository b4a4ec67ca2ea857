//! What a URL carries (query and fragment data, credentials) and which hosts a link's
//! visible text shows, compared by registrable domain (Public Suffix List).

use std::borrow::Cow;
use url::Url;

/// Query parameter names (lowercase) whose value is a credential whatever its length.
const SECRET_PARAMS: &[&str] = &[
    "token",
    "access_token",
    "id_token",
    "refresh_token",
    "auth",
    "authorization",
    "bearer",
    "jwt",
    "key",
    "api_key",
    "apikey",
    "secret",
    "client_secret",
    "password",
    "passwd",
    "pwd",
    "pass",
    "session",
    "session_id",
    "sessionid",
    "sid",
    "cookie",
    "credential",
    "credentials",
];

/// Query parameter names (lowercase) that carry conversation or payload data when their
/// value is at least [`DATA_VALUE_CHARS`] characters long.
const DATA_PARAMS: &[&str] = &[
    "chat",
    "conversation",
    "history",
    "prompt",
    "message",
    "msg",
    "messages",
    "context",
    "memory",
    "summary",
    "data",
    "d",
    "payload",
    "content",
    "body",
    "text",
    "input",
    "leak",
    "exfil",
    "info",
    "q",
    "query",
];

/// Minimum decoded length of a [`DATA_PARAMS`] value that counts as data.
const DATA_VALUE_CHARS: usize = 12;

/// Any value (or fragment) this long, in characters after decoding, counts as data.
pub(super) const LONG_VALUE_CHARS: usize = 96;

/// Names of the parts of `url` that carry data: query parameter names, or `#fragment`.
/// Empty when the URL looks ordinary (`?page=2&sort=asc`).
pub(crate) fn data_carriers(url: &Url) -> Vec<String> {
    let mut names = Vec::new();
    if let Some(query) = url.query() {
        for (name, value) in pairs(query) {
            if is_data_pair(&name, &value) && !names.iter().any(|n: &String| *n == *name) {
                names.push(name.into_owned());
            }
        }
    }
    if let Some(fragment) = url.fragment() {
        let carries = fragment.len() >= LONG_VALUE_CHARS
            || pairs(fragment).any(|(n, v)| is_data_pair(&n, &v));
        if carries {
            names.push("#fragment".to_owned());
        }
    }
    names
}

/// The `name=value` pairs of a query or fragment as a server might split them: at `&`,
/// and also at `;` (the older separator many servers still accept) and at a `?` or `/`
/// inside it (`#?token=…`, `?a=1?token=…`, `?x=…/token=…`), so a value cannot hide
/// behind another separator than the URL Standard's. Pairs both as written and split at the extra separators, so a long value keeps
/// counting as one.
fn pairs(part: &str) -> impl Iterator<Item = (Cow<'static, str>, Cow<'static, str>)> {
    let split = part.replace([';', '?', '/'], "&");
    let owned = |(n, v): (Cow<'_, str>, Cow<'_, str>)| -> (Cow<'static, str>, Cow<'static, str>) {
        (Cow::Owned(n.into_owned()), Cow::Owned(v.into_owned()))
    };
    let written: Vec<_> = url::form_urlencoded::parse(part.as_bytes())
        .map(owned)
        .collect();
    let extra: Vec<_> = if split == part {
        Vec::new()
    } else {
        url::form_urlencoded::parse(split.as_bytes())
            .map(owned)
            .collect()
    };
    written.into_iter().chain(extra)
}

fn is_data_pair(name: &str, value: &str) -> bool {
    if value.is_empty() {
        return looks_encoded(name);
    }
    let lower = name.to_ascii_lowercase();
    let chars = value.chars().count();
    SECRET_PARAMS.contains(&lower.as_str())
        || (DATA_PARAMS.contains(&lower.as_str()) && chars >= DATA_VALUE_CHARS)
        || chars >= LONG_VALUE_CHARS
        || looks_encoded(value)
        || looks_encoded(name)
}

/// Base64/base64url (at least 20 characters of the alphabet, with upper case, lower case
/// and digits, or `=` padding) or hex (at least 32 hex digits) — the shapes encoded data
/// takes in a query string. Dotted JWTs count as base64url.
fn looks_encoded(value: &str) -> bool {
    let len = value.len();
    if len >= 32 && value.bytes().all(|b| b.is_ascii_hexdigit()) {
        return true;
    }
    if len < 20
        || !value.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'_' | b'-' | b'.')
        })
    {
        return false;
    }
    let upper = value.bytes().any(|b| b.is_ascii_uppercase());
    let lower = value.bytes().any(|b| b.is_ascii_lowercase());
    let digit = value.bytes().any(|b| b.is_ascii_digit());
    (upper && lower && digit) || (value.ends_with('=') && !value.contains('.'))
}

/// Top-level domains that are also common file extensions: a bare word ending in one
/// (`setup.py`, `README.md`, `install.sh`) is taken for a file name, not a host.
const FILE_LIKE_TLDS: &[&str] = &[
    "md", "py", "rs", "sh", "pl", "pm", "zip", "mov", "so", "ps", "cc", "in", "am", "ac", "ml",
    "mk", "cs", "ts", "js",
];

/// The hosts a link's visible `text` claims to point at that are not the site of
/// `target`: words written as a web address (`https://…`, `www.…`) or as a bare host name
/// (`docs.example.com`, `paypal.com/login`). A bare word counts only when it looks like a
/// host name (dot-separated labels of letters, digits and hyphens, the last one not
/// numeric), its suffix is a known public suffix and it has a registrable domain (so
/// `v1.2.3`, `3.12`, `e.g.` and `Node.js` are not hosts), it is not a file name (its last
/// label is not a file extension such as `md`, and it does not occur in the target's
/// path) and it holds no `@`. Hosts are compared by registrable domain (Public Suffix
/// List), after IDNA processing, so `docs.example.com` matches `www.example.com` while
/// `docs.xn--exmple-4nf.com` (a look-alike of `example.com`) does not.
pub(crate) fn mismatched_hosts(text: &str, target: &Url) -> Vec<String> {
    let Some(target_host) = target.host_str() else {
        return Vec::new();
    };
    let target_host = target_host.trim_end_matches('.');
    let target_path = target.path().to_ascii_lowercase();
    let mut shown = Vec::new();
    for word in text.split_whitespace() {
        let word = word.trim_matches(|c: char| "()<>[]{}\"'`,;!?*_".contains(c));
        let word = word.trim_end_matches(['.', ':']);
        let lower = word.to_lowercase();
        let Some(host) = shown_host(word, &lower, &target_path) else {
            continue;
        };
        if !same_registrable(&host, target_host) && !shown.contains(&host) {
            shown.push(host);
        }
    }
    shown
}

/// The host `word` shows, if it shows one (see [`mismatched_hosts`]).
fn shown_host(word: &str, lower: &str, target_path: &str) -> Option<String> {
    if lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("www.") {
        let candidate = if lower.starts_with("www.") {
            Cow::Owned(format!("https://{word}"))
        } else {
            Cow::Borrowed(word)
        };
        let url = Url::parse(&candidate).ok()?;
        return url.host_str().map(|h| h.trim_end_matches('.').to_owned());
    }
    if word.contains('@') {
        return None;
    }
    let name = lower.split(['/', '?', '#', ':']).next().unwrap_or_default();
    let labels: Vec<&str> = name.split('.').collect();
    let last = labels.last().copied().unwrap_or_default();
    let hostlike = labels.len() >= 2
        && labels.iter().all(|l| {
            !l.is_empty()
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.chars().all(|c| c.is_alphanumeric() || c == '-')
        })
        && last.chars().count() >= 2
        && last.chars().all(char::is_alphabetic);
    if !hostlike || FILE_LIKE_TLDS.contains(&last) || target_path.contains(name) {
        return None;
    }
    let url = Url::parse(&format!("https://{word}")).ok()?;
    let Some(url::Host::Domain(host)) = url.host() else {
        return None;
    };
    let known = psl::suffix(host.as_bytes()).is_some_and(|s| s.is_known());
    (known && psl::domain(host.as_bytes()).is_some()).then(|| host.to_owned())
}

/// `a` and `b` have the same registrable domain (Public Suffix List), or, for hosts
/// without one (IP addresses, single labels), are the same site.
pub(super) fn same_registrable(a: &str, b: &str) -> bool {
    let a = a.trim_end_matches('.');
    let b = b.trim_end_matches('.');
    let site = |h: &str| {
        if !matches!(url::Host::parse(h), Ok(url::Host::Domain(_))) {
            return None; // IP addresses have no registrable domain
        }
        psl::domain(h.as_bytes()).and_then(|d| {
            std::str::from_utf8(d.as_bytes())
                .ok()
                .map(str::to_ascii_lowercase)
        })
    };
    match (site(a), site(b)) {
        (Some(x), Some(y)) => x == y,
        _ => same_site(a, b),
    }
}

/// `a` and `b` name the same site: equal, or one is a subdomain of the other.
pub(super) fn same_site(a: &str, b: &str) -> bool {
    same_or_parent(a, b) || same_or_parent(b, a)
}

/// `host` is `domain` or a subdomain of it.
pub(super) fn same_or_parent(domain: &str, host: &str) -> bool {
    let host = host.trim_end_matches('.');
    host.eq_ignore_ascii_case(domain)
        || (host.len() > domain.len()
            && host.as_bytes()[host.len() - domain.len() - 1] == b'.'
            && host[host.len() - domain.len()..].eq_ignore_ascii_case(domain))
}
