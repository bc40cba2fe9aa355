"""Child processes and programs: start, read and end them; find and probe engines; servers."""
