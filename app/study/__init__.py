"""Qt-free studies: plans, presets, the sweep runner and the environment snapshot."""
