"""The Responsiveness tab: a networkQuality-style test against a peer."""
