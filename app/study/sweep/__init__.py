"""The sweep: plans checked, run point by point, monitors, their events and words."""
