//! What the instances tell each other over Redis carries a MAC under a secret they share:
//! Redis is reached by more than the instances (an operator's shell, a leaked password), and
//! a message anyone could publish would speak for any guest, write to any socket or ban
//! anyone. A message is `<64 hex digits> <ms> <nonce> <text>`: the digits an HMAC-SHA256 of
//! the channel it goes on, the time it was sealed (ms since 1970), a number no other message
//! of this process carries, and the text, so one sealed for one instance does not read on
//! another's channel, and two alike sent in one millisecond are still two. A message is read once, and only within
//! `WINDOW_MS` of its time (`Fresh`): one copied off Redis and published again says nothing.
//! What does not open is dropped, and counted.

use std::collections::HashSet;

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// How far a message's time may be from the reader's (ms): the instances' clocks and the
/// way through Redis, with room to spare.
pub const WINDOW_MS: u64 = 10_000;

/// The instances' shared key for what crosses between them.
#[derive(Clone)]
pub struct Seal {
    key: Hmac<Sha256>,
}

/// The digits of the MAC before the text.
const MAC_HEX: usize = 64;

impl Seal {
    pub fn new(key: &[u8]) -> Seal {
        Seal {
            key: Hmac::new_from_slice(key).expect("HMAC takes a key of any length"),
        }
    }

    /// The relay's key, derived from the hotel's signing secret: every instance has that one
    /// already, and a token signed with it is no relay message (another purpose, another key).
    pub fn derived(secret: &[u8]) -> Seal {
        let mut mac: Hmac<Sha256> =
            Hmac::new_from_slice(secret).expect("HMAC takes a key of any length");
        mac.update(b"lounge relay key v1");
        Seal::new(&mac.finalize().into_bytes())
    }

    fn mac(&self, channel: &str, at_ms: u64, nonce: u64, text: &str) -> Hmac<Sha256> {
        let mut mac = self.key.clone();
        mac.update(channel.as_bytes());
        mac.update(b"\n");
        mac.update(&at_ms.to_be_bytes());
        mac.update(&nonce.to_be_bytes());
        mac.update(text.as_bytes());
        mac
    }

    /// `text` sealed for `channel` at `at_ms`.
    pub fn seal(&self, channel: &str, at_ms: u64, text: &str) -> String {
        static NEXT: std::sync::LazyLock<std::sync::atomic::AtomicU64> =
            std::sync::LazyLock::new(|| {
                std::sync::atomic::AtomicU64::new(getrandom::u64().unwrap_or_default())
            });
        let nonce = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tag = self
            .mac(channel, at_ms, nonce, text)
            .finalize()
            .into_bytes();
        format!("{} {at_ms} {nonce} {text}", hex::encode(tag))
    }

    /// The text of `payload` read on `channel` at `now_ms`, if its MAC holds (compared in
    /// constant time), it is within `WINDOW_MS` of now, and `fresh` has not seen it.
    pub fn open<'a>(
        &self,
        channel: &str,
        payload: &'a str,
        now_ms: u64,
        fresh: &mut Fresh,
    ) -> Option<&'a str> {
        let (tag, rest) = payload.split_at_checked(MAC_HEX)?;
        let (at, rest) = rest.strip_prefix(' ')?.split_once(' ')?;
        let (nonce, text) = rest.split_once(' ')?;
        let (at_ms, nonce): (u64, u64) = (at.parse().ok()?, nonce.parse().ok()?);
        if at_ms.abs_diff(now_ms) > WINDOW_MS {
            return None;
        }
        let tag: [u8; 32] = hex::decode(tag).ok()?.try_into().ok()?;
        self.mac(channel, at_ms, nonce, text)
            .verify_slice(&tag)
            .ok()?;
        fresh.first_time(tag, now_ms).then_some(text)
    }
}

/// The MACs of the messages read lately: a message is read once. Two sets of `WINDOW_MS`
/// each, the older dropped as a newer fills, so what is kept is bounded by the messages of
/// two windows.
#[derive(Default)]
pub struct Fresh {
    now: HashSet<[u8; 32]>,
    before: HashSet<[u8; 32]>,
    since_ms: u64,
}

impl Fresh {
    /// Whether `tag` is new, at `now_ms`; it is remembered.
    fn first_time(&mut self, tag: [u8; 32], now_ms: u64) -> bool {
        if now_ms.saturating_sub(self.since_ms) > WINDOW_MS {
            self.before = std::mem::take(&mut self.now);
            self.since_ms = now_ms;
        }
        !self.before.contains(&tag) && self.now.insert(tag)
    }
}

/// Now, as the relay's messages are timed (ms since 1970, the system's clock).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_message_opens_once_on_its_channel_in_its_time_and_any_change_is_refused() {
        let seal = Seal::derived(b"the hotel's secret");
        let (channel, t) = ("lounge:instance:i1", 1_000_000);
        let sealed = seal.seal(channel, t, r#"{"t":"act"}"#);
        let mut fresh = Fresh::default();
        let twin = seal.seal(channel, t, r#"{"t":"act"}"#);
        assert_ne!(twin, sealed, "two alike in one millisecond are two");
        assert!(seal.open(channel, &twin, t, &mut fresh).is_some());
        assert_eq!(
            seal.open(channel, &sealed, t + 5, &mut fresh),
            Some(r#"{"t":"act"}"#)
        );
        assert_eq!(
            seal.open(channel, &sealed, t + 6, &mut fresh),
            None,
            "published again: read once"
        );
        let mut other_reader = Fresh::default();
        let open = |at: u64, fresh: &mut Fresh| seal.open(channel, &sealed, at, fresh);
        assert_eq!(open(t + WINDOW_MS + 1, &mut other_reader), None, "too old");
        assert_eq!(
            open(t - WINDOW_MS - 1, &mut other_reader),
            None,
            "from the future"
        );
        assert!(open(t + WINDOW_MS, &mut other_reader).is_some());
        let mut fresh = Fresh::default();
        assert_eq!(
            seal.open("lounge:instance:i2", &sealed, t, &mut fresh),
            None
        );
        let changed = sealed.replace("act", "ban");
        assert_eq!(seal.open(channel, &changed, t, &mut fresh), None);
        let later = sealed.replacen(&t.to_string(), &(t + 1).to_string(), 1);
        assert_eq!(
            seal.open(channel, &later, t, &mut fresh),
            None,
            "its time is sealed"
        );
        let other = Seal::derived(b"another secret");
        assert_eq!(other.open(channel, &sealed, t, &mut fresh), None);
        for forged in [
            "",
            "{}",
            r#"{"t":"act"}"#,
            &"0".repeat(64),
            "é".repeat(40).as_str(),
        ] {
            assert_eq!(seal.open(channel, forged, t, &mut fresh), None, "{forged}");
        }
    }

    #[test]
    fn what_is_remembered_is_bounded_by_two_windows() {
        let mut fresh = Fresh::default();
        assert!(fresh.first_time([1; 32], 0));
        assert!(!fresh.first_time([1; 32], WINDOW_MS));
        assert!(fresh.first_time([2; 32], WINDOW_MS + 1));
        assert!(
            !fresh.first_time([1; 32], WINDOW_MS + 2),
            "still in the window before"
        );
        fresh.first_time([3; 32], 3 * WINDOW_MS);
        assert!(
            fresh.now.len() + fresh.before.len() <= 2,
            "the oldest let go"
        );
    }
}
