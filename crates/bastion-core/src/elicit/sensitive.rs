//! The sensitive-field classifier for form-mode elicitation (issue 6 §2; MCP 2025-11-25
//! "Elicitation §Security Considerations": servers MUST NOT request passwords, API keys,
//! access tokens or payment credentials through form mode).
//!
//! Each property is judged from its name (read as words: `apiKey` → `api key`), `title`,
//! `description` and `format`; the form from its `message` and the schema's own
//! `title`/`description`. Text is folded first (`detect::fold`: NFKC, full case
//! folding, marks and invisible characters dropped, UTS #39 confusable prototypes for
//! look-alike words), then matched against the multilingual term table
//! (the `terms` table: English, German, French, Spanish, Portuguese, Italian, Dutch,
//! Polish, Turkish, Russian, Arabic, Hindi, Japanese, Korean, Chinese).
//!
//! Look-alikes stay allowed:
//! * a match followed by a word that makes it *about* the secret (`password policy`,
//!   `password reminder date`, `token count`, `API key name`) or preceded by one that
//!   makes a different noun phrase (`max tokens`, `promo code`) does not count; an
//!   adjective or verb (`strong password`, `forgot password`) does not exempt, nor does
//!   a benign word that starts an instruction (`Password type it below`);
//! * a property *named* with a password word (`password`, `passphrase`) that can carry
//!   text is sensitive whatever its title (`password` titled "Password name");
//! * in a message, a negation exempts only the clause it governs, before the term
//!   (`We will never ask for your password`); `No spaces: type your password`,
//!   `Do not worry, enter your password` and `Do not forget to enter…` still ask;
//! * spelling tricks: runs of single letters (`p a s s w o r d`, `p.a.s.s.w.o.r.d`) are
//!   joined before matching; adjacent free-text properties whose names join into a
//!   secret word (`pass` + `word`) count;
//! * `default`, `placeholder`, `examples`, `enum`/`const` values and `oneOf`/`anyOf`
//!   choice titles of three words or more are read like the message;
//! * a property that cannot carry a typed secret does not count: `boolean`, the enum
//!   forms (`enum`, `oneOf`, arrays of choices) and strings with format `email`, `date`
//!   or `date-time`;
//! * a property name whose words the title repeats in a benign context (`pin` titled
//!   "Pin color") is judged by the title;
//! * the `message` counts only when some property can carry a secret, so a form of
//!   choices under a message that mentions a password passes.
//!
//! `format: "password"` and `writeOnly: true` mark a secret whatever the words.

use super::terms::{
    BENIGN_AFTER, BENIGN_BEFORE, INSTRUCTION_AFTER, NEGATION_ANYWHERE, NEGATION_BEFORE,
    NOT_NEGATION, TERMS,
};
use crate::detect::fold;
use crate::finding::{Code, Finding, Severity, pointer_push};
use regex::Regex;
use serde_json::Value;
use std::sync::LazyLock;

/// What kind of secret a form asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SensitiveKind {
    /// Password, passphrase, passcode, PIN.
    Password,
    /// API, access, secret or license key.
    ApiKey,
    /// Access, refresh, bearer or session token, JWT.
    Token,
    /// Client secret, credentials.
    Secret,
    /// Private, SSH or PGP key.
    PrivateKey,
    /// Wallet seed or recovery phrase.
    SeedPhrase,
    /// One-time, verification or authenticator code.
    OneTimeCode,
    /// Payment card number or CVV.
    PaymentCard,
    /// IBAN, bank account or routing number, online-banking login.
    BankCredential,
    /// Social security, passport, national id or tax id number.
    GovernmentId,
    /// Database connection string or URL with embedded credentials.
    ConnectionString,
}

