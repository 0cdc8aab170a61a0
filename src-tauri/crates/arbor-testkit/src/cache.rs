//! Anthropic's prompt caching, replayed over the requests a client sent: what
//! each request would have been billed as input (uncached, written to the
//! cache, read from it), so two clients of the same task can be compared on
//! cost without a real API.
//!
//! The rules, as Anthropic documents them: the cached prefix runs in the order
//! tools, system, messages; a `cache_control` breakpoint writes the prefix up
//! to its block; a request reads the longest prefix written before, found at a
//! breakpoint or at any block boundary up to [`LOOKBACK`] blocks before one; a
//! prefix shorter than [`MIN_CACHEABLE`] tokens is never cached. Entries do
//! not expire here (the default lifetime is five minutes, refreshed on every
//! read: longer than a scripted run). Tokens are estimated as the block's JSON
//! text over four, the same estimate for every client, so ratios hold even
//! where the absolute figures are rough.

use serde_json::Value;
use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

/// How many block boundaries before a breakpoint a lookup checks.
pub const LOOKBACK: usize = 20;
/// The shortest prefix cached (Claude Sonnet's and Opus's minimum).
pub const MIN_CACHEABLE: u64 = 1024;
/// What a cache write and a cache read cost, as a share of an input token's price.
pub const WRITE_PRICE: f64 = 1.25;
pub const READ_PRICE: f64 = 0.1;

/// One request's input, as the cache would have billed it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Billed {
    pub uncached: u64,
    pub written: u64,
    pub read: u64,
}

impl Billed {
    pub fn sent(&self) -> u64 {
        self.uncached + self.written + self.read
    }

    /// Input tokens at the input price: uncached + 1.25 × written + 0.1 × read.
    pub fn billed(&self) -> f64 {
        self.uncached as f64 + WRITE_PRICE * self.written as f64 + READ_PRICE * self.read as f64
    }

    pub fn add(&mut self, other: &Billed) {
        self.uncached += other.uncached;
        self.written += other.written;
        self.read += other.read;
    }
}

/// A cache shared by the requests replayed through it, in the order they were sent.
#[derive(Default)]
pub struct CacheReplay {
    written: HashSet<u64>,
}

/// A request flattened into cache order: each block's estimated tokens, the
/// hash of the prefix that ends with it, and whether it carries a breakpoint.
struct Block {
    tokens: u64,
    prefix: u64,
    breakpoint: bool,
}

impl CacheReplay {
    /// Bills one Messages API request body and records what it wrote.
    pub fn bill(&mut self, body: &Value) -> Billed {
        let blocks = blocks(body);
        let mut ends = Vec::with_capacity(blocks.len());
        let mut sum = 0u64;
        for b in &blocks {
            sum += b.tokens;
            ends.push(sum);
        }
        let total = sum;
        let breakpoints: Vec<usize> = (0..blocks.len()).filter(|&i| blocks[i].breakpoint).collect();
        // The longest prefix written before, reachable from some breakpoint.
        let mut read = 0u64;
        for &b in &breakpoints {
            for i in (b.saturating_sub(LOOKBACK)..=b).rev() {
                if self.written.contains(&blocks[i].prefix) {
                    read = read.max(ends[i]);
                    break;
                }
            }
        }
        // Every breakpoint's prefix is in the cache after this request.
        let mut last = 0u64;
        for &b in &breakpoints {
            if ends[b] >= MIN_CACHEABLE {
                self.written.insert(blocks[b].prefix);
                last = last.max(ends[b]);
            }
        }
        let written = last.saturating_sub(read);
        Billed { uncached: total - read - written, written, read }
    }
}

