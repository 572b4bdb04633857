//! The hotel's identity provider: its tokens, signed RS256 or EdDSA, are checked against its
//! public keys from configuration (a JWKS file or one PEM key), with issuer and audience
//! pinned. Only asymmetric algorithms are accepted: a token that names HS256 (say, signed with
//! the public key as a secret) is refused before any key is tried.

use std::collections::HashMap;

use jsonwebtoken::jwk::{AlgorithmParameters, JwkSet};
use jsonwebtoken::{decode, decode_header, Algorithm, DecodingKey, Validation};
use serde::Deserialize;

use crate::config::HotelIdpSettings;

/// What the hotel says of a guest.
#[derive(Debug, Clone, Deserialize)]
pub struct HotelClaims {
    /// The guest's account at the hotel: the one thing mapped to a lounge user.
    pub sub: String,
    pub iss: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub preferred_username: Option<String>,
}

/// One public key and the one algorithm it verifies.
struct Key {
    alg: Algorithm,
    key: DecodingKey,
}

/// The hotel's keys and what its tokens must say.
pub struct HotelIdp {
    issuer: String,
    audience: String,
    /// By `kid`; a key without one is `""`.
    keys: HashMap<String, Key>,
}

/// Why a hotel token was refused (logged at debug; the client hears one fixed message).
#[derive(Debug, thiserror::Error)]
pub enum HotelTokenError {
    #[error("no key of the hotel's for kid {0:?}")]
    NoKey(Option<String>),
    #[error("{0}")]
    Jwt(#[from] jsonwebtoken::errors::Error),
    #[error("the token's {0} is in the future")]
    NotYet(&'static str),
    #[error("the token names no account (an empty sub)")]
    NoSubject,
}

/// How far the hotel's clock may run ahead of ours, in seconds.
const LEEWAY_SECS: i64 = 5;

impl HotelIdp {
    /// Reads the configured key file.
    pub fn load(settings: &HotelIdpSettings) -> Result<HotelIdp, String> {
        let mut keys = HashMap::new();
        if !settings.jwks_file.trim().is_empty() {
            let text = std::fs::read_to_string(settings.jwks_file.trim())
                .map_err(|e| format!("{}: {e}", settings.jwks_file))?;
            let set: JwkSet = serde_json::from_str(&text)
                .map_err(|e| format!("{}: not a JWKS: {e}", settings.jwks_file))?;
            for jwk in &set.keys {
                let alg = match &jwk.algorithm {
                    AlgorithmParameters::RSA(_) => Algorithm::RS256,
                    AlgorithmParameters::OctetKeyPair(_) => Algorithm::EdDSA,
                    // Symmetric or other keys have no place in a public key set.
                    _ => continue,
                };
                let key = DecodingKey::from_jwk(jwk)
                    .map_err(|e| format!("{}: a key does not read: {e}", settings.jwks_file))?;
                let kid = jwk.common.key_id.clone().unwrap_or_default();
                keys.insert(kid, Key { alg, key });
            }
        } else {
            let pem = std::fs::read(settings.pem_file.trim())
                .map_err(|e| format!("{}: {e}", settings.pem_file))?;
            let key = match DecodingKey::from_rsa_pem(&pem) {
                Ok(key) => Key {
                    alg: Algorithm::RS256,
                    key,
                },
                Err(_) => Key {
                    alg: Algorithm::EdDSA,
                    key: DecodingKey::from_ed_pem(&pem).map_err(|e| {
                        format!(
                            "{}: neither an RSA nor an Ed25519 public key: {e}",
                            settings.pem_file
                        )
                    })?,
                },
            };
            keys.insert(String::new(), key);
        }
        if keys.is_empty() {
            return Err("no RSA or Ed25519 public key in the key set".into());
        }
        Ok(HotelIdp {
            issuer: settings.issuer.clone(),
            audience: settings.audience.clone(),
            keys,
        })
    }

    /// The claims of a token the hotel signed for us, unexpired at `now_secs`.
    pub fn verify(&self, token: &str, now_secs: i64) -> Result<HotelClaims, HotelTokenError> {
        let header = decode_header(token)?;
        let key = match &header.kid {
            Some(kid) => self.keys.get(kid),
            // Without a kid, the one key when there is only one.
            None if self.keys.len() == 1 => self.keys.values().next(),
            None => None,
        }
        .ok_or_else(|| HotelTokenError::NoKey(header.kid.clone()))?;
        // The algorithm is the key's, never the token's choice.
        let mut validation = Validation::new(key.alg);
        validation.set_issuer(&[self.issuer.as_str()]);
        validation.set_audience(&[self.audience.as_str()]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        validation.validate_exp = false;
        let data = decode::<serde_json::Value>(token, &key.key, &validation)?;
        let exp = data.claims.get("exp").and_then(serde_json::Value::as_i64);
        if exp.is_none_or(|exp| exp.saturating_add(LEEWAY_SECS) <= now_secs) {
            return Err(jsonwebtoken::errors::Error::from(
                jsonwebtoken::errors::ErrorKind::ExpiredSignature,
            )
            .into());
        }
        // Checked here on the server's clock (the library would read the system's): a token
        // not valid yet, or issued later than now, is not valid now.
        for claim in ["nbf", "iat"] {
            match data.claims.get(claim) {
                None => {}
                // A NumericDate may have a fraction.
                Some(at) => match at.as_f64() {
                    Some(at) if at <= now_secs.saturating_add(LEEWAY_SECS) as f64 => {}
                    _ => return Err(HotelTokenError::NotYet(claim)),
                },
            }
        }
        let claims: HotelClaims =
            serde_json::from_value(data.claims).map_err(jsonwebtoken::errors::Error::from)?;
        // One empty subject would be every such token's one shared account.
        if claims.sub.trim().is_empty() {
            return Err(HotelTokenError::NoSubject);
        }
        Ok(claims)
    }
}