impl SensitiveKind {
    /// Stable `snake_case` name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Password => "password",
            Self::ApiKey => "api_key",
            Self::Token => "token",
            Self::Secret => "secret",
            Self::PrivateKey => "private_key",
            Self::SeedPhrase => "seed_phrase",
            Self::OneTimeCode => "one_time_code",
            Self::PaymentCard => "payment_card",
            Self::BankCredential => "bank_credential",
            Self::GovernmentId => "government_id",
            Self::ConnectionString => "connection_string",
        }
    }

    /// What it is, for a user.
    pub const fn describe(self) -> &'static str {
        match self {
            Self::Password => "a password or PIN",
            Self::ApiKey => "an API or access key",
            Self::Token => "an access token",
            Self::Secret => "a secret or credentials",
            Self::PrivateKey => "a private key",
            Self::SeedPhrase => "a wallet seed or recovery phrase",
            Self::OneTimeCode => "a one-time or verification code",
            Self::PaymentCard => "payment card data",
            Self::BankCredential => "bank account data",
            Self::GovernmentId => "a government id number",
            Self::ConnectionString => "a connection string with credentials",
        }
    }
}

struct Compiled {
    terms: Vec<(SensitiveKind, Regex)>,
    after: Regex,
    before: Regex,
    instruction: Regex,
    negation: Regex,
    negation_anywhere: Regex,
    not_negation: Regex,
    single_letters: Regex,
    pin: Regex,
}

static COMPILED: LazyLock<Compiled> = LazyLock::new(|| {
    let compile = |p: &str| Regex::new(&fold::fold_pattern(p)).expect("built-in pattern");
    Compiled {
        terms: TERMS
            .iter()
            .flat_map(|(k, pats)| pats.iter().map(move |p| (*k, compile(p))))
            .collect(),
        after: compile(BENIGN_AFTER),
        before: compile(BENIGN_BEFORE),
        instruction: compile(INSTRUCTION_AFTER),
        negation: compile(NEGATION_BEFORE),
        negation_anywhere: compile(NEGATION_ANYWHERE),
        not_negation: compile(NOT_NEGATION),
        single_letters: Regex::new(r"\b\w\b(?:[\s._-]+\w\b){3,}").expect("built-in pattern"),
        pin: Regex::new(r"\bpins?\b").expect("built-in pattern"),
    }
});

/// `text` in the form the term table matches: identifiers read as words, then folded.
fn folded(text: &str) -> String {
    let words = fold::identifier_words(text, false);
    fold::fold(words.as_deref().unwrap_or(text))
}

/// The first kind of secret `text` asks for, ignoring matches in a benign context
/// (module docs). Text of any language of the table; pure.
pub fn classify_text(text: &str) -> Option<SensitiveKind> {
    classify(text, false)
}

/// As [`classify_text`], for a form's message: a term in a sentence with a negation
/// (`We never ask for your password.`, `パスワードは決して入力しないでください`) does not
/// count either.
pub fn classify_message(text: &str) -> Option<SensitiveKind> {
    classify(text, true)
}

/// Characters that end a clause of a message: a negation governs only its own clause
/// (`No spaces allowed: type your password` asks; `Do not worry, just enter…` asks).
const CLAUSE_ENDS: [char; 17] = [
    '.', '!', '?', '\n', ';', ':', ',', '—', '–', '。', '！', '？', '；', '：', '，', '、', '…',
];

fn classify(text: &str, negations: bool) -> Option<SensitiveKind> {
    if !negations {
        return classify_one(text).map(|(k, _, _)| k);
    }
    let c = &*COMPILED;
    text.split(CLAUSE_ENDS).find_map(|clause| {
        let (kind, f, at) = classify_one(clause)?;
        let before = c
            .not_negation
            .replace_all(f.get(..at).unwrap_or_default(), " ");
        let negated = c.negation_anywhere.is_match(&f) || c.negation.is_match(&before);
        (!negated).then_some(kind)
    })
}

