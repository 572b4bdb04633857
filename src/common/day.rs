//! The hotel's day: which day an instant falls in, in the hotel's time zone, and where a day
//! starts and ends. Today's champions are counted on it.

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;

/// The hotel's clock: which day an instant falls in, and where a day starts and ends.
#[derive(Debug, Clone, Copy)]
pub struct HotelDay {
    pub tz: Tz,
}

impl HotelDay {
    /// The day `t` falls in, in the hotel's time zone.
    pub fn day_of(&self, t: DateTime<Utc>) -> NaiveDate {
        t.with_timezone(&self.tz).date_naive()
    }

    pub fn today(&self) -> NaiveDate {
        self.day_of(Utc::now())
    }

    /// The day as a half-open window of UTC instants: from its midnight to the next.
    pub fn window(&self, day: NaiveDate) -> (DateTime<Utc>, DateTime<Utc>) {
        (self.start(day), self.start(day + chrono::Days::new(1)))
    }

    /// The first instant of `day` (midnight, or the first moment after a skipped midnight).
    fn start(&self, day: NaiveDate) -> DateTime<Utc> {
        let midnight = day.and_hms_opt(0, 0, 0).unwrap_or_default();
        let mut local = midnight;
        // A zone whose clocks skip midnight starts the day at the first time that exists.
        for _ in 0..=24 * 4 {
            if let Some(t) = self.tz.from_local_datetime(&local).earliest() {
                return t.with_timezone(&Utc);
            }
            local += chrono::Duration::minutes(15);
        }
        Utc.from_utc_datetime(&midnight)
    }

    /// Milliseconds from the start of `t`'s day to `t`.
    pub fn ms_into_day(&self, t: DateTime<Utc>) -> u64 {
        self.ms_since_start(self.day_of(t), t)
    }

    /// Milliseconds from the start of `day` to `t` (0 before it).
    pub fn ms_since_start(&self, day: NaiveDate, t: DateTime<Utc>) -> u64 {
        (t - self.start(day)).num_milliseconds().max(0) as u64
    }
}
