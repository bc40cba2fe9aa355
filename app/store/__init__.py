"""Qt-free SQLite store: schema, migrations and the session repository."""
