//! List prices of well-known models, so usage can carry a cost when it is known.
//! Unknown models (local servers, new releases) get no cost rather than a guess.

use arbor_protocol::Usage;

/// USD per million tokens: input, output, cache read, cache write.
struct Price(f64, f64, f64, f64);

/// Longest matching prefix wins; order matters where prefixes nest.
const PRICES: &[(&str, Price)] = &[
    ("claude-opus-4-5", Price(5.0, 25.0, 0.5, 6.25)),
    ("claude-opus-4", Price(15.0, 75.0, 1.5, 18.75)),
    ("claude-sonnet-4", Price(3.0, 15.0, 0.3, 3.75)),
    ("claude-3-7-sonnet", Price(3.0, 15.0, 0.3, 3.75)),
    ("claude-haiku-4-5", Price(1.0, 5.0, 0.1, 1.25)),
    ("claude-3-5-haiku", Price(0.8, 4.0, 0.08, 1.0)),
    ("gpt-4o-mini", Price(0.15, 0.6, 0.075, 0.0)),
    ("gpt-4o", Price(2.5, 10.0, 1.25, 0.0)),
    ("gpt-4.1-mini", Price(0.4, 1.6, 0.1, 0.0)),
    ("gpt-4.1-nano", Price(0.1, 0.4, 0.025, 0.0)),
    ("gpt-4.1", Price(2.0, 8.0, 0.5, 0.0)),
    ("gpt-5-mini", Price(0.25, 2.0, 0.025, 0.0)),
    ("gpt-5-nano", Price(0.05, 0.4, 0.005, 0.0)),
    ("gpt-5", Price(1.25, 10.0, 0.125, 0.0)),
];

/// The cost of `usage` on `model`, when the model's price is known.
pub fn price_usage(model: &str, usage: &Usage) -> Option<f64> {
    let name = model.rsplit('/').next().unwrap_or(model);
    let (_, p) = PRICES.iter().filter(|(prefix, _)| name.starts_with(prefix)).max_by_key(|(prefix, _)| prefix.len())?;
    let m = |tokens: u64, per_million: f64| tokens as f64 * per_million / 1_000_000.0;
    Some(
        m(usage.input_tokens, p.0)
            + m(usage.output_tokens, p.1)
            + m(usage.cache_read_tokens, p.2)
            + m(usage.cache_write_tokens, p.3),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_models_are_priced_and_unknown_ones_are_not() {
        let u = Usage { input_tokens: 1_000_000, output_tokens: 1_000_000, ..Usage::default() };
        assert_eq!(price_usage("claude-sonnet-4-5-20250929", &u), Some(18.0));
        assert_eq!(price_usage("openai/gpt-4o-mini", &u), Some(0.75));
        assert_eq!(price_usage("llama3.2:3b", &u), None);
    }
}
