-- How many identical events one audit row stands for (issue 8 review: an unauthenticated
-- flood of refused HTTP requests folds into one row per reason and second past a rate).
ALTER TABLE audit_events ADD COLUMN count INTEGER NOT NULL DEFAULT 1;
