//! Bare URLs in text as autolinkers find them: GFM extended autolinks (cmark-gfm's
//! `www.`, `http(s)://`, `ftp://`, `xmpp:`) and markdown-it's linkify (schemeless and
//! `//` links), the candidates' bounds, and the inert form of one that must not link.

use super::super::markup::{self, ContentPolicy, Findings, Target};
use crate::finding::Code;
use std::ops::Range;

/// Bare URL candidates of `text` (`lower` is its ASCII lowercase) as GFM extended
/// autolinks find them, with their range in `text`. A `www.` link starts at the start of
/// the text, after whitespace or after `*`, `_`, `~`, `(` (the GFM spec); an
/// `http(s)://` link (and cmark-gfm's `ftp://` and `xmpp:` ones) after anything but an
/// ASCII letter, because that is what cmark-gfm,
/// the renderer GitHub runs, links (after `"`, `-`, `.`, `<`, `` ` ``, `]` too). The
/// candidate runs up to whitespace or `<` with trailing punctuation and unbalanced `)`
/// left out, as GFM does; the URL parser decides the rest. Schemeless ones too
/// ([`fuzzy_url_candidates`]) when `schemeless` (`lead_escaped`: the first character of
/// `text` was escaped).
/// The `bool` of a candidate: it was cut short of where the link may end (see
/// [`fuzzy_url_candidates`]).
pub(super) fn bare_url_candidates(
    text: &str,
    lower: &str,
    lead_escaped: bool,
    schemeless: bool,
) -> Vec<Candidate> {
    let mut out = Vec::new();
    // End of the current whitespace-delimited token, and how many candidates in it were
    // looked at. Every trigger in a token is looked at, not only the first: cmark-gfm
    // validates a domain more strictly than the URL parser, moves on past one it refuses
    // and links a later one (`https://[**xmpp:a@b.c` is a valid URL with user info for
    // the URL parser; cmark-gfm links the `xmpp:`), and linkify-it starts a new link
    // after a `>`. Past [`MAX_CANDIDATES_IN_TOKEN`] in one token, a candidate is read
    // for [`CAPPED_READ_BYTES`] only and marked cut (see [`Candidate::cut`]).
    let mut token_end = 0;
    let mut looked_at = 0;
    // The same for the wider stretch linkify-it reads past a `<` (see below).
    let mut wide_end = 0;
    let mut wide_looked_at = 0;
    let mut marks = NextMark::default();
    let mut d = 0;
    while let Some(k) = lower[d..].find(['h', 'w', 'f', 'x']) {
        let start = d + k;
        d = start + 1;
        let Some(trigger) = autolink_trigger(&lower[start..], text[..start].chars().next_back())
        else {
            continue;
        };
        let www = matches!(trigger, Trigger::Www);
        if start >= token_end {
            token_end = start
                + text[start..]
                    .find(|c: char| c.is_whitespace() || c == '<')
                    .unwrap_or(text.len() - start);
            looked_at = 0;
        }
        looked_at += 1;
        let mut end = token_end;
        // In source, a backslash right before the `<` escapes it (it becomes `&lt;`,
        // [`TextRun::ambiguous_lt`]); it is not part of the URL shown.
        if text[end..].starts_with('<') && text[..end].ends_with('\\') {
            end -= 1;
        }
        let mut cut = false;
        if looked_at > MAX_CANDIDATES_IN_TOKEN && end - start > CAPPED_READ_BYTES {
            end = text.floor_char_boundary(start + CAPPED_READ_BYTES);
            cut = marks.within(text, start, token_end);
        }
        let prefix = if www { "http://" } else { "" };
        if let Some(candidate) = Candidate::read(text, start..end, prefix, cut) {
            out.push(candidate);
        }
        // linkify-it's user info takes a `<` (`https://trusted.example<@attacker.example/`
        // is one link for it, up to whitespace, `>` or a fullwidth bar): read that too.
        // Bounded like the tokens above, per stretch up to linkify-it's end.
        if !cut && text[token_end..].starts_with('<') {
            if start >= wide_end {
                wide_end = start
                    + text[start..]
                        .find(|c: char| c.is_whitespace() || matches!(c, '>' | '\u{ff5c}'))
                        .unwrap_or(text.len() - start);
                wide_looked_at = 0;
            }
            wide_looked_at += 1;
            let read = if wide_looked_at > MAX_CANDIDATES_IN_TOKEN {
                CAPPED_READ_BYTES
            } else {
                MAX_FUZZY_BYTES
            };
            let far = text.floor_char_boundary((start + read).min(wide_end));
            let cut = far < wide_end && marks.within(text, start, wide_end);
            if far > token_end
                && let Some(candidate) = Candidate::read(text, start..far, prefix, cut)
            {
                out.push(candidate);
            }
        }
    }
    if schemeless {
        out.extend(fuzzy_url_candidates(text, lead_escaped));
    }
    out
}

