"""The Sessions tab: every stored session, its view, and exchange files."""
