//! Rule families: games whose rules sow and capture alike are one kind of game, rated
//! together and asked for together.

use super::{Capture, Rules, Sowing};

/// A rule family: games of one family are rated together and sought together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// Abapa-like: one lap of sowing, capturing 2s and 3s (lagos, kontest, oware, and any
    /// rules with those two switches, whatever their endings: grand slam, the no-capture
    /// limit, repetition and timeouts change how a game ends, not how it is played).
    Abapa,
    /// Relay sowing, capturing 4s (`ayoayo`).
    Ayoayo,
}

impl Family {
    pub const ALL: [Family; 2] = [Family::Abapa, Family::Ayoayo];

    /// The family of `rules`; `None` for rules of neither (relay sowing with 2-3 captures,
    /// one lap with 4s): those games are not rated.
    pub fn of(rules: &Rules) -> Option<Family> {
        match (rules.sowing, rules.capture) {
            (Sowing::Single, Capture::TwoThree) => Some(Family::Abapa),
            (Sowing::Relay, Capture::Four) => Some(Family::Ayoayo),
            _ => None,
        }
    }

    /// As stored and shown.
    pub fn word(self) -> &'static str {
        match self {
            Family::Abapa => "abapa",
            Family::Ayoayo => "ayoayo",
        }
    }

    pub fn from_word(word: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.word() == word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ayo::Preset;

    #[test]
    fn the_presets_fall_in_their_families() {
        assert_eq!(Family::of(&Preset::Lagos.rules()), Some(Family::Abapa));
        assert_eq!(Family::of(&Preset::Kontest.rules()), Some(Family::Abapa));
        assert_eq!(Family::of(&Preset::Oware.rules()), Some(Family::Abapa));
        assert_eq!(Family::of(&Preset::Ayoayo.rules()), Some(Family::Ayoayo));
    }

    #[test]
    fn custom_rules_are_in_a_family_by_their_sowing_and_capture_switches() {
        // Endings do not change the family.
        let ended_otherwise = Rules {
            no_capture_limit: 0,
            grand_slam: crate::ayo::GrandSlam::Illegal,
            ..Preset::Lagos.rules()
        };
        assert_eq!(Family::of(&ended_otherwise), Some(Family::Abapa));
        // An ayoayo preset with Abapa's switches plays Abapa.
        let abapa_from_ayoayo = Rules {
            sowing: Sowing::Single,
            capture: Capture::TwoThree,
            ..Preset::Ayoayo.rules()
        };
        assert_eq!(Family::of(&abapa_from_ayoayo), Some(Family::Abapa));
        // Mixed switches are neither.
        let relay_two_three = Rules {
            sowing: Sowing::Relay,
            ..Preset::Lagos.rules()
        };
        assert_eq!(Family::of(&relay_two_three), None);
        let single_four = Rules {
            capture: Capture::Four,
            ..Preset::Lagos.rules()
        };
        assert_eq!(Family::of(&single_four), None);
        for f in Family::ALL {
            assert_eq!(Family::from_word(f.word()), Some(f));
        }
    }
}
