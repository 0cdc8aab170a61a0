//! Bad input stays small: whatever quotes text that came from outside (a
//! model's argument in an error, a stdin line the CLI ignored) quotes a short
//! prefix and says how much was left out, never the whole of it.

/// At most `max` characters of `s`; when longer, the prefix and a marker saying
/// how many characters were left out.
pub fn quote(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((cut, _)) => {
            let rest = s[cut..].chars().count();
            format!("{}… [{rest} more characters]", &s[..cut])
        }
    }
}

/// Keeps the last `max_bytes` bytes of `s` (from a character boundary), as a terminal
/// scrolls; the number of bytes dropped from its start (0: it was short enough).
pub fn keep_last(s: &mut String, max_bytes: usize) -> usize {
    if s.len() <= max_bytes {
        return 0;
    }
    let mut cut = s.len() - max_bytes;
    while !s.is_char_boundary(cut) {
        cut += 1;
    }
    s.drain(..cut);
    cut
}

#[cfg(test)]
mod tests {
    use super::{keep_last, quote};

    #[test]
    fn the_end_is_kept_on_a_character_boundary() {
        let mut s = "abcdéfg".to_string();
        assert_eq!(keep_last(&mut s, 4), 4);
        assert_eq!(s, "éfg");
        let mut s = "abcdéfg".to_string();
        assert_eq!(keep_last(&mut s, 3), 6, "é is not split: it goes whole");
        assert_eq!(s, "fg");
        let mut short = "ab".to_string();
        assert_eq!((keep_last(&mut short, 4), short.as_str()), (0, "ab"));
    }

    #[test]
    fn long_text_is_cut_with_a_marker_and_short_text_is_kept() {
        assert_eq!(quote("abc", 5), "abc");
        assert_eq!(quote("abcdef", 3), "abc… [3 more characters]");
        assert_eq!(quote(&"é".repeat(10), 2), "éé… [8 more characters]");
        assert!(quote(&"x".repeat(1_000_000), 200).len() < 240);
    }
}
