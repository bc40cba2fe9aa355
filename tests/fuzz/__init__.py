"""Fuzzing of LinkLab's readers (`make fuzz`; a smoke run of it is in the test suite)."""
