DROP TABLE moves;
DROP TABLE games;
DROP TABLE ayo_tables;
DROP TABLE rooms;
DROP TABLE users;
