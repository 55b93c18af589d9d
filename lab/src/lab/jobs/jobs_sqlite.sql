-- Copy of the SQLite DDL of Cairn's embedded job queue (adapters/queue/embedded-store.ts,
-- migration jobs:001_jobs). The service creates the table; the lab keeps this copy
-- so its tests can. adapters/queue/embedded.test.ts asserts the two texts match.
CREATE TABLE jobs (
  queue TEXT NOT NULL,
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  data TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('waiting', 'active', 'completed', 'failed', 'delayed')),
  attempts_made INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL,
  backoff_ms INTEGER NOT NULL,
  run_at TEXT NOT NULL,
  lease_until TEXT,
  locked_by TEXT,
  progress TEXT NOT NULL DEFAULT '0',
  result TEXT,
  error TEXT,
  created_at TEXT NOT NULL,
  finished_at TEXT,
  PRIMARY KEY (queue, id)
);
CREATE INDEX jobs_queue_status_run_at ON jobs (queue, status, run_at);
