"""LinkLab's own latency tool: the UDP echo responder, the prober, its results, the method."""