/// A bare URL candidate: where it is in the text read, the URL it makes, and how it is
/// judged ([`bare_url_edit`]).
pub(super) struct Candidate {
    /// Byte range in the text read.
    pub(super) range: Range<usize>,
    /// The URL as the URL parser reads it.
    url: url::Url,
    /// Read only in part (a length limit) while the link may go on with a query or
    /// fragment: made inert whenever its host is untrusted.
    cut: bool,
    /// Its host depends on the reader (`\\` before `@`, see [`Target::TwoReadings`]):
    /// always made inert.
    two_readings: bool,
}

impl Candidate {
    /// The candidate in `text[range]` (with `prefix` before it, `http://` for `www.`),
    /// without GFM's trailing punctuation unless `cut`; `None` when no URL parses.
    fn read(text: &str, range: Range<usize>, prefix: &str, cut: bool) -> Option<Self> {
        let written = &text[range.clone()];
        let written = if cut { written } else { trim_autolink(written) };
        let full = format!("{prefix}{written}");
        let url = url::Url::parse(&full).ok()?;
        Some(Self {
            range: range.start..range.start + written.len(),
            url,
            cut,
            two_readings: matches!(markup::classify(&full), Target::TwoReadings { .. }),
        })
    }
}

/// The next `?` or `#` at or after a position, for positions that only grow (linear).
#[derive(Default)]
struct NextMark {
    /// Position of the next mark after the last query (`usize::MAX`: not looked yet).
    at: Option<usize>,
}

impl NextMark {
    /// Whether a `?` or `#` lies in `text[from..to]` (`from` never smaller than before):
    /// without one, a link cut short there carries no query or fragment.
    fn within(&mut self, text: &str, from: usize, to: usize) -> bool {
        let at = match self.at {
            Some(at) if at >= from => at,
            _ => text[from..]
                .find(['?', '#'])
                .map_or(text.len(), |n| from + n),
        };
        self.at = Some(at);
        at < to
    }
}

/// Bytes read of a candidate past [`MAX_CANDIDATES_IN_TOKEN`] in one token.
const CAPPED_READ_BYTES: usize = 256;