/// `text` with runs of four or more single letters separated by spaces, dots, hyphens
/// or underscores joined (`p a s s w o r d`, `p.a.s.s.w.o.r.d` → `password`).
fn collapse_single_letters(f: &str) -> String {
    COMPILED
        .single_letters
        .replace_all(f, |caps: &regex::Captures<'_>| {
            caps[0]
                .chars()
                .filter(|ch| !ch.is_whitespace() && !matches!(ch, '.' | '_' | '-'))
                .collect::<String>()
        })
        .into_owned()
}

/// The first non-benign match: its kind, the folded text it was found in and where.
fn classify_one(text: &str) -> Option<(SensitiveKind, String, usize)> {
    let c = &*COMPILED;
    let f = folded(text);
    let collapsed = collapse_single_letters(&f);
    let variants = if collapsed == f {
        vec![f]
    } else {
        vec![f, collapsed]
    };
    for f in variants {
        for (kind, re) in &c.terms {
            for m in re.find_iter(&f) {
                let rest = &f[m.end()..];
                let after = c
                    .after
                    .find(rest)
                    .is_some_and(|b| !c.instruction.is_match(&rest[b.end()..]));
                let benign = after || c.before.is_match(&f[..m.start()]);
                if !benign {
                    return Some((*kind, f.clone(), m.start()));
                }
            }
        }
    }
    None
}

/// `true` when a property of this definition can hold a typed secret: free text and
/// numbers can; booleans, the enum forms and `email`/`date`/`date-time` strings cannot.
pub fn can_carry_secret(def: &Value) -> bool {
    let has_choices = def.get("enum").is_some() || def.get("oneOf").is_some();
    match def.get("type").and_then(Value::as_str) {
        Some("boolean" | "array") => false,
        Some("string") if has_choices => false,
        Some("string") => !matches!(
            def.get("format").and_then(Value::as_str),
            Some("email" | "date" | "date-time")
        ),
        _ => true,
    }
}

fn finding(path: String, kind: SensitiveKind, where_: &str) -> Finding {
    Finding::new(
        Code::SensitiveFormField,
        Severity::High,
        path,
        format!(
            "the form asks for {} ({where_}); a server must never collect secrets through a form (MCP elicitation); refused",
            kind.describe()
        ),
    )
}

/// `true` when the title repeats the property name's words in a context that is not
/// sensitive (`pin` titled "Pin color", `apiKey` titled "API key name"): the title then
/// decides for the name.
///
/// A name that is itself a password word (`password`, `passphrase`; not the ambiguous
/// `pin`) is never explained away: such a free-text field holds the secret whatever
/// its title says (`password` titled "Password name").
fn title_explains(name: &str, title: Option<&str>) -> bool {
    let Some(title) = title else { return false };
    let (n, t) = (folded(name), folded(title));
    if classify_text(name) == Some(SensitiveKind::Password) && !COMPILED.pin.is_match(&n) {
        return false;
    }
    !n.trim().is_empty() && t.contains(n.trim()) && classify_text(title).is_none()
}

