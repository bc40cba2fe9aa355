"""The Class tab: a folder of hand-ins, one row per student, the class chart."""
