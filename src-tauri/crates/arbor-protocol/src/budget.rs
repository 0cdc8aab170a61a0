//! Budgets (design.md §3.4b): limits on what an agent's whole subtree may use
//! (tokens, dollars, wall time, descendants), what it has used, and how near
//! it stands to each limit. The runtime enforces budgets with [`Budget::standing`]
//! and the front ends show the very same figures; neither re-derives them.

use crate::AgentId;
use serde::{Deserialize, Serialize};

/// What an agent and everything below it may use. An absent field is no limit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct Budget {
    /// Input and output tokens (cache writes are input); cache reads are counted apart and not limited.
    #[serde(default)]
    pub max_tokens: Option<u64>,
    /// Dollars, where the models' prices are known.
    #[serde(default)]
    pub max_cost_usd: Option<f64>,
    /// Wall time of the agent's runs (its subtree works within them).
    #[serde(default)]
    pub max_duration_seconds: Option<u64>,
    /// Subagents started anywhere below it.
    #[serde(default)]
    pub max_subagents: Option<u32>,
}

impl Budget {
    pub fn is_empty(&self) -> bool {
        self.max_tokens.is_none()
            && self.max_cost_usd.is_none()
            && self.max_duration_seconds.is_none()
            && self.max_subagents.is_none()
    }

    /// The first limit that is not above zero (a limit of 0 would stop everything at once;
    /// no limit is an absent one), if any.
    pub fn invalid_field(&self) -> Option<&'static str> {
        [
            ("max_tokens", self.max_tokens == Some(0)),
            ("max_cost_usd", self.max_cost_usd.is_some_and(|c| !(c > 0.0 && c.is_finite()))),
            ("max_duration_seconds", self.max_duration_seconds == Some(0)),
            ("max_subagents", self.max_subagents == Some(0)),
        ]
        .into_iter()
        .find_map(|(field, bad)| bad.then_some(field))
    }

    /// The limits as a person reads them: "10,000 tokens · $2.00 · 10 min 00 s · 5 subagents".
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(t) = self.max_tokens {
            parts.push(format!("{} tokens", thousands(t)));
        }
        if let Some(c) = self.max_cost_usd {
            parts.push(format!("${c:.2}"));
        }
        if let Some(d) = self.max_duration_seconds {
            parts.push(crate::time::duration_words(d.saturating_mul(1000)));
        }
        if let Some(n) = self.max_subagents {
            parts.push(format!("{n} subagent{}", if n == 1 { "" } else { "s" }));
        }
        if parts.is_empty() { "no limits".to_string() } else { parts.join(" · ") }
    }

    /// One limit, as a number (wall time in seconds); None when it sets none.
    pub fn limit(&self, kind: BudgetKind) -> Option<f64> {
        match kind {
            BudgetKind::Tokens => self.max_tokens.map(|v| v as f64),
            BudgetKind::Cost => self.max_cost_usd,
            BudgetKind::Duration => self.max_duration_seconds.map(|v| v as f64),
            BudgetKind::Subagents => self.max_subagents.map(f64::from),
        }
    }

    /// The tighter of the two, limit by limit.
    pub fn within(&self, other: &Budget) -> Budget {
        fn min<T: PartialOrd + Copy>(a: Option<T>, b: Option<T>) -> Option<T> {
            match (a, b) {
                (Some(a), Some(b)) => Some(if b < a { b } else { a }),
                (a, b) => a.or(b),
            }
        }
        Budget {
            max_tokens: min(self.max_tokens, other.max_tokens),
            max_cost_usd: min(self.max_cost_usd, other.max_cost_usd),
            max_duration_seconds: min(self.max_duration_seconds, other.max_duration_seconds),
            max_subagents: min(self.max_subagents, other.max_subagents),
        }
    }

    /// This budget with the limits `change` names replaced (a person raising or lowering some).
    pub fn changed_by(&self, change: &Budget) -> Budget {
        Budget {
            max_tokens: change.max_tokens.or(self.max_tokens),
            max_cost_usd: change.max_cost_usd.or(self.max_cost_usd),
            max_duration_seconds: change.max_duration_seconds.or(self.max_duration_seconds),
            max_subagents: change.max_subagents.or(self.max_subagents),
        }
    }

    /// What is left of each limit after `used`: the most a new child's budget may be.
    pub fn remainder(&self, used: &BudgetUse) -> Budget {
        Budget {
            max_tokens: self.max_tokens.map(|m| m.saturating_sub(used.tokens)),
            max_cost_usd: self.max_cost_usd.map(|m| (m - used.cost_usd).max(0.0)),
            max_duration_seconds: self.max_duration_seconds.map(|m| m.saturating_sub(used.elapsed_ms / 1000)),
            max_subagents: self.max_subagents.map(|m| m.saturating_sub(used.subagents)),
        }
    }

    /// How `used` stands against this budget. `next_tokens` is what the next
    /// model request is expected to cost: a request that would pass the token
    /// limit exhausts the budget before it is sent.
    pub fn standing(&self, used: BudgetUse, next_tokens: u64) -> BudgetStanding {
        let mut parts: Vec<(BudgetKind, f64, bool)> = Vec::new();
        if let Some(max) = self.max_tokens {
            let over = used.tokens >= max || used.tokens.saturating_add(next_tokens) > max;
            parts.push((BudgetKind::Tokens, ratio(used.tokens as f64, max as f64), over));
        }
        if let Some(max) = self.max_cost_usd {
            parts.push((BudgetKind::Cost, ratio(used.cost_usd, max), used.cost_usd >= max));
        }
        if let Some(max) = self.max_duration_seconds {
            let max_ms = max.saturating_mul(1000);
            parts.push((BudgetKind::Duration, ratio(used.elapsed_ms as f64, max_ms as f64), used.elapsed_ms >= max_ms));
        }
        if let Some(max) = self.max_subagents {
            // Spawns past the limit are refused, so reaching it exhausts nothing.
            parts.push((BudgetKind::Subagents, ratio(f64::from(used.subagents), f64::from(max)), false));
        }
        let exhausted = parts.iter().find(|(_, _, over)| *over).map(|(k, _, _)| *k);
        let nearest = parts.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1));
        BudgetStanding {
            budget: self.clone(),
            fraction: nearest.map_or(0.0, |(_, f, _)| f),
            nearest: nearest.map(|(k, _, _)| k),
            exhausted,
            next_tokens,
            used,
        }
    }
}

