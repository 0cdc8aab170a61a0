//! Exponential backoff with jitter, honouring the provider's retry-after.

use std::time::Duration;

#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    pub base_delay: Duration,
    pub max_delay: Duration,
    /// The most time one turn may spend from its first attempt on: no retry
    /// starts after it, so a stalled provider cannot hold a run for retries × the idle timeout.
    pub budget: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            budget: Duration::from_secs(300),
        }
    }
}

impl RetryPolicy {
    /// The wait before retry number `attempt` (0-based). `jitter` in [0, 1) scales the
    /// exponential step down by up to half, so parallel agents do not retry in step.
    /// A provider's retry-after wins when longer, up to `max_delay`.
    pub fn delay(&self, attempt: u32, retry_after: Option<Duration>, jitter: f64) -> Duration {
        let exp = self.base_delay.saturating_mul(2u32.saturating_pow(attempt.min(16)));
        let capped = exp.min(self.max_delay);
        let jittered = capped.mul_f64(1.0 - 0.5 * jitter.clamp(0.0, 1.0));
        match retry_after {
            Some(ra) => ra.min(self.max_delay).max(jittered),
            None => jittered,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_grow_exponentially_and_are_capped() {
        let p = RetryPolicy {
            max_retries: 5,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(1),
            ..RetryPolicy::default()
        };
        assert_eq!(p.delay(0, None, 0.0), Duration::from_millis(100));
        assert_eq!(p.delay(2, None, 0.0), Duration::from_millis(400));
        assert_eq!(p.delay(10, None, 0.0), Duration::from_secs(1));
        assert_eq!(p.delay(1, None, 1.0), Duration::from_millis(100));
    }

    #[test]
    fn retry_after_is_honoured_but_capped() {
        let p = RetryPolicy {
            max_retries: 5,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(5),
            ..RetryPolicy::default()
        };
        assert_eq!(p.delay(0, Some(Duration::from_secs(2)), 0.0), Duration::from_secs(2));
        assert_eq!(p.delay(0, Some(Duration::from_secs(60)), 0.0), Duration::from_secs(5));
    }
}
