//! Reading request bodies: a wrong field is named in the 400 that answers it.

use crate::common::ErrorCode;
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;

use actix_web::{web, FromRequest, HttpRequest};
use serde::de::DeserializeOwned;
use serde::Deserialize;

use super::error::ApiError;
use crate::ayo::{Repetition, Rules};

/// The largest JSON body a request may carry.
pub const MAX_BODY_BYTES: usize = 16 * 1024;

/// A JSON body; a field that does not parse is named in the 400 (`"field": "price"`).
pub struct Body<T>(pub T);

impl<T: DeserializeOwned + 'static> FromRequest for Body<T> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Body<T>, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        let json = req
            .headers()
            .get(actix_web::http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        let bytes = web::Bytes::from_request(req, payload);
        // A body sent a byte at a time holds a connection and a task: it has this long.
        let deadline = req
            .app_data::<web::Data<super::AppState>>()
            .map(|state| (state.clock.clone(), state.body_timeout));
        Box::pin(async move {
            if !json {
                return Err(ApiError::BadRequest {
                    code: ErrorCode::BadRequest,
                    message: "the body must be JSON (Content-Type: application/json)".into(),
                });
            }
            let bytes = match deadline {
                None => bytes.await,
                Some((clock, timeout)) => {
                    tokio::select! {
                        bytes = bytes => bytes,
                        _ = super::peer::elapse(&clock, timeout) => {
                            crate::metrics::METRICS.slow_bodies.inc();
                            return Err(ApiError::TooSlow(format!(
                                "the body did not arrive within {} s",
                                timeout.as_secs()
                            )));
                        }
                    }
                }
            };
            let bytes = bytes.map_err(|e| ApiError::BadRequest {
                code: ErrorCode::BadRequest,
                message: e.to_string(),
            })?;
            if bytes.len() > MAX_BODY_BYTES {
                return Err(ApiError::BadRequest {
                    code: ErrorCode::BadRequest,
                    message: format!("the body is larger than {MAX_BODY_BYTES} bytes"),
                });
            }
            // serde reads a struct from an array too (`["Ade"]` as `{"name": "Ade"}`): every
            // body here is documented as an object, so nothing else is read as one.
            if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
                return Err(ApiError::BadRequest {
                    code: ErrorCode::BadRequest,
                    message: "the body must be a JSON object ({...})".into(),
                });
            }
            let mut de = serde_json::Deserializer::from_slice(&bytes);
            serde_path_to_error::deserialize(&mut de)
                .map(Body)
                .map_err(|e| {
                    let field = e.path().to_string();
                    let message = e.inner().to_string();
                    // serde names a missing or unknown field only in its message.
                    let named = ["missing field `", "unknown field `"]
                        .iter()
                        .find_map(|p| message.strip_prefix(p))
                        .and_then(|rest| rest.split('`').next())
                        .map(str::to_owned);
                    match (field.as_str(), named) {
                        (".", Some(name)) => ApiError::Invalid {
                            field: name,
                            message,
                        },
                        // Not one field: the body as a whole (not JSON, not an object).
                        (".", None) => ApiError::BadRequest {
                            code: ErrorCode::BadRequest,
                            message,
                        },
                        _ => ApiError::Invalid { field, message },
                    }
                })
        })
    }
}

/// Rules as a request gives them: a preset's name, or a preset with overrides
/// (`{"preset": "oware", "rule": {"no_capture_limit": 100}}`).
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum RulesSpec {
    Preset(String),
    WithOverrides {
        preset: String,
        #[serde(default)]
        #[schema(value_type = Object)]
        rule: BTreeMap<String, serde_json::Value>,
    },
}

impl RulesSpec {
    /// The rule set, or a 400 naming `field`. Rules under which a game might never end
    /// (no no-capture limit and repetition ignored) are refused: a table must finish games.
    pub fn resolve(&self, field: &str) -> Result<Rules, ApiError> {
        let (preset, overrides) = match self {
            RulesSpec::Preset(name) => (name.as_str(), None),
            RulesSpec::WithOverrides { preset, rule } => (preset.as_str(), Some(rule)),
        };
        let mut rules =
            Rules::preset(preset).map_err(|e| ApiError::invalid(field, e.to_string()))?;
        for (key, value) in overrides.into_iter().flatten() {
            let value = match value {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            rules
                .set(key, &value)
                .map_err(|e| ApiError::invalid(&format!("{field}.rule.{key}"), e.to_string()))?;
        }
        if rules.no_capture_limit == 0 && rules.repetition == Repetition::Ignored {
            return Err(ApiError::invalid(
                field,
                "with no no-capture limit and repetition ignored a game might never end",
            ));
        }
        Ok(rules)
    }
}

/// A name for a room or an item: 1 to `max` characters once trimmed, no control characters.
pub fn display_name(field: &str, raw: &str, max: usize) -> Result<String, ApiError> {
    let name = raw.trim();
    let chars = name.chars().count();
    if chars == 0 || chars > max {
        return Err(ApiError::invalid(field, format!("1 to {max} characters")));
    }
    if name.chars().any(char::is_control) {
        return Err(ApiError::invalid(field, "no control characters"));
    }
    Ok(name.to_owned())
}

/// An id chosen by an operator: 2 to 64 of `a-z 0-9 -`, starting with a letter or digit.
pub fn slug(field: &str, raw: &str) -> Result<String, ApiError> {
    let ok = (2..=64).contains(&raw.len())
        && raw
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && raw
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric());
    if ok {
        Ok(raw.to_owned())
    } else {
        Err(ApiError::invalid(
            field,
            "2 to 64 lowercase letters, digits and dashes, starting with a letter or digit",
        ))
    }
}

/// A field that may be absent (`None`, with `#[serde(default)]`), `null` (`Some(None)`) or a
/// value: for `PATCH` bodies where `null` means something.
pub fn double_option<'de, T, D>(de: D) -> Result<Option<Option<T>>, D::Error>
where
    T: Deserialize<'de>,
    D: serde::Deserializer<'de>,
{
    Option::<T>::deserialize(de).map(Some)
}

/// A `limit` query parameter: 1 to 100, `default` when absent.
pub fn limit(raw: Option<&str>, default: usize) -> Result<usize, ApiError> {
    match raw.map(str::parse::<usize>) {
        None => Ok(default),
        Some(Ok(n)) if (1..=100).contains(&n) => Ok(n),
        Some(_) => Err(ApiError::invalid("limit", "a number from 1 to 100")),
    }
}