fn ratio(used: f64, max: f64) -> f64 {
    if max <= 0.0 { 1.0 } else { (used / max).max(0.0) }
}

/// Which limit of a budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum BudgetKind {
    Tokens,
    Cost,
    Duration,
    Subagents,
}

impl BudgetKind {
    pub const ALL: [BudgetKind; 4] = [Self::Tokens, Self::Cost, Self::Duration, Self::Subagents];
    /// The field of a [`Budget`] (as it is on the wire) that holds each kind's limit, in
    /// the order of [`BudgetKind::ALL`]: the UI reads and writes limits by these.
    pub const LIMIT_FIELDS: [&'static str; 4] = ["max_tokens", "max_cost_usd", "max_duration_seconds", "max_subagents"];

    pub fn as_str(self) -> &'static str {
        crate::wire::name(&self)
    }
}

/// The share of a budget at which the agents under it are warned to wrap up.
pub const BUDGET_WARNING_FRACTION: f64 = 0.8;

/// What an agent's subtree has used, in a budget's terms.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct BudgetUse {
    /// Input, output and cache-write tokens.
    pub tokens: u64,
    /// Cache reads: shown, not limited.
    pub cache_read_tokens: u64,
    /// Dollars of the responses whose price is known.
    pub cost_usd: f64,
    /// Some responses came from a model whose price is unknown: `cost_usd` leaves them out.
    pub cost_incomplete: bool,
    /// Wall time of the budget's agent: every run's, the current one's so far.
    pub elapsed_ms: u64,
    /// Subagents started below it.
    pub subagents: u32,
}

impl BudgetUse {
    /// Adds one model response's usage.
    pub fn add_usage(&mut self, u: &crate::Usage) {
        let tokens = u.input_tokens.saturating_add(u.output_tokens).saturating_add(u.cache_write_tokens);
        self.tokens = self.tokens.saturating_add(tokens);
        self.cache_read_tokens = self.cache_read_tokens.saturating_add(u.cache_read_tokens);
        match u.cost_usd {
            Some(c) => self.cost_usd += c,
            None if u.total_tokens() > 0 => self.cost_incomplete = true,
            None => {}
        }
    }
}

