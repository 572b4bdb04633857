DROP TABLE room_fences;
