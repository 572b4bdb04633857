ALTER TABLE matches DROP COLUMN seats;
ALTER TABLE games DROP COLUMN first_side;