/// Schemeless links as markdown-it's `linkify` option finds them (linkify-it's
/// `fuzzyLink`, on by default there, and its `//` links): a host name ending in a
/// suffix the Public Suffix List knows (`attacker.com/c?d=…`, `s3.amazonaws.com/…`)
/// where linkify-it can start one (see [`fuzzy_start`]), then a port, path, query or
/// fragment; and after `//`, whatever the URL parser reads as an authority (user info,
/// an IPv4 address, any host). A link ends at whitespace, a control, `<`, `>` or `｜`
/// (linkify-it takes `"` and `|` into a path). Where a host does not parse (an emoji or
/// a combining mark in its first label), the host from each later label on is tried,
/// since linkify-it would link a subdomain of it. Candidates may overlap the `www.` and
/// scheme ones and each other (a trusted link can hold an untrusted one after a `)`,
/// where linkify-it ends the first); the caller keeps the earliest edit. Wider than
/// linkify-it, which knows fewer suffixes: a wrongly taken candidate only gets inert
/// text, and only when it carries data to an untrusted host. Starts inside a host
/// already looked at are skipped, later ones in its path are not.
///
/// Bounded: each candidate is read for at most [`MAX_FUZZY_BYTES`], only the first
/// [`MAX_CANDIDATES_IN_TOKEN`] of a whitespace-delimited token are read past their
/// host's first following character, and at most [`MAX_LABEL_TRIES`] hosts of each are
/// parsed, so a token with many starts costs linear time. A candidate cut short by either
/// limit while a `?` or `#` follows in its token is marked cut ([`Candidate::cut`]) and
/// covers only its host and the character after it, so that making it inert leaves the
/// text after it as written. `lead_escaped`: the first character of `text` was escaped
/// in the source (a link may start right after it).
fn fuzzy_url_candidates(text: &str, lead_escaped: bool) -> Vec<Candidate> {
    let label_char = |c: char| {
        c.is_alphanumeric()
            || c == '-'
            || !(c.is_ascii() || c.is_whitespace() || c.is_control() || is_wide_punct(c))
    };
    let link_end = |from: usize, limit: usize| {
        text[from..limit]
            .find(|c: char| {
                c.is_whitespace() || c.is_control() || matches!(c, '<' | '>' | '\u{ff5c}')
            })
            .map_or(limit, |n| from + n)
    };
    let mut out = Vec::new();
    let mut resume = 0;
    // End of the current whitespace-delimited token and the candidates read in it.
    let mut token_end = 0;
    let mut read_in_token = 0;
    let mut marks = NextMark::default();
    let escaped_end = if lead_escaped {
        text.chars().next().map_or(0, char::len_utf8)
    } else {
        0
    };
    for (start, c) in text.char_indices() {
        if start < resume {
            continue;
        }
        let after_escape = lead_escaped && start == escaped_end;
        // linkify-it's `//` links: any authority, user info (which may start with any
        // character but `@ / [ ] ( )`, `//:@host`) and IPv4 hosts included. Its host
        // letters take the ASCII symbols (Unicode category S) but `<` and `>` too:
        // `//=.host/…` and `//~.host/…` are links for it.
        // Read only for a character that either kind of candidate can start with.
        let may_slash = !after_escape && text[..start].ends_with("//");
        let may_fuzzy = c != '-' && label_char(c);
        let starts = (may_slash || (may_fuzzy && !after_escape)) && fuzzy_start(&text[..start]);
        let slashes = may_slash
            && starts
            && (label_char(c)
                || matches!(c, '$' | '+' | '=' | '^' | '`' | '|' | '~')
                || user_info_follows(&text[start..]));
        let fuzzy = may_fuzzy && (after_escape || starts);
        if !(slashes || fuzzy) {
            continue;
        }
        if start >= token_end {
            token_end = text[start..]
                .find(char::is_whitespace)
                .map_or(text.len(), |n| start + n);
            read_in_token = 0;
        }
        if slashes {
            read_in_token += 1;
            // Past the budget of this token only the authority and the character after
            // it are read: they decide the host, and a cut candidate is made inert
            // whenever its host is untrusted.
            let read = if read_in_token > MAX_CANDIDATES_IN_TOKEN {
                text[start..]
                    .find(['/', '\\', '?', '#'])
                    .map_or(CAPPED_READ_BYTES, |n| (n + 1).min(CAPPED_READ_BYTES))
            } else {
                MAX_FUZZY_BYTES
            };
            let limit = text.floor_char_boundary((start + read).min(text.len()));
            let end = link_end(start, limit);
            let cut = end == limit && marks.within(text, start, token_end);
            // linkify-it wants a dotted host there (an IPv4 address is one), or localhost.
            // The URL parser writes a bare number as a dotted IPv4 address (`//1\[.\]2…`,
            // the defanged form of `//1.2…`, has host `1`, i.e. `0.0.0.1`), which
            // linkify-it never links: taking it would find every defanged IP address
            // again, each round. So the authority as written (up to the first `/` or
            // `\`, user info included: linkify-it's user info may hold `?`, `#` and `:`)
            // must hold a dot or `localhost`; looked at before the URL is parsed. The host
            // the URL parser reads may then be any: where linkify-it's dot is in user
            // info (`//intranet?token=…@x.com/`), the browser goes to the single-label
            // host before the `?`.
            if written_authority_may_be_dotted(&text[start..end])
                && let Some(candidate) = Candidate::read(text, start - 2..end, "http:", cut)
                    .filter(|c| c.url.host_str().is_some())
            {
                out.push(candidate);
            }
        }
        if !fuzzy {
            continue;
        }
        let run = text[start..]
            .find(|c: char| !label_char(c) && c != '.')
            .map_or(&text[start..], |n| &text[start..start + n]);
        // The whole run is looked at from here; no later start inside it.
        resume = start + run.len();
        let host = run.trim_end_matches(['.', '-']);
        let after = &text[start + host.len()..];
        if !host.contains('.') || !after.starts_with(['/', '?', '#', ':']) {
            continue;
        }
        read_in_token += 1;
        // The rest of the link, and past the budget of this token only the character
        // after the host. Only up to the limit: a search to the token's end from every
        // start in a long token would be quadratic.
        let budget = if read_in_token > MAX_CANDIDATES_IN_TOKEN {
            host.len() + 1
        } else {
            MAX_FUZZY_BYTES
        };
        let limit = text.floor_char_boundary((start + budget).min(text.len()));
        // A host that leaves no room for a path within the limit is longer than any
        // name DNS resolves (253 bytes).
        if start + host.len() >= limit {
            continue;
        }
        let mut end = link_end(start, limit);
        let cut = end == limit && limit < token_end && marks.within(text, start, token_end);
        if cut {
            end = start + host.len() + 1;
        }
        // The host from its first label, then from each later one.
        let label_starts = std::iter::once(0)
            .chain(host.match_indices('.').map(|(i, _)| i + 1))
            .take(MAX_LABEL_TRIES);
        for from in label_starts {
            let sub = &host[from..];
            if !sub.contains('.') || !known_suffix(&sub.to_lowercase()) {
                continue;
            }
            if let Some(candidate) = Candidate::read(text, start + from..end, "http://", cut)
                .filter(|c| c.range.len() > sub.len())
            {
                out.push(candidate);
                break;
            }
        }
    }
    out
}

