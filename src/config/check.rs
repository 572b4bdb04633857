//! What a loaded configuration must satisfy before the service starts: every bound in one
//! place, each refusal naming its key.

use super::{ConfigError, Settings, MIN_SECRET_BYTES};

impl Settings {
    /// Several instances need a shared database and Redis: checked as the service starts,
    /// with the URLs every layer (and `DATABASE_URL`, `REDIS_URL`) gave.
    pub fn check_cluster(&self) -> Result<(), ConfigError> {
        if !self.cluster.enabled {
            return Ok(());
        }
        if self.cluster.redis_url(&self.champions).is_empty() {
            return Err(ConfigError::Invalid {
                key: "cluster.redis_url",
                message: "several instances need Redis: set it, or champions.redis_url".into(),
            });
        }
        if !matches!(
            self.database.url.parse(),
            Ok(crate::store::DatabaseUrl::Postgres(_))
        ) {
            return Err(ConfigError::Invalid {
                key: "database.url",
                message: "several instances share one PostgreSQL database (postgres://...)".into(),
            });
        }
        Ok(())
    }

    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        self.default_preset()?;
        if !self.auth.secret.is_empty() && self.auth.secret.len() < MIN_SECRET_BYTES {
            return Err(ConfigError::Invalid {
                key: "auth.secret",
                message: format!("must be at least {MIN_SECRET_BYTES} bytes"),
            });
        }
        within(
            "auth.token_ttl_secs",
            self.auth.token_ttl_secs,
            60..=30 * 86_400,
            "60 to 2,592,000 (30 days)",
        )?;
        within(
            "auth.refresh_ttl_secs",
            self.auth.refresh_ttl_secs,
            60..=3650 * 86_400,
            "60 to 315,360,000 (10 years)",
        )?;
        within(
            "house.review_ms",
            self.house.review_ms,
            100..=600_000,
            "100 to 600,000 (10 minutes)",
        )?;
        within(
            "house.reviews_per_day",
            u64::from(self.house.reviews_per_day),
            0..=1_000,
            "0 to 1,000",
        )?;
        within(
            "auth.ws_ticket_secs",
            self.auth.ws_ticket_secs,
            1..=300,
            "1 to 300",
        )?;
        if let Some(hotel) = &self.auth.hotel {
            if hotel.issuer.trim().is_empty()
                || hotel.audience.trim().is_empty()
                || hotel.jwks_file.trim().is_empty() == hotel.pem_file.trim().is_empty()
            {
                return Err(ConfigError::Invalid {
                    key: "auth.hotel",
                    message: "needs issuer, audience, and one of jwks_file or pem_file".into(),
                });
            }
        }
        let r = &self.ratings;
        within("ratings.tau", r.tau, 0.2..=1.2, "0.2 to 1.2")?;
        within(
            "ratings.initial_rating",
            r.initial_rating,
            100.0..=3000.0,
            "100 to 3000",
        )?;
        within(
            "ratings.initial_deviation",
            r.initial_deviation,
            30.0..=500.0,
            "30 to 500",
        )?;
        within(
            "ratings.initial_volatility",
            r.initial_volatility,
            0.01..=0.2,
            "0.01 to 0.2",
        )?;
        within(
            "ratings.provisional_deviation",
            r.provisional_deviation,
            30.0..=350.0,
            "30 to 350",
        )?;
        self.champions.tz()?;
        within(
            "champions.per_opponent_cap",
            self.champions.per_opponent_cap,
            1..=1000,
            "1 to 1000",
        )?;
        within(
            "champions.min_moves",
            self.champions.min_moves,
            0..=1000,
            "0 to 1000",
        )?;
        within(
            "champions.new_account_secs",
            self.champions.new_account_secs,
            0..=10 * 365 * 86_400,
            "0 to ten years",
        )?;
        within(
            "apartment.invitations_per_minute",
            self.apartment.invitations_per_minute,
            1..=60,
            "1 to 60",
        )?;
        within(
            "world.pairing_answer_secs",
            self.world.pairing_answer_secs,
            3..=120,
            "3 to 120",
        )?;
        within(
            "world.seek_cooldown_secs",
            self.world.seek_cooldown_secs,
            0..=3600,
            "0 to 3600",
        )?;
        within(
            "world.seek_house_after_secs",
            self.world.seek_house_after_secs,
            5..=3600,
            "5 to 3600",
        )?;
        within(
            "world.status_every_secs",
            self.world.status_every_secs,
            1..=3600,
            "1 to 3600",
        )?;
        within(
            "server.ws_flush_micros",
            self.server.ws_flush_micros,
            0..=10_000,
            "0 to 10000 (10 ms)",
        )?;
        within(
            "world.queue_call_secs",
            self.world.queue_call_secs,
            5..=600,
            "5 to 600 (ten minutes)",
        )?;
        within(
            "world.queue_straight_wins",
            self.world.queue_straight_wins,
            1..=100,
            "1 to 100",
        )?;
        within(
            "world.chat_backlog",
            self.world.chat_backlog,
            0..=1000,
            "0 to 1000",
        )?;
        within(
            "cluster.lease_ms",
            self.cluster.lease_ms,
            500..=600_000,
            "500 to 600000 (10 minutes)",
        )?;
        within(
            "champions.keep_days",
            self.champions.keep_days,
            1..=3650,
            "1 to 3650",
        )?;
        within(
            "shop.welcome_coins",
            self.shop.welcome_coins,
            0..=1_000_000_000,
            "0 to 1,000,000,000",
        )?;
        if let Some(item) = self
            .shop
            .items
            .iter()
            .find(|i| i.price < 0 || i.stock.is_some_and(|s| s < 0) || i.id.trim().is_empty())
        {
            return Err(ConfigError::Invalid {
                key: "shop.items",
                message: format!("`{}` needs an id, a price and stock of 0 or more", item.id),
            });
        }
        for room in &self.hotel.rooms {
            if room.kind == crate::common::RoomKind::Apartment {
                return Err(ConfigError::Invalid {
                    key: "hotel.rooms.kind",
                    message: format!("`{}` is not lounge or talk", room.kind),
                });
            }
        }
        Ok(())
    }
}

/// `value` inside `range`, or the refusal naming `key` and the bounds in words.
fn within<T: PartialOrd>(
    key: &'static str,
    value: T,
    range: std::ops::RangeInclusive<T>,
    bounds: &str,
) -> Result<(), ConfigError> {
    if range.contains(&value) {
        return Ok(());
    }
    Err(ConfigError::Invalid {
        key,
        message: bounds.into(),
    })
}
