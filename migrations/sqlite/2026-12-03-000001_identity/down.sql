DROP TABLE hotel_accounts;
DROP TABLE passwords;
DROP TABLE refresh_credentials;
DROP TABLE devices;
