//! Findings, severities and verdicts: the common currency of every detector.
//!
//! A detector never returns `Err` for hostile input: it returns [`Finding`]s, and the
//! caller folds them into a [`Verdict`] (DESIGN §1, §3). The JSON shape of a finding is
//! `{"code": "...", "severity": "info|warn|high|critical", "path": "/json/pointer",
//! "message": "..."}` where `path` is an RFC 6901 JSON Pointer into the inspected value.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How bad a finding is. Ordered: `Info < Warn < High < Critical`.
///
/// `High` and `Critical` withhold (verdict `block`), `Warn` lets the item through with a
/// warning (verdict `flag`), `Info` is recorded only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Recorded, no effect on the verdict.
    Info,
    /// The user is warned; the item passes (`flag`).
    Warn,
    /// The item is withheld or refused (`block`).
    High,
    /// The item is withheld or refused (`block`); reserved for active attacks.
    Critical,
}

impl Severity {
    /// Stable lowercase name, as used in JSON output.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Info => "info",
            Self::Warn => "warn",
            Self::High => "high",
            Self::Critical => "critical",
        }
    }
}

/// The outcome for one message, descriptor or result (DESIGN §1).
///
/// Ordered by strictness: `Allow < Sanitize < Flag < Block`, so the verdict of a
/// composite is the maximum of its parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Passed unchanged.
    Allow,
    /// Passed after rewriting (the rewritten form is what reaches the host).
    Sanitize,
    /// Passed, the user is warned.
    Flag,
    /// Withheld or refused.
    Block,
}

impl Verdict {
    /// Stable lowercase name, as used in JSON output and the audit log.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Sanitize => "sanitize",
            Self::Flag => "flag",
            Self::Block => "block",
        }
    }

    /// The verdict implied by a set of findings alone: any `high`/`critical` finding
    /// blocks, any `warn` flags, otherwise allow. `sanitized` raises `Allow` to
    /// `Sanitize` when the inspected value was rewritten.
    pub fn from_findings(findings: &[Finding], sanitized: bool) -> Self {
        let worst = findings.iter().map(|f| f.severity).max();
        match worst {
            Some(Severity::High | Severity::Critical) => Self::Block,
            Some(Severity::Warn) => Self::Flag,
            _ if sanitized => Self::Sanitize,
            _ => Self::Allow,
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

macro_rules! finding_codes {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, $what:literal; )*) => {
        /// Stable finding identifiers (`snake_case` on the wire). The table printed by
        /// [`Code::table`] is the one documented list (see `docs/finding-codes.md`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum Code {
            $( $(#[$doc])* $variant, )*
        }

        impl Code {
            /// Every code, in declaration order.
            pub const ALL: &'static [Code] = &[ $( Code::$variant, )* ];

            /// The stable `snake_case` identifier.
            pub const fn as_str(self) -> &'static str {
                match self { $( Code::$variant => $name, )* }
            }

            /// One sentence on what the code means.
            pub const fn describe(self) -> &'static str {
                match self { $( Code::$variant => $what, )* }
            }

            /// Looks a code up by its `snake_case` identifier.
            pub fn from_name(name: &str) -> Option<Self> {
                match name { $( $name => Some(Code::$variant), )* _ => None }
            }
        }
    };
}

