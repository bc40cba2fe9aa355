"""The iperf3 engine: its driver, options, parsers, errors, server and phrases."""
