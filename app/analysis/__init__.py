"""Qt-free statistics, comparisons and findings text over stored measurements."""