fn blocks(body: &Value) -> Vec<Block> {
    let mut out = Vec::new();
    let mut hasher = DefaultHasher::new();
    // A block's tokens: its JSON text (breakpoint aside) over four, rounded up.
    let mut push = |v: &Value, breakpoint: bool, role: Option<&str>| {
        let mut clean = v.clone();
        if let Some(o) = clean.as_object_mut() {
            o.remove("cache_control");
        }
        let text = clean.to_string();
        role.hash(&mut hasher);
        text.hash(&mut hasher);
        out.push(Block { tokens: (text.len() as u64).div_ceil(4), prefix: hasher.finish(), breakpoint });
    };
    let marked = |v: &Value| v.get("cache_control").is_some_and(|c| !c.is_null());
    for tool in body.get("tools").and_then(Value::as_array).into_iter().flatten() {
        push(tool, marked(tool), None);
    }
    match body.get("system") {
        Some(Value::String(s)) => push(&Value::String(s.clone()), false, None),
        Some(Value::Array(blocks)) => {
            for b in blocks {
                push(b, marked(b), None);
            }
        }
        _ => {}
    }
    for msg in body.get("messages").and_then(Value::as_array).into_iter().flatten() {
        let role = msg.get("role").and_then(Value::as_str);
        match msg.get("content") {
            Some(Value::String(s)) => push(&Value::String(s.clone()), false, role),
            Some(Value::Array(blocks)) => {
                for b in blocks {
                    push(b, marked(b), role);
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(n: usize, mark: bool) -> Value {
        let mut b = json!({"type": "text", "text": "x".repeat(n)});
        if mark {
            b["cache_control"] = json!({"type": "ephemeral"});
        }
        b
    }

    #[test]
    fn a_marked_prefix_is_written_once_then_read_and_an_unmarked_one_never() {
        let mut cache = CacheReplay::default();
        let first =
            json!({"system": [text(8000, true)], "messages": [{"role": "user", "content": [text(400, false)]}]});
        let a = cache.bill(&first);
        assert!(a.written > 1900 && a.read == 0 && a.uncached > 90, "{a:?}");
        let b = cache.bill(&first);
        assert_eq!((b.read, b.written), (a.written, 0), "{b:?}");
        // No breakpoint at all: nothing is cached or read.
        let mut bare = CacheReplay::default();
        let plain =
            json!({"system": [text(8000, false)], "messages": [{"role": "user", "content": [text(400, false)]}]});
        bare.bill(&plain);
        assert_eq!(bare.bill(&plain).read, 0);
    }

    #[test]
    fn a_lookup_reaches_back_twenty_blocks_and_no_further() {
        let turn = |extra: usize| {
            let mut content = vec![text(8000, true)];
            content.extend((0..extra).map(|_| text(40, false)));
            if let Some(last) = content.last_mut() {
                last["cache_control"] = json!({"type": "ephemeral"});
            }
            json!({"messages": [{"role": "user", "content": content}]})
        };
        // Only the new end is a breakpoint: the old one is found by looking back.
        let unmarked_start = |extra: usize| {
            let mut body = turn(extra);
            body["messages"][0]["content"][0].as_object_mut().map(|o| o.remove("cache_control"));
            body
        };
        let mut near = CacheReplay::default();
        near.bill(&turn(0));
        assert!(near.bill(&unmarked_start(LOOKBACK)).read > 1900);
        // 21 blocks back: out of reach.
        let mut far = CacheReplay::default();
        far.bill(&turn(0));
        let body = unmarked_start(LOOKBACK + 1);
        assert_eq!(far.bill(&body).read, 0);
    }

    #[test]
    fn short_prefixes_are_not_cached_and_billing_weighs_writes_and_reads() {
        let mut cache = CacheReplay::default();
        let small = json!({"system": [text(400, true)], "messages": [{"role": "user", "content": [text(40, false)]}]});
        let a = cache.bill(&small);
        assert_eq!((a.written, a.read), (0, 0));
        let billed = Billed { uncached: 100, written: 1000, read: 10_000 };
        assert_eq!(billed.billed(), 100.0 + 1250.0 + 1000.0);
        assert_eq!(billed.sent(), 11_100);
    }
}
