"""The Monitor tab: one flow measured over time until Stop, charted on a rolling window."""
