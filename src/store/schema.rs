//! The tables, the same on SQLite and PostgreSQL (`migrations/<backend>/`).

diesel::table! {
    users (id) {
        id -> Text,
        name -> Text,
        house -> Bool,
        created_at -> Timestamp,
        coins -> BigInt,
        name_key -> Nullable<Text>,
    }
}

diesel::table! {
    rooms (id) {
        id -> Text,
        name -> Text,
        kind -> Text,
        owner_id -> Nullable<Text>,
        created_at -> Timestamp,
        closed_at -> Nullable<Timestamp>,
        door -> Nullable<Text>,
        slow_mode_secs -> Integer,
    }
}

diesel::table! {
    ayo_tables (id) {
        id -> Text,
        room_id -> Text,
        position -> Integer,
        rules -> Text,
        removed_at -> Nullable<Timestamp>,
        queue -> Nullable<Bool>,
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
        match_id -> Nullable<Text>,
        number -> Nullable<Integer>,
        clock_started_ms -> Nullable<BigInt>,
        first_side -> Text,
    }
}

diesel::table! {
    moves (game_id, ply) {
        game_id -> Text,
        ply -> Integer,
        pit -> Integer,
        played_at -> Timestamp,
        at_ms -> Nullable<BigInt>,
        south_ms -> Nullable<BigInt>,
        north_ms -> Nullable<BigInt>,
    }
}

diesel::table! {
    matches (id) {
        id -> Text,
        table_id -> Text,
        first_id -> Text,
        second_id -> Text,
        house -> Bool,
        best_of -> Integer,
        clock -> Text,
        rules -> Text,
        status -> Text,
        winner_id -> Nullable<Text>,
        end_reason -> Nullable<Text>,
        first_halves -> Integer,
        second_halves -> Integer,
        started_at -> Timestamp,
        ended_at -> Nullable<Timestamp>,
        seats -> Text,
    }
}

diesel::table! {
    clock_pauses (game_id, stopped_ms) {
        game_id -> Text,
        stopped_ms -> BigInt,
        resumed_ms -> BigInt,
    }
}

diesel::table! {
    heartbeats (id) {
        id -> Text,
        at_ms -> BigInt,
    }
}

diesel::table! {
    apartment_guests (room_id, user_id) {
        room_id -> Text,
        user_id -> Text,
        invited_at -> Timestamp,
    }
}

