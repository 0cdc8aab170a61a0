//! Wire timestamps (`i64` milliseconds since the Unix epoch) as UTC calendar
//! time, for the system prompt's date, the CLI's lists and the store's exports.

use chrono::{DateTime, Utc};

fn utc(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap_or_default()
}

/// `YYYY-MM-DD`.
pub fn date(ms: i64) -> String {
    utc(ms).format("%Y-%m-%d").to_string()
}

/// `YYYY-MM-DD HH:MM`.
pub fn minute(ms: i64) -> String {
    utc(ms).format("%Y-%m-%d %H:%M").to_string()
}

/// `YYYY-MM-DD HH:MM:SS`.
pub fn second(ms: i64) -> String {
    utc(ms).format("%Y-%m-%d %H:%M:%S").to_string()
}

/// An RFC 3339 / ISO 8601 time (`2026-11-24T03:03:42.623Z`) as milliseconds since the epoch.
pub fn parse_rfc3339(s: &str) -> Option<i64> {
    DateTime::parse_from_rfc3339(s.trim()).ok().map(|t| t.timestamp_millis())
}

/// A span as a person says it: "850 ms", "4.2 s", "42 s", "3 min 05 s", "1 h 02 min".
pub fn duration_words(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0 => format!("{ms} ms"),
        1..=9 => format!("{:.1} s", ms as f64 / 1000.0),
        10..=59 => format!("{s} s"),
        60..=3599 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_read_as_utc_calendar_time() {
        assert_eq!(second(0), "1970-01-01 00:00:00");
        assert_eq!(second(1_700_000_000_000), "2023-11-14 22:13:20");
        assert_eq!(date(951_782_400_000), "2000-02-29");
        assert_eq!(minute(1_795_305_600_000 + 61_000), "2026-11-22 00:01");
        assert_eq!(second(-1_000), "1969-12-31 23:59:59");
        assert_eq!(duration_words(850), "850 ms");
        assert_eq!(parse_rfc3339("2026-11-24T03:03:42.623Z"), Some(1_795_489_422_623));
        assert_eq!(parse_rfc3339("yesterday"), None);
        assert_eq!(duration_words(42_300), "42 s");
        assert_eq!(duration_words(1_150), "1.1 s");
        assert_eq!(duration_words(185_000), "3 min 05 s");
        assert_eq!(duration_words(3_720_000), "1 h 02 min");
    }
}
