//! Exact version or not: the `version` rules of a registry `server.json` (MCP Registry
//! `server.schema.json`, `Package.version` and `ServerDetail.version`: "Must be a specific
//! version. Version ranges are rejected (e.g. `^1.2.3`, `~1.2.3`, `>=1.2.3`, `1.x`,
//! `1.*`)", and never `latest`).
//!
//! The grammar of each registry decides, through its own parser:
//! * npm and MCPB: `SemVer` 2.0.0 ([`semver::Version`]); a text that only parses as a
//!   requirement ([`semver::VersionReq`]) is a range;
//! * `PyPI`: PEP 440 ([`pep440_rs::Version`]); a text that parses as specifiers
//!   ([`pep440_rs::VersionSpecifiers`], `>=1.0`, `~=1.2`, `==1.*`) is a range;
//! * `NuGet`: `SemVer` 2.0.0, or the legacy four-part `System.Version` form
//!   (`1.2.3.4`); interval notation (`[1.0,2.0)`) and floating `*` are ranges;
//! * the server's own version: any text that is neither a dist-tag nor a range.

use std::str::FromStr;

/// What a version text is, for one registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionClass {
    /// One exact version.
    Exact,
    /// A movable tag (`latest`, `next`, `stable`, ...): letters only, no digit.
    DistTag,
    /// A range or wildcard that several versions satisfy.
    Range,
    /// Not a version in the registry's grammar.
    Invalid,
}

/// Which grammar a version follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionGrammar {
    /// `SemVer` 2.0.0 (npm, MCPB).
    SemVer,
    /// PEP 440 (`PyPI`).
    Pep440,
    /// `NuGet` versions (`SemVer` 2.0.0 or four numeric parts).
    NuGet,
    /// Free text (the server's own `version`: "SHOULD follow semantic versioning").
    Free,
}

/// Classifies `text` under `grammar`.
pub fn classify(text: &str, grammar: VersionGrammar) -> VersionClass {
    let trimmed = text.trim();
    if trimmed.is_empty() || trimmed != text {
        return VersionClass::Invalid;
    }
    if is_dist_tag(text) {
        return VersionClass::DistTag;
    }
    let exact = match grammar {
        VersionGrammar::SemVer => semver::Version::parse(text).is_ok(),
        VersionGrammar::Pep440 => pep440_rs::Version::from_str(text).is_ok(),
        VersionGrammar::NuGet => {
            !text.contains(['[', '(', ']', ')'])
                && !has_range_syntax(text)
                && (semver::Version::parse(text).is_ok() || four_part(text))
        }
        VersionGrammar::Free => semver::Version::parse(text).is_ok() || !has_range_syntax(text),
    };
    if exact {
        return VersionClass::Exact;
    }
    let range = match grammar {
        VersionGrammar::SemVer => has_range_syntax(text) || semver::VersionReq::parse(text).is_ok(),
        VersionGrammar::Pep440 => {
            has_range_syntax(text) || pep440_rs::VersionSpecifiers::from_str(text).is_ok()
        }
        VersionGrammar::NuGet => text.contains(['[', '(', ']', ')']) || has_range_syntax(text),
        VersionGrammar::Free => true,
    };
    if range {
        VersionClass::Range
    } else {
        VersionClass::Invalid
    }
}

/// Range syntax of npm/Cargo `SemVer`, PEP 440 and `NuGet` floating versions: an operator
/// (`^ ~ < > = !`), a wildcard (`*`, or a component `x`/`X`), a list (`,`), npm's `||`
/// and hyphen ranges. A partial `SemVer` version (`1.2`) is a range only under
/// [`VersionGrammar::SemVer`], where [`semver::VersionReq`] accepts it and
/// [`semver::Version`] does not.
fn has_range_syntax(text: &str) -> bool {
    text.contains(['^', '~', '<', '>', '=', '!', '*', ','])
        || text.contains("||")
        || text.contains(" - ")
        || text.split('.').any(|c| c == "x" || c == "X")
}

/// `System.Version`: two to four dot-separated decimal parts (`NuGet` normalizes
/// `1.0` to `1.0.0`; a fourth part is kept).
fn four_part(text: &str) -> bool {
    let parts: Vec<&str> = text.split('.').collect();
    (2..=4).contains(&parts.len()) && parts.iter().all(|p| p.parse::<u32>().is_ok())
}

/// Letters, `-` and `_` only, no digit: `latest`, `next`, `beta`, `stable`.
fn is_dist_tag(text: &str) -> bool {
    text.eq_ignore_ascii_case("latest")
        || (text
            .chars()
            .all(|c| c.is_ascii_alphabetic() || c == '-' || c == '_')
            && text.chars().any(|c| c.is_ascii_alphabetic()))
}

#[cfg(test)]
mod tests {
    use super::{VersionClass::*, VersionGrammar::*, classify};

    #[test]
    fn semver_exact_and_ranges() {
        for v in ["1.0.0", "0.3.12", "2.1.0-alpha.1", "1.0.0+build.5"] {
            assert_eq!(classify(v, SemVer), Exact, "{v}");
        }
        for v in [
            "^1.2.3",
            "~1.2.3",
            ">=1.2.3",
            "1.x",
            "1.*",
            "*",
            "1.2",
            ">=1.0.0, <2.0.0",
            "1.0.0 - 2.0.0",
            "1 || 2",
        ] {
            assert_eq!(classify(v, SemVer), Range, "{v}");
        }
        assert_eq!(classify("latest", SemVer), DistTag);
        assert_eq!(classify("LATEST", SemVer), DistTag);
        assert_eq!(classify("next", SemVer), DistTag);
        assert_eq!(classify("v1..2", SemVer), Invalid);
        assert_eq!(classify(" 1.0.0", SemVer), Invalid);
        assert_eq!(classify("", SemVer), Invalid);
    }

    #[test]
    fn pep440_exact_and_specifiers() {
        for v in ["1.0", "2024.1.post1", "0.9rc2", "1!2.0", "1.2.3.dev4"] {
            assert_eq!(classify(v, Pep440), Exact, "{v}");
        }
        for v in [">=1.0", "~=1.2", "==1.*", "!=1.3", ">1,<2", "^1.2.3"] {
            assert_eq!(classify(v, Pep440), Range, "{v}");
        }
    }

    #[test]
    fn nuget_exact_and_intervals() {
        for v in ["1.2.3", "1.2.3.4", "1.0", "3.0.0-preview.2"] {
            assert_eq!(classify(v, NuGet), Exact, "{v}");
        }
        for v in ["[1.0,2.0)", "(,1.0]", "1.*", "[1.0]", "~1.2.3"] {
            assert_eq!(classify(v, NuGet), Range, "{v}");
        }
    }

    #[test]
    fn free_server_versions() {
        assert_eq!(classify("2025.10.1-b3", Free), Exact);
        assert_eq!(classify("1.0.2", Free), Exact);
        assert_eq!(classify("latest", Free), DistTag);
        assert_eq!(classify("^1.0.0", Free), Range);
        assert_eq!(classify(">=2.0", Free), Range);
    }
}