/// Whether `rest` (what follows a `//`) starts with user info as linkify-it reads it: an
/// `@` before any whitespace, control, `/`, `[`, `]`, `(` or `)`.
fn user_info_follows(rest: &str) -> bool {
    rest.find(|c: char| {
        c == '@' || c.is_whitespace() || c.is_control() || matches!(c, '/' | '[' | ']' | '(' | ')')
    })
    .is_some_and(|n| rest[n..].starts_with('@'))
}

/// Whether the authority of a `//` link as written (up to the first `/` or `\\`) holds a
/// dot (ASCII, or one IDNA maps to it) or `localhost`.
fn written_authority_may_be_dotted(link: &str) -> bool {
    let authority = &link[..link.find(['/', '\\']).unwrap_or(link.len())];
    authority.contains(['.', '\u{3002}', '\u{ff0e}', '\u{ff61}'])
        || authority.to_ascii_lowercase().contains("localhost")
}

/// Host suffixes tried per schemeless candidate, from its first label on (each may cost
/// a URL parse of up to [`MAX_FUZZY_BYTES`]).
const MAX_LABEL_TRIES: usize = 8;

/// Longest schemeless candidate [`fuzzy_url_candidates`] parses, bytes. A longer link is
/// made inert from its host on, which breaks the whole link.
const MAX_FUZZY_BYTES: usize = 2048;

/// Punctuation outside ASCII that ends a host name for linkify-it (fullwidth bar, CJK
/// full stop and quotes).
fn is_wide_punct(c: char) -> bool {
    matches!(
        c,
        '\u{ff5c}'
            | '\u{3002}'
            | '\u{ff0e}'
            | '\u{201c}'
            | '\u{201d}'
            | '\u{2018}'
            | '\u{2019}'
            | '\u{ff08}'
            | '\u{ff09}'
    )
}

/// Whether linkify-it can start a schemeless link right after `before`: at the start of
/// the text, after a character other than a letter, digit, `.`, `:`, `/`, `-`, `_` or
/// `@`, after a backslash escape (markdown-it starts a new text token there, whatever
/// was escaped), and after `//` not preceded by `:` or a word character (its `//host`
/// links).
fn fuzzy_start(before: &str) -> bool {
    let mut back = before.chars().rev();
    let Some(b) = back.next() else {
        return true;
    };
    let b2 = back.next();
    if b.is_ascii_punctuation() && b2 == Some('\\') {
        return true;
    }
    if b == '/' && b2 == Some('/') {
        return back
            .next()
            .is_none_or(|c| !(c == ':' || c.is_alphanumeric() || c == '_'));
    }
    !(b.is_alphanumeric() || matches!(b, '.' | ':' | '/' | '-' | '_' | '@'))
}

/// `domain` (lowercase, two labels or more) ends in a suffix the Public Suffix List
/// knows. A host that is itself a listed suffix counts (`s3.amazonaws.com/bucket/…`
/// serves anyone's bucket).
fn known_suffix(domain: &str) -> bool {
    psl::suffix(domain.as_bytes()).is_some_and(|s| s.is_known())
}

/// What starts a GFM extended autolink (cmark-gfm's `autolink` extension).
pub(super) enum Trigger {
    /// `www.`
    Www,
    /// `http://`, `https://`, `ftp://` or `xmpp:`, with the byte offset of its `:`.
    Scheme(usize),
}

