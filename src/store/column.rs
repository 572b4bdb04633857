//! Typed columns: values the database keeps as text (a word, a time control, a rule set as
//! JSON) and the rows hold as their types. Each is written as it is shown and read back
//! through its parser, on SQLite, PostgreSQL and the `MultiBackend` of [`super::Db`]. A stored
//! value that does not parse is a deserialization error naming it, never a default.

use std::borrow::Cow;
use std::fmt;
use std::io::Write as _;
use std::str::FromStr;

use diesel::deserialize::{self, FromSql};
use diesel::pg::Pg;
use diesel::serialize::{self, IsNull, Output, ToSql};
use diesel::sql_types::Text;
use diesel::sqlite::Sqlite;

use super::MultiBackend;
use crate::ayo::clock::TimeControl;
use crate::ayo::{Rules, Side, Status};
use crate::common::{Door, RoomKind, Seating};

/// A stored value that does not read as its type.
#[derive(Debug)]
pub struct Unreadable {
    what: &'static str,
    stored: String,
    error: String,
}

impl fmt::Display for Unreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "stored {} `{}` does not read: {}",
            self.what, self.stored, self.error
        )
    }
}

impl std::error::Error for Unreadable {}

/// A type kept in a `Text` column: how it is written and how it is read back.
pub trait TextColumn: Sized {
    /// What it is, for the error when a stored value does not read.
    const WHAT: &'static str;

    fn to_text(&self) -> Cow<'_, str>;

    fn from_text(s: &str) -> Result<Self, String>;

    /// Reads a stored value, the error naming it.
    fn read(s: &str) -> Result<Self, Unreadable> {
        Self::from_text(s).map_err(|error| Unreadable {
            what: Self::WHAT,
            stored: s.to_owned(),
            error,
        })
    }
}

/// Implements diesel's `AsExpression`, `ToSql`, `FromSql` and `Queryable` over `Text` for a
/// [`TextColumn`] type (what `#[derive(AsExpression, FromSqlRow)]` and the hand-written
/// `ToSql`/`FromSql` of each backend would be, for types defined outside the store).
macro_rules! text_column {
    ($($ty:ty),* $(,)?) => {$(
        impl diesel::expression::AsExpression<Text> for $ty {
            type Expression = diesel::internal::derives::as_expression::Bound<Text, Self>;
            fn as_expression(self) -> Self::Expression {
                diesel::internal::derives::as_expression::Bound::new(self)
            }
        }

        impl diesel::expression::AsExpression<diesel::sql_types::Nullable<Text>> for $ty {
            type Expression = diesel::internal::derives::as_expression::Bound<
                diesel::sql_types::Nullable<Text>,
                Self,
            >;
            fn as_expression(self) -> Self::Expression {
                diesel::internal::derives::as_expression::Bound::new(self)
            }
        }

        impl<'a> diesel::expression::AsExpression<Text> for &'a $ty {
            type Expression = diesel::internal::derives::as_expression::Bound<Text, Self>;
            fn as_expression(self) -> Self::Expression {
                diesel::internal::derives::as_expression::Bound::new(self)
            }
        }

        impl<'a> diesel::expression::AsExpression<diesel::sql_types::Nullable<Text>> for &'a $ty {
            type Expression = diesel::internal::derives::as_expression::Bound<
                diesel::sql_types::Nullable<Text>,
                Self,
            >;
            fn as_expression(self) -> Self::Expression {
                diesel::internal::derives::as_expression::Bound::new(self)
            }
        }

        impl<'a, 'b> diesel::expression::AsExpression<Text> for &'b &'a $ty {
            type Expression = diesel::internal::derives::as_expression::Bound<Text, Self>;
            fn as_expression(self) -> Self::Expression {
                diesel::internal::derives::as_expression::Bound::new(self)
            }
        }

        impl<DB> ToSql<diesel::sql_types::Nullable<Text>, DB> for $ty
        where
            DB: diesel::backend::Backend,
            Self: ToSql<Text, DB>,
        {
            fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, DB>) -> serialize::Result {
                ToSql::<Text, DB>::to_sql(self, out)
            }
        }

        impl ToSql<Text, Pg> for $ty {
            fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
                out.write_all(TextColumn::to_text(self).as_bytes())?;
                Ok(IsNull::No)
            }
        }

        impl ToSql<Text, Sqlite> for $ty {
            fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Sqlite>) -> serialize::Result {
                out.set_value(TextColumn::to_text(self).into_owned());
                Ok(IsNull::No)
            }
        }

        impl ToSql<Text, MultiBackend> for $ty {
            fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, MultiBackend>) -> serialize::Result {
                out.set_value((Text, self));
                Ok(IsNull::No)
            }
        }

        impl FromSql<Text, Pg> for $ty {
            fn from_sql(bytes: <Pg as diesel::backend::Backend>::RawValue<'_>) -> deserialize::Result<Self> {
                let s = <String as FromSql<Text, Pg>>::from_sql(bytes)?;
                Ok(<$ty as TextColumn>::read(&s)?)
            }
        }

        impl FromSql<Text, Sqlite> for $ty {
            fn from_sql(bytes: <Sqlite as diesel::backend::Backend>::RawValue<'_>) -> deserialize::Result<Self> {
                let s = <String as FromSql<Text, Sqlite>>::from_sql(bytes)?;
                Ok(<$ty as TextColumn>::read(&s)?)
            }
        }

        impl FromSql<Text, MultiBackend> for $ty {
            fn from_sql(bytes: <MultiBackend as diesel::backend::Backend>::RawValue<'_>) -> deserialize::Result<Self> {
                bytes.from_sql::<$ty, Text>()
            }
        }

        impl<DB, ST> diesel::deserialize::Queryable<ST, DB> for $ty
        where
            DB: diesel::backend::Backend,
            ST: diesel::sql_types::SingleValue,
            Self: FromSql<ST, DB>,
        {
            type Row = Self;
            fn build(row: Self) -> deserialize::Result<Self> {
                Ok(row)
            }
        }
    )*};
}
pub(super) use text_column;