/// How a subtree stands against its budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct BudgetStanding {
    pub budget: Budget,
    pub used: BudgetUse,
    /// The highest share of any limit used (1.0 = at the limit): what a meter shows.
    pub fraction: f64,
    /// The limit that share is of.
    pub nearest: Option<BudgetKind>,
    /// The limit that ran out (or that the next request would pass).
    pub exhausted: Option<BudgetKind>,
    /// What the next model request was expected to cost, in tokens.
    pub next_tokens: u64,
}

impl BudgetStanding {
    /// The share of one limit used (1.0 = at the limit); None when the budget sets no such limit.
    pub fn share(&self, kind: BudgetKind) -> Option<f64> {
        let u = &self.used;
        let used = match kind {
            BudgetKind::Tokens => u.tokens as f64,
            BudgetKind::Cost => u.cost_usd,
            BudgetKind::Duration => u.elapsed_ms as f64 / 1000.0,
            BudgetKind::Subagents => f64::from(u.subagents),
        };
        self.budget.limit(kind).map(|max| ratio(used, max))
    }

    /// The figures of one limit, as a person reads them: "12,400 of 10,000 tokens".
    pub fn figures(&self, kind: BudgetKind) -> String {
        let b = &self.budget;
        let u = &self.used;
        match kind {
            BudgetKind::Tokens => {
                let mut s = format!("{} of {} tokens", thousands(u.tokens), thousands(b.max_tokens.unwrap_or(0)));
                if u.cache_read_tokens > 0 {
                    s.push_str(&format!(" (and {} cache reads)", thousands(u.cache_read_tokens)));
                }
                s
            }
            BudgetKind::Cost => {
                let mut s = format!("${:.2} of ${:.2}", u.cost_usd, b.max_cost_usd.unwrap_or(0.0));
                if u.cost_incomplete {
                    s.push_str(" (some models' prices are unknown: their tokens are not priced)");
                }
                s
            }
            BudgetKind::Duration => format!(
                "{} of {} wall time",
                crate::time::duration_words(u.elapsed_ms),
                crate::time::duration_words(b.max_duration_seconds.unwrap_or(0).saturating_mul(1000))
            ),
            BudgetKind::Subagents => {
                format!("{} of {} subagents", u.subagents, b.max_subagents.unwrap_or(0))
            }
        }
    }

    /// Why the budget stopped its subtree, naming the limit and the figures.
    pub fn exhausted_reason(&self, owner: &AgentId) -> Option<String> {
        let kind = self.exhausted?;
        let mut s = format!("the {} budget of {owner} ran out: {} used", kind.as_str(), self.figures(kind));
        if kind == BudgetKind::Tokens && self.used.tokens < self.budget.max_tokens.unwrap_or(0) {
            s.push_str(&format!(
                ", and the next model request (about {} tokens) would pass it",
                thousands(self.next_tokens)
            ));
        }
        Some(s)
    }
}

/// A number with thousands separators: 12400 → "12,400".
pub fn thousands(n: u64) -> String {
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

/// Who gave an agent its budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum BudgetOrigin {
    /// The session's budget (Settings, or the CLI's flags), on the main agent.
    Session,
    /// The default every subagent gets (Settings).
    SubagentDefault,
    /// Its agent file's `maxTokens`, `maxCostUsd`, `maxDurationSeconds`, `maxSubagents`.
    AgentType,
    /// The Task call that started it.
    TaskCall,
    /// The person who delegated it.
    Delegation,
    /// A person changed it while the session ran.
    Person,
}

impl BudgetOrigin {
    pub const ALL: [BudgetOrigin; 6] =
        [Self::Session, Self::SubagentDefault, Self::AgentType, Self::TaskCall, Self::Delegation, Self::Person];

    pub fn as_str(self) -> &'static str {
        crate::wire::name(&self)
    }
}

