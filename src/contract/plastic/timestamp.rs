//! Plastic's one timestamp convention (`Time#utc.iso8601`): UTC to the whole
//! second with a literal `Z`, exactly `YYYY-MM-DDTHH:MM:SSZ`. Shared by the
//! savepoint ledger and the insight prefix.

use std::fmt;

/// Length of a well-formed timestamp in bytes.
pub const LEN: usize = 20;

/// A valid UTC timestamp; ordering is chronological.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UtcSecond {
    year: u16,
    month: u8,
    day: u8,
    hour: u8,
    minute: u8,
    second: u8,
}

impl fmt::Display for UtcSecond {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

/// Why a text is not a timestamp.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimestampError {
    /// Not the `YYYY-MM-DDTHH:MM:SSZ` shape; the text says what is off.
    Shape(&'static str),
    /// The right shape, but no such date or time (month 13, February 30, 24:00:00).
    Range,
}

/// Parse the timestamp at the start of `text`. Everything after the first
/// [`LEN`] bytes is the caller's business.
pub fn parse_prefix(text: &str) -> Result<UtcSecond, TimestampError> {
    let b = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        b.get(range.clone())
            .filter(|s| s.iter().all(u8::is_ascii_digit))
            .map(|s| s.iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0')))
    };
    let (Some(year), Some(month), Some(day)) = (digits(0..4), digits(5..7), digits(8..10)) else {
        return Err(TimestampError::Shape(
            "does not start with a YYYY-MM-DD date",
        ));
    };
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return Err(TimestampError::Shape(
            "does not start with a YYYY-MM-DD date",
        ));
    }
    if b.get(10) != Some(&b'T') {
        return Err(TimestampError::Shape(
            "is date-only or lacks the `T` between date and time",
        ));
    }
    let (Some(hour), Some(minute), Some(second)) = (digits(11..13), digits(14..16), digits(17..19))
    else {
        return Err(TimestampError::Shape("has no HH:MM:SS time"));
    };
    if b.get(13) != Some(&b':') || b.get(16) != Some(&b':') {
        return Err(TimestampError::Shape("has no HH:MM:SS time"));
    }
    match b.get(19) {
        Some(b'Z') => {}
        Some(b'.' | b',') => {
            return Err(TimestampError::Shape(
                "has fractional seconds; plastic writes whole seconds",
            ));
        }
        _ => {
            return Err(TimestampError::Shape(
                "does not end in `Z` (UTC); offsets are not allowed",
            ));
        }
    }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let month_days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => 0,
    };
    if day == 0 || day > month_days || hour > 23 || minute > 59 || second > 59 {
        return Err(TimestampError::Range);
    }
    // Every component was checked against a small range above.
    let narrow = |n: u32| u8::try_from(n).unwrap_or(u8::MAX);
    Ok(UtcSecond {
        year: u16::try_from(year).unwrap_or(u16::MAX),
        month: narrow(month),
        day: narrow(day),
        hour: narrow(hour),
        minute: narrow(minute),
        second: narrow(second),
    })
}

/// Parse a text that is exactly one timestamp.
pub fn parse_exact(text: &str) -> Result<UtcSecond, TimestampError> {
    let stamp = parse_prefix(text)?;
    if text.len() != LEN {
        return Err(TimestampError::Shape("has text after the `Z`"));
    }
    Ok(stamp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_whole_second_utc_and_orders_chronologically() {
        let a = parse_exact("2026-09-10T06:21:57Z").unwrap();
        let b = parse_exact("2026-09-10T13:01:15Z").unwrap();
        assert!(a < b);
        assert_eq!(a.to_string(), "2026-09-10T06:21:57Z");
        assert!(parse_exact("2024-02-29T23:59:59Z").is_ok());
    }

    #[test]
    fn rejects_the_shapes_plastic_rejects() {
        for (text, why) in [
            ("2026-06-22 (autonomous) note", "date-only"),
            ("2026-06-22", "date-only"),
            ("2026-06-22T10:00:00", "does not end in `Z`"),
            ("2026-06-22T10:00:00+00:00", "does not end in `Z`"),
            ("2026-06-22T10:00:00.123Z", "fractional"),
            ("2026-6-22T10:00:00Z", "YYYY-MM-DD"),
            ("2026-06-22T10:00Z", "HH:MM:SS"),
            ("", "YYYY-MM-DD"),
        ] {
            match parse_prefix(text) {
                Err(TimestampError::Shape(message)) => {
                    assert!(message.contains(why), "{text:?}: {message}")
                }
                other => panic!("{text:?}: {other:?}"),
            }
        }
        assert!(matches!(
            parse_exact("2026-06-22T10:00:00Zx"),
            Err(TimestampError::Shape(_))
        ));
    }

    #[test]
    fn rejects_impossible_dates_and_times() {
        for text in [
            "2026-13-01T00:00:00Z",
            "2026-00-01T00:00:00Z",
            "2026-02-29T00:00:00Z",
            "2026-04-31T00:00:00Z",
            "2026-01-01T24:00:00Z",
            "2026-01-01T00:60:00Z",
            "2026-01-01T00:00:60Z",
            "1900-02-29T00:00:00Z",
        ] {
            assert_eq!(parse_exact(text), Err(TimestampError::Range), "{text}");
        }
    }
}
