//! The HTML cleaner's lists: the elements, attributes and URL schemes it keeps, and the
//! ones the probe reports (HTML Living Standard; OWASP XSS Prevention Cheat Sheet).

/// Elements that survive cleaning (HTML Living Standard §4.3–4.5, §4.9 tables).
pub(super) const ALLOWED_TAGS: &[&str] = &[
    "a",
    "abbr",
    "b",
    "bdi",
    "blockquote",
    "br",
    "caption",
    "cite",
    "code",
    "col",
    "colgroup",
    "dd",
    "del",
    "details",
    "dfn",
    "div",
    "dl",
    "dt",
    "em",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "i",
    "ins",
    "kbd",
    "li",
    "mark",
    "ol",
    "p",
    "pre",
    "q",
    "rp",
    "rt",
    "ruby",
    "s",
    "samp",
    "small",
    "span",
    "strike",
    "strong",
    "sub",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "time",
    "tr",
    "u",
    "ul",
    "var",
    "wbr",
];

/// Elements that run code, load resources, embed other documents, collect input or
/// change the page outside their box. Their presence is reported (`html_sanitized`,
/// images as `external_image`); none is ever kept.
pub(crate) const ACTIVE_TAGS: &[&str] = &[
    "script",
    "style",
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "applet",
    "param",
    "form",
    "input",
    "button",
    "textarea",
    "select",
    "option",
    "optgroup",
    "datalist",
    "output",
    "keygen",
    "svg",
    "math",
    "img",
    "image",
    "picture",
    "source",
    "video",
    "audio",
    "track",
    "canvas",
    "map",
    "area",
    "link",
    "meta",
    "base",
    "noscript",
    "noembed",
    "noframes",
    "template",
    "portal",
    "fencedframe",
    "dialog",
    "slot",
    "xmp",
    "plaintext",
    "listing",
    "marquee",
];

/// Active elements removed together with their content (their content is code, styles
/// or fallback for an embedded document, not text meant for the reader).
pub(super) const CLEAN_CONTENT_TAGS: &[&str] = &[
    "script", "style", "template", "iframe", "frame", "frameset", "object", "embed", "applet",
    "noscript", "noembed", "noframes", "svg", "math",
];

/// Attributes allowed on every element.
pub(super) const GENERIC_ATTRIBUTES: &[&str] = &["title", "lang"];

/// Attributes allowed on specific elements.
pub(super) const TAG_ATTRIBUTES: &[(&str, &[&str])] = &[
    ("a", &["href"]),
    ("td", &["colspan", "rowspan"]),
    ("th", &["colspan", "rowspan"]),
    ("col", &["span"]),
    ("colgroup", &["span"]),
    ("ol", &["start", "reversed"]),
];

/// URL schemes allowed in `href`.
pub(super) const URL_SCHEMES: &[&str] = &["http", "https", "mailto"];

/// Schemes the probe lets through so that their use can be reported.
pub(super) const PROBE_SCHEMES: &[&str] = &[
    "http",
    "https",
    "mailto",
    "javascript",
    "vbscript",
    "livescript",
    "data",
    "file",
    "ftp",
    "ftps",
    "blob",
    "filesystem",
    "jar",
    "about",
    "view-source",
    "tel",
    "sms",
    "smb",
    "ms-msdt",
    "search-ms",
    "ms-settings",
    "vscode",
    "cursor",
    "intent",
    "chrome",
    "res",
];

/// Attributes holding a URL (HTML Living Standard attribute index).
pub(crate) const URL_ATTRIBUTES: &[&str] = &[
    "href",
    "src",
    "xlink:href",
    "action",
    "formaction",
    "data",
    "poster",
    "background",
    "ping",
    "cite",
    "codebase",
    "longdesc",
    "lowsrc",
    "dynsrc",
    "manifest",
    "icon",
];

/// Attributes that are active in themselves (CSS, inline documents, form targets).
pub(crate) const ACTIVE_ATTRIBUTES: &[&str] =
    &["style", "srcdoc", "formaction", "action", "http-equiv"];
