"""The netperf engine: its driver, options, parser, errors, server (netserver) and phrases."""
