//! Who is who: users as everyone else sees them, and the rules of their names.

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;
use unicode_security::{skeleton, MixedScript};
use unicode_segmentation::UnicodeSegmentation;

use super::ids::UserId;

/// A user's display name, as parsed from what a guest typed: NFKC (so also NFC), trimmed,
/// 2 to 24 characters as a reader sees them (grapheme clusters), of one script.
///
/// Its `key` is what two names are compared by: two names with one key are one name
/// ("Alice One", "alice one", "ＡＬＩＣＥ ＯＮＥ", a Cyrillic "Аlice One").
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(into = "String")]
pub struct UserName {
    display: String,
    key: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NameError {
    #[error("a name is 2 to 24 characters long")]
    Length,
    #[error("a name holds letters (with their accents and tone marks), digits, single spaces and - _ . ' only, and starts with a letter or digit")]
    Characters,
    #[error("an accent or tone mark goes on a letter, at most 4 on one letter")]
    Marks,
    #[error("a name is written in one script (not, say, Latin and Cyrillic letters mixed)")]
    MixedScripts,
}

/// More marks than this on one letter is decoration (or an attempt to draw over the line).
const MAX_MARKS: usize = 4;

impl UserName {
    /// Input longer than this (in bytes) cannot be a name; refused before any work is done
    /// on it.
    pub const MAX_INPUT_BYTES: usize = 1024;
    pub const MIN_CHARS: usize = 2;
    pub const MAX_CHARS: usize = 24;

    /// Reads a name as typed. Spaces at the edges go, a typographic apostrophe (’, as phones
    /// type it) becomes `'`, and compatibility forms become their plain letters (NFKC:
    /// fullwidth "Ｔｕｎｄｅ" is "Tunde"). Letters may carry combining marks (Yoruba tone
    /// marks on ọ and ẹ); control and format characters (zero-width joiners, bidi overrides)
    /// and symbols are refused.
    pub fn parse(raw: &str) -> Result<UserName, NameError> {
        if raw.len() > Self::MAX_INPUT_BYTES {
            return Err(NameError::Length);
        }
        let name: String = raw.replace('\u{2019}', "'").nfkc().collect();
        let name = name.trim();
        let length = name.graphemes(true).count();
        if !(Self::MIN_CHARS..=Self::MAX_CHARS).contains(&length) {
            return Err(NameError::Length);
        }
        check_characters(name)?;
        // Scripts are judged on the letters alone: spaces, digits and `-_.'` belong to all.
        let letters: String = name.chars().filter(|c| c.is_alphanumeric()).collect();
        if !letters.as_str().is_single_script() {
            return Err(NameError::MixedScripts);
        }
        Ok(UserName {
            display: name.to_owned(),
            key: name_key(name),
        })
    }

    /// The name as shown.
    pub fn as_str(&self) -> &str {
        &self.display
    }

    /// What names are compared by: equal keys, one name.
    pub fn key(&self) -> &str {
        &self.key
    }
}

/// Letters, digits, single spaces and `-_.'`, starting with a letter or digit; a combining
/// mark only after a letter (or another of its marks), at most `MAX_MARKS` in a row.
fn check_characters(name: &str) -> Result<(), NameError> {
    let mut marks = 0;
    // Whether the last character was a letter or one of its marks: a mark may follow.
    let mut on_letter = false;
    let mut last = ' ';
    for (i, c) in name.chars().enumerate() {
        if is_combining_mark(c) {
            marks += 1;
            if !on_letter || marks > MAX_MARKS {
                return Err(NameError::Marks);
            }
        } else {
            marks = 0;
            let allowed = c.is_alphanumeric()
                || (i > 0 && matches!(c, '-' | '_' | '.' | '\''))
                || (i > 0 && c == ' ' && last != ' ');
            if !allowed {
                return Err(NameError::Characters);
            }
            on_letter = c.is_alphabetic();
        }
        last = c;
    }
    Ok(())
}

/// The comparison key of any name, also one stored before these rules or a house name.
///
/// Marks and separators are set aside first: "Bàbá Ayọ̀", "Baba_Ayo" and "BabaAyo" are all
/// "Baba Ayo" to a reader glancing at the room list, and "Adewale" is "Adéwálé" typed on a
/// keyboard without tone marks. The name itself keeps its marks as written.
///
/// Unicode TS #39's skeleton makes look-alikes equal, and case folding makes cases equal;
/// neither order alone does both (the skeleton of a lowercase Cyrillic "в" is not "b", the
/// skeleton of "I" is "l" but that of "i" is not), so: NFKC, upper case (so case cannot
/// matter), skeleton (catches capital look-alikes: Cyrillic "В" is "B"), case fold, skeleton
/// again (catches small ones: "rn" is "m"), and what the skeletons brought of marks and
/// separators set aside again. The price: a few names alike only through their capitals
/// count as one ("ilse" and "llse", since "I" looks like "l").
pub fn name_key(name: &str) -> String {
    let upper = bare(&name.nfkc().collect::<String>()).to_uppercase();
    let capitals: String = skeleton(&upper).collect();
    let folded = caseless::default_case_fold_str(&capitals);
    bare(&skeleton(&folded).collect::<String>())
}

/// `text` without its combining marks (taken apart first, NFD) and separators.
fn bare(text: &str) -> String {
    text.nfd()
        .filter(|&c| !is_combining_mark(c) && !is_separator(c))
        .collect()
}

/// What people put between the parts of a name; two names apart only in these are one.
fn is_separator(c: char) -> bool {
    c.is_whitespace() || matches!(c, '_' | '-' | '.' | '\u{2010}'..='\u{2015}')
}

impl From<UserName> for String {
    fn from(n: UserName) -> String {
        n.display
    }
}

impl fmt::Display for UserName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display)
    }
}

