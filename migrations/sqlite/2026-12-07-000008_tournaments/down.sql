DROP TABLE tournament_pairings;
DROP TABLE tournament_players;
DROP TABLE tournament_entries;
DROP TABLE tournaments;
