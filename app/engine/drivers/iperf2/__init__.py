"""The iperf 2 engine: its driver, options, parser, errors, server and phrases."""