/// A user as the protocol shows one: `{"id", "name"}`, with `"house": true` for Baba Ayo
/// and `"ratings"` in rooms where they have some.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct User {
    pub id: UserId,
    pub name: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub house: bool,
    /// Their ratings as shown beside their name, as they stood when they connected; left out
    /// where they have none (and wherever the lounge does not show them: histories, the wall).
    /// Boxed: a user is in many events, most of them with no ratings to show.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratings: Option<Box<ShownRatings>>,
}

/// A player's ratings as shown beside their name, a rule family each: the rating rounded,
/// with "?" while provisional (`"1662?"`); a family they have no rating in is left out.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ShownRatings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abapa: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ayoayo: Option<String>,
}

impl ShownRatings {
    pub fn is_empty(&self) -> bool {
        self.abapa.is_none() && self.ayoayo.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(raw: &str) -> String {
        UserName::parse(raw).unwrap().key().to_owned()
    }

    #[test]
    fn case_and_edge_spaces_make_one_name() {
        let name = UserName::parse("  Alice One  ").unwrap();
        assert_eq!(name.as_str(), "Alice One");
        assert_eq!(key("Alice One"), key("alice one"));
        assert_eq!(key("Alice One"), name.key());
        assert_eq!(key("ALICE ONE"), key("alice one"));
        assert_ne!(key("Alice One"), key("Alice Two"));
        assert_eq!(key("Alice One"), key("AliceOne"));
    }

    #[test]
    fn marks_and_separators_are_set_aside_but_kept_in_the_name() {
        let house = name_key("Baba Ayo");
        for alike in [
            "Bàbá Ayọ̀",
            "Bàbá Àyọ̀",
            "Bába Ayo",
            "Baba Ayọ",
            "Baba_Ayo",
            "BabaAyo",
            "Baba-Ayo",
            "Baba.Ayo",
            "B.a.b.a A.y.o",
            "BÀBÁ AYỌ̀",
        ] {
            assert_eq!(key(alike), house, "{alike}");
        }
        assert_eq!(key("Adewale"), key("Adéwálé"));
        assert_eq!(key("ADÉWÁLÉ"), key("Adéwálé"));
        assert_eq!(UserName::parse("Adéwálé").unwrap().as_str(), "Adéwálé");
        assert_ne!(key("Adewale"), key("Adewole"));
        assert_ne!(key("Baba Ayo"), key("Baba Ayodele"));
    }

    #[test]
    fn compatibility_forms_become_plain_letters() {
        let tunde = UserName::parse("Ｔｕｎｄｅ").unwrap();
        assert_eq!(tunde.as_str(), "Tunde");
        assert_eq!(tunde.key(), key("tunde"));
        // A no-break space is a space.
        assert_eq!(
            UserName::parse("Ade\u{a0}Bayo").unwrap().as_str(),
            "Ade Bayo"
        );
    }

    #[test]
    fn look_alikes_share_a_key() {
        // Cyrillic В with Latin letters: refused as mixed, and a look-alike anyway.
        assert_eq!(UserName::parse("Вaba Ayo"), Err(NameError::MixedScripts));
        assert_eq!(name_key("Вaba Ayo"), name_key("Baba Ayo"));
        // All Cyrillic, one script, but it looks like the house's name.
        assert_eq!(key("Вава Ауо"), name_key("Baba Ayo"));
        assert_eq!(key("ВАВА АУО"), name_key("Baba Ayo"));
        assert_eq!(key("Tim"), key("Tirn"));
        assert_eq!(key("Ilse"), key("llse"));
        assert_eq!(key("Ilse"), key("ilse"));
        assert_eq!(name_key("Baba Ayo"), name_key("  BABA AYO "));
    }

    #[test]
    fn yoruba_names_in_nfc_and_nfd_are_one_name_shown_in_nfc() {
        let nfc: String = "Adébáyọ̀".nfc().collect();
        let nfd: String = "Adébáyọ̀".nfd().collect();
        assert_ne!(nfc, nfd);
        let (a, b) = (
            UserName::parse(&nfc).unwrap(),
            UserName::parse(&nfd).unwrap(),
        );
        assert_eq!(a.as_str(), nfc);
        assert_eq!(b.as_str(), nfc);
        assert_eq!(a.key(), b.key());
        for name in ["Ọlọ́run", "Ẹ̀kọ́ Ṣọlá", "Chukwụ Ngozi", "Ɗanƙwali", "Ọ̀ṣun"]
        {
            UserName::parse(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        // Other scripts, each alone.
        for name in ["さくら", "أحمد", "अर्जुन", "Дмитрий", "王小明"] {
            UserName::parse(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }

    #[test]
    fn length_is_counted_as_a_reader_sees_it() {
        assert_eq!(UserName::parse("A"), Err(NameError::Length));
        assert_eq!(UserName::parse("   "), Err(NameError::Length));
        let nfd: String = "ọ̀".nfd().collect();
        assert_eq!(nfd.chars().count(), 3);
        // 24 letters each with two marks: 72 characters, 24 as seen.
        assert!(UserName::parse(&nfd.repeat(24)).is_ok());
        assert_eq!(UserName::parse(&nfd.repeat(25)), Err(NameError::Length));
        assert_eq!(UserName::parse(&"a".repeat(5000)), Err(NameError::Length));
    }

    #[test]
    fn marks_go_on_letters_a_few_at_a_time() {
        assert_eq!(UserName::parse("\u{300}Ade"), Err(NameError::Marks));
        assert_eq!(UserName::parse("Ade 1\u{300}"), Err(NameError::Marks));
        assert_eq!(UserName::parse("Ade \u{300}"), Err(NameError::Marks));
        // Six marks (NFC takes the first into "è"; five stay).
        let zalgo = format!("Ade{}", "\u{300}\u{301}\u{302}\u{303}\u{304}\u{306}");
        assert_eq!(UserName::parse(&zalgo), Err(NameError::Marks));
    }

    #[test]
    fn invisible_and_control_characters_are_refused() {
        for raw in [
            "Ade\u{200d}bayo",
            "Ade\u{200b}bayo",
            "Ade\u{200c}bayo",
            "\u{202e}Adebayo",
            "Ade\u{202e}bayo",
            "Ade\u{2066}bayo",
            "Ade\u{200f}bayo",
            "Ade\u{ad}bayo",
            "Ade\u{7}bayo",
            "Ade\tbayo",
            "Ade\u{feff}bayo",
            "Ade  Bayo",
            "-Ade",
            "Ade 🙂",
            "Ade\u{e000}",
        ] {
            assert!(
                matches!(UserName::parse(raw), Err(NameError::Characters)),
                "{raw:?}: {:?}",
                UserName::parse(raw)
            );
        }
    }

    #[test]
    fn scripts_are_not_mixed() {
        assert_eq!(UserName::parse("Ivan Иван"), Err(NameError::MixedScripts));
        assert_eq!(UserName::parse("Αlice"), Err(NameError::MixedScripts));
        assert!(UserName::parse("O'Brien-Smith Jr.").is_ok());
        assert_eq!(
            UserName::parse("O\u{2019}Brien").unwrap().as_str(),
            "O'Brien"
        );
    }
}
