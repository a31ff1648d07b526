-- A tournament's name, as its organiser gave it (`tournament run --name`): shown on its pages
-- instead of its number alone.

ALTER TABLE tournaments ADD COLUMN name TEXT;
