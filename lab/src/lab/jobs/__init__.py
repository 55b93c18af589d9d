"""Job consumers for the Cairn job queue (embedded SQLite and BullMQ on Redis)."""
