-- Names are now compared with their marks and separators set aside: every stored key is
-- made again when the store opens (Store::key_names; of two names now alike, the later is
-- renamed with a number, and house names stay reserved).
UPDATE users SET name_key = NULL;