/// The autolink trigger at the start of `rest` (ASCII-lowercased), given the character
/// before it (`None` at the start of the text): `www.` after whitespace, `*`, `_`, `~`,
/// `(` or nothing; a scheme after anything but an ASCII letter (cmark-gfm's rules).
pub(super) fn autolink_trigger(rest: &str, before: Option<char>) -> Option<Trigger> {
    if rest.starts_with("www.") {
        return before
            .is_none_or(|c| c.is_whitespace() || matches!(c, '*' | '_' | '~' | '('))
            .then_some(Trigger::Www);
    }
    let scheme = ["http://", "https://", "ftp://", "xmpp:"]
        .into_iter()
        .find(|p| rest.starts_with(p))?;
    (!before.is_some_and(|c| c.is_ascii_alphabetic()))
        .then(|| Trigger::Scheme(scheme.find(':').unwrap_or_default()))
}

/// How many URL candidates of one token are read in full (each costs a parse of up to
/// the rest of the token, then its query's pairs and its defanged form); later ones are
/// read in part ([`CAPPED_READ_BYTES`]). At 64, a token of `[a](http://x/?q=x`
/// repeated cost about 1.1 s per 256 KiB before the result was forwarded; at 8 about a
/// sixth of that (bench `markdown/link_dense_64KiB`). A candidate read in part is made
/// inert whenever its host is untrusted and its token holds a query or fragment.
const MAX_CANDIDATES_IN_TOKEN: usize = 8;

/// The replacement of a bare URL (markdown source, plain text) when it carries data to an
/// untrusted host, when its host depends on the reader, or when it was cut short and
/// its host is untrusted ([`Candidate`]), with its finding; `None` when it may stay.
pub(super) fn bare_url_edit(
    candidate: &Candidate,
    policy: &ContentPolicy,
    findings: &mut Findings<'_>,
) -> Option<(String, String)> {
    let url = &candidate.url;
    if candidate.two_readings {
        findings.push(
            Code::UrlInvalidCharacter,
            format!(
                "a bare URL whose host depends on who reads it (the URL parser reads {}) was made inert and is shown",
                url.host_str().unwrap_or_default()
            ),
        );
        return Some(inert(url));
    }
    let url = match markup::classify(url.as_str()) {
        Target::Web(url) => url,
        Target::Disallowed(scheme) => {
            findings.push(
                Code::DangerousUrlScheme,
                format!(
                    "a bare {scheme}: URL (cmark-gfm autolinks it) was made inert and is shown"
                ),
            );
            return Some(inert(url));
        }
        // The serialization of a parsed URL: two readings were looked at in the text.
        Target::Mailto | Target::Relative | Target::Invalid | Target::TwoReadings { .. } => {
            return None;
        }
    };
    let host = url.host_str().unwrap_or_default();
    let mut carriers = policy.untrusted_carriers(&url);
    if candidate.cut && carriers.is_empty() && !policy.is_trusted(host) {
        carriers.push("more than the sanitizer reads of one link".to_owned());
    }
    if carriers.is_empty() {
        return None;
    }
    findings.push(
        Code::LinkExfiltration,
        format!(
            "a bare URL to {host} carried data ({}); hosts that autolink bare URLs would make it a link, so it was made inert and its full target is shown",
            carriers.join(", ")
        ),
    );
    Some(inert(&url))
}

/// A bare URL made inert: `(markdown source, plain text)` of its defanged form
/// ([`markup::defanged_url`]) followed by `(link removed)`.
fn inert(url: &url::Url) -> (String, String) {
    let (source, plain) = markup::defanged_url(url);
    (
        format!("{source} (link removed)"),
        format!("{plain} (link removed)"),
    )
}

/// A GFM extended autolink candidate without trailing punctuation (`?!.,:*_~'"`), an
/// unbalanced closing parenthesis or a trailing entity-like `&name;`. Linear in the
/// length: the parentheses are counted once and every step looks only at what it cuts.
pub(super) fn trim_autolink(candidate: &str) -> &str {
    let mut s = candidate;
    // Parentheses of `s`, counted once (the other steps cut none).
    let open = s.matches('(').count();
    let mut close = s.matches(')').count();
    loop {
        let before = s.len();
        s = s.trim_end_matches(['?', '!', '.', ',', ':', '*', '_', '~', '\'', '"']);
        if s.ends_with(')') && open < close {
            s = &s[..s.len() - 1];
            close -= 1;
        }
        if let Some(body) = s.strip_suffix(';') {
            let name = body.len()
                - body
                    .trim_end_matches(|c: char| c.is_ascii_alphanumeric())
                    .len();
            if body[..body.len() - name].ends_with('&') {
                s = &s[..body.len() - name - 1];
            }
        }
        if s.len() == before {
            return s;
        }
    }
}