/// Every sensitive request in the `params` of a form-mode `elicitation/create` (module
/// docs); finding paths are under `base` (the pointer to `params`). Severity `high`,
/// code `sensitive_form_field`.
pub fn scan_form(params: &Value, base: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let schema = params.get("requestedSchema");
    let props_path = pointer_push(&pointer_push(base, "requestedSchema"), "properties");
    let mut any_capable = false;
    let mut value_texts: Vec<(String, String)> = Vec::new();
    let mut capable_names: Vec<(String, String)> = Vec::new();
    if let Some(props) = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
    {
        for (name, def) in props {
            let path = pointer_push(&props_path, name);
            if def.get("format").and_then(Value::as_str) == Some("password")
                || def.get("writeOnly").and_then(Value::as_bool) == Some(true)
            {
                out.push(finding(
                    path,
                    SensitiveKind::Password,
                    &format!("property `{name}` is marked as a password input"),
                ));
                continue;
            }
            collect_value_texts(def, &path, &mut value_texts);
            if !can_carry_secret(def) {
                continue;
            }
            any_capable = true;
            capable_names.push((name.clone(), path.clone()));
            let labels = [
                ("name", Some(name.as_str())),
                ("title", def.get("title").and_then(Value::as_str)),
                (
                    "description",
                    def.get("description").and_then(Value::as_str),
                ),
            ];
            for (what, text) in labels {
                if what == "name" && title_explains(name, labels[1].1) {
                    continue;
                }
                if let Some(kind) = text.and_then(classify_text) {
                    let at = if what == "name" {
                        path.clone()
                    } else {
                        pointer_push(&path, what)
                    };
                    out.push(finding(at, kind, &format!("property `{name}`, its {what}")));
                    break;
                }
            }
        }
    }
    if out.is_empty() {
        out.extend(split_secret_names(&capable_names));
    }
    if out.is_empty() && any_capable {
        for (path, text) in &value_texts {
            if let Some(kind) = classify_message(text) {
                out.push(finding(
                    path.clone(),
                    kind,
                    "a default, example or choice text of the form, with a free-text field",
                ));
                return out;
            }
        }
        let texts = [
            (pointer_push(base, "message"), params.get("message")),
            (
                pointer_push(&pointer_push(base, "requestedSchema"), "title"),
                schema.and_then(|s| s.get("title")),
            ),
            (
                pointer_push(&pointer_push(base, "requestedSchema"), "description"),
                schema.and_then(|s| s.get("description")),
            ),
        ];
        for (path, text) in texts {
            if let Some(kind) = text.and_then(Value::as_str).and_then(classify_message) {
                out.push(finding(
                    path,
                    kind,
                    "the form's message, with a free-text field",
                ));
                break;
            }
        }
    }
    out
}

/// Instruction-like texts a form shows besides titles: `default`, `examples`,
/// `placeholder`, `enum`/`const` values and `oneOf`/`anyOf` choice titles and values.
/// Only texts of three words or more count (a sentence, not a choice id such as
/// `password` in an enum of sign-in methods).
fn collect_value_texts(def: &Value, path: &str, out: &mut Vec<(String, String)>) {
    let mut push = |at: String, v: &Value| {
        if let Some(t) = v.as_str()
            && t.split_whitespace().count() >= 3
        {
            out.push((at, t.to_owned()));
        }
    };
    for key in ["default", "placeholder", "const"] {
        if let Some(v) = def.get(key) {
            push(pointer_push(path, key), v);
        }
    }
    for key in ["examples", "enum"] {
        if let Some(items) = def.get(key).and_then(Value::as_array) {
            for (i, v) in items.iter().enumerate() {
                push(pointer_push(&pointer_push(path, key), &i.to_string()), v);
            }
        }
    }
    let items = def.get("items");
    for holder in [Some(def), items].into_iter().flatten() {
        for key in ["oneOf", "anyOf"] {
            let Some(choices) = holder.get(key).and_then(Value::as_array) else {
                continue;
            };
            for (i, choice) in choices.iter().enumerate() {
                let at = pointer_push(&pointer_push(path, key), &i.to_string());
                for field in ["title", "const", "description"] {
                    if let Some(v) = choice.get(field) {
                        push(pointer_push(&at, field), v);
                    }
                }
            }
        }
    }
}

