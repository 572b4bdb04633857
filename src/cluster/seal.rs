//! What the instances tell each other over Redis carries a MAC under a secret they share:
//! Redis is reached by more than the instances (an operator's shell, a leaked password), and
//! a message anyone could publish would speak for any guest, write to any socket or ban
//! anyone. A message is `<64 hex digits> <text>`, the digits an HMAC-SHA256 of the channel
//! it goes on and the text, so one sealed for one instance does not read on another's
//! channel. What does not open is dropped, and counted.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

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

    fn mac(&self, channel: &str, text: &str) -> Hmac<Sha256> {
        let mut mac = self.key.clone();
        mac.update(channel.as_bytes());
        mac.update(b"\n");
        mac.update(text.as_bytes());
        mac
    }

    /// `text` sealed for `channel`.
    pub fn seal(&self, channel: &str, text: &str) -> String {
        let tag = self.mac(channel, text).finalize().into_bytes();
        let mut sealed = String::with_capacity(MAC_HEX + 1 + text.len());
        sealed.push_str(&hex::encode(tag));
        sealed.push(' ');
        sealed.push_str(text);
        sealed
    }

    /// The text of `payload` read on `channel`, if its MAC holds (compared in constant time).
    pub fn open<'a>(&self, channel: &str, payload: &'a str) -> Option<&'a str> {
        let (tag, text) = payload.split_at_checked(MAC_HEX)?;
        let text = text.strip_prefix(' ')?;
        let tag = hex::decode(tag).ok()?;
        self.mac(channel, text).verify_slice(&tag).ok()?;
        Some(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_message_opens_on_its_channel_only_and_any_change_to_it_is_refused() {
        let seal = Seal::derived(b"the hotel's secret");
        let sealed = seal.seal("lounge:instance:i1", r#"{"t":"act"}"#);
        assert_eq!(
            seal.open("lounge:instance:i1", &sealed),
            Some(r#"{"t":"act"}"#)
        );
        assert_eq!(
            seal.open("lounge:instance:i2", &sealed),
            None,
            "another channel"
        );
        let changed = sealed.replace("act", "ban");
        assert_eq!(seal.open("lounge:instance:i1", &changed), None);
        let other = Seal::derived(b"another secret");
        assert_eq!(other.open("lounge:instance:i1", &sealed), None);
        for forged in [
            "",
            "{}",
            r#"{"t":"act"}"#,
            &"0".repeat(64),
            "é".repeat(40).as_str(),
        ] {
            assert_eq!(seal.open("lounge:instance:i1", forged), None, "{forged}");
        }
    }
}
