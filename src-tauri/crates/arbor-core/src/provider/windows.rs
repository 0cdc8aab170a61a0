//! Context windows of well-known models, so an agent knows how much its model
//! takes before a provider refuses a request. Unknown models (local servers,
//! new releases) get a stated guess, which a refusal naming the real figure
//! replaces.

use arbor_protocol::{ContextWindow, WindowSource};

/// What an unknown model is taken to hold until a provider says otherwise.
pub const GUESSED_WINDOW: u64 = 128_000;

/// Longest matching prefix wins; order matters where prefixes nest.
const WINDOWS: &[(&str, u64)] = &[
    ("claude-", 200_000),
    ("gpt-4o", 128_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-5", 400_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
];

/// The window of `model`: the person's figure when given, else the table's, else a guess.
pub fn context_window(model: &str, configured: Option<u64>) -> ContextWindow {
    if let Some(tokens) = configured {
        return ContextWindow { tokens, source: WindowSource::Configured };
    }
    let name = model.rsplit('/').next().unwrap_or(model);
    WINDOWS.iter().filter(|(prefix, _)| name.starts_with(prefix)).max_by_key(|(prefix, _)| prefix.len()).map_or(
        ContextWindow { tokens: GUESSED_WINDOW, source: WindowSource::Guess },
        |(_, tokens)| ContextWindow { tokens: *tokens, source: WindowSource::Model },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_models_have_their_window_others_a_guess_and_a_person_overrides_both() {
        assert_eq!(context_window("claude-sonnet-4-5-20250929", None).tokens, 200_000);
        assert_eq!(context_window("openai/gpt-4.1-mini", None).tokens, 1_047_576);
        assert_eq!(context_window("gpt-4o-mini", None).source, WindowSource::Model);
        let guess = context_window("llama3.2:3b", None);
        assert_eq!((guess.tokens, guess.source), (GUESSED_WINDOW, WindowSource::Guess));
        let set = context_window("claude-sonnet-4-5", Some(30_000));
        assert_eq!((set.tokens, set.source), (30_000, WindowSource::Configured));
    }
}
