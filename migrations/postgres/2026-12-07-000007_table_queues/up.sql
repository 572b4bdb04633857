-- A table's queue on or off as an operator (or a home board's owner) set it; NULL: as its
-- room's kind has it (on in lounges, off at home).
ALTER TABLE ayo_tables ADD COLUMN queue BOOLEAN;
