// Postgres module.
