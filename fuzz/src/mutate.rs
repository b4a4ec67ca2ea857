//! Deterministic byte mutations for the stable replay: a small stand-in for libFuzzer's
//! mutators (bit flips, byte edits, dictionary splices, truncation, duplication), driven
//! by a xorshift generator so a CI failure reproduces exactly.

/// JSON-RPC and MCP tokens spliced into inputs (the same words as `fuzz.dict`).
pub const TOKENS: &[&[u8]] = &[
    b"\"jsonrpc\":\"2.0\"",
    b"\"id\":",
    b"\"method\":",
    b"\"params\":",
    b"\"result\":",
    b"\"error\":",
    b"\"tools/call\"",
    b"\"tools/list\"",
    b"\"elicitation/create\"",
    b"\"inputSchema\":",
    b"\"outputSchema\":",
    b"\"structuredContent\":",
    b"\"content\":[",
    b"\"type\":\"text\"",
    b"\"text\":",
    b"\"description\":",
    b"\"annotations\":",
    b"\"requestedSchema\":",
    b"\"$ref\":\"#\"",
    b"\"pattern\":\"(a+)+$\"",
    b"\\ud800",
    b"\\u0000",
    b"\\u001b[31m",
    b"\xe2\x80\xae",
    b"\xe2\x80\x8b",
    b"\xf3\xa0\x80\x81",
    b"\x1b]8;;",
    b"\xc2\x9b",
    b"<script>",
    b"<img src=x onerror=",
    b"javascript:",
    b"](https://x.example/?token=",
    b"https://",
    b"xn--",
    b"[::ffff:127.0.0.1]",
    b"1e999",
    b"{\"a\":1,\"a\":2}",
    b"[[[[[[[[",
    b"\n",
];

/// A xorshift64* generator.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (zero is replaced by a fixed odd constant).
    pub fn new(seed: u64) -> Self {
        Self(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (`0` when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            usize::try_from(self.next_u64() % n as u64).unwrap_or(0)
        }
    }
}

/// One to four random edits of `input`.
pub fn mutate(input: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..=rng.below(4) {
        let len = out.len();
        match rng.below(7) {
            0 if len > 0 => {
                let at = rng.below(len);
                out[at] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let at = rng.below(len);
                out[at] = u8::try_from(rng.below(256)).unwrap_or(0);
            }
            2 if len > 0 => {
                let at = rng.below(len);
                let end = (at + 1 + rng.below(8)).min(len);
                out.drain(at..end);
            }
            3 => {
                let at = rng.below(len + 1);
                let token = TOKENS[rng.below(TOKENS.len())];
                out.splice(at..at, token.iter().copied());
            }
            4 => out.truncate(rng.below(len + 1)),
            5 if len > 0 => {
                let at = rng.below(len);
                let end = (at + 1 + rng.below(32)).min(len);
                let piece = out[at..end].to_vec();
                let to = rng.below(len + 1);
                out.splice(to..to, piece);
            }
            _ => {
                let at = rng.below(len + 1);
                out.insert(at, u8::try_from(rng.below(256)).unwrap_or(0));
            }
        }
    }
    out
}