/// A rule set, as JSON.
impl TextColumn for Rules {
    const WHAT: &'static str = "rules";

    fn to_text(&self) -> Cow<'_, str> {
        // A struct of switches always serializes.
        Cow::Owned(serde_json::to_string(self).expect("rules serialize"))
    }

    fn from_text(s: &str) -> Result<Self, String> {
        serde_json::from_str(s).map_err(|e| e.to_string())
    }
}

impl TextColumn for RoomKind {
    const WHAT: &'static str = "room kind";

    fn to_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(self.as_str())
    }

    fn from_text(s: &str) -> Result<Self, String> {
        RoomKind::from_str(s).map_err(|e| e.to_string())
    }
}

/// A game's status: `playing`, `south_won`, `north_won` or `draw`.
impl TextColumn for Status {
    const WHAT: &'static str = "game status";

    fn to_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(status_word(*self))
    }

    fn from_text(s: &str) -> Result<Self, String> {
        match s {
            "playing" => Ok(Status::Playing),
            "south_won" => Ok(Status::SouthWon),
            "north_won" => Ok(Status::NorthWon),
            "draw" => Ok(Status::Draw),
            other => Err(format!(
                "`{other}` is not a game status: playing, south_won, north_won or draw"
            )),
        }
    }
}

/// A game status's stored word.
pub fn status_word(status: Status) -> &'static str {
    match status {
        Status::Playing => "playing",
        Status::SouthWon => "south_won",
        Status::NorthWon => "north_won",
        Status::Draw => "draw",
    }
}

/// A match's time control: `none`, `90s`, `3+2`, ...
impl TextColumn for TimeControl {
    const WHAT: &'static str = "time control";

    fn to_text(&self) -> Cow<'_, str> {
        Cow::Owned(self.to_string())
    }

    fn from_text(s: &str) -> Result<Self, String> {
        TimeControl::from_str(s).map_err(|e| e.to_string())
    }
}

impl TextColumn for super::ItemKind {
    const WHAT: &'static str = "item kind";

    fn to_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(self.as_str())
    }

    fn from_text(s: &str) -> Result<Self, String> {
        match s {
            "ayo_board" => Ok(super::ItemKind::AyoBoard),
            "furniture" => Ok(super::ItemKind::Furniture),
            other => Err(format!(
                "`{other}` is not an item kind: ayo_board or furniture"
            )),
        }
    }
}

impl TextColumn for Door {
    const WHAT: &'static str = "door";

    fn to_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(self.as_str())
    }

    fn from_text(s: &str) -> Result<Self, String> {
        Door::from_str(s).map_err(|e| e.to_string())
    }
}

/// A side of the board: `south` or `north` (who moved first in a game).
impl TextColumn for Side {
    const WHAT: &'static str = "side";

    fn to_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(self.name())
    }

    fn from_text(s: &str) -> Result<Self, String> {
        match s {
            "south" => Ok(Side::South),
            "north" => Ok(Side::North),
            other => Err(format!("`{other}` is not a side: south or north")),
        }
    }
}

/// A match's seating: `lots` or `kept`.
impl TextColumn for Seating {
    const WHAT: &'static str = "seating";

    fn to_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(self.as_str())
    }

    fn from_text(s: &str) -> Result<Self, String> {
        Seating::from_str(s).map_err(|e| e.to_string())
    }
}

text_column!(
    Rules,
    RoomKind,
    Door,
    Status,
    Side,
    Seating,
    TimeControl,
    super::ItemKind
);

/// Typed ids: stored as they are.
macro_rules! id_column {
    ($($ty:ident),*) => {$(
        impl TextColumn for crate::common::$ty {
            const WHAT: &'static str = stringify!($ty);

            fn to_text(&self) -> Cow<'_, str> {
                Cow::Borrowed(self.as_str())
            }

            fn from_text(s: &str) -> Result<Self, String> {
                Ok(crate::common::$ty::new(s))
            }
        }

        text_column!(crate::common::$ty);
    )*};
}

