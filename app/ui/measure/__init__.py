"""The Measure tab: the set-up form (Study and Advanced pages), Start/Stop, live charts."""