/// A secret word split over adjacent free-text properties (`pass` + `word`): each
/// pair of neighbours whose names, neither sensitive alone, join into a secret word.
fn split_secret_names(names: &[(String, String)]) -> Vec<Finding> {
    names
        .windows(2)
        .filter_map(|pair| {
            let [(a, _), (b, path)] = pair else {
                return None;
            };
            if classify_text(a).is_some() || classify_text(b).is_some() {
                return None;
            }
            let kind = classify_text(&format!("{a}{b}"))?;
            Some(finding(
                path.clone(),
                kind,
                &format!("properties `{a}` and `{b}` spell it together"),
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sensitive_terms_in_many_languages() {
        use SensitiveKind as K;
        for (text, kind) in [
            ("password", K::Password),
            ("SSO password", K::Password),
            ("userPassword", K::Password),
            ("Passwort", K::Password),
            ("Kennwort", K::Password),
            ("mot de passe", K::Password),
            ("contraseña", K::Password),
            ("senha", K::Password),
            ("пароль", K::Password),
            ("パスワード", K::Password),
            ("密码", K::Password),
            ("ＰＡＳＳＷＯＲＤ", K::Password),
            ("pаsswоrd", K::Password), // Cyrillic а and о
            ("apiKey", K::ApiKey),
            ("api_key", K::ApiKey),
            ("API-Schlüssel", K::ApiKey),
            ("clé API", K::ApiKey),
            ("clave de API", K::ApiKey),
            ("ключ API", K::ApiKey),
            ("APIキー", K::ApiKey),
            ("API密钥", K::ApiKey),
            ("access_token", K::Token),
            ("Bearer", K::Token),
            ("токен", K::Token),
            ("client_secret", K::Secret),
            ("apiSecret", K::Secret),
            ("Zugangsdaten", K::Secret),
            ("private key", K::PrivateKey),
            ("clé privée", K::PrivateKey),
            ("秘密鍵", K::PrivateKey),
            ("seed phrase", K::SeedPhrase),
            ("recovery words", K::SeedPhrase),
            ("助记词", K::SeedPhrase),
            ("otp", K::OneTimeCode),
            ("6-digit code from your authenticator app", K::OneTimeCode),
            ("Bestätigungscode", K::OneTimeCode),
            ("código de verificación", K::OneTimeCode),
            ("验证码", K::OneTimeCode),
            ("card number", K::PaymentCard),
            ("CVV", K::PaymentCard),
            ("Kreditkartennummer", K::PaymentCard),
            ("IBAN", K::BankCredential),
            ("routing_number", K::BankCredential),
            ("Kontonummer", K::BankCredential),
            ("SSN", K::GovernmentId),
            ("passport number", K::GovernmentId),
            ("マイナンバー", K::GovernmentId),
            ("номер паспорта", K::GovernmentId),
            (
                "Connection string, e.g. postgres://user:secret@host/db",
                K::Secret,
            ),
            ("dsn", K::ConnectionString),
            ("2FA code", K::OneTimeCode),
            ("pa$$word", K::Password),
            ("P@ssw0rd", K::Password),
            ("passw0rd", K::Password),
            ("Pass word", K::Password),
            ("PIN", K::Password),
            ("Enter the PIN for your card", K::Password),
            ("Session cookie", K::Token),
            ("Secret", K::Secret),
            ("Enter the shared secret you received", K::Secret),
            ("Your strong password", K::Password),
            ("Forgot password? Type it here anyway", K::Password),
            ("Password type it below", K::Password),
            ("Parola d'ordine", K::Password),
            ("Wachtwoord", K::Password),
            ("Hasło", K::Password),
            ("비밀번호", K::Password),
            ("Şifre", K::Password),
            ("كلمة المرور", K::Password),
            ("पासवर्ड", K::Password),
            ("Palavra-passe", K::Password),
            ("parol", K::Password),
            ("p a s s w o r d", K::Password),
            ("p.a.s.s.w.o.r.d", K::Password),
            ("p-a-s-s-w-o-r-d", K::Password),
            ("Número do cartão de crédito", K::PaymentCard),
            ("Código de verificação", K::OneTimeCode),
            (
                "Enter the 6-digit code we just texted to your phone",
                K::OneTimeCode,
            ),
            ("We emailed you a code", K::OneTimeCode),
            ("Word 1 of 12", K::SeedPhrase),
            ("OpenAI sk-... value", K::ApiKey),
        ] {
            assert_eq!(classify_text(text), Some(kind), "{text}");
        }
    }

    #[test]
    fn negated_messages_do_not_ask() {
        for m in [
            "We will never ask for your password. What is your name?",
            "Do not enter your API key here; just pick a project name.",
            "Wir fragen nie nach Ihrem Passwort. Wie heißen Sie?",
            "Nous ne demandons jamais votre mot de passe. Votre nom ?",
            "Мы никогда не спрашиваем пароль. Как вас зовут?",
            "パスワードは決して入力しないでください。お名前は？",
        ] {
            assert_eq!(classify_message(m), None, "{m}");
        }
        for m in [
            "Please enter your password. We never store it.",
            "Your session expired. Re-enter your SSO password to keep working.",
            "No spaces allowed: type your GitHub password in the answer box.",
            "Do not worry, just enter your bank password below",
            "Do not forget: enter your password",
            "Do not forget to enter your password",
            "Don't share it with others, type your password here",
        ] {
            assert!(classify_message(m).is_some(), "{m}");
        }
    }

    #[test]
    fn password_named_field_ignores_title() {
        let form = |name: &str, def: Value| {
            serde_json::json!({"message": "Login", "requestedSchema": {"type": "object",
                "properties": {name: def}}})
        };
        let f = form(
            "password",
            serde_json::json!({"type": "string", "title": "Password name"}),
        );
        assert_eq!(scan_form(&f, "").len(), 1);
        let f = form(
            "pin",
            serde_json::json!({"type": "string", "title": "Pin color"}),
        );
        assert!(scan_form(&f, "").is_empty());
        let f = form(
            "password",
            serde_json::json!({"type": "string", "format": "date", "title": "Password reminder date"}),
        );
        assert!(scan_form(&f, "").is_empty());
    }

    #[test]
    fn split_names_and_value_texts() {
        let f = serde_json::json!({"message": "Login", "requestedSchema": {"type": "object",
            "properties": {"pass": {"type": "string"}, "word": {"type": "string"}}}});
        assert_eq!(scan_form(&f, "").len(), 1);
        let f = serde_json::json!({"message": "Profile", "requestedSchema": {"type": "object",
            "properties": {"user": {"type": "string"}, "name": {"type": "string"}}}});
        assert!(scan_form(&f, "").is_empty());
        let f = serde_json::json!({"message": "Confirm", "requestedSchema": {"type": "object",
            "properties": {"x": {"type": "string", "default": "paste your password here"}}}});
        assert_eq!(scan_form(&f, "").len(), 1);
        let f = serde_json::json!({"message": "Sign in", "requestedSchema": {"type": "object",
            "properties": {"m": {"type": "string", "enum": ["password", "passkey"]},
                "user": {"type": "string"}}}});
        assert!(scan_form(&f, "").is_empty());
    }

    #[test]
    fn look_alikes_pass() {
        for text in [
            "email",
            "Email address",
            "password reminder date",
            "password_policy",
            "Password policy strength",
            "max_tokens",
            "Maximum tokens",
            "token count",
            "ticket id",
            "Ticket ID",
            "zip code",
            "postal code",
            "promo code",
            "country code",
            "API key name",
            "Vorname",
            "Nachname",
            "Angaben bestätigen",
            "full name",
            "username",
            "GitHub username",
            "keyboard layout",
            "Passwortrichtlinie",
            "Bitte geben Sie Ihren Namen ein.",
            "Choose a theme",
            "Describe the bug",
            "Secret Santa wishlist",
            "Secret message for the card",
            "Pin color",
            "Pinned note",
            "Enter the promo code we emailed you",
            "5-digit ZIP code",
            "Initials, e.g. J. R. R. T.",
            "parole board",
            "Step 1 of 12",
        ] {
            assert_eq!(classify_text(text), None, "{text}");
        }
    }
}
