//! The tables, the same on SQLite and PostgreSQL (`migrations/<backend>/`).

diesel::table! {
    users (id) {
        id -> Text,
        name -> Text,
        house -> Bool,
        created_at -> Timestamp,
    }
}

diesel::table! {
    rooms (id) {
        id -> Text,
        name -> Text,
        kind -> Text,
        owner_id -> Nullable<Text>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    ayo_tables (id) {
        id -> Text,
        room_id -> Text,
        position -> Integer,
        rules -> Text,
    }
}

diesel::table! {
    games (id) {
        id -> Text,
        table_id -> Text,
        south_id -> Text,
        north_id -> Text,
        rules -> Text,
        house -> Bool,
        status -> Text,
        end_reason -> Nullable<Text>,
        started_at -> Timestamp,
        ended_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    moves (game_id, ply) {
        game_id -> Text,
        ply -> Integer,
        pit -> Integer,
        played_at -> Timestamp,
    }
}

diesel::joinable!(ayo_tables -> rooms (room_id));
diesel::joinable!(games -> ayo_tables (table_id));
diesel::joinable!(moves -> games (game_id));
diesel::allow_tables_to_appear_in_same_query!(users, rooms, ayo_tables, games, moves);