finding_codes! {
    /// A frame exceeded its byte limit.
    FrameTooLarge => "frame_too_large", "a frame exceeded max_frame_bytes / max_host_frame_bytes and was discarded while reading";
    /// A started frame did not complete in time.
    ReadTimeout => "read_timeout", "a partial frame did not complete within read_timeout_ms and was discarded";
    /// Bytes were not valid UTF-8.
    InvalidUtf8 => "invalid_utf8", "the frame is not valid UTF-8";
    /// The frame is not JSON.
    InvalidJson => "invalid_json", "the frame is not a JSON text (RFC 8259)";
    /// Data after the JSON value.
    TrailingData => "trailing_data", "bytes other than whitespace follow the JSON value in the frame";
    /// Duplicate member names.
    DuplicateKey => "duplicate_key", "an object repeats a member name exactly or up to Unicode case folding";
    /// Look-alike of a protocol member.
    ConfusableMember => "confusable_member", "a member name folds onto a JSON-RPC/MCP protocol member name without being it";
    /// Too deep.
    MaxDepthExceeded => "max_depth_exceeded", "JSON nesting is deeper than max_depth";
    /// Lone surrogate escape.
    InvalidSurrogate => "invalid_surrogate", "a \\u escape encodes an unpaired UTF-16 surrogate";
    /// Batch arrays are refused.
    BatchNotSupported => "batch_not_supported", "the frame is a JSON array (batch); MCP does not use batches";
    /// Top-level value not an object.
    NotAnObject => "not_an_object", "the frame's top-level value is not a JSON object";
    /// JSON-RPC envelope violation.
    InvalidEnvelope => "invalid_envelope", "the JSON-RPC 2.0 envelope is invalid (jsonrpc, id, method, result/error)";
    /// Message structure violation.
    MalformedMessage => "malformed_message", "a known request or result does not have the structure its method requires (MCP schema)";
    /// Response to an id nobody asked.
    UnknownResponseId => "unknown_response_id", "a response answers an id that has no pending request";
    /// A server's error claimed to come from Bastion.
    ForgedGatewayMark => "forged_gateway_mark", "a server's error carried the member that marks mcp-bastion's own refusals (data.gateway); it was removed before the host saw the error";
    /// Duplicate pending request id.
    DuplicateRequestId => "duplicate_request_id", "a request reuses the id of a request still pending";
    /// A check panicked (a bug in Bastion): the message was refused, not passed unchecked.
    InspectionFailed => "inspection_failed", "a check failed inside mcp-bastion (a bug) while handling this message; the message was refused rather than passed on unchecked, and the side waiting for it got an error";
    /// Unicode tag characters.
    HiddenUnicodeTag => "hidden_unicode_tag", "Unicode tag characters (U+E0000..U+E007F) hide ASCII text";
    /// Bidi controls.
    BidiControl => "bidi_control", "bidirectional override/embedding/isolate/mark characters reorder displayed text";
    /// Zero-width characters.
    ZeroWidth => "zero_width", "zero-width characters outside a legitimate joining context hide or split text";
    /// Other invisible format characters.
    InvisibleFormat => "invisible_format", "an invisible format (Cf) or filler character";
    /// Runs of variation selectors.
    VariationSelectorRun => "variation_selector_run", "variation selectors outside registered sequences (emoji, standardized, Mongolian, sparse ideographic) can smuggle bytes";
    /// Private use.
    PrivateUse => "private_use", "private-use code points render unpredictably and can carry hidden data";
    /// Noncharacters / unassigned.
    Noncharacter => "noncharacter", "a Unicode noncharacter or unassigned code point";
    /// C0/C1 controls.
    ControlCharacter => "control_character", "a C0 or C1 control character other than TAB, LF, CR";
    /// Terminal escape sequences.
    TerminalEscape => "terminal_escape", "terminal control sequences (CSI, OSC, DCS, 8-bit C1) that rewrite what a terminal shows";
    /// Tool name outside the allowed charset.
    InvalidName => "invalid_name", "an identifier is outside [A-Za-z0-9_.-]{1,128}";
    /// Mixed-script identifier.
    MixedScriptIdentifier => "mixed_script_identifier", "an identifier mixes scripts (UTS #39) and can impersonate another";
    /// Confusable identifier.
    ConfusableIdentifier => "confusable_identifier", "an identifier's confusable skeleton (UTS #39) equals a different ASCII identifier";
    /// Instruction aimed at the model.
    InstructionPhrase => "instruction_phrase", "text addresses the model with instructions (override, coercion, standing orders)";
    /// Concealment from the user.
    ConcealmentPhrase => "concealment_phrase", "text asks to hide something from the user";
    /// Pseudo tags.
    PseudoTag => "pseudo_tag", "tag-like markers such as <IMPORTANT> or <system> address the model out of band";
    /// Reading secrets.
    CredentialAccess => "credential_access", "text asks to read local secrets (keys, credential files, environment variables)";
    /// Sending data out.
    ExfiltrationSink => "exfiltration_sink", "text asks to send conversation or data to a URL, address or parameter";
    /// Shadowing other tools.
    ToolShadowing => "tool_shadowing", "text changes how other tools or servers must be used";
    /// Annotation contradiction.
    AnnotationContradiction => "annotation_contradiction", "annotations claim safety that the name, description or other annotations contradict";
    /// Oversize descriptor.
    OversizeDescriptor => "oversize_descriptor", "a descriptor string or schema exceeds configured size limits";
    /// Reserved _meta prefix.
    ReservedMetaPrefix => "reserved_meta_prefix", "a _meta key forges a reserved modelcontextprotocol/mcp prefix";
    /// A parameter asks for a secret the tool's purpose does not need.
    SecretParameter => "secret_parameter", "a tool or prompt parameter asks for a secret (password, API key or token, private key, seed phrase, one-time code, card, bank credential, government id) that the tool's stated purpose does not need";
    /// A tool name equals or imitates another wrapped server's tool.
    ToolNameCollision => "tool_name_collision", "a tool name equals, or is a case or confusable look-alike of, a tool name of another wrapped server";
    /// Sanitized HTML.
    HtmlSanitized => "html_sanitized", "active HTML (scripts, event handlers, frames, forms) was removed";
    /// External image in markdown.
    ExternalImage => "external_image", "an auto-loading image points at an external host and could leak data in its URL";
    /// Link carrying data.
    LinkExfiltration => "link_exfiltration", "a link to an untrusted host carries data-looking query or fragment values";
    /// Link label shows another host.
    LinkTextMismatch => "link_text_mismatch", "a link's visible text shows a different host than its target";
    /// Hidden comment.
    HiddenComment => "hidden_comment", "an HTML comment hides text from the rendered view";
    /// Dangerous URL scheme.
    DangerousUrlScheme => "dangerous_url_scheme", "a link or source uses a scheme such as javascript:, data: or vbscript:";
    /// Instruction-like text in a result.
    InjectionInResult => "injection_in_result", "a result contains instructions aimed at the model";
    /// Truncated text.
    TextTruncated => "text_truncated", "text beyond max_text_bytes was truncated with a visible marker";
    /// Two items of one list share a name.
    DuplicateName => "duplicate_name", "two items of one list share a name (or uri), so which one runs is ambiguous";
    /// Tool withheld.
    BlockedDescriptor => "blocked_descriptor", "the tool, prompt or resource was withheld because of its findings";
    /// structuredContent does not match the tool's outputSchema.
    OutputSchemaMismatch => "output_schema_mismatch", "structuredContent is missing or does not validate against the tool's outputSchema";
    /// The tool's outputSchema is refused and not used.
    OutputSchemaRefused => "output_schema_refused", "a tool's outputSchema is too large, too deep, uses remote references or unsafe patterns, and is not used";
    /// A pinned descriptor or an approved launch config changed.
    DescriptorChanged => "descriptor_changed", "a descriptor or server launch config differs from what was approved";
    /// Binary content removed.
    BinaryRefused => "binary_refused", "image, audio or blob content was removed (invalid base64, over max_binary_bytes, MIME type not allowed or not matching its bytes)";
    /// A tool rule of the confirmation policy denies the call.
    PolicyDenied => "policy_denied", "a [servers.NAME.tools] rule (or confirmation.default) denies the tool call without asking";
    /// An argument violates an argument rule.
    ArgumentRuleViolated => "argument_rule_violated", "a tool-call argument breaks a policy argument rule (path outside its prefix, URL host not listed) and the call is denied";
    /// The call must be confirmed by the user.
    ConfirmationRequired => "confirmation_required", "the tool call must be confirmed by the user (untrusted server, not read-only, no pinned descriptor or an ask rule)";
    /// Name and title/description disagree.
    ToolIntentMismatch => "tool_intent_mismatch", "a tool's name and its title or description disagree about what it does (\"Read README\" named exec)";
    /// Data may flow from one place to another.
    ToxicFlow => "toxic_flow", "earlier calls read from one place and this call writes to another, so private data may flow out";
    /// A number that JSON cannot carry exactly in a call a human must approve.
    ImpreciseNumber => "imprecise_number", "a tool-call argument that needs approval holds an integer beyond ±2^53 (RFC 8259 §6), which cannot be shown and digested exactly; the call is refused";
    /// The call may run without asking.
    AutoApproved => "auto_approved", "the tool call may run without asking (explicit allow rule, or a trusted server's pinned read-only tool)";
    /// URL longer than the limit.
    UrlTooLong => "url_too_long", "a URL is longer than [urls] max_len bytes and is refused";
    /// Control, whitespace, invisible or backslash characters in a URL.
    UrlInvalidCharacter => "url_invalid_character", "a URL contains control, whitespace, invisible characters or a backslash (parsers and shells read it differently); refused";
    /// Not an absolute URL.
    UrlMalformed => "url_malformed", "the text is not an absolute URL with a host (WHATWG URL Standard), or its normalized form reads differently when parsed again (two readings, two destinations); refused";
    /// Scheme not allowed.
    UrlSchemeNotAllowed => "url_scheme_not_allowed", "a URL scheme other than https (http only to loopback when allow_loopback_http); refused";
    /// User information in a URL.
    UrlUserinfo => "url_userinfo", "a URL carries user information (user:password@host); refused";
    /// Pre-authenticated URL.
    UrlPreauthParam => "url_preauth_param", "a URL carries a credential (token, code, session, signature, API key, password, JWT) in its query, fragment or path; refused";
    /// Personal data in a URL.
    UrlPersonalData => "url_personal_data", "a URL carries personal data (an email address)";
    /// Raw IP literal host.
    UrlIpLiteral => "url_ip_literal", "a URL's host is a raw IP address rather than a name";
    /// Non-public address.
    PrivateAddress => "private_address", "a URL's host or a DNS answer is a loopback, private, link-local, CGNAT, multicast, documentation or reserved address (any encoding, incl. IPv4 embedded in IPv6); refused for requests, warned for navigation";
    /// Host name not on the public Internet.
    UrlInternalHost => "url_internal_host", "a URL's host is not a public Internet name (single label, .internal, .local, unlisted suffix); refused for requests, warned for navigation";
    /// Punycode host.
    UrlPunycodeHost => "url_punycode_host", "a URL's host has an internationalized (punycode) label; both forms are shown";
    /// Confusable host.
    UrlConfusableHost => "url_confusable_host", "a URL's host mixes scripts, reads as ASCII in another script, or looks like a trusted or consented host (UTS #39 skeleton)";
    /// Domain name embedded in the subdomain.
    UrlEmbeddedDomain => "url_embedded_domain", "a URL's host starts with another site's domain name left of its registrable domain (subdomain spoofing)";
    /// DNS rebinding.
    DnsRebinding => "dns_rebinding", "a host name resolved first to a public and then to a non-public address";
    /// Redirect to another site.
    RedirectCrossSite => "redirect_cross_site", "a redirect leads to another registrable domain";
    /// OAuth issuer mismatch.
    OauthIssuerMismatch => "oauth_issuer_mismatch", "an OAuth issuer (metadata issuer, RFC 8414 §3.3, or authorization response iss, RFC 9207) differs from the expected one";
    /// OAuth issuer missing.
    OauthIssuerMissing => "oauth_issuer_missing", "OAuth metadata lacks issuer, or an authorization response lacks iss although required (RFC 9207)";
    /// The authorization server offers no PKCE S256 / no code flow.
    OauthPkceUnsupported => "oauth_pkce_unsupported", "an OAuth authorization server does not advertise PKCE S256 (code_challenge_methods_supported, RFC 7636) or the code flow; MCP clients refuse it";
    /// The authorization response's state is not the one sent.
    OauthStateMismatch => "oauth_state_mismatch", "an OAuth authorization response carries another state than the request sent (RFC 6749 §10.12, CSRF); the code is not exchanged";
    /// Metadata fetched from a URL that is not the issuer's well-known URL.
    OauthMetadataUrlMismatch => "oauth_metadata_url_mismatch", "authorization-server metadata was fetched from a URL that is not the issuer's well-known URL (RFC 8414 §3.1)";
    /// Protected-resource metadata for another resource.
    OauthResourceMismatch => "oauth_resource_mismatch", "OAuth protected-resource metadata lacks `resource` or describes another resource than the one requested (RFC 9728 §3.3); its authorization servers are not used";
    /// Sensitive form field.
    SensitiveFormField => "sensitive_form_field", "a form elicitation asks for a password, API key, token, secret, private key, seed phrase, one-time code, card or bank credential or government id; refused";
    /// Elicitation mode not declared.
    ElicitationModeNotDeclared => "elicitation_mode_not_declared", "a server asks in an elicitation mode (form or url) the host did not declare or policy turned off; refused";
    /// Elicitation schema refused.
    ElicitationSchemaRefused => "elicitation_schema_refused", "a form elicitation's requestedSchema is not a flat object of allowed primitive kinds within size limits; refused";
    /// Contract entry name invalid.
    ContractNameInvalid => "contract_name_invalid", "a contract manifest's tool or prompt name is outside [A-Za-z][A-Za-z0-9_.-]{0,127}; contract build refuses it";
    /// Contract input schema open.
    ContractSchemaOpen => "contract_schema_open", "a contract manifest's tool inputSchema root is not type object with additionalProperties false; contract build refuses it";
    /// Contract annotations disagree with governance fields.
    ContractAnnotationMismatch => "contract_annotation_mismatch", "a contract manifest's tool annotations (readOnlyHint, destructiveHint) disagree with its read_only / destructive fields; contract build refuses it";
    /// Contract field invalid.
    ContractFieldInvalid => "contract_field_invalid", "a contract manifest field is out of range (server_id, protocol_version, owner, contract_version, side effect, cache hint); contract build refuses it";
    /// A registry server.json lacks a member or has one of the wrong type.
    ServerJsonMalformed => "server_json_malformed", "a registry server.json lacks a required member (name, description, version; a package's registryType, identifier or transport; a remote's type or url) or has one of the wrong type";
    /// The server name is not a reverse-DNS namespace plus a name.
    ServerNameInvalid => "server_name_invalid", "a server.json name is not `namespace/name` with a reverse-DNS namespace (`io.github.user/weather`: one `/`, dot-separated labels of letters, digits and inner `-`, 3 to 200 characters); mixed case is warned as a look-alike risk";
    /// A package registry type outside the allowed set.
    PackageRegistryTypeNotAllowed => "package_registry_type_not_allowed", "a server.json package's registryType is not one of npm, pypi, nuget, oci, mcpb";
    /// A package identifier that is empty or not of the registry's form.
    PackageIdentifierInvalid => "package_identifier_invalid", "a server.json package identifier is empty or holds whitespace or control characters";
    /// A version that is not one exact version.
    VersionNotExact => "version_not_exact", "a server.json version is `latest` or another dist-tag, a range or wildcard (`^1.2.3`, `>=1.0`, `1.x`, `[1.0,2.0)`), missing where the registry needs one, or not a version in the registry's grammar (SemVer, PEP 440, NuGet)";
    /// An MCPB package without a valid file hash.
    PackageSha256Missing => "package_sha256_missing", "an mcpb package lacks fileSha256, or a fileSha256 is not 64 lowercase hex digits";
    /// An OCI package not pinned to a tag or digest.
    OciReferenceNotPinned => "oci_reference_not_pinned", "an oci package names no exact tag or digest (no tag, `latest` or another dist-tag, or a reference that does not parse)";
    /// A shell metacharacter in a command-line part of a package.
    ShellMetacharacter => "shell_metacharacter", "a server.json runtimeHint or runtime/package argument holds a shell metacharacter (; & | $ ` ( ) < > quotes, backslash, control characters, braces outside a {variable}; blanks in runtimeHint), which runs commands when a client uses a shell";
    /// A declared UI resource that is not a valid `ui://` resource.
    UiResourceInvalid => "ui_resource_invalid", "a contract's UI resource is not a `ui://` URI, is declared twice, does not have MIME type text/html;profile=mcp-app, or is not published under resources with that MIME type";
    /// UI resource and tool links disagree.
    UiLinkMismatch => "ui_link_mismatch", "a UI resource names no linked tool or one that is missing or whose _meta.ui.resourceUri does not point back, a tool points at an undeclared ui:// resource, or the published _meta.ui (csp, permissions, visibility) differs from the declaration";
    /// Invalid UI visibility.
    UiVisibilityInvalid => "ui_visibility_invalid", "a UI resource declares no visibility, or a tool publishes a _meta.ui.visibility value other than app and model";
    /// A CSP domain outside policy.
    UiCspOriginNotAllowed => "ui_csp_origin_not_allowed", "a UI resource CSP domain is not a canonical https origin (https://host[:port], no path, no wildcard) or is not in the UI policy's allowed_csp_origins";
    /// A sensitive UI permission without approval.
    UiSensitivePermissionUnapproved => "ui_sensitive_permission_unapproved", "a UI resource requests camera, microphone, geolocation or clipboard-write without a permission_approval, or the UI policy does not allow it";
    /// UI content file refused.
    UiContentRefused => "ui_content_refused", "a UI resource's content file is outside the UI root (absolute path, `..`, backslash), a symbolic link, not a regular file, missing, over max_ui_bytes, or different from its reviewed sha256/size";
    /// Oversize HTTP body.
    HttpBodyTooLarge => "http_body_too_large", "an HTTP request to the listener declares or sends a body above max_host_frame_bytes; refused 413 before the body is buffered";
    /// Repeated single-valued HTTP field.
    HttpDuplicateHeader => "http_duplicate_header", "an HTTP request to the listener repeats a single-valued field (Host, Content-Length, Origin, ...); refused 400";
    /// Foreign or missing Host.
    HttpHostNotAllowed => "http_host_not_allowed", "an HTTP request's Host is not one the listener answers to (DNS rebinding) or is missing/malformed; refused 403 (400)";
    /// Foreign Origin.
    HttpOriginNotAllowed => "http_origin_not_allowed", "an HTTP request carries an Origin that is not allowed (null included): a web page driving the listener (CSRF, DNS rebinding); refused 403";
    /// Missing or wrong bearer token.
    HttpUnauthorized => "http_unauthorized", "an HTTP request lacks the listener's bearer token or presents another; refused 401";
    /// Not the MCP endpoint.
    HttpNotFound => "http_not_found", "an HTTP request targets a path other than the MCP endpoint; refused 404";
    /// Method not served.
    HttpMethod => "http_method", "an HTTP request uses a method other than POST, GET or DELETE; refused 405";
    /// Malformed body framing.
    HttpMalformedHeader => "http_malformed_header", "an HTTP request's body framing is malformed or ambiguous (Content-Length not digits, with Transfer-Encoding, disagreeing with the body) or its Mcp-Session-Id is not visible ASCII; refused 400";
    /// POST without a delimited body.
    HttpLengthRequired => "http_length_required", "an HTTP POST has neither Content-Length nor chunked Transfer-Encoding; refused 411";
    /// Body not application/json.
    HttpContentType => "http_content_type", "an HTTP POST body is not declared application/json (UTF-8), e.g. a CORS-simple text/plain; refused 415";
    /// Accept too narrow.
    HttpAccept => "http_accept", "an HTTP request's Accept does not allow application/json and text/event-stream (POST) or text/event-stream (GET); refused 406";
    /// Protocol version header unsupported or disagreeing with the body.
    HttpProtocolVersionMismatch => "http_protocol_version_mismatch", "an HTTP request's MCP-Protocol-Version is unsupported or differs from the body's _meta (or initialize) protocol version; refused 400";
    /// A tool's `x-mcp-header` declaration breaks the 2026-07-28 rules (SEP-2243).
    McpHeaderInvalid => "mcp_header_invalid", "a tool's x-mcp-header declaration breaks the 2026-07-28 rules (not a header-name token, duplicated, or on a parameter that is not string, integer or boolean): the tool is withheld from hosts of an HTTP server";
    /// Mirrored routing header disagreeing with the body.
    HttpHeaderMismatch => "http_header_mismatch", "an HTTP request's Mcp-Method or Mcp-Name header differs from the body's method or name (2026-07-28); refused 400";
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Code::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown finding code `{name}`")))
    }
}

