//! Size, depth and time limits (DESIGN §5, `[limits]`).

use serde::{Deserialize, Serialize};

/// The `[limits]` section of the configuration. Every field has the documented default
/// (see [`Limits::default`]); sizes are bytes, times are milliseconds.
///
/// # Defaults
/// | key | default |
/// |---|---|
/// | `max_frame_bytes` | 4 MiB (server → host) |
/// | `max_host_frame_bytes` | 1 MiB (host → server) |
/// | `max_binary_bytes` | 16 MiB |
/// | `max_depth` | 64 |
/// | `read_timeout_ms` | 30 000 |
/// | `request_timeout_ms` | 30 000 |
/// | `tool_call_timeout_ms` | 120 000 |
/// | `max_text_bytes` | 256 KiB |
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Largest server → host frame, bytes (newline excluded).
    pub max_frame_bytes: usize,
    /// Largest host → server frame, bytes (newline excluded).
    pub max_host_frame_bytes: usize,
    /// Largest base64 image/audio/blob content within a frame, bytes.
    pub max_binary_bytes: usize,
    /// Deepest JSON nesting (objects and arrays); the top-level object is depth 1.
    pub max_depth: usize,
    /// A started frame must complete within this many ms.
    pub read_timeout_ms: u64,
    /// Host request → answer deadline for every method but `tools/call`, ms.
    pub request_timeout_ms: u64,
    /// `tools/call` → answer deadline, ms.
    pub tool_call_timeout_ms: u64,
    /// Text per result content item before truncation, bytes.
    pub max_text_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_frame_bytes: 4 * 1024 * 1024,
            max_host_frame_bytes: 1024 * 1024,
            max_binary_bytes: 16 * 1024 * 1024,
            max_depth: 64,
            read_timeout_ms: 30_000,
            request_timeout_ms: 30_000,
            tool_call_timeout_ms: 120_000,
            max_text_bytes: 256 * 1024,
        }
    }
}

impl Limits {
    /// The answer deadline for a host request of `method`, ms.
    pub fn timeout_for(&self, method: &str) -> u64 {
        if method == "tools/call" {
            self.tool_call_timeout_ms
        } else {
            self.request_timeout_ms
        }
    }

    /// Frame limit for a direction.
    pub const fn frame_limit(&self, direction: crate::Direction) -> usize {
        match direction {
            crate::Direction::HostToServer => self.max_host_frame_bytes,
            crate::Direction::ServerToHost => self.max_frame_bytes,
        }
    }
}
