"""The Settings tab: engine paths, default ports, the database file."""
