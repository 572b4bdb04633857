DROP TABLE hidden_whereabouts;
DROP TABLE follows;
