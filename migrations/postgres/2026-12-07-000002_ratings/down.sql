DROP TABLE rating_changes;
DROP TABLE ratings;
DROP TABLE rated_matches;
