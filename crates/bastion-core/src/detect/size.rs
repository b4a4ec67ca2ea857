//! Size limits on descriptor strings and whole descriptors (`oversize_descriptor`, warn).
//!
//! A tool description of tens of kilobytes is a place to hide instructions past what a
//! reviewer reads, and it eats the model's context on every turn.

use crate::finding::{Code, Finding, Severity};
use serde_json::Value;

/// How many oversize strings of one descriptor are reported one by one.
const MAX_REPORTED: usize = 8;

/// Size limits for descriptor scanning.
///
/// # Defaults
/// | field | default |
/// |---|---|
/// | `max_string_bytes` | 8 KiB (8192), per string value or member name |
/// | `max_descriptor_bytes` | 64 KiB (65536), per descriptor serialized as compact JSON |
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DescriptorLimits {
    /// Largest string (value or member name), UTF-8 bytes.
    pub max_string_bytes: usize,
    /// Largest descriptor, bytes of compact JSON.
    pub max_descriptor_bytes: usize,
}

impl Default for DescriptorLimits {
    fn default() -> Self {
        Self {
            max_string_bytes: 8 * 1024,
            max_descriptor_bytes: 64 * 1024,
        }
    }
}

/// Counts oversize strings of one descriptor and reports the first few.
#[derive(Debug, Default)]
pub(crate) struct SizeCheck {
    oversize: usize,
}

impl SizeCheck {
    /// Checks one string (`label` names the field for the message).
    pub(crate) fn string(
        &mut self,
        text: &str,
        path: &str,
        label: &dyn std::fmt::Display,
        limits: &DescriptorLimits,
        findings: &mut Vec<Finding>,
    ) {
        if text.len() <= limits.max_string_bytes {
            return;
        }
        self.oversize += 1;
        if self.oversize <= MAX_REPORTED {
            findings.push(Finding::new(
                Code::OversizeDescriptor,
                Severity::Warn,
                path,
                format!(
                    "{label} is {} bytes, over the {}-byte limit for one descriptor string; long text can hide instructions.",
                    text.len(),
                    limits.max_string_bytes
                ),
            ));
        }
    }

    /// Checks the whole descriptor and reports strings beyond the first few.
    pub(crate) fn finish(
        self,
        descriptor: &Value,
        path: &str,
        limits: &DescriptorLimits,
        findings: &mut Vec<Finding>,
    ) {
        if self.oversize > MAX_REPORTED {
            findings.push(Finding::new(
                Code::OversizeDescriptor,
                Severity::Warn,
                path,
                format!(
                    "{} more strings exceed the {}-byte limit.",
                    self.oversize - MAX_REPORTED,
                    limits.max_string_bytes
                ),
            ));
        }
        let total = serde_json::to_string(descriptor).map_or(0, |s| s.len());
        if total > limits.max_descriptor_bytes {
            findings.push(Finding::new(
                Code::OversizeDescriptor,
                Severity::Warn,
                path,
                format!(
                    "the descriptor is {total} bytes of JSON, over the {}-byte limit.",
                    limits.max_descriptor_bytes
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings_and_totals() {
        let limits = DescriptorLimits {
            max_string_bytes: 10,
            max_descriptor_bytes: 60,
        };
        let mut f = Vec::new();
        let mut check = SizeCheck::default();
        check.string("0123456789", "/a", &"a", &limits, &mut f);
        assert!(f.is_empty(), "exactly at the limit passes");
        check.string("0123456789x", "/b", &"b", &limits, &mut f);
        assert_eq!(f.len(), 1);
        assert_eq!(
            (f[0].code, f[0].severity, f[0].path.as_str()),
            (Code::OversizeDescriptor, Severity::Warn, "/b")
        );
        check.finish(&json!({"description": "short"}), "", &limits, &mut f);
        assert_eq!(f.len(), 1);
        SizeCheck::default().finish(
            &json!({"description": "x".repeat(60)}),
            "/t",
            &limits,
            &mut f,
        );
        assert_eq!(f.len(), 2);
        assert_eq!(f[1].path, "/t");
    }

    #[test]
    fn many_oversize_strings_are_summarized() {
        let limits = DescriptorLimits {
            max_string_bytes: 1,
            max_descriptor_bytes: usize::MAX,
        };
        let mut f = Vec::new();
        let mut check = SizeCheck::default();
        for i in 0..20 {
            check.string("xx", &format!("/{i}"), &"s", &limits, &mut f);
        }
        check.finish(&json!({}), "", &limits, &mut f);
        assert_eq!(f.len(), MAX_REPORTED + 1);
        assert!(f.last().unwrap().message.starts_with("12 more"));
    }

    #[test]
    fn defaults() {
        let d = DescriptorLimits::default();
        assert_eq!((d.max_string_bytes, d.max_descriptor_bytes), (8192, 65536));
    }
}