/// The agent's budget, as it now is (`budget_set`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct BudgetSet {
    pub budget: Budget,
    /// Where its limits came from (the most specific source that gave one).
    pub origin: BudgetOrigin,
    /// Limits cut to what its ancestors' budgets had left when it started.
    pub carved: Vec<BudgetKind>,
}

/// A subtree passed 80% of one of its budget's limits, or ran out of one (`standing.exhausted`
/// set): `budget_warning`, on the budget's agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct BudgetWarning {
    pub kind: BudgetKind,
    pub standing: BudgetStanding,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kinds_limit_field_is_the_budget_field_that_holds_its_limit() {
        for (kind, field) in BudgetKind::ALL.into_iter().zip(BudgetKind::LIMIT_FIELDS) {
            let mut wire = serde_json::Map::new();
            wire.insert(field.to_string(), serde_json::json!(7));
            let budget: Budget = serde_json::from_value(serde_json::Value::Object(wire)).expect("a budget");
            assert_eq!(budget.limit(kind), Some(7.0), "{kind:?} is held in {field}");
            assert!(BudgetKind::ALL.into_iter().filter(|k| *k != kind).all(|k| budget.limit(k).is_none()));
        }
    }

    fn used(tokens: u64) -> BudgetUse {
        BudgetUse { tokens, ..BudgetUse::default() }
    }

    #[test]
    fn a_request_that_would_pass_the_token_limit_exhausts_it_first() {
        let b = Budget { max_tokens: Some(3000), ..Budget::default() };
        assert_eq!(b.standing(used(1000), 1500).exhausted, None);
        let s = b.standing(used(2000), 1500);
        assert_eq!(s.exhausted, Some(BudgetKind::Tokens));
        let why = s.exhausted_reason(&AgentId("agent-0001".into())).unwrap();
        assert!(why.contains("2,000 of 3,000 tokens") && why.contains("about 1,500 tokens"), "{why}");
        assert_eq!(b.standing(used(3000), 0).exhausted, Some(BudgetKind::Tokens));
    }

    #[test]
    fn the_meter_shows_the_limit_nearest_its_end() {
        let b = Budget { max_tokens: Some(1000), max_subagents: Some(4), ..Budget::default() };
        let s = b.standing(BudgetUse { tokens: 100, subagents: 3, ..BudgetUse::default() }, 0);
        assert_eq!((s.nearest, s.exhausted), (Some(BudgetKind::Subagents), None));
        assert!((s.fraction - 0.75).abs() < 1e-9);
        assert_eq!(Budget::default().standing(used(5), 5).nearest, None);
    }

    #[test]
    fn children_get_the_tighter_limit_and_people_replace_only_what_they_name() {
        let parent = Budget { max_tokens: Some(10_000), max_cost_usd: Some(1.0), ..Budget::default() };
        let left = parent.remainder(&BudgetUse { tokens: 7_000, cost_usd: 0.25, ..BudgetUse::default() });
        assert_eq!(left.max_tokens, Some(3_000));
        let child = Budget { max_tokens: Some(5_000), max_duration_seconds: Some(60), ..Budget::default() };
        let carved = child.within(&left);
        assert_eq!(
            (carved.max_tokens, carved.max_cost_usd, carved.max_duration_seconds),
            (Some(3_000), Some(0.75), Some(60))
        );
        let raised = carved.changed_by(&Budget { max_tokens: Some(9_000), ..Budget::default() });
        assert_eq!((raised.max_tokens, raised.max_duration_seconds), (Some(9_000), Some(60)));
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(12), "12");
    }

    #[test]
    fn unpriced_usage_is_said_so() {
        let mut u = BudgetUse::default();
        u.add_usage(&crate::Usage { input_tokens: 10, output_tokens: 5, cache_read_tokens: 7, ..Default::default() });
        assert_eq!((u.tokens, u.cache_read_tokens, u.cost_incomplete), (15, 7, true));
        for k in BudgetKind::ALL {
            assert_eq!(crate::wire::parse(&BudgetKind::ALL, k.as_str()), Some(k));
        }
        for o in BudgetOrigin::ALL {
            assert_eq!(crate::wire::parse(&BudgetOrigin::ALL, o.as_str()), Some(o));
        }
    }
}
