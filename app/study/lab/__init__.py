"""Lab exercises and classes: exercise files, hand-ins, the class collector and the stations
that push to it."""
