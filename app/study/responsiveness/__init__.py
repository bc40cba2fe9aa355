"""The responsiveness test: run against a peer, kept, compared."""
