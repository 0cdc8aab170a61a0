//! Caps on what tools hand back to the model.
//!
//! Tool output goes into the model's context on every later turn, so an
//! unbounded `cat` of a log or a `find /` could crowd out everything else.
//! Output is cut on a character boundary with a note saying how much was
//! left out, so the model knows to narrow its request.

/// The most characters any tool (except Read, which pages by lines) returns.
pub(crate) const MAX_TOOL_OUTPUT_CHARS: usize = 30_000;

/// `s` unchanged if it has at most `max_chars` characters, else its first
/// `max_chars` characters followed by a note saying how many were dropped.
pub fn cap_output(s: &str, max_chars: usize) -> String {
    // A string with no more bytes than the limit cannot have more characters.
    if s.len() <= max_chars {
        return s.to_string();
    }
    match s.char_indices().nth(max_chars) {
        None => s.to_string(),
        Some((cut, _)) => {
            let omitted = s[cut..].chars().count();
            let mut out = String::with_capacity(cut + 80);
            out.push_str(&s[..cut]);
            out.push_str(&truncation_note(omitted));
            out
        }
    }
}

/// The note appended to output that was cut short.
pub(crate) fn truncation_note(omitted_chars: usize) -> String {
    format!("\n… [output truncated: {} more characters not shown]", thousands(omitted_chars))
}

/// `1234567` as `1,234,567`.
pub(crate) fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Accumulates streamed text, keeping only the first `max_chars` characters
/// but counting the rest, so a command that prints gigabytes costs bounded memory
/// and still gets an accurate truncation note.
#[derive(Debug)]
pub(crate) struct CappedText {
    text: String,
    kept_chars: usize,
    max_chars: usize,
    omitted_chars: usize,
}

impl CappedText {
    pub(crate) fn new(max_chars: usize) -> Self {
        Self { text: String::new(), kept_chars: 0, max_chars, omitted_chars: 0 }
    }

    pub(crate) fn push(&mut self, s: &str) {
        let room = self.max_chars - self.kept_chars;
        if room == 0 {
            self.omitted_chars += s.chars().count();
            return;
        }
        match s.char_indices().nth(room) {
            None => {
                self.text.push_str(s);
                self.kept_chars += s.chars().count();
            }
            Some((cut, _)) => {
                self.text.push_str(&s[..cut]);
                self.kept_chars = self.max_chars;
                self.omitted_chars += s[cut..].chars().count();
            }
        }
    }

    /// True once nothing more will be kept.
    pub(crate) fn is_full(&self) -> bool {
        self.kept_chars >= self.max_chars
    }

    /// The kept text, with the truncation note if anything was dropped.
    pub(crate) fn finish(mut self) -> String {
        if self.omitted_chars > 0 {
            self.text.push_str(&truncation_note(self.omitted_chars));
        }
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_output_is_unchanged() {
        assert_eq!(cap_output("hello", 5), "hello");
        assert_eq!(cap_output("", 0), "");
        // Five characters in more than five bytes: still within the limit.
        assert_eq!(cap_output("héllo", 5), "héllo");
    }

    #[test]
    fn long_output_is_cut_with_a_note() {
        let s = "a".repeat(1_234_567 + 10);
        let out = cap_output(&s, 10);
        assert!(out.starts_with(&"a".repeat(10)));
        assert!(!out.starts_with(&"a".repeat(11)));
        assert!(out.ends_with("\n… [output truncated: 1,234,567 more characters not shown]"));
    }

    #[test]
    fn cut_respects_char_boundaries() {
        let out = cap_output("ééééé", 2);
        assert!(out.starts_with("éé\n…"));
        assert!(out.contains("3 more characters"));
    }

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(123456), "123,456");
        assert_eq!(thousands(1234567), "1,234,567");
    }

    #[test]
    fn capped_text_keeps_the_head_and_counts_the_rest() {
        let mut t = CappedText::new(5);
        t.push("abc");
        t.push("déf");
        assert!(t.is_full());
        t.push("ghij");
        assert_eq!(t.finish(), format!("abcdé{}", truncation_note(5)));
        let mut t = CappedText::new(5);
        t.push("abcde");
        assert_eq!(t.finish(), "abcde");
    }
}
