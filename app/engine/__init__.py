"""Qt-free engine layer: find tools, build argv, run child processes, parse their output."""
