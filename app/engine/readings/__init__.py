"""An engine run read: the run driven from its output, its samples checked, joined and read."""
