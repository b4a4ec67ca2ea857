//! The multilingual term table of the sensitive-field classifier (English, German,
//! French, Spanish, Portuguese, Italian, Dutch, Polish, Turkish, Russian, Arabic, Hindi,
//! Japanese, Korean, Chinese).
//!
//! Spelling as in [`crate::detect::langs`]: Latin-script patterns are written folded
//! (lowercase, no accents: `contrasena`, `cle privee`, `schlussel`); Cyrillic and CJK in
//! natural spelling, turned by [`crate::detect::fold::fold_pattern`] into what folding
//! makes of them. Word-separating `[\s_-]*` lets `api_key`, `api-key`, `api key` and
//! `apikey` match one pattern. CJK patterns use no word boundaries.

use super::sensitive::SensitiveKind as K;

/// What may follow a bare `secret` or `PIN` for it to be the thing asked for (end of the
/// text, punctuation, or a function word) rather than an adjective or another noun's
/// modifier (`Secret Santa`, `pin color`).
macro_rules! end_guard {
    () => {
        r"(?:\s*$|\s*[^\s\w]|\s+(?:for|of|from|to|here|below|above|please|and|or|you|we|that|which|is|was|fur|pour|para|de|der|des|du|la|le|el)\b)"
    };
}

/// One category and its patterns (regex source, before `fold_pattern`).
pub(super) const TERMS: &[(K, &[&str])] = &[
    (
        K::Password,
        &[
            r"\b(?:passwords?|passwd|pwd|passcodes?|passphrases?|pass[\s_-]+phrases?)\b",
            r"\bpin[\s_-]*(?:codes?|numbers?)\b",
            concat!(r"\bpins?", end_guard!()),
            r"\bp\s*[a@4]\s*[s$5]{2}[\s_-]*w\s*[o0]\s*r\s*ds?\b",
            r"\bpass[\s_-]+words?\b",
            r"\b(?:passwort|passworter|kennwort|kennworter|geheimzahl|geheimwort)\b",
            r"\b(?:mot[\s_-]*de[\s_-]*passe|mdp|code[\s_-]+secret|code[\s_-]+pin)\b",
            r"\b(?:contrasenas?|clave[\s_-]+de[\s_-]+acceso|codigo[\s_-]+secreto)\b",
            r"\b(?:senhas?)\b",
            r"\b(?:парол[ьяи]|пин[\s_-]*код)",
            r"(?:パスワード|暗証番号|合言葉|密码|密碼|口令)",
            r"\b(?:wachtwoord(?:en)?|parola[\s_'-]*d[\s_'-]*ordine|palavras?[\s_-]*passe|parol[ьy]?|sifre(?:niz|nizi|yi)?|haslo|hasla)\b",
            r"(?:hasł[oa]|şifre|비밀번호|암호|كلمة[\s_-]*المرور|كلمة[\s_-]*السر|पासवर्ड)",
        ],
    ),
    (
        K::ApiKey,
        &[
            r"\b(?:api|access|secret|app|auth|license|licence|product|master|encryption|signing)[\s_-]*keys?\b",
            r"\b(?:api[\s_-]*schlussel|zugangsschlussel|zugriffsschlussel)\b",
            r"\b(?:cle[\s_-]*(?:d[\s_'-]*)?api|cles?[\s_-]+secretes?)\b",
            r"\b(?:clave[\s_-]*(?:de[\s_-]*)?api|claves?[\s_-]+secretas?)\b",
            r"(?:ключ[\s_-]*(?:api|доступа)|api[\s_-]*ключ)",
            r"(?:apiキー|アクセスキー|api密钥|api密鑰|密钥|密鑰|秘钥|秘鑰)",
            r"\b(?:(?:sk|rk)[\s_-]+(?:\.\.\.|…|proj|ant|live|test|value|key|token)\b|(?:ghp|gho|ghs|ghu|glpat|xox[abpr])[\s_-]|github[\s_-]pat[\s_-])",
        ],
    ),
    (
        K::Token,
        &[
            r"\b(?:access|auth|bearer|refresh|id|session|oauth|personal[\s_-]+access|api|github|slack|bot)?[\s_-]*tokens?\b",
            r"\b(?:bearer|jwt)\b",
            r"\b(?:session|auth|login)[\s_-]*cookies?\b",
            r"\b(?:jetons?|zugangstoken)\b",
            r"(?:токен)",
            r"(?:トークン|令牌)",
        ],
    ),
    (
        K::Secret,
        &[
            r"\b(?:client|app|application|webhook|shared|api|signing|jwt|totp)[\s_-]*secrets?\b",
            concat!(
                r"\bsecrets?(?:[\s_-]+(?:key|token|value|phrase|code|string|answer|word|number|pin|id)s?)?",
                end_guard!()
            ),
            r"\b(?:credentials?|creds)\b",
            r"\b(?:zugangsdaten|anmeldedaten|geheimnis)\b",
            r"\b(?:identifiants(?:[\s_-]+de[\s_-]+connexion)?)\b",
            r"\b(?:credenciales|secreto)\b",
            r"(?:секрет|учетные[\s_-]+данные)",
            r"(?:シークレット|認証情報|凭据|凭证|憑證|憑據)",
        ],
    ),
    (
        K::PrivateKey,
        &[
            r"\b(?:private|ssh|pgp|gpg|rsa|ed25519)[\s_-]*keys?\b",
            r"\bprivkey\b",
            r"-----begin",
            r"\b(?:privater?[\s_-]+schlussel)\b",
            r"\b(?:cle[\s_-]+privee|clave[\s_-]+privada|chave[\s_-]+privada)\b",
            r"(?:закрыт\w*[\s_-]+ключ|приватн\w*[\s_-]+ключ|секретн\w*[\s_-]+ключ)",
            r"(?:秘密鍵|私钥|私鑰)",
        ],
    ),
    (
        K::SeedPhrase,
        &[
            r"\b(?:seed|recovery|mnemonic|backup|wallet)[\s_-]*(?:phrases?|words?|sentences?)\b",
            r"\b(?:mnemonics?|wallet[\s_-]+seed)\b",
            r"\b(?:wiederherstellungsphrase|seed[\s_-]*phrase)\b",
            r"\b(?:phrase[\s_-]+de[\s_-]+(?:recuperation|recuperacion)|frase[\s_-]+(?:semilla|de[\s_-]+recuperacion))\b",
            r"(?:сид[\s_-]*фраз|мнемоническ\w*[\s_-]+фраз|фраз\w*[\s_-]+восстановления)",
            r"(?:シードフレーズ|リカバリーフレーズ|復元フレーズ|助记词|助記詞|恢复短语)",
            r"\bword[\s_-]*#?[\s_-]*\d{1,2}[\s_-]*(?:of|/)[\s_-]*(?:12|15|18|21|24)\b",
            r"\b(?:restore|recover|import)[\s_-]+(?:(?:your|a|the|my)[\s_-]+)?(?:crypto[\s_-]+)?wallet\b",
        ],
    ),
    (
        K::OneTimeCode,
        &[
            r"\b(?:otp|totp|hotp|2fa|mfa|2[\s_-]*fa)\b",
            r"\b(?:one[\s_-]*time|two[\s_-]*factor|verification|authenticator|authentication|auth|security|sms|login|confirmation|access|mfa|2fa)[\s_-]+(?:codes?|pins?|passcodes?|passwords?)\b",
            r"\bauthenticator[\s_-]+app\b",
            r"\b(?:einmalcode|einmalpasswort|bestatigungscode|sicherheitscode|verifizierungscode)\b",
            r"\b(?:code[\s_-]+(?:de[\s_-]+)?(?:verification|confirmation|securite)|code[\s_-]+a[\s_-]+usage[\s_-]+unique)\b",
            r"\b(?:codigo[\s_-]+de[\s_-]+(?:verificacion|seguridad|confirmacion|un[\s_-]+solo[\s_-]+uso))\b",
            r"(?:код\w*[\s_-]+(?:подтверждения|из[\s_-]+смс)|одноразов\w*[\s_-]+(?:код|парол))",
            r"(?:認証コード|確認コード|ワンタイムパスワード|セキュリティコード|验证码|驗證碼|动态码|動態碼|校验码)",
            r"\b(?:codigo[\s_-]+de[\s_-]+(?:verificacao|seguranca|confirmacao|acesso)|codice[\s_-]+(?:di[\s_-]+)?(?:verifica|sicurezza|conferma)|verificatiecode|beveiligingscode|kod[\s_-]+(?:weryfikacyjny|sms)|dogrulama[\s_-]+kodu)\b",
            r"(?:인증[\s_-]*번호|인증[\s_-]*코드)",
            r"\b(?:\d{1,2}|four|five|six|seven|eight)[\s_-]*digits?[\s_-]+(?:codes?|pins?|passcodes?)\b",
            r"\bcodes?(?:[\s_-]+\w+){0,4}?[\s_-]+(?:sent|texted|emailed|messaged|smsed)\b",
            r"\b(?:texted|emailed|sent|messaged)(?:[\s_-]+\w+){0,4}?[\s_-]+codes?\b",
        ],
    ),
    (
        K::PaymentCard,
        &[
            r"\b(?:credit|debit|payment|bank)[\s_-]*cards?\b",
            r"\bcard[\s_-]*(?:numbers?|no|num|verification)\b",
            r"\b(?:cvv2?|cvc2?)\b",
            r"\b(?:kreditkart\w*|kartennummer|prufnummer)\b",
            r"\b(?:numero[\s_-]+de[\s_-]+(?:carte|tarjeta)|carte[\s_-]+(?:bancaire|de[\s_-]+credit)|tarjeta[\s_-]+de[\s_-]+(?:credito|debito)|cryptogramme)\b",
            r"(?:номер[\s_-]+карты|банковск\w*[\s_-]+карт)",
            r"(?:カード番号|クレジットカード|卡号|卡號|信用卡|安全码)",
            r"\b(?:numero[\s_-]+(?:do[\s_-]+|da[\s_-]+|della[\s_-]+)?(?:cartao|carta)|cartao[\s_-]+(?:de[\s_-]+)?(?:credito|debito)|carta[\s_-]+di[\s_-]+credito|creditcard(?:nummer)?|kaartnummer|numer[\s_-]+karty|kart[\s_-]+numarasi)\b",
        ],
    ),
    (
        K::BankCredential,
        &[
            r"\b(?:iban|routing[\s_-]*numbers?|sort[\s_-]*codes?|bank[\s_-]*(?:account|login|credentials?)|account[\s_-]*numbers?|online[\s_-]*banking)\b",
            r"\b(?:kontonummer|bankverbindung|onlinebanking)\b",
            r"\b(?:numero[\s_-]+de[\s_-]+(?:compte|cuenta)|coordonnees[\s_-]+bancaires|rib|cuenta[\s_-]+bancaria)\b",
            r"(?:номер[\s_-]+счета|банковск\w*[\s_-]+счет)",
            r"(?:口座番号|银行账号|银行卡号|銀行帳號|银行账户)",
        ],
    ),
    (
        K::GovernmentId,
        &[
            r"\b(?:ssn|itin|aadhaar|social[\s_-]+security(?:[\s_-]+numbers?)?|national[\s_-]+(?:id|identity|insurance)(?:[\s_-]+numbers?)?|passport[\s_-]*(?:numbers?|no)|driver'?s?[\s_-]+licen[cs]e(?:[\s_-]+numbers?)?|tax[\s_-]*(?:id|identification)(?:[\s_-]+numbers?)?|taxpayer[\s_-]+id)\b",
            r"\b(?:personalausweis\w*|ausweisnummer|steuer[\s_-]*id|steueridentifikationsnummer|sozialversicherungsnummer|reisepassnummer)\b",
            r"\b(?:numero[\s_-]+de[\s_-]+(?:securite[\s_-]+sociale|passeport|pasaporte|la[\s_-]+seguridad[\s_-]+social)|numero[\s_-]+fiscal|carte[\s_-]+d[\s_'-]*identite|dni|nif|curp)\b",
            r"(?:номер[\s_-]+паспорта|паспортн\w*[\s_-]+данн|снилс|\bинн\b)",
            r"(?:マイナンバー|個人番号|パスポート番号|運転免許証番号|身份证|身份證|护照号|護照號|社保号)",
        ],
    ),
    (
        K::ConnectionString,
        &[
            r"\b(?:connection[\s_-]*strings?|dsn|database[\s_-]*url|db[\s_-]*url|jdbc)\b",
            r"\b[a-z][a-z0-9+.-]*://[^\s/@:]+:[^\s/@]+@",
            r"\b(?:verbindungszeichenfolge|chaine[\s_-]+de[\s_-]+connexion|cadena[\s_-]+de[\s_-]+conexion)\b",
            r"(?:строк\w*[\s_-]+подключения|接続文字列|连接字符串|連接字串)",
        ],
    ),
];

