"""LinkLab's servers over the registry: this computer's own on the loopback, those on the link."""