diesel::table! {
    shop_items (id) {
        id -> Text,
        name -> Text,
        kind -> Text,
        wood -> Nullable<Text>,
        finish -> Nullable<Text>,
        price -> BigInt,
        stock -> Nullable<Integer>,
        on_sale -> Bool,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    purchases (id) {
        id -> Text,
        user_id -> Text,
        item_id -> Text,
        item_name -> Text,
        price -> BigInt,
        balance -> BigInt,
        idempotency_key -> Nullable<Text>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    coin_entries (id) {
        id -> Text,
        user_id -> Text,
        amount -> BigInt,
        balance -> BigInt,
        reason -> Text,
        note -> Text,
        purchase_id -> Nullable<Text>,
        actor -> Nullable<Text>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    inventory (id) {
        id -> Text,
        user_id -> Text,
        item_id -> Text,
        purchase_id -> Nullable<Text>,
        table_id -> Nullable<Text>,
        acquired_at -> Timestamp,
    }
}

diesel::table! {
    audit_log (id) {
        id -> Text,
        actor -> Text,
        action -> Text,
        target -> Text,
        details -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    game_results (game_id) {
        game_id -> Text,
        day -> Text,
        winner_id -> Text,
        loser_id -> Text,
        seeds -> Integer,
        house_level -> Nullable<Text>,
        counts -> Bool,
        ended_at -> Timestamp,
        wall_reason -> Nullable<Text>,
        seq -> BigInt,
        drawn -> Bool,
    }
}

// A cursor per reader of the results (2026-12-07-000001_result_cursors).
diesel::table! {
    result_cursors (reader) {
        reader -> Text,
        seq -> BigInt,
        moved_at -> Timestamp,
    }
}

// Baba Ayo's reviews of finished games (2026-12-07-000003_reviews).
diesel::table! {
    reviews (game_id) {
        game_id -> Text,
        status -> Text,
        asked_by -> Nullable<Text>,
        asked_at -> Timestamp,
        done_at -> Nullable<Timestamp>,
        budget_ms -> BigInt,
        body -> Nullable<Text>,
    }
}

// Identity (2026-12-03-000001_identity).
diesel::table! {
    devices (id) {
        id -> Text,
        user_id -> Text,
        label -> Text,
        created_ms -> BigInt,
        used_ms -> BigInt,
        expires_ms -> BigInt,
        revoked_ms -> Nullable<BigInt>,
        revoked_why -> Nullable<Text>,
        key_hash -> Nullable<Text>,
    }
}

diesel::table! {
    refresh_credentials (hash) {
        hash -> Text,
        device_id -> Text,
        created_ms -> BigInt,
        rotated_ms -> Nullable<BigInt>,
    }
}

diesel::table! {
    passwords (user_id) {
        user_id -> Text,
        phc -> Text,
        changed_ms -> BigInt,
    }
}

diesel::table! {
    hotel_accounts (issuer, subject) {
        issuer -> Text,
        subject -> Text,
        user_id -> Text,
        created_ms -> BigInt,
    }
}

// Civility (2026-12-03-000002_civility).
diesel::table! {
    mutes (user_id) {
        user_id -> Text,
        until_ms -> BigInt,
        reason -> Text,
        actor -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    room_bars (room_id, user_id) {
        room_id -> Text,
        user_id -> Text,
        until_ms -> BigInt,
        reason -> Text,
        actor -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    blocks (user_id, blocked_id) {
        user_id -> Text,
        blocked_id -> Text,
        created_at -> Timestamp,
    }
}

// Following others, and hiding one's room from them (2026-12-07-000006_follows).
diesel::table! {
    follows (follower_id, followed_id) {
        follower_id -> Text,
        followed_id -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    hidden_whereabouts (user_id) {
        user_id -> Text,
    }
}

diesel::joinable!(ayo_tables -> rooms (room_id));
diesel::joinable!(inventory -> shop_items (item_id));
diesel::joinable!(apartment_guests -> users (user_id));
diesel::joinable!(purchases -> shop_items (item_id));
diesel::joinable!(games -> ayo_tables (table_id));
diesel::joinable!(moves -> games (game_id));
diesel::joinable!(reviews -> games (game_id));
diesel::joinable!(games -> matches (match_id));
diesel::joinable!(clock_pauses -> games (game_id));
diesel::joinable!(refresh_credentials -> devices (device_id));
diesel::joinable!(passwords -> users (user_id));
diesel::joinable!(hotel_accounts -> users (user_id));
diesel::table! {
    bans (user_id) {
        user_id -> Text,
        reason -> Text,
        until -> Nullable<Timestamp>,
        banned_by -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    room_fences (room_id) {
        room_id -> Text,
        fence -> BigInt,
        owner -> Text,
    }
}

// Ratings (2026-12-07-000002_ratings). A rated match has a row here (`matches` is at
// diesel's 16 columns).
diesel::table! {
    rated_matches (match_id) {
        match_id -> Text,
    }
}

diesel::table! {
    ratings (user_id, family) {
        user_id -> Text,
        family -> Text,
        rating -> Double,
        deviation -> Double,
        volatility -> Double,
        games -> Integer,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    rating_changes (game_id, user_id) {
        game_id -> Text,
        user_id -> Text,
        family -> Text,
        seq -> BigInt,
        score -> Double,
        before_rating -> Double,
        before_deviation -> Double,
        before_volatility -> Double,
        after_rating -> Double,
        after_deviation -> Double,
        after_volatility -> Double,
        at -> Timestamp,
    }
}

diesel::table! {
    tournaments (id) {
        id -> Text,
        name -> Text,
        room_id -> Text,
        starts_at -> Timestamp,
        ends_at -> Timestamp,
        rules -> Text,
        clock -> Text,
        tables -> Text,
        invited_only -> Bool,
        rated -> Bool,
        created_by -> Text,
        created_at -> Timestamp,
        finished_at -> Nullable<Timestamp>,
        winner_id -> Nullable<Text>,
        berserk -> Bool,
    }
}

diesel::table! {
    tournament_entries (tournament_id, user_id) {
        tournament_id -> Text,
        user_id -> Text,
    }
}

diesel::table! {
    tournament_players (tournament_id, user_id) {
        tournament_id -> Text,
        user_id -> Text,
        joined_at -> Timestamp,
        left_at -> Nullable<Timestamp>,
        score -> Integer,
        wins_in_a_row -> Integer,
        games -> Integer,
    }
}

diesel::table! {
    tournament_pairings (match_id) {
        match_id -> Text,
        tournament_id -> Text,
        south_id -> Text,
        north_id -> Text,
        table_id -> Text,
        paired_at -> Timestamp,
        south_points -> Nullable<Integer>,
        north_points -> Nullable<Integer>,
        south_berserk -> Bool,
        north_berserk -> Bool,
    }
}

diesel::allow_tables_to_appear_in_same_query!(
    users,
    rooms,
    ayo_tables,
    games,
    moves,
    apartment_guests,
    shop_items,
    purchases,
    coin_entries,
    inventory,
    audit_log,
    game_results,
    matches,
    clock_pauses,
    heartbeats,
    devices,
    refresh_credentials,
    passwords,
    hotel_accounts,
    bans,
    mutes,
    room_bars,
    blocks,
    room_fences,
    result_cursors,
    reviews,
    ratings,
    rating_changes,
    rated_matches,
    follows,
    hidden_whereabouts,
    tournaments,
    tournament_entries,
    tournament_players,
    tournament_pairings,
);