/// Words right after a match that make it talk *about* the secret, not ask for it
/// (`password policy`, `password reminder date`, `token count`, `API key name`).
pub(super) const BENIGN_AFTER: &str = r"^[\s_-]*(?:policy|policies|strength|reminder|reminders|hint|date|length|expiry|expiration|expires|expired|age|rules?|requirements?|complexity|changed|change|reset|manager|name|label|alias|id|count|limit|limits|budget|usage|type|format|rotation|lifetime|ttl|settings?|enabled|required|strategy|richtlinie|starke|lange|ablauf|politique|longueur|politica|longitud|политик|длин|ポリシー|強度|有効期限|の長さ|策略|强度|強度|长度|長度|提示|有效期)";

/// Words right before a match with the same effect (`max tokens`, `number of tokens`,
/// `promo code … emailed`): only words that make a different noun phrase (a count, a
/// coupon, a postal code). Adjectives and verbs
/// (`strong password`, `forgot password`) leave it a request for the secret.
pub(super) const BENIGN_BEFORE: &str = r"(?:\b(?:max|maximum|min|minimum|num|number[\s_-]+of|count[\s_-]+of|promo|promotional|discount|coupon|voucher|referral|zip|postal|post|country|area|dialing|source)[\s_-]*)$";

/// What may follow a benign word of [`BENIGN_AFTER`] and undoes it: the benign word
/// was not a noun of its own but part of an instruction (`Password type it below`).
pub(super) const INSTRUCTION_AFTER: &str =
    r"^[\s_-]*(?:it|this|that|here|below|above|in|into|now|please|your|the|then|:)(?:\b|$)";

/// Negated verbs that still ask (`do not forget to enter…`, `don't worry, just type…`):
/// removed from a clause before the negation test.
pub(super) const NOT_NEGATION: &str = r"\b(?:do[\s_-]+not|dont|don't|never|not|no)[\s_-]+(?:forget|worry|hesitate|fail|miss|delay|wait|problem|worries|need[\s_-]+to[\s_-]+worry)\b";

/// Negations that may follow the term (SOV languages: `パスワードは決して入力しないでください`).
pub(super) const NEGATION_ANYWHERE: &str = r"(?:決して|绝不|絶対に|不会|不要)";

/// A negation before the term in the same clause of the *message* (`We will never ask
/// for your password`): the clause does not ask for the secret. Matched against the
/// folded clause up to the term.
pub(super) const NEGATION_BEFORE: &str = r"(?:\b(?:never|not|dont|don't|do not|won't|will not|nie|niemals|kein|keine|jamais|ne|pas|nunca|no|jamas|никогда|не)\b)";
