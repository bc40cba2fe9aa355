"""The Server tab: the local iperf3 server and netserver, and this computer's loopback servers."""