impl Code {
    /// The markdown table of every code (`| code | meaning |`), used for `docs/finding-codes.md`.
    pub fn table() -> String {
        let mut out = String::from("| code | meaning |\n|---|---|\n");
        for code in Self::ALL {
            out.push_str("| `");
            out.push_str(code.as_str());
            out.push_str("` | ");
            out.push_str(code.describe());
            out.push_str(" |\n");
        }
        out
    }
}

/// One detector result (DESIGN §1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable identifier.
    pub code: Code,
    /// How bad it is.
    pub severity: Severity,
    /// RFC 6901 JSON Pointer to the offending value ("" is the whole input).
    pub path: String,
    /// A sentence a user can act on. Never contains secret values; hidden text may be
    /// shown escaped (e.g. `U+202E`) or decoded when that is the point of the finding.
    pub message: String,
}

impl Finding {
    /// Builds a finding.
    pub fn new(
        code: Code,
        severity: Severity,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            code,
            severity,
            path: path.into(),
            message: message.into(),
        }
    }
}

/// The JSON verdict printed by `check` and `scan --json` (DESIGN §3):
/// `{"verdict", "findings", "output"?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Overall outcome.
    pub verdict: Verdict,
    /// Every finding, in detection order.
    pub findings: Vec<Finding>,
    /// Sanitized or normalized value, for kinds that have one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<serde_json::Value>,
}

