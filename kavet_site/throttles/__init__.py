"""Rate-limit counters kept in the database, shared by every web process (kavet_site.throttles.counters)."""