id_column!(
    UserId,
    RoomId,
    TableId,
    GameId,
    MatchId,
    InvitationId,
    ItemId,
    OperatorName
);

/// Rows read one by one: a row that does not read is logged and left out (`what` names
/// them), the others kept; any other error fails the read.
pub(super) fn readable<T>(
    rows: impl Iterator<Item = diesel::QueryResult<T>>,
    what: &str,
) -> Result<Vec<T>, super::StoreError> {
    let mut read = Vec::new();
    for row in rows {
        match row {
            Ok(row) => read.push(row),
            Err(diesel::result::Error::DeserializationError(e)) => {
                tracing::error!(error = %e, "{what}: a stored row does not read; it is left out");
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(read)
}

#[cfg(test)]
mod tests {
    use diesel::prelude::*;
    use diesel::sql_types::Text;

    use super::super::{new_id, DatabaseUrl, RoomRow, Store, StoreError, TableRow};
    use crate::ayo::{Preset, Rules};
    use crate::common::{RoomId, RoomKind};

    fn sqlite() -> (Store, std::path::PathBuf) {
        let path = std::env::temp_dir().join(format!("lounge-column-{}.db", new_id()));
        let store = Store::open(&DatabaseUrl::Sqlite(path.clone()), 2).unwrap();
        (store, path)
    }

    fn raw(store: &Store, sql: &str) {
        diesel::sql_query(sql)
            .execute(&mut *store.conn().unwrap())
            .unwrap();
    }

    fn lounge(store: &Store, id: &str, tables: i32) {
        let room = RoomRow {
            id: RoomId::new(id),
            name: id.into(),
            kind: RoomKind::Lounge,
            owner_id: None,
            created_at: store.now(),
        };
        let tables: Vec<TableRow> = (1..=tables)
            .map(|n| TableRow {
                id: format!("{id}-{n}").into(),
                room_id: RoomId::new(id),
                position: n,
                rules: Preset::Kontest.rules(),
                queue: None,
            })
            .collect();
        assert!(store.ensure_room(&room, &tables).unwrap());
    }

    #[derive(QueryableByName)]
    struct Word {
        #[diesel(sql_type = Text)]
        word: String,
    }

    #[test]
    fn typed_values_are_stored_as_their_words() {
        let (store, path) = sqlite();
        lounge(&store, "l", 1);
        let words: Vec<Word> = diesel::sql_query(
            "SELECT kind AS word FROM rooms UNION ALL SELECT rules AS word FROM ayo_tables",
        )
        .load(&mut *store.conn().unwrap())
        .unwrap();
        assert_eq!(words[0].word, "lounge");
        let rules: Rules = serde_json::from_str(&words[1].word).unwrap();
        assert_eq!(rules, Preset::Kontest.rules());
        assert_eq!(
            store.tables(&RoomId::new("l")).unwrap()[0].rules,
            Preset::Kontest.rules()
        );
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn a_table_whose_rules_do_not_read_is_left_out_not_given_the_default() {
        let (store, path) = sqlite();
        lounge(&store, "l", 3);
        raw(
            &store,
            "UPDATE ayo_tables SET rules = '{}' WHERE id = 'l-2'",
        );
        let ids: Vec<String> = store
            .tables(&RoomId::new("l"))
            .unwrap()
            .into_iter()
            .map(|t| t.id.into_string())
            .collect();
        assert_eq!(ids, ["l-1", "l-3"]);
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn a_room_of_an_unknown_kind_is_refused() {
        let (store, path) = sqlite();
        lounge(&store, "a", 1);
        lounge(&store, "b", 1);
        raw(&store, "UPDATE rooms SET kind = 'ballroom' WHERE id = 'a'");
        assert!(matches!(
            store.room(&RoomId::new("a")),
            Err(StoreError::Query(
                diesel::result::Error::DeserializationError(_)
            ))
        ));
        let open: Vec<String> = store
            .rooms_to_open()
            .unwrap()
            .into_iter()
            .map(|r| r.room.id.into_string())
            .collect();
        assert_eq!(open, ["b"]);
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn typed_ids_query_text_columns() {
        use super::super::schema::rooms;
        let (store, path) = sqlite();
        lounge(&store, "l", 1);
        let id: RoomId = rooms::table
            .filter(rooms::id.eq(RoomId::new("l")))
            .select(rooms::id)
            .first(&mut *store.conn().unwrap())
            .unwrap();
        assert_eq!(id, RoomId::new("l"));
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn an_unknown_word_reads_as_an_error_naming_it() {
        use super::TextColumn;
        let e = crate::ayo::Status::read("won_by_south").unwrap_err();
        assert!(e.to_string().contains("won_by_south"), "{e}");
        assert!(super::super::MatchStatus::read("south_won").is_err());
        assert_eq!(
            crate::ayo::clock::TimeControl::read("3+2")
                .unwrap()
                .to_string(),
            "3+2"
        );
    }
}