impl Report {
    /// A report whose verdict is derived from `findings` (see [`Verdict::from_findings`]).
    pub fn from_findings(
        findings: Vec<Finding>,
        sanitized: bool,
        output: Option<serde_json::Value>,
    ) -> Self {
        Self {
            verdict: Verdict::from_findings(&findings, sanitized),
            findings,
            output,
        }
    }
}

/// Appends `token` to RFC 6901 JSON Pointer `base`, escaping `~` and `/`.
pub fn pointer_push(base: &str, token: &str) -> String {
    let mut out = String::with_capacity(base.len() + token.len() + 1);
    out.push_str(base);
    pointer_push_onto(&mut out, token);
    out
}

/// [`pointer_push`] in place: appends `/` and `token` (escaped as RFC 6901 §3 requires:
/// `~` as `~0`, `/` as `~1`) to `pointer`, so a walk can reuse one buffer and cut it back
/// to its earlier length after each member.
pub fn pointer_push_onto(pointer: &mut String, token: &str) {
    pointer.push('/');
    for ch in token.chars() {
        match ch {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_follows_worst_severity() {
        let f = |s| Finding::new(Code::ZeroWidth, s, "", "m");
        assert_eq!(Verdict::from_findings(&[], false), Verdict::Allow);
        assert_eq!(Verdict::from_findings(&[], true), Verdict::Sanitize);
        assert_eq!(
            Verdict::from_findings(&[f(Severity::Info)], false),
            Verdict::Allow
        );
        assert_eq!(
            Verdict::from_findings(&[f(Severity::Warn)], true),
            Verdict::Flag
        );
        assert_eq!(
            Verdict::from_findings(&[f(Severity::Warn), f(Severity::High)], false),
            Verdict::Block
        );
    }

    #[test]
    fn codes_round_trip_and_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for code in Code::ALL {
            assert!(seen.insert(code.as_str()), "duplicate {code}");
            assert_eq!(Code::from_name(code.as_str()), Some(*code));
            assert!(
                code.as_str()
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '_' || c.is_ascii_digit())
            );
        }
        let json = serde_json::to_string(&Code::DuplicateKey).unwrap();
        assert_eq!(json, "\"duplicate_key\"");
    }

    #[test]
    fn pointer_escapes() {
        assert_eq!(pointer_push("", "a/b~c"), "/a~1b~0c");
        assert_eq!(pointer_push("/x", "0"), "/x/0");
    }
}
