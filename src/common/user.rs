//! Who is who: users as everyone else sees them.

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::ids::UserId;

/// A user's display name: 2 to 24 characters of letters, digits, spaces and `-_.'`, starting
/// with a letter or digit, no doubled or edge spaces.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(into = "String")]
pub struct UserName(String);

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NameError {
    #[error("a name is 2 to 24 characters long")]
    Length,
    #[error("a name holds letters, digits, single spaces and - _ . ' only, and starts with a letter or digit")]
    Characters,
}

impl UserName {
    pub const MAX_CHARS: usize = 24;

    pub fn parse(raw: &str) -> Result<UserName, NameError> {
        let name = raw.trim();
        let chars = name.chars().count();
        if !(2..=Self::MAX_CHARS).contains(&chars) {
            return Err(NameError::Length);
        }
        let first_ok = name.chars().next().is_some_and(char::is_alphanumeric);
        let all_ok = name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.' | '\''));
        if !first_ok || !all_ok || name.contains("  ") {
            return Err(NameError::Characters);
        }
        Ok(UserName(name.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<UserName> for String {
    fn from(n: UserName) -> String {
        n.0
    }
}

impl fmt::Display for UserName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A user as the protocol shows one: `{"id", "name"}`, with `"house": true` for Baba Ayo.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct User {
    pub id: UserId,
    pub name: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub house: bool,
}
