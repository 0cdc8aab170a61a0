//! Wire timestamps (`i64` milliseconds since the Unix epoch) as UTC calendar
//! time: the one place for the arithmetic that the system prompt's date, the
//! CLI's lists and the store's exports need, without a date crate for it.

/// A moment in UTC, split into calendar fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Utc {
    pub year: i64,
    pub month: i64,
    pub day: i64,
    pub hour: i64,
    pub minute: i64,
    pub second: i64,
}

impl Utc {
    pub fn from_ms(ms: i64) -> Self {
        let secs = ms.div_euclid(1000);
        let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
        // Civil from days: Howard Hinnant's algorithm.
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + i64::from(month <= 2);
        Self { year, month, day, hour: rest / 3600, minute: rest % 3600 / 60, second: rest % 60 }
    }

    /// `YYYY-MM-DD`.
    pub fn date(&self) -> String {
        format!("{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }

    /// `YYYY-MM-DD HH:MM`.
    pub fn minute(&self) -> String {
        format!("{} {:02}:{:02}", self.date(), self.hour, self.minute)
    }
}

/// `YYYY-MM-DD HH:MM:SS`.
impl std::fmt::Display for Utc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {:02}:{:02}:{:02}", self.date(), self.hour, self.minute, self.second)
    }
}

#[cfg(test)]
mod tests {
    use super::Utc;

    #[test]
    fn milliseconds_read_as_utc_calendar_time() {
        assert_eq!(Utc::from_ms(0).to_string(), "1970-01-01 00:00:00");
        assert_eq!(Utc::from_ms(1_700_000_000_000).to_string(), "2023-11-14 22:13:20");
        assert_eq!(Utc::from_ms(951_782_400_000).date(), "2000-02-29");
        assert_eq!(Utc::from_ms(1_795_305_600_000 + 61_000).minute(), "2026-11-22 00:01");
        assert_eq!(Utc::from_ms(-1_000).to_string(), "1969-12-31 23:59:59");
    }
}
