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

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn long_text_is_cut_with_a_marker_and_short_text_is_kept() {
        assert_eq!(quote("abc", 5), "abc");
        assert_eq!(quote("abcdef", 3), "abc… [3 more characters]");
        assert_eq!(quote(&"é".repeat(10), 2), "éé… [8 more characters]");
        assert!(quote(&"x".repeat(1_000_000), 200).len() < 240);
    }
}
